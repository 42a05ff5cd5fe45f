//! The file as data, for tools that write a modified copy (`normalize`): the JSON document as
//! a `serde_json::Value` (every field kept, extras and unknown extensions included) and the
//! bytes of every buffer, found with the same rules and safety checks as `load`.

use super::{Fault, ImportError, buffers, document, findings::Findings, glb, meshopt};
use std::path::Path;

/// A glTF file's JSON and buffer bytes.
#[derive(Debug, Clone)]
pub struct RawAsset {
    pub json: serde_json::Value,
    /// One entry per `buffers[i]`, cut to its `byteLength`.
    pub buffers: Vec<Vec<u8>>,
    /// The file was a .glb (binary container) rather than JSON text.
    pub is_glb: bool,
}

/// The JSON and buffers of a file's bytes, validated as `load_bytes` validates them
/// (external buffers only from `base_dir`; with `None`, they are refused).
pub fn load_raw_bytes(bytes: &[u8], name: &str, base_dir: Option<&Path>) -> Result<RawAsset, ImportError> {
    build(bytes, base_dir).map_err(|fault| ImportError { file: name.to_string(), message: fault.message() })
}

fn build(bytes: &[u8], base_dir: Option<&Path>) -> Result<RawAsset, Fault> {
    // `parse` checks the framing and the document, and hands back the JSON text it read.
    let parsed = document::parse(bytes, &mut Findings::default())?;
    let root = parsed.document.as_json();
    // Compressed views are decoded into their fallback buffers, as `load` does.
    let compressed = meshopt::Plan::read(root, parsed.json)?;
    let mut buffers = buffers::resolve(root, parsed.bin, base_dir, |i| compressed.is_fallback(i))?;
    compressed.decode(root, &mut buffers)?;
    let is_glb = bytes.starts_with(glb::MAGIC);
    // The JSON chunk is padded with spaces; some writers pad with NUL bytes instead.
    let text = parsed.json;
    let end = text.iter().rposition(|&b| b != 0 && !b.is_ascii_whitespace()).map_or(0, |i| i + 1);
    let text = text.get(..end).unwrap_or(text);
    let json = serde_json::from_slice(text).map_err(|e| Fault::new("", format!("invalid JSON: {e}")))?;
    // The copy that writes a modified file owns its buffers.
    let buffers = buffers.into_iter().map(std::borrow::Cow::into_owned).collect();
    Ok(RawAsset { json, buffers, is_glb })
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
