//! glTF -> `Rig`: the only module that touches the gltf crate.
//!
//! Loading is one pass through small stages, each in its own file: `glb` (the .glb
//! container, cut without copying), `document` (JSON text -> validated document, read once
//! by `parse`; every extension reader reads that one document), `buffers`
//! (where the bytes live; the BIN chunk stays borrowed from the file), `accessors` (bounds
//! and type checks before any data is read), `direct` (bulk reads of plain accessors), then
//! `nodes`, `skins`, `meshes` and `clips` fill the `Rig`. Structural faults stop the load with an
//! `ImportError` naming the JSON location; data-level oddities become `Finding`s. Nothing
//! here renormalises, repairs or reorders the file's data: it is shown as stored.
//!
//! Every index and byte range from the file is checked here before the gltf crate's own
//! accessors are used, because several of them `unwrap()` or index unchecked.

mod accessors;
mod budget;
mod buffers;
mod clips;
mod direct;
mod document;
mod draco;
mod extensions;
mod external;
mod file;
mod findings;
mod glb;
mod instancing;
mod meshes;
mod meshopt;
mod nodes;
mod parse;
mod pointer;
mod quantized;
mod raw;
mod sizes;
mod skins;
mod storage;
mod vrm;

use crate::rig::Rig;
use std::path::Path;

use findings::Findings;

pub use external::{external_files, files_read};
pub use file::{NOT_REGULAR, open_regular, read_regular};
pub use raw::{ExternalImage, RawAsset, load_raw_bytes, load_raw_bytes_keeping_draco};
pub(crate) use vrm::INVALID as VRM_INVALID;

/// A file that cannot be loaded; `Display` reads `FILE: what is wrong`.
#[derive(Debug, thiserror::Error)]
#[error("{file}: {message}")]
pub struct ImportError {
    pub file: String,
    pub message: String,
}

/// A structural fault: where in the JSON (`meshes[0].primitives[1].attributes.JOINTS_0`)
/// and what is wrong there. Empty `at` for faults of the file as a whole.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Fault {
    pub at: String,
    pub what: String,
}

impl Fault {
    pub(crate) fn new(at: impl Into<String>, what: impl Into<String>) -> Self {
        Self { at: at.into(), what: what.into() }
    }

    /// The message part of an `ImportError`: `<json location>: <what is wrong>`.
    pub(crate) fn message(&self) -> String {
        if self.at.is_empty() { self.what.clone() } else { format!("{}: {}", self.at, self.what) }
    }
}

/// Reads and loads a glTF (.gltf or .glb) file. External buffers are looked up in the
/// file's own folder and nowhere else.
pub fn load(path: &Path) -> Result<Rig, ImportError> {
    let (bytes, name, base_dir) = read_file(path)?;
    load_bytes(&bytes, &name, Some(base_dir))
}

/// The file's bytes, its name for messages, and the folder its external buffers must be in.
pub(crate) fn read_file(path: &Path) -> Result<(file::FileBytes, String, &Path), ImportError> {
    let name = path.display().to_string();
    let bytes = file::FileBytes::open(path)
        .map_err(|e| ImportError { file: name.clone(), message: format!("cannot read the file: {e}") })?;
    let base_dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    Ok((bytes, name, base_dir))
}

/// Loads a glTF asset held in memory. `name` is used in messages and as `Rig::source`;
/// with `base_dir` `None`, buffers in external files are refused.
pub fn load_bytes(bytes: &[u8], name: &str, base_dir: Option<&Path>) -> Result<Rig, ImportError> {
    build(bytes, name, base_dir, true)
        .map_err(|fault| ImportError { file: name.to_string(), message: fault.message() })
}

/// `direct` reads plain accessors in bulk; tests turn it off to compare with gltf's readers.
fn build(bytes: &[u8], name: &str, base_dir: Option<&Path>, direct: bool) -> Result<Rig, Fault> {
    let mut findings = Findings::default();
    let parsed = document::parse(bytes, &mut findings)?;
    let beside = &parsed.beside;
    extensions::report_undeclared(parsed.document.as_json(), beside, &mut findings);
    let json = parsed.document.as_json();
    let compressed = meshopt::Plan::read(json)?;
    let mut data = buffers::resolve(json, parsed.bin, base_dir, |i| compressed.is_fallback(i))?;
    // Sizes as stored, before any decompression fills the fallback buffers.
    let sizes = sizes::measure(json, &data, base_dir);
    let budget = budget::Budget::of_input(bytes, &data);
    compressed.decode(json, &mut data, &budget)?;
    // The Draco primitives' list is for reports of how each primitive was stored.
    let (document, draco_primitives) =
        draco::decode_document(parsed.document, &beside.custom_attributes, &mut data)?;
    let src = accessors::Source::new(&document, &data, direct, budget);

    let mut hierarchy = nodes::build(src.json(), &mut findings)?;
    instancing::build(&src, &mut hierarchy.nodes, &mut findings)?;
    let skins = skins::build(&src, &hierarchy, &mut findings)?;
    let meshes = meshes::build(&src, &mut findings)?;
    nodes::check_node_weights(src.json(), &meshes)?;
    budget.check_drawn(&hierarchy.nodes, &meshes)?;
    let animations = clips::build(&src, &meshes, &beside.pointers, &hierarchy.nodes, &mut findings)?;
    let vrm = vrm::read(beside, src.json(), &hierarchy.nodes, &meshes, &mut findings);
    let vrma = vrm::read_animation(beside, hierarchy.nodes.len(), &mut findings);

    let json = src.json();
    Ok(Rig {
        source: name.to_string(),
        generator: json.asset.generator.clone(),
        nodes: hierarchy.nodes,
        order: hierarchy.order,
        scenes: hierarchy.scenes,
        default_scene: hierarchy.default_scene,
        skins,
        meshes,
        clips: animations.clips,
        core_channels: animations.core_channels,
        unpreviewed_channels: animations.unpreviewed,
        channel_file_index: animations.file_index,
        findings: findings.into_vec(),
        storage: crate::rig::Storage { sizes, ..storage::build(json, &compressed, &draco_primitives) },
        vrm,
        vrma,
        attached: Vec::new(),
        anim_warnings: Vec::new(),
    })
}

#[cfg(test)]
mod draco_tests;
#[cfg(test)]
mod glb_tests;
#[cfg(test)]
mod tests;
