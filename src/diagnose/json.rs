//! Machine-readable form of a `Report` (`format_version` 1).
//!
//! ```json
//! { "format_version": 1, "errors": 0, "warnings": 1, "infos": 0,
//!   "counts": { "CODE": 1 }, "primitives": [ { "mesh": 0, "primitive": 0, ... } ],
//!   "findings": [ { "code": "...", "severity": "error", "pointer": "/meshes/0/...",
//!                   "message": "...", "mesh": 0, "primitive": 0, "vertex": 12,
//!                   "joints": [..], "weights": [..], "sum": 0.5, "n": 2, ... } ] }
//! ```
//! Vertex-only fields are present only on vertex findings; NaN and infinite numbers are
//! written as `null` (JSON has no such numbers).

use super::report::Report;
use serde_json::{Value, json};

pub const FORMAT_VERSION: u32 = 1;

pub fn to_json(report: &Report) -> Value {
    let value = |v: Result<Value, serde_json::Error>| v.unwrap_or(Value::Null);
    json!({
        "format_version": FORMAT_VERSION,
        "errors": report.error_count(),
        "warnings": report.warning_count(),
        "infos": report.info_count(),
        "counts": value(serde_json::to_value(&report.counts)),
        "primitives": value(serde_json::to_value(&report.primitives)),
        "findings": value(serde_json::to_value(&report.findings)),
    })
}
