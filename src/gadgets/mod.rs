//! Gadgets: reusable circuit pieces (bits, 32-bit words, SHA-256, field numbers, Poseidon, Merkle paths).

pub mod boolean;
pub mod merkle;
pub mod multipack;
pub mod num;
pub mod poseidon;
pub mod sha256;
pub mod uint32;
