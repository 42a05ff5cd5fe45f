#![no_main]
//! `rigscope::fuzzing::map` on every input (see `src/fuzzing/` for the contract).

libfuzzer_sys::fuzz_target!(|data: &[u8]| rigscope::fuzzing::map(data));
