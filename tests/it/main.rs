//! Whole-program tests: one binary, one module per area.
//!
//! No test depends on how fast the machine is: waits poll for an event up to `PATIENCE`,
//! and time is measured only in benchmarks. Every folder and process a test starts is
//! removed or ended by a guard, pass or fail (`temp`, `tmux`, `slow_link::Session`).

/// Far longer than anything a test waits for takes on a loaded machine: only an event that
/// never comes runs into it.
pub const PATIENCE: std::time::Duration = std::time::Duration::from_secs(120);

mod all_clips;
mod assets;
mod bench;
mod bind;
mod check_codes;
mod check_many;
mod cli;
mod clips;
mod compare;
mod constraints;
mod diff;
mod docs;
mod draco;
mod engine_runs;
mod engines;
mod escapes;
mod extensions;
mod fit_report;
mod frames;
mod glb_edit;
mod golden;
mod inspect_glance;
mod inspect_sizes;
mod instancing;
mod limits;
mod look_at;
mod malformed;
mod merge;
mod normalize;
mod normalize_left;
mod normalize_pipeline;
mod pipeline;
mod pointer;
mod record;
mod reference;
mod reload;
mod samples;
mod simd;
mod slow_link;
mod special_files;
mod springs;
mod temp;
mod tmux;
mod tui;
mod tui_panels;
mod tui_timeline;
mod vrm;
mod vrm_expression;
mod vrm_values;
mod weights_panel;
