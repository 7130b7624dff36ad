#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| megg::fuzz::transcript_claude(data));
