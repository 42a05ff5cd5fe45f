//! Whole-program tests: one binary, one module per area.
mod assets;
mod bench;
mod check_many;
mod cli;
mod compare;
mod diff;
mod frames;
mod golden;
mod malformed;
mod normalize;
mod reference;
mod samples;
mod tui;
