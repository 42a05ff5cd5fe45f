//! Reads the `--anim` files and binds their clips onto an already loaded character: the one
//! place clips from other files enter a `Rig`, shared by the command line and live reload.

use std::path::{Path, PathBuf};

use super::{BindOptions, attach};
use crate::import::ImportError;
use crate::rig::Rig;

/// The `--anim` files and how to bind them.
#[derive(Debug, Clone, Default)]
pub struct AnimSet {
    pub files: Vec<PathBuf>,
    pub options: BindOptions,
}

/// How a clip's label names its file: the file name alone (`dance (ybot-dance.glb)`).
pub fn file_label(path: &Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
}

/// Loads every file of `set` and appends its clips to `character`, in order. A file that
/// does not load, or cannot be retargeted, is an error naming it.
pub fn load_with_anims(character: &mut Rig, set: &AnimSet) -> Result<(), ImportError> {
    for path in &set.files {
        let source = crate::import::load(path)?;
        attach(character, &source, &file_label(path), &set.options)
            .map_err(|e| ImportError { file: path.display().to_string(), message: e.to_string() })?;
    }
    Ok(())
}
