//! Writing a repaired copy of a glTF file: the original JSON with only the repaired
//! `JOINTS_n`/`WEIGHTS_n` attributes pointed at new accessors, and every buffer merged into
//! one (the .glb BIN chunk, or a base64 data URI in a .gltf), so the copy is a single file.
//!
//! Pure: bytes in, bytes out. Every other part of the JSON (nodes, materials, extensions,
//! extras, animations, images...) is copied as parsed; the old accessors stay (unused) so no
//! index in the file has to change, except that an old weights accessor holding NaN or
//! infinite values that nothing uses any more is emptied (see `orphans`). Key order in JSON
//! objects may differ from the input (serde_json sorts keys); numbers and strings keep
//! their values.

mod container;
mod merge;
mod orphans;
mod skin_data;

use crate::import::RawAsset;
use crate::repair::Repair;
use serde_json::Value;
use std::path::Path;

/// The container to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Binary .glb: JSON chunk plus BIN chunk.
    Glb,
    /// JSON .gltf with the buffer as a data URI.
    Gltf,
}

impl Format {
    /// The format an output path asks for by its extension (`.glb` / `.gltf`, any case).
    pub fn from_path(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "glb" => Some(Format::Glb),
            "gltf" => Some(Format::Gltf),
            _ => None,
        }
    }
}

/// Why a repaired copy cannot be written. Messages name the JSON location.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ExportError {
    #[error("{at}: {what}")]
    Structure { at: String, what: String },
    #[error("the file uses {0}, whose compressed buffer views cannot be merged into one buffer")]
    Compressed(String),
    #[error("{at}: joint {joint} does not fit the accessor's unsigned byte components")]
    JointTooLarge { at: String, joint: u16 },
    #[error("the merged buffer ({0} bytes) is too large for a .glb")]
    TooLarge(usize),
}

impl ExportError {
    fn at(at: impl Into<String>, what: impl Into<String>) -> Self {
        ExportError::Structure { at: at.into(), what: what.into() }
    }
}

/// The repaired copy.
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    /// The whole file.
    pub bytes: Vec<u8>,
    /// Old weights accessors with NaN or infinite values, now unused, emptied (they read as
    /// zeros) so the validator's float check passes.
    pub emptied_accessors: Vec<usize>,
}

/// The repaired copy of `raw` in `format`.
pub fn write(raw: &RawAsset, repair: &Repair, format: Format) -> Result<Written, ExportError> {
    let mut json = raw.json.clone();
    let mut merged = merge::merge_buffers(&mut json, &raw.buffers)?;
    let mut non_finite = Vec::new();
    for prim in repair.changed() {
        skin_data::append(&mut json, &mut merged, prim)?;
        non_finite.extend(prim.sets.iter().filter(|s| s.old_non_finite).map(|s| s.weights_accessor));
    }
    let emptied_accessors = orphans::empty_unused(&mut json, &non_finite);
    Ok(Written { bytes: container::write(json, merged, format)?, emptied_accessors })
}

/// `uri`s of images that point at files (not data URIs): a copy written to another folder
/// no longer finds them.
pub fn external_image_uris(json: &Value) -> Vec<String> {
    let Some(images) = json.get("images").and_then(Value::as_array) else {
        return Vec::new();
    };
    images
        .iter()
        .filter_map(|image| image.get("uri").and_then(Value::as_str))
        .filter(|uri| !uri.starts_with("data:"))
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests;
