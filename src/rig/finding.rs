//! A data-level problem found in an asset: something a viewer survives but a user should see.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Info,
}

/// One finding, named the way the Khronos glTF-Validator names it where it has a code
/// (`ACCESSOR_WEIGHTS_NON_NORMALIZED`), else with rigscope's own `RIG_` code.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    pub code: &'static str,
    pub severity: Severity,
    /// JSON pointer into the file, as the validator writes it (`/meshes/0/primitives/0`).
    pub pointer: String,
    pub message: String,
}
