//! Temporary folders for tests: each removed when its guard drops, whether the test passed
//! or panicked, so a run leaves nothing in the system's temp folder.

use std::path::PathBuf;

/// A fresh, empty folder named `rigscope-<tag>-...` in the system's temp folder, and its path.
/// Keep the guard bound (`let (_guard, dir) = folder(..)`) for as long as the folder is used.
pub fn folder(tag: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new().prefix(&format!("rigscope-{tag}-")).tempdir().expect("temp folder");
    let path = dir.path().to_path_buf();
    (dir, path)
}
