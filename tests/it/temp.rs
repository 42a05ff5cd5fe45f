//! Temporary folders for tests: each removed when its guard drops, whether the test passed
//! or panicked, so a run leaves nothing in the system's temp folder.

/// A fresh, empty folder named `rigscope-<tag>-...` in the system's temp folder.
pub fn folder(tag: &str) -> tempfile::TempDir {
    tempfile::Builder::new().prefix(&format!("rigscope-{tag}-")).tempdir().expect("temp folder")
}
