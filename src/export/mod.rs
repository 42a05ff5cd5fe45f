//! Writing a repaired copy of a glTF file: the original JSON with only the repaired
//! `JOINTS_n`/`WEIGHTS_n` attributes pointed at new accessors, and every buffer merged into
//! one (the .glb BIN chunk, or a base64 data URI in a .gltf), with external images moved in
//! (see `images`), so the copy is a single file.
//!
//! Pure: bytes in, bytes out. Every other part of the JSON (nodes, materials, extensions,
//! extras, animations...) is copied as parsed; Draco primitives arrive decoded (see
//! `import::RawAsset`) and are written plainly. What nothing refers to any more (the old
//! weights accessors, the compressed views) is removed, moving as few indices as possible
//! (see `prune`). Key order in JSON objects may differ from the input (serde_json sorts
//! keys); numbers and strings keep their values.

mod clips;
mod container;

/// A .glb of a document and its one buffer (for tests and the fuzz targets).
pub(crate) use container::glb;
mod images;
mod merge;
mod prune;
mod skin_data;
mod stored;

pub use clips::{NewChannel, NewClip, NewKeys};
pub use images::ImageLeft;
pub use prune::Pruned;

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
    /// The .bin a .gltf names, when it was asked to name one (`write_with_clips`).
    pub bin: Option<Vec<u8>>,
    /// What was removed as unreferenced; `None` when an extension in use may refer to
    /// accessors or buffer views in ways rigscope does not follow (nothing was removed).
    pub pruned: Option<Pruned>,
    /// External images moved into the copy.
    pub images_embedded: usize,
    /// External images that could not be, still named by their relative URI.
    pub images_left: Vec<ImageLeft>,
}

/// The repaired copy of `raw` in `format`.
pub fn write(raw: &RawAsset, repair: &Repair, format: Format) -> Result<Written, ExportError> {
    let mut json = raw.json.clone();
    let mut merged = merge::merge_buffers(&mut json, &raw.buffers)?;
    for prim in repair.changed() {
        skin_data::append(&mut json, &mut merged, prim)?;
    }
    let (images_embedded, images_left) = images::embed(&mut json, &mut merged, &raw.external_images);
    let pruned = prune::prune(&mut json, &mut merged);
    let framed = container::write(json, merged, format, None)?;
    Ok(Written { bytes: framed.file, bin: framed.bin, pruned, images_embedded, images_left })
}

/// `character` whole, with `clips` appended as new animations (`merge`): every accessor,
/// buffer view, image and animation of `character` keeps its index and its bytes, and only
/// the clips' keys are added (stored keys copied from `libraries`). Draco primitives stay as
/// `character` holds them (compressed, when read with `load_raw_bytes_keeping_draco`);
/// meshopt-compressed views are written decoded, as `write` writes them, and the compressed
/// bytes no view names any more are removed. With `bin_uri`, a .gltf names its buffer so and
/// `Written::bin` holds it.
pub fn write_with_clips(
    character: &RawAsset,
    libraries: &[&RawAsset],
    clips: &[NewClip],
    format: Format,
    bin_uri: Option<&str>,
) -> Result<Written, ExportError> {
    let compressed = !character.draco_primitives.is_empty() || uses_meshopt(&character.json);
    let mut json = character.json.clone();
    let mut merged = merge::merge_buffers(&mut json, &character.buffers)?;
    let (images_embedded, images_left) = images::embed(&mut json, &mut merged, &character.external_images);
    let pruned = if compressed { prune::prune(&mut json, &mut merged) } else { None };
    clips::append(&mut json, &mut merged, libraries, clips)?;
    let framed = container::write(json, merged, format, bin_uri)?;
    Ok(Written { bytes: framed.file, bin: framed.bin, pruned, images_embedded, images_left })
}

/// Whether the file declares meshopt-compressed buffer views (written uncompressed).
pub fn uses_meshopt(json: &Value) -> bool {
    let used = json.get("extensionsUsed").and_then(Value::as_array);
    used.into_iter().flatten().any(|e| e.as_str().is_some_and(|name| merge::MESHOPT.contains(&name)))
}

/// Appends `item` to the top-level array `key` (created when absent); returns its index.
fn push(json: &mut Value, key: &str, item: Value) -> Result<usize, ExportError> {
    let root =
        json.as_object_mut().ok_or_else(|| ExportError::at("", "the document is not a JSON object"))?;
    let array = root
        .entry(key)
        .or_insert_with(|| Value::Array(Vec::new()))
        .as_array_mut()
        .ok_or_else(|| ExportError::at(key, "is not an array"))?;
    array.push(item);
    Ok(array.len() - 1)
}

#[cfg(test)]
mod tests;
