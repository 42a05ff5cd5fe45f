//! Whole-program tests: one binary, one module per area.
mod assets;
mod bench;
mod cli;
mod draco;
mod frames;
mod golden;
mod instancing;
mod malformed;
mod normalize;
mod normalize_pipeline;
mod pointer;
mod reference;
mod samples;
mod simd;
mod slow_link;
mod tui;
mod tui_frictions;
