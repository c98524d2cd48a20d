//! The run-record reader on arbitrary bytes; an accepted record's id must be a safe file name.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(r) = cuzk::engine::store::parse_record(data, "fuzz") {
        assert!(cuzk::engine::store::is_run_id(&r.id));
    }
});
