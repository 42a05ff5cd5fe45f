//! A data-level problem found in an asset: something a viewer survives but a user should see.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    /// The severity as every output spells it (the validator's words; JSON writes the same).
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }

    /// "1 error", "2 warnings", "3 infos": a count of findings of this severity.
    pub fn count(self, n: usize) -> String {
        let plural = match self {
            Severity::Error => "errors",
            Severity::Warning => "warnings",
            Severity::Info => "infos",
        };
        crate::report::count(n, self.name(), plural)
    }
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
