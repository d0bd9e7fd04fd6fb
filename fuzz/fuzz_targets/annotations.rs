#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| opm_fuzz::annotations(data));
