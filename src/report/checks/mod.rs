//! The outputs of `check FILE|DIR...`: text, JSON, SARIF 2.1.0, JUnit XML and GitHub
//! workflow commands, each a pure function of the per-file results and their summary.
//!
//! Every format lists every finding of every file (a file that failed to load appears as one
//! `RIG_LOAD_FAILED` error); whether a file *fails* (errors, or warnings with
//! `--deny-warnings`) is decided once, in `diagnose::batch`.

mod github;
mod json;
mod junit;
mod sarif;
mod text;

pub use github::write_github;
pub use json::{BatchDoc, to_json};
pub use junit::write_junit;
pub use sarif::{to_sarif, write_sarif};
pub use text::write_text;

/// The tool name every format reports.
pub const TOOL: &str = "rigscope";
