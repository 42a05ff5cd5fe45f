//! glTF -> `Rig`: the only module that touches the gltf crate.
use crate::rig::Rig;
use std::path::Path;

/// A file that cannot be loaded; `Display` reads `FILE: what is wrong`.
#[derive(Debug, thiserror::Error)]
#[error("{file}: {message}")]
pub struct ImportError {
    pub file: String,
    pub message: String,
}

pub fn load(path: &Path) -> Result<Rig, ImportError> {
    let _ = path;
    todo!()
}

pub fn load_bytes(bytes: &[u8], name: &str, base_dir: Option<&Path>) -> Result<Rig, ImportError> {
    let _ = (bytes, name, base_dir);
    todo!()
}
