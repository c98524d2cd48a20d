//! A chain of SHA-256 compressions: block 0 compresses 512 witness bits from the IV, each later block
//! compresses the previous digest followed by 256 fresh witness bits; the final digest is packed into public
//! inputs. This is the shape supraseal-c2 is measured on (docs/PERF.md) (40 compressions ≈ 1.04 M constraints).

use blstrs::Scalar;

use super::seeded;
use crate::cs::{Circuit, ConstraintSystem, SynthesisError};
use crate::gadgets::boolean::Boolean;
use crate::gadgets::multipack::{compute_multipacking, pack_bits};
use crate::gadgets::sha256::{compress_native, sha256_compression_function, IV};
use crate::gadgets::uint32::UInt32;

/// A seeded chain of `compressions` SHA-256 compressions.
#[derive(Clone, Debug)]
pub struct Sha256ChainCircuit {
    /// 64 witness bytes for block 0, then 32 per later block.
    witness: Vec<u8>,
    compressions: usize,
}

impl Sha256ChainCircuit {
    /// The chain for circuit `index` of a sample with `seed`.
    pub fn new(compressions: usize, seed: u64, index: u64) -> Self {
        let len = 64 + 32 * compressions.saturating_sub(1);
        let witness = (0..len.div_ceil(32) as u64)
            .flat_map(|i| seeded::bytes(seed, "sha256-chain", index, i))
            .take(len)
            .collect();
        Sha256ChainCircuit { witness, compressions }
    }

    /// The final digest, computed natively.
    pub fn digest(&self) -> [u8; 32] {
        let mut state = IV;
        let mut block = [0u8; 64];
        block.copy_from_slice(&self.witness[..64]);
        state = compress_native(state, &block);
        for i in 1..self.compressions {
            for (j, w) in state.iter().enumerate() {
                block[4 * j..4 * j + 4].copy_from_slice(&w.to_be_bytes());
            }
            block[32..].copy_from_slice(&self.witness[64 + 32 * (i - 1)..64 + 32 * i]);
            state = compress_native(state, &block);
        }
        let mut out = [0u8; 32];
        for (j, w) in state.iter().enumerate() {
            out[4 * j..4 * j + 4].copy_from_slice(&w.to_be_bytes());
        }
        out
    }

    /// The public inputs: the digest's bits (big-endian per byte) packed little-endian into field elements.
    pub fn public_inputs(&self) -> Vec<Scalar> {
        compute_multipacking(&bits_be(&self.digest()))
    }
}

fn bits_be(bytes: &[u8]) -> Vec<bool> {
    bytes.iter().flat_map(|b| (0..8).rev().map(move |i| (b >> i) & 1 == 1)).collect()
}

impl Circuit for Sha256ChainCircuit {
    fn synthesize<CS: ConstraintSystem>(&self, cs: &mut CS) -> Result<(), SynthesisError> {
        let alloc = |cs: &mut CS, bytes: &[u8]| -> Vec<Boolean> {
            bits_be(bytes).into_iter().map(|b| Boolean::alloc(cs, b)).collect()
        };
        let iv: Vec<UInt32> = IV.iter().map(|&w| UInt32::constant(w)).collect();
        let block = alloc(cs, &self.witness[..64]);
        let mut state = sha256_compression_function(cs, &block, &iv);
        for i in 1..self.compressions {
            let mut block: Vec<Boolean> = state.iter().flat_map(UInt32::bits_be).collect();
            block.extend(alloc(cs, &self.witness[64 + 32 * (i - 1)..64 + 32 * i]));
            state = sha256_compression_function(cs, &block, &state);
        }
        let digest: Vec<Boolean> = state.iter().flat_map(UInt32::bits_be).collect();
        pack_bits(cs, &digest);
        Ok(())
    }
}
