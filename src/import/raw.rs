//! The file as data, for tools that write a modified copy (`normalize`): the JSON document as
//! a `serde_json::Value` (every field kept, extras and unknown extensions included) and the
//! bytes of every buffer, found with the same rules and safety checks as `load`. Draco
//! primitives come decoded (see `draco`), so what is written from here is uncompressed.

use super::budget;
use super::{Fault, ImportError, buffers, document, draco, findings::Findings, glb, meshopt};
use std::path::Path;

/// A glTF file's JSON and buffer bytes.
#[derive(Debug, Clone)]
pub struct RawAsset {
    pub json: serde_json::Value,
    /// One entry per `buffers[i]`, cut to its `byteLength`.
    pub buffers: Vec<Vec<u8>>,
    /// The file was a .glb (binary container) rather than JSON text.
    pub is_glb: bool,
    /// `(mesh, primitive)` of the Draco-compressed primitives, now decoded into plain
    /// accessors (the buffers and JSON above hold them uncompressed).
    pub draco_primitives: Vec<(usize, usize)>,
    /// Every image named by a file URI, read from the asset's folder (same rules as
    /// external buffers), so a copy written elsewhere can carry it.
    pub external_images: Vec<ExternalImage>,
}

/// One `images[index]` whose `uri` names a file: its bytes, or why they cannot be read.
#[derive(Debug, Clone)]
pub struct ExternalImage {
    pub index: usize,
    pub uri: String,
    pub bytes: Result<Vec<u8>, String>,
}

fn read_images(json: &serde_json::Value, base_dir: Option<&Path>) -> Vec<ExternalImage> {
    let images = json.get("images").and_then(serde_json::Value::as_array).into_iter().flatten();
    let mut out = Vec::new();
    for (index, image) in images.enumerate() {
        let Some(uri) = image.get("uri").and_then(serde_json::Value::as_str) else { continue };
        if uri.starts_with("data:") {
            continue;
        }
        let bytes = match base_dir {
            None => Err("the file was read from memory, with no folder to find it in".to_string()),
            Some(base) => buffers::contained_path(uri, base).and_then(|path| {
                super::file::read_regular(&path, u64::MAX)
                    .map_err(|e| format!("cannot read '{}': {e}", path.display()))
            }),
        };
        out.push(ExternalImage { index, uri: uri.to_string(), bytes });
    }
    out
}

/// The JSON and buffers of a file's bytes, validated as `load_bytes` validates them
/// (external buffers only from `base_dir`; with `None`, they are refused).
pub fn load_raw_bytes(bytes: &[u8], name: &str, base_dir: Option<&Path>) -> Result<RawAsset, ImportError> {
    build(bytes, base_dir, true)
        .map_err(|fault| ImportError { file: name.to_string(), message: fault.message() })
}

/// `load_raw_bytes` with Draco primitives left compressed, for a copy that changes no mesh
/// (`merge`): their accessors and compressed views are written back as the file has them.
pub fn load_raw_bytes_keeping_draco(
    bytes: &[u8],
    name: &str,
    base_dir: Option<&Path>,
) -> Result<RawAsset, ImportError> {
    build(bytes, base_dir, false)
        .map_err(|fault| ImportError { file: name.to_string(), message: fault.message() })
}

fn build(bytes: &[u8], base_dir: Option<&Path>, decode_draco: bool) -> Result<RawAsset, Fault> {
    // `parse` checks the framing and the document, and hands back the JSON text it read.
    let parsed = document::parse(bytes, &mut Findings::default())?;
    let root = parsed.document.as_json();
    // Compressed views are decoded into their fallback buffers, as `load` does.
    let compressed = meshopt::Plan::read(root)?;
    let mut buffers = buffers::resolve(root, parsed.bin, base_dir, |i| compressed.is_fallback(i))?;
    let budget = budget::Budget::of_input(bytes, &buffers);
    compressed.decode(root, &mut buffers, &budget)?;
    let is_glb = bytes.starts_with(glb::MAGIC);
    // The JSON chunk is padded with spaces; some writers pad with NUL bytes instead.
    let text = parsed.json;
    let end = text.iter().rposition(|&b| b != 0 && !b.is_ascii_whitespace()).map_or(0, |i| i + 1);
    let text = text.get(..end).unwrap_or(text);
    // `parse` skips strings it ignores without checking their UTF-8 (as browsers' lossy
    // decoders do), so such bytes are replaced here rather than refused: every command
    // then gives the same verdict on one file.
    let text = String::from_utf8_lossy(text);
    let text = clamp_huge_numbers(&text);
    let mut json = serde_json::from_str(&text).map_err(|e| Fault::new("", format!("invalid JSON: {e}")))?;
    // The copy that writes a modified file owns its buffers.
    let mut buffers: Vec<Vec<u8>> = buffers.into_iter().map(std::borrow::Cow::into_owned).collect();
    // Compressed geometry is written back decoded, unless kept: the copy's accessors are plain.
    let mut draco_primitives = Vec::new();
    if decode_draco {
        let draco = draco::expand(&mut json, &buffers)?;
        if !draco.buffer.is_empty() {
            buffers.push(draco.buffer);
        }
        draco_primitives = draco.primitives;
    }
    let external_images = read_images(&json, base_dir);
    Ok(RawAsset { json, buffers, is_glb, draco_primitives, external_images })
}

/// `parse` skips numbers it ignores without checking their range, while a
/// `serde_json::Value` refuses one past f64 ("4e962" under an unknown key): such a number is
/// written as the largest f64 of its sign, so every command gives the same verdict.
pub(super) fn clamp_huge_numbers(text: &str) -> std::borrow::Cow<'_, str> {
    let bytes = text.as_bytes();
    let mut out: Option<String> = None;
    let (mut i, mut copied, mut in_string) = (0, 0, false);
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        if b == b'"' {
            in_string = true;
            i += 1;
            continue;
        }
        if b == b'-' || b.is_ascii_digit() {
            let start = i;
            while i < bytes.len() && matches!(bytes[i], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') {
                i += 1;
            }
            let token = &text[start..i];
            if token.parse::<f64>().is_ok_and(f64::is_infinite) {
                let o = out.get_or_insert_with(|| String::with_capacity(text.len()));
                o.push_str(&text[copied..start]);
                o.push_str(if token.starts_with('-') {
                    "-1.7976931348623157e308"
                } else {
                    "1.7976931348623157e308"
                });
                copied = i;
            }
            continue;
        }
        i += 1;
    }
    match out {
        Some(mut o) => {
            o.push_str(&text[copied..]);
            std::borrow::Cow::Owned(o)
        }
        None => std::borrow::Cow::Borrowed(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bad_weights_sample_gives_its_json_and_bin() {
        let bytes = crate::samplegen::bad_weights();
        let raw = load_raw_bytes(&bytes, "bad-weights.glb", None).expect("loads");
        assert!(raw.is_glb);
        assert_eq!(raw.buffers.len(), 1);
        let declared = raw.json["buffers"][0]["byteLength"].as_u64();
        assert_eq!(declared, Some(raw.buffers[0].len() as u64));
        // The GLB's JSON chunk starts at byte 20 with '{'.
        assert_eq!(bytes.get(20), Some(&b'{'));
        assert_eq!(raw.json["nodes"][6]["name"], "strips");
    }

    #[test]
    fn invalid_utf8_in_an_ignored_string_reads_as_the_loader_reads_it() {
        let text = b"{\"asset\":{\"version\":\"2.0\"},\"extras\":{\"note\":\"a\xffb\"}}";
        assert!(crate::import::load_bytes(text, "x.gltf", None).is_ok());
        let raw = load_raw_bytes(text, "x.gltf", None).expect("loads like load_bytes");
        assert_eq!(raw.json["extras"]["note"], "a\u{FFFD}b");
    }

    #[test]
    fn a_number_past_f64_in_an_ignored_place_reads_as_the_loader_reads_it() {
        let text =
            br#"{"asset":{"version":"2.0"},"extras":{"big":4e962,"small":-1e999,"s":"9e999","ok":1.5}}"#;
        assert!(crate::import::load_bytes(text, "x.gltf", None).is_ok());
        let raw = load_raw_bytes(text, "x.gltf", None).expect("loads like load_bytes");
        assert_eq!(raw.json["extras"]["big"].as_f64(), Some(f64::MAX));
        assert_eq!(raw.json["extras"]["small"].as_f64(), Some(f64::MIN));
        assert_eq!(raw.json["extras"]["s"], "9e999");
        assert_eq!(raw.json["extras"]["ok"].as_f64(), Some(1.5));
    }

    #[test]
    fn json_text_with_an_embedded_buffer() {
        // "AAAAAA==" is four zero bytes.
        let text = br#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":4,"uri":"data:application/octet-stream;base64,AAAAAA=="}],"extras":{"keep":1}}"#;
        let raw = load_raw_bytes(text, "x.gltf", None).expect("loads");
        assert!(!raw.is_glb);
        assert_eq!(raw.buffers, vec![vec![0u8; 4]]);
        assert_eq!(raw.json["extras"]["keep"], 1);
    }

    #[test]
    fn a_broken_file_is_an_error() {
        assert!(load_raw_bytes(b"glTF\x02\0\0\0", "x.glb", None).is_err());
        assert!(load_raw_bytes(b"{", "x.gltf", None).is_err());
    }
}
