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

/// The labels of `paths` taken together: each file's name, or, where two different paths
/// share it, the shortest tail of the path that tells them apart (`walk/lib.glb`,
/// `run/lib.glb`), so that no two files' clips read alike and `--clip` can name either.
pub fn file_labels(paths: &[PathBuf]) -> Vec<String> {
    let parts: Vec<Vec<String>> = paths
        .iter()
        .map(|p| p.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect())
        .collect();
    let tail = |i: usize, k: usize| {
        let all = &parts[i];
        all[all.len().saturating_sub(k)..].join("/")
    };
    (0..paths.len())
        .map(|i| {
            if parts[i].is_empty() {
                return file_label(&paths[i]);
            }
            let clashes = |k: usize| {
                (0..paths.len()).any(|j| j != i && paths[j] != paths[i] && tail(j, k) == tail(i, k))
            };
            let k = (1..parts[i].len()).find(|&k| !clashes(k)).unwrap_or(parts[i].len());
            if k == 1 { file_label(&paths[i]) } else { tail(i, k) }
        })
        .collect()
}

/// Loads every file of `set` and appends its clips to `character`, in order, and what must
/// be said about each to `character.anim_warnings`. A file that does not load, or cannot be retargeted, is an
/// error naming it.
pub fn load_with_anims(character: &mut Rig, set: &AnimSet) -> Result<(), ImportError> {
    let mut map_use = set.options.map.as_ref().map(super::map_use::MapUse::new);
    for (path, label) in set.files.iter().zip(file_labels(&set.files)) {
        let source = crate::import::load(path)?;
        character.anim_warnings.extend(anim_warnings(&source, &label));
        if let (Some(used), Some(map)) = (&mut map_use, &set.options.map) {
            used.see(map, &source);
        }
        attach(character, &source, &label, &set.options)
            .map_err(|e| ImportError { file: path.display().to_string(), message: e.to_string() })?;
    }
    if let (Some(used), Some(map)) = (&map_use, &set.options.map) {
        let warnings = used.warnings(map, character);
        character.anim_warnings.extend(warnings);
    }
    Ok(())
}

/// What a user must be told about LIB `source` (labelled `label`) before its clips play, each
/// sentence naming it: that it has no clips, so it adds nothing; for a `.vrma`, every part of
/// its `VRMC_vrm_animation` that import left out (`RIG_VRM_INVALID`), whose tracks then play
/// nothing. `pose`, `render`, `record`, the viewer, `fit` and `merge` all say these words.
pub fn anim_warnings(source: &Rig, label: &str) -> Vec<String> {
    let mut out = Vec::new();
    if source.clips.is_empty() {
        out.push(no_clips(label));
    }
    if source.vrma.is_some() {
        let left_out = source.findings.iter().filter(|f| f.code == crate::import::VRM_INVALID);
        out.extend(left_out.map(|f| format!("{label}: {}: {} ({})", f.pointer, f.message, f.code)));
    }
    out
}

/// "LIB has no clips: it adds nothing".
pub fn no_clips(label: &str) -> String {
    format!("{label} has no clips: it adds nothing to play")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_sharing_a_name_are_told_apart_by_the_shortest_tail() {
        let paths: Vec<PathBuf> =
            ["a/walk/lib.glb", "b/run/lib.glb", "c/run/lib.glb", "idle.glb", "a/walk/lib.glb", "lib.glb"]
                .iter()
                .map(PathBuf::from)
                .collect();
        assert_eq!(
            file_labels(&paths),
            ["walk/lib.glb", "b/run/lib.glb", "c/run/lib.glb", "idle.glb", "walk/lib.glb", "lib.glb"]
        );
    }
}
