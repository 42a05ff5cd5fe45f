//! Bytes -> validated glTF document: .glb framing, JSON parsing, version and required
//! extensions, and gltf-json's validation, with its errors reworded around the JSON location.
//!
//! gltf 1.4.1 trusts its input in places (a .glb header shorter than 12 bytes underflows; the
//! POSITION check indexes `accessors` unchecked), so the checks that guard those run first.
//! A few of gltf-json's validation rules are stricter than the glTF spec or than rigscope
//! needs; those are turned into findings instead of refusals (see `relax`).

use super::{Fault, extensions, findings::Findings, glb, parse};
use crate::rig::{ExtensionHandling, Severity};
use gltf::json;

/// The parsed file: the document, what its JSON holds beside it, its JSON text and the
/// .glb BIN chunk, the last two borrowed from the file's bytes.
pub(crate) struct Parsed<'a> {
    pub document: gltf::Document,
    /// What gltf-json's document cannot hold: the document's own extensions, pointer
    /// channels and the like (see `parse`).
    pub beside: parse::Beside,
    /// The JSON text (the .glb JSON chunk without trailing padding, or the whole file
    /// without its byte-order mark).
    pub json: &'a [u8],
    /// The .glb BIN chunk, padding included (buffers cut it to `byteLength`).
    pub bin: Option<&'a [u8]>,
}

pub(crate) fn parse<'a>(bytes: &'a [u8], findings: &mut Findings) -> Result<Parsed<'a>, Fault> {
    let (json, bin) = frame(bytes, findings)?;
    // Only the JSON is parsed: the binary chunk stays where it is in `bytes`.
    let parse::Document { root, beside } = parse::read(json)?;
    check_version(&root)?;
    check_required_extensions(&root)?;
    guard_validation(&root)?;
    validate(&root, findings)?;
    Ok(Parsed { document: gltf::Document::from_json_without_validation(root), beside, json, bin })
}

/// Decides between .glb and JSON; for a .glb, cuts the container (see `glb`). Returns the
/// JSON text and the BIN chunk.
fn frame<'a>(bytes: &'a [u8], findings: &mut Findings) -> Result<(&'a [u8], Option<&'a [u8]>), Fault> {
    if bytes.is_empty() {
        return Err(Fault::new("", "the file is empty"));
    }
    if bytes.starts_with(glb::MAGIC) {
        let chunks = glb::split(bytes, findings).map_err(|e| Fault::new("", e.to_string()))?;
        // The spec pads the JSON chunk with spaces; some writers pad with NUL bytes, which
        // JSON parsers refuse as trailing characters.
        let end = chunks.json.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
        return Ok((chunks.json.get(..end).unwrap_or_default(), chunks.bin));
    }
    let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match text.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{') => Ok((text, None)),
        _ => Err(Fault::new("", "not a glTF file: it has neither the .glb magic 'glTF' nor a JSON object")),
    }
}

fn check_version(root: &json::Root) -> Result<(), Fault> {
    let version = root.asset.version.as_str();
    let major = version.split('.').next().unwrap_or("");
    if major == "2" {
        Ok(())
    } else {
        Err(Fault::new(
            "asset.version",
            format!("glTF \"{version}\" is not supported (rigscope reads glTF 2.x)"),
        ))
    }
}

/// Refuses a file that requires extensions rigscope cannot apply, naming all of them.
fn check_required_extensions(root: &json::Root) -> Result<(), Fault> {
    let missing: Vec<(usize, String)> = root
        .extensions_required
        .iter()
        .enumerate()
        .filter(|(_, ext)| extensions::handling(ext, true) == ExtensionHandling::Unsupported)
        .map(|(i, ext)| match extensions::why_unsupported(ext) {
            Some(why) => (i, format!("{ext} ({why})")),
            None => (i, ext.clone()),
        })
        .collect();
    match missing.as_slice() {
        [] => Ok(()),
        [(i, one)] => Err(Fault::new(
            format!("extensionsRequired[{i}]"),
            format!("the file requires extension {one}, which rigscope does not support"),
        )),
        many => Err(Fault::new(
            "extensionsRequired",
            format!(
                "the file requires {} extensions rigscope does not support: {}",
                many.len(),
                many.iter().map(|(_, name)| name.as_str()).collect::<Vec<_>>().join(", ")
            ),
        )),
    }
}

/// gltf-json's primitive check reads `accessors[POSITION]` without a bounds check; make sure
/// every POSITION index exists before running it.
fn guard_validation(root: &json::Root) -> Result<(), Fault> {
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            let key = json::validation::Checked::Valid(json::mesh::Semantic::Positions);
            if let Some(index) = prim.attributes.get(&key)
                && index.value() >= root.accessors.len()
            {
                return Err(Fault::new(
                    format!("meshes[{m}].primitives[{p}].attributes.POSITION"),
                    format!("accessor {} does not exist", index.value()),
                ));
            }
        }
    }
    Ok(())
}

fn validate(root: &json::Root, findings: &mut Findings) -> Result<(), Fault> {
    use json::validation::Validate;
    let mut errors: Vec<(String, json::validation::Error)> = Vec::new();
    root.validate(root, json::Path::new, &mut |path, error| errors.push((path().0, error)));
    let errors: Vec<_> = errors.into_iter().filter(|(path, error)| !relax(path, *error, findings)).collect();
    let Some((path, error)) = errors.first() else {
        return Ok(());
    };
    let more = match errors.len() - 1 {
        0 => String::new(),
        1 => " (and 1 more validation error)".to_string(),
        n => format!(" (and {n} more validation errors)"),
    };
    Err(Fault::new(json_location(path), format!("{}{more}", describe_validation(*error))))
}

/// Validation errors that are not structural for rigscope. Returns true (and records a
/// finding where the user should know) when `path`/`error` is one of them.
fn relax(path: &str, error: json::validation::Error, findings: &mut Findings) -> bool {
    use json::validation::Error as E;
    let pointer = json_pointer(path);
    match error {
        // Checked by `check_required_extensions`, with a better message.
        E::Unsupported if path.starts_with("extensionsRequired") => true,
        // The spec makes POSITION optional; such a primitive loads with 0 vertices.
        E::Missing if path.ends_with(".attributes[\"POSITION\"]") => true,
        // Application-specific attributes (`_BATCHID`) parse as invalid semantics without
        // gltf's `extras` feature; rigscope does not read them anyway.
        // Their index is never read either: gltf-json keeps one of them (which, depends on
        // key order), so an out-of-range one must not decide whether the file loads.
        E::Invalid | E::IndexOutOfBounds if path.ends_with(".attributes[\"<invalid semantic name>\"]") => {
            let at = pointer.trim_end_matches("/<invalid semantic name>");
            findings.push(
                "RIG_ATTRIBUTE_IGNORED",
                Severity::Info,
                at.to_string(),
                "an attribute with a custom or unknown name is ignored",
            );
            true
        }
        // The spec requires bounds on POSITION, but nothing rigscope does depends on them.
        E::Missing | E::Invalid
            if path.ends_with(".attributes[\"POSITION\"].min")
                || path.ends_with(".attributes[\"POSITION\"].max") =>
        {
            let at = pointer.trim_end_matches("/min").trim_end_matches("/max").to_string();
            findings.push(
                "MESH_PRIMITIVE_POSITION_ACCESSOR_WITHOUT_BOUNDS",
                Severity::Error,
                at,
                "the POSITION accessor lacks valid min/max bounds",
            );
            true
        }
        // `texture.source` is optional in glTF 2.0 (the image may be only in an extension
        // such as EXT_texture_webp); rigscope does not read textures.
        E::Missing if path.starts_with("textures[") && path.ends_with("].source") => true,
        // The spec allows an accessor without bufferView: its elements are zeros.
        E::Missing if path.starts_with("accessors[") && path.ends_with("].bufferView") => true,
        _ => false,
    }
}

fn describe_validation(error: json::validation::Error) -> &'static str {
    use json::validation::Error as E;
    match error {
        E::IndexOutOfBounds => "index out of range (no such object)",
        E::Invalid => "invalid value",
        E::Missing => "required property is missing",
        E::Oversize => "value too large",
        E::Unsupported => "unsupported",
    }
}

/// gltf-json writes map keys as `attributes["JOINTS_0"]`; messages use `attributes.JOINTS_0`.
pub(crate) fn json_location(path: &str) -> String {
    path.replace("[\"", ".").replace("\"]", "")
}

/// `meshes[0].primitives[1].attributes["POSITION"]` -> `/meshes/0/primitives/1/attributes/POSITION`.
pub(crate) fn json_pointer(path: &str) -> String {
    let dotted = json_location(path);
    let mut out = String::new();
    for part in dotted.split(['.', '[']) {
        if part.is_empty() {
            continue;
        }
        out.push('/');
        out.push_str(part.trim_end_matches(']'));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_and_pointers_follow_the_json_shape() {
        let path = "meshes[0].primitives[1].attributes[\"JOINTS_0\"]";
        assert_eq!(json_location(path), "meshes[0].primitives[1].attributes.JOINTS_0");
        assert_eq!(json_pointer(path), "/meshes/0/primitives/1/attributes/JOINTS_0");
    }

    #[test]
    fn short_glb_header_is_an_error_not_an_underflow() {
        // Declared total length 8 is below the 12-byte header itself: gltf would subtract.
        let mut glb = b"glTF".to_vec();
        glb.extend_from_slice(&2u32.to_le_bytes());
        glb.extend_from_slice(&8u32.to_le_bytes());
        let err = frame(&glb, &mut Findings::default()).err().map(|f| f.message());
        assert!(err.is_some_and(|m| m.contains("too small")));
    }

    fn required(names: &[&str]) -> Result<(), String> {
        let text = serde_json::json!({"asset": {"version": "2.0"}, "extensionsUsed": names, "extensionsRequired": names});
        let root: json::Root =
            json::deserialize::from_slice(text.to_string().as_bytes()).map_err(|e| e.to_string())?;
        check_required_extensions(&root).map_err(|f| f.message())
    }

    #[test]
    fn every_unsupported_required_extension_is_named_at_once() {
        assert_eq!(required(&["KHR_mesh_quantization", "EXT_texture_webp", "KHR_materials_volume"]), Ok(()));
        assert_eq!(
            required(&["KHR_mesh_quantization", "ACME_warp"]),
            Err("extensionsRequired[1]: the file requires extension ACME_warp, which rigscope does not support".into())
        );
        assert_eq!(
            required(&["ACME_warp", "EXT_meshopt_compression", "ACME_bend", "KHR_lights_punctual"]),
            Err("extensionsRequired: the file requires 2 extensions rigscope does not support: ACME_warp, ACME_bend"
                .into())
        );
    }

    #[test]
    fn nul_padded_json_chunk_is_read() {
        let text = b"{\"asset\":{\"version\":\"2.0\"}}\0\0\0";
        let mut glb = b"glTF".to_vec();
        glb.extend_from_slice(&2u32.to_le_bytes());
        glb.extend_from_slice(&((20 + text.len()) as u32).to_le_bytes());
        glb.extend_from_slice(&(text.len() as u32).to_le_bytes());
        glb.extend_from_slice(b"JSON");
        glb.extend_from_slice(text);
        let parsed = parse(&glb, &mut Findings::default()).map_err(|f| f.message());
        assert_eq!(parsed.map(|p| (p.json.len(), p.bin)), Ok((text.len() - 3, None)));
    }
}
