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
}

/// One finding, named the way the Khronos glTF-Validator names it where it has a code
/// (`ACCESSOR_WEIGHTS_NON_NORMALIZED`), else with rigscope's own `RIG_` code. The loader
/// and `check` produce the same type; only `check`'s per-vertex rules fill `vertex`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    pub code: &'static str,
    pub severity: Severity,
    /// JSON pointer into the file, as the validator writes it (`/meshes/0/primitives/0`).
    pub pointer: String,
    pub message: String,
    /// Mesh and primitive the finding is about, when it is about one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mesh: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub primitive: Option<usize>,
    /// Present for findings about one vertex.
    #[serde(flatten)]
    pub vertex: Option<VertexFinding>,
}

impl Finding {
    /// A finding about the file as a whole or one of its objects (not one vertex).
    pub fn new(code: &'static str, severity: Severity, pointer: String, message: String) -> Self {
        Self { code, severity, pointer, message, mesh: None, primitive: None, vertex: None }
    }
}

/// The vertex a finding is about, with everything the rules looked at.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VertexFinding {
    pub vertex: usize,
    /// `n` of the `JOINTS_n`/`WEIGHTS_n` pair the rule fired on, for per-influence rules.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub set: Option<usize>,
    /// Component (0..4) the rule fired on, for per-influence rules.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub component: Option<usize>,
    /// Every influence of the vertex, set by set (set 0 components 0..4, then set 1, ...):
    /// indices into the skin's joints.
    pub joints: Vec<u16>,
    /// The node each of `joints` is (`null` past the skin's joints), in the skin that sets
    /// the validator's joint limit: the numbers the viewer and `diff` name joints by.
    pub joint_nodes: Vec<Option<usize>>,
    pub weights: Vec<f32>,
    /// The validator's running sum: non-zero, non-negative, first-seen, in-range weights,
    /// rounded to f32 after each addition.
    pub sum: f32,
    /// How many weights went into `sum`.
    pub n: u32,
    /// The validator's tolerance for `|sum - 1|`: 2e-7 added once per summed weight.
    pub threshold: f64,
    /// Weight an engine keeping the 4 largest influences would drop
    /// (only for `RIG_MORE_THAN_4_INFLUENCES`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dropped_weight: Option<f32>,
}
