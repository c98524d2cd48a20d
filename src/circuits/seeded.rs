//! Deterministic witness randomness: every value a sample needs is derived from (seed, purpose, indices), so
//! the same seed gives the same witness whatever order circuits are built in.

use blstrs::Scalar;
use sha2::{Digest, Sha256};

/// 32 pseudo-random bytes for (seed, tag, a, b).
pub fn bytes(seed: u64, tag: &str, a: u64, b: u64) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(seed.to_le_bytes());
    h.update((tag.len() as u64).to_le_bytes());
    h.update(tag.as_bytes());
    h.update(a.to_le_bytes());
    h.update(b.to_le_bytes());
    h.finalize().into()
}

/// Clears the top two bits so 32 bytes read little-endian are below 2^254 < r (Filecoin's "Fr-safe" nodes).
pub fn truncate_fr(mut b: [u8; 32]) -> [u8; 32] {
    b[31] &= 0b0011_1111;
    b
}

/// A field element from Fr-safe bytes (always canonical).
pub fn fr_from_safe(b: [u8; 32]) -> Scalar {
    Option::from(Scalar::from_bytes_le(&truncate_fr(b))).unwrap_or(Scalar::from(0u64))
}

/// A pseudo-random field element below 2^254 for (seed, tag, a, b).
pub fn scalar(seed: u64, tag: &str, a: u64, b: u64) -> Scalar {
    fr_from_safe(bytes(seed, tag, a, b))
}

/// A pseudo-random u64 for (seed, tag, a, b).
pub fn u64_of(seed: u64, tag: &str, a: u64, b: u64) -> u64 {
    let b = bytes(seed, tag, a, b);
    u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
}
