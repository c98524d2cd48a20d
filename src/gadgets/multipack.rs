//! Packing bits into field elements: public inputs made from many bits (a digest, a commitment) cost one
//! input and one constraint per 254 bits instead of one per bit.

use blstrs::Scalar;
use ff::{Field, PrimeField};

use super::boolean::Boolean;
use crate::cs::{ConstraintSystem, Lc, Variable};

/// Bits per packed field element: `Scalar::CAPACITY` (254), so every packing is below the modulus.
pub const CHUNK_BITS: usize = Scalar::CAPACITY as usize;

/// Packs `bits` (little-endian within each chunk: bit i weighs 2^i) into public inputs, one per
/// `CHUNK_BITS` bits, each tied to its bits by one constraint; returns the input variables in order.
/// The verifier's side of the same packing is `compute_multipacking`.
pub fn pack_bits<CS: ConstraintSystem>(cs: &mut CS, bits: &[Boolean]) -> Vec<Variable> {
    bits.chunks(CHUNK_BITS)
        .map(|chunk| {
            let input = cs.alloc_input(packed_value(chunk.iter().map(Boolean::value)));
            enforce_packing(cs, chunk, input);
            input
        })
        .collect()
}

/// The public inputs `pack_bits` allocates for these bit values, computed natively (for the verifier).
pub fn compute_multipacking(bits: &[bool]) -> Vec<Scalar> {
    bits.chunks(CHUNK_BITS).map(|chunk| packed_value(chunk.iter().copied())).collect()
}

/// Allocates a private number equal to the little-endian packing of `bits` (at most `CHUNK_BITS` of them,
/// so the packing is unique), with one constraint: how bit strings become field elements inside a circuit.
pub fn bits_to_num<CS: ConstraintSystem>(cs: &mut CS, bits: &[Boolean]) -> Variable {
    debug_assert!(bits.len() <= CHUNK_BITS, "bits_to_num packs at most {CHUNK_BITS} bits");
    let num = cs.alloc(packed_value(bits.iter().map(Boolean::value)));
    enforce_packing(cs, bits, num);
    num
}

/// Σ 2^i·bit_i as a field element (bits little-endian).
fn packed_value(bits: impl DoubleEndedIterator<Item = bool>) -> Scalar {
    bits.rev().fold(Scalar::ZERO, |acc, bit| if bit { acc.double() + Scalar::ONE } else { acc.double() })
}

/// Enforces (Σ 2^i·bit_i)·1 = target; constant and negated bits fold into one coefficient of the constant one.
fn enforce_packing<CS: ConstraintSystem>(cs: &mut CS, bits: &[Boolean], target: Variable) {
    let one = CS::one();
    cs.enforce(
        |lc: Lc<CS>| {
            let (mut lc, mut coeff, mut constant) = (lc, Scalar::ONE, Scalar::ZERO);
            for bit in bits {
                match bit {
                    Boolean::Constant(false) => {}
                    Boolean::Constant(true) => constant += coeff,
                    Boolean::Is(b) => lc = lc + (coeff, b.variable()),
                    Boolean::Not(b) => {
                        constant += coeff;
                        lc = lc - (coeff, b.variable());
                    }
                }
                coeff = coeff.double();
            }
            if constant != Scalar::ZERO {
                lc = lc + (constant, one);
            }
            lc
        },
        |lc| lc + one,
        |lc| lc + target,
    );
}
