//! Whole-program tests: one binary, one module per area.
mod assets;
mod malformed;
mod samples;
