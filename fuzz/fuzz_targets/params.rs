//! The params reader (layout arithmetic, then points with the subgroup check) on arbitrary bytes.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = cuzk::groth16::params_file::parse_params(data, "fuzz", cuzk::groth16::PointCheck::Subgroup);
});
