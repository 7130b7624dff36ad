#![no_main]
libfuzzer_sys::fuzz_target!(init: megg::fuzz::init(), |data: &[u8]| {
    megg::fuzz::hook_input(data)
});
