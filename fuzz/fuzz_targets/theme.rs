//! The theme parser on arbitrary text.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = cuzk::tui::theme::ThemeSet::parse_source("fuzz.toml", &String::from_utf8_lossy(data));
});
