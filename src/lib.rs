//! rigscope: see what a glTF 2.0 rig's skeleton, skin and animations do, in a terminal.
//!
//! The crate is one pipeline that reads top to bottom:
//!
//! ```text
//! file --import--> Rig --anim::sample--> Pose --anim::pose--> world + joint matrices
//!      --anim::skinning--> deformed vertices --render::Camera--> Raster --> glyphs --> tui / cli
//! ```
//!
//! In code, the same pipeline (here on the walker sample built into the binary):
//!
//! ```
//! let rig = rigscope::load_bytes(rigscope::cli::BUNDLED_SAMPLE, "walker.glb", None)?;
//! let walk = rig.find_clip("walk").map(|c| &rig.clips[c]);
//! let mut ws = rigscope::anim::Workspace::new(&rig);
//! ws.evaluate(&rig, walk, 0.5);
//! // One skinned primitive, every vertex in world space and finite.
//! assert!(ws.primitives[0].skin.is_some());
//! assert!(ws.primitives[0].positions.iter().all(|p| p.is_finite()));
//! let report = rigscope::diagnose::check(&rig, &rigscope::diagnose::Options::default());
//! assert_eq!(report.error_count(), 0);
//! # Ok::<(), rigscope::ImportError>(())
//! ```
//!
//! `import` is the only user of the gltf crate; `rig`, `anim`, `render`, `diagnose`, `diff`
//! and `record` are pure (no terminal or file I/O); `tui` is the only user of ratatui and
//! crossterm; `cli` owns the command line and exit codes.
//!
//! The modules, in pipeline order:
//!
//! - `import`: glTF -> `Rig`, validated once; the only user of the gltf crate.
//! - `rig`: immutable runtime data: nodes, skins, meshes, clips.
//! - `anim`: per-frame jobs: sample, pose, morph, skin; `Playback`; `Workspace`.
//! - `attach`: clips from other files (`--anim`): bound by name as three.js binds them (or by
//!   rules and a name map), or retargeted from each rig's reference pose and body frame,
//!   appended to `Rig::clips` once at load; `fit` measures how they fit. Reads the extra files through `import` (`load`).
//! - `render`: software rasteriser to braille, half-block and ASCII cells.
//! - `lanes` (private): the lane types the rasteriser's and skinning's SIMD kernels are
//!   written against, and the run-time choice of instruction set (`RIGSCOPE_SIMD`).
//! - `diagnose`: weight and skin checks, a pure function from a `Rig` to a report.
//! - `repair`: new joints and weights that pass the validator's influence rule.
//! - `export`: writes the repaired copy of a glTF file, or a character with clips added, as a
//!   single file.
//! - `merge`: a character and clips of other files in one file (`rigscope merge`): the clips
//!   `attach` binds, written on the character's nodes by `export`.
//! - `output_file`: writing the files users name, never over an input, never half-written.
//! - `diff`: what changed between two rigs (`rigscope diff`, the viewer's `--compare`).
//! - `report`: serde documents and text tables for `inspect`, `pose` and many-file `check`.
//! - `record`: recordings of a clip as asciicast v2 or animated GIF bytes.
//! - `samplegen`: the bundled sample rigs, generated from code.
//! - `fuzzing`: what the fuzz targets run on each input, replayed on the corpus by `cargo test`.
//! - `tui`: the viewer; the only user of ratatui and crossterm.
//! - `cli`: clap definitions, one handler per command, exit codes.

// `deny`, not `forbid`. What allows it, each with a SAFETY comment: `lanes`, the one lane
// abstraction the rasteriser's and the skinning kernels are written against (intrinsics
// entered after a run-time check); calls of safe functions compiled for AVX or FMA, behind
// the same run-time check (`anim::pose_cache`, `anim::skinning`); and `import::file`
// (mapping the input file).
#![deny(unsafe_code)]

pub mod anim;
pub mod attach;
pub mod cli;
pub mod diagnose;
pub mod diff;
pub mod export;
pub mod fuzzing;
pub mod import;
mod lanes;
pub mod merge;
pub mod output_file;
pub mod record;
pub mod render;
pub mod repair;
pub mod report;
pub mod rig;
pub mod samplegen;
pub mod tui;
pub mod vrm;
pub mod vrma;

pub use import::{ImportError, load, load_bytes};
pub use rig::Rig;

/// The backend the SIMD kernels run with, after `RIGSCOPE_SIMD`: "avx2", "neon" or
/// "scalar" (the portable lanes).
pub fn simd_path() -> &'static str {
    lanes::Backend::current().name()
}

/// A note for an unknown `RIGSCOPE_SIMD` value, naming the known ones (the caller prints it,
/// once per run).
pub fn simd_env_note() -> Option<String> {
    lanes::unknown_value_note(std::env::var("RIGSCOPE_SIMD").ok().as_deref())
}
