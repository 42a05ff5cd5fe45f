//! Whole-program tests: one binary, one module per area.
mod assets;
mod bench;
mod cli;
mod frames;
mod golden;
mod malformed;
mod normalize;
mod record;
mod reference;
mod reload;
mod samples;
mod tui;
