//! The sample-file parser on arbitrary text: an error, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = cuzk::circuits::Sample::parse(std::path::Path::new("fuzz.toml"), &text);
});
