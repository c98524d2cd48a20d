//! The proof, inputs and verifying-key readers on arbitrary bytes.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = cuzk::groth16::proof::decode_proofs(data, "fuzz");
    let _ = cuzk::groth16::proof::decode_inputs(data, "fuzz");
    let _ = cuzk::groth16::VerifyingKey::read(data);
});
