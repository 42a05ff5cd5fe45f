//! Serde DTOs and text tables for `inspect` and `pose`: what the CLI prints, built from a
//! `Rig` (and a `Workspace` for poses). Pure: callers pass any `Write`.
//!
//! The JSON shapes are a public contract (documented in docs/commands.md): every document carries
//! the `format_version` of its own kind, defined beside the document (`inspect::FORMAT_VERSION`,
//! `pose::FORMAT_VERSION`, `diagnose::json::FORMAT_VERSION` for `check`, ...), and a change to a
//! field's meaning bumps that kind's version only.

pub mod checks;
pub mod inspect;
pub mod pose;
mod printable;
pub mod vrm;

pub use printable::{Printable, printable};

/// Keeps the kind of an I/O error serde_json met, so a closed pipe stays a closed pipe.
pub fn json_io_error(e: serde_json::Error) -> std::io::Error {
    match e.io_error_kind() {
        Some(kind) => std::io::Error::new(kind, e),
        None => std::io::Error::other(e),
    }
}

/// "1 child", "3 children": a count with its noun, singular only for exactly one. Every
/// output counts things through this.
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

impl crate::rig::Severity {
    /// "1 error", "2 warnings", "3 infos": a count of findings of this severity.
    pub fn count(self, n: usize) -> String {
        let plural = match self {
            Self::Error => "errors",
            Self::Warning => "warnings",
            Self::Info => "infos",
        };
        count(n, self.name(), plural)
    }
}

/// glTF's upper-case name for an interpolation, as the file spells it.
pub fn interpolation_name(i: crate::rig::Interpolation) -> &'static str {
    use crate::rig::Interpolation::*;
    match i {
        Step => "STEP",
        Linear => "LINEAR",
        CubicSpline => "CUBICSPLINE",
    }
}

/// glTF's name for an animated property, as a channel's `target.path` spells it.
pub fn property_name(p: crate::rig::Property) -> &'static str {
    use crate::rig::Property::*;
    match p {
        Translation => "translation",
        Rotation => "rotation",
        Scale => "scale",
        Weights => "weights",
    }
}

/// glTF's name for a primitive mode.
pub fn topology_name(t: crate::rig::Topology) -> &'static str {
    use crate::rig::Topology::*;
    match t {
        Points => "POINTS",
        Lines => "LINES",
        LineLoop => "LINE_LOOP",
        LineStrip => "LINE_STRIP",
        Triangles => "TRIANGLES",
        TriangleStrip => "TRIANGLE_STRIP",
        TriangleFan => "TRIANGLE_FAN",
    }
}
