//! Whole-program tests: one binary, one module per area.
mod assets;
mod bench;
mod cli;
mod frames;
mod golden;
mod malformed;
mod normalize;
mod pipeline;
mod reference;
mod samples;
mod tui;
