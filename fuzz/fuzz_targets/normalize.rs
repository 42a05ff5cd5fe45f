#![no_main]
//! `rigscope::fuzzing::normalize` on every input (see `src/fuzzing/` for the contract).

libfuzzer_sys::fuzz_target!(|data: &[u8]| rigscope::fuzzing::normalize(data));
