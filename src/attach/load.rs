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

/// Loads every file of `set` and appends its clips to `character`, in order, and what must
/// be said about each to `character.anim_warnings`. A file that does not load is an error
/// naming it.
pub fn load_with_anims(character: &mut Rig, set: &AnimSet) -> Result<(), ImportError> {
    for path in &set.files {
        let source = crate::import::load(path)?;
        let label = file_label(path);
        character.anim_warnings.extend(anim_warnings(&source, &label));
        attach(character, &source, &label, &set.options);
    }
    Ok(())
}

/// What a user must be told about LIB `source` (labelled `label`) before its clips play, each
/// sentence naming it: that it has no clips, so it adds nothing. `pose`, `render`, `record`,
/// the viewer, `fit` and `merge` all say these words.
pub fn anim_warnings(source: &Rig, label: &str) -> Vec<String> {
    let mut out = Vec::new();
    if source.clips.is_empty() {
        out.push(no_clips(label));
    }
    out
}

/// "LIB has no clips: it adds nothing".
pub fn no_clips(label: &str) -> String {
    format!("{label} has no clips: it adds nothing to play")
}
