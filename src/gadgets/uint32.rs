//! 32-bit words in the circuit: 32 little-endian `Boolean` bits with their known value, and the word
//! operations SHA-256 is built from (rotations, shifts, bitwise functions, addition mod 2^32).

use std::sync::OnceLock;

use blstrs::Scalar;
use ff::Field;

use super::boolean::{AllocatedBit, Boolean};
use crate::cs::{ConstraintSystem, Variable};

/// A 32-bit word as bits (least significant first), so that bitwise gadgets work per bit and additions pack.
#[derive(Clone, Debug)]
pub struct UInt32 {
    bits: [Boolean; 32],
    value: u32,
}

/// 2^i as field elements for i < 64: the coefficients of packed sums (computed once, by doubling).
fn pow2() -> &'static [Scalar; 64] {
    static TABLE: OnceLock<[Scalar; 64]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = [Scalar::ONE; 64];
        for i in 1..64 {
            t[i] = t[i - 1].double();
        }
        t
    })
}

impl UInt32 {
    /// A constant word: costs nothing and folds through every gadget.
    pub fn constant(value: u32) -> Self {
        UInt32 { bits: std::array::from_fn(|i| Boolean::Constant((value >> i) & 1 == 1)), value }
    }

    /// Allocates a word as 32 private bits (32 booleanity constraints).
    pub fn alloc<CS: ConstraintSystem>(cs: &mut CS, value: u32) -> Self {
        UInt32 { bits: std::array::from_fn(|i| Boolean::alloc(cs, (value >> i) & 1 == 1)), value }
    }

    /// The word's value, known during synthesis.
    pub fn value(&self) -> u32 {
        self.value
    }

    /// The bits, least significant first (for packing and custom bitwise gadgets).
    pub fn bits_le(&self) -> &[Boolean; 32] {
        &self.bits
    }

    /// Whether every bit is constant (then the word costs nothing anywhere).
    pub fn is_constant(&self) -> bool {
        self.bits.iter().all(Boolean::is_constant)
    }

    /// The bits most significant first, as SHA-256 serializes words (no allocation).
    pub fn bits_be(&self) -> impl Iterator<Item = Boolean> + '_ {
        self.bits.iter().rev().copied()
    }

    /// The bits most significant first, as a vector.
    pub fn into_bits_be(self) -> Vec<Boolean> {
        self.bits_be().collect()
    }

    /// A word from 32 bits given most significant first (SHA-256 message words).
    pub fn from_bits_be(bits: &[Boolean]) -> Self {
        assert_eq!(bits.len(), 32, "UInt32::from_bits_be takes exactly 32 bits");
        let bits: [Boolean; 32] = std::array::from_fn(|i| bits[31 - i]);
        let value = bits.iter().rev().fold(0u32, |acc, b| (acc << 1) | b.value() as u32);
        UInt32 { bits, value }
    }

    /// Rotation right by `by` bits: free (a relabelling of bits).
    pub fn rotr(&self, by: usize) -> Self {
        let by = by % 32;
        UInt32 {
            bits: std::array::from_fn(|i| self.bits[(i + by) % 32]),
            value: self.value.rotate_right(by as u32),
        }
    }

    /// Logical shift right by `by` bits: free (the top bits become constant zeros).
    pub fn shr(&self, by: usize) -> Self {
        let bits =
            std::array::from_fn(|i| self.bits.get(i + by).copied().unwrap_or(Boolean::Constant(false)));
        UInt32 { bits, value: self.value.checked_shr(by as u32).unwrap_or(0) }
    }

    /// Bitwise XOR: one constraint per bit where both bits are allocated.
    pub fn xor<CS: ConstraintSystem>(&self, cs: &mut CS, other: &Self) -> Self {
        let bits = std::array::from_fn(|i| Boolean::xor(cs, &self.bits[i], &other.bits[i]));
        UInt32 { bits, value: self.value ^ other.value }
    }

    /// Bitwise three-input XOR (SHA-256 Σ/σ): one constraint per bit, fewer where bits are constant.
    pub fn xor3<CS: ConstraintSystem>(cs: &mut CS, a: &Self, b: &Self, c: &Self) -> Self {
        let bits = std::array::from_fn(|i| Boolean::xor3(cs, &a.bits[i], &b.bits[i], &c.bits[i]));
        UInt32 { bits, value: a.value ^ b.value ^ c.value }
    }

    /// Bitwise SHA-256 `Ch(a, b, c)`: one constraint per bit, fewer where bits are constant.
    pub fn sha256_ch<CS: ConstraintSystem>(cs: &mut CS, a: &Self, b: &Self, c: &Self) -> Self {
        let bits = std::array::from_fn(|i| Boolean::sha256_ch(cs, &a.bits[i], &b.bits[i], &c.bits[i]));
        UInt32 { bits, value: (a.value & b.value) ^ (!a.value & c.value) }
    }

    /// Bitwise SHA-256 `Maj(a, b, c)`: one constraint per bit, fewer where bits are constant.
    pub fn sha256_maj<CS: ConstraintSystem>(cs: &mut CS, a: &Self, b: &Self, c: &Self) -> Self {
        let bits = std::array::from_fn(|i| Boolean::sha256_maj(cs, &a.bits[i], &b.bits[i], &c.bits[i]));
        UInt32 { bits, value: (a.value & b.value) ^ (a.value & c.value) ^ (b.value & c.value) }
    }

    /// The largest value the bits can take (constant bits count as they are, others as one).
    fn max_value(&self) -> u64 {
        self.bits
            .iter()
            .enumerate()
            .filter(|(_, b)| !matches!(b, Boolean::Constant(false)))
            .fold(0u64, |acc, (i, _)| acc | (1u64 << i))
    }

    /// Sum of several words mod 2^32.
    ///
    /// Allocates the bits of the full sum (32 plus carry bits, as many as the operands' largest possible
    /// sum needs; each with a booleanity constraint) and enforces with ONE constraint that the packed
    /// operands equal the packed result: (Σ_k Σ_i 2^i·x_k,i)·1 = Σ_j 2^j·r_j. Constant operand bits fold
    /// into a single coefficient of the constant one; an all-constant sum costs nothing. Accepts any
    /// re-iterable list of word references (`&[UInt32]`, `[&a, &b]`, chained iterators).
    pub fn addmany<'a, CS, I>(cs: &mut CS, operands: I) -> Self
    where
        CS: ConstraintSystem,
        I: IntoIterator<Item = &'a UInt32>,
        I::IntoIter: Clone,
    {
        let ops = operands.into_iter();
        let (mut sum, mut max, mut all_constant) = (0u64, 0u64, true);
        for op in ops.clone() {
            sum += op.value as u64;
            max += op.max_value();
            all_constant &= op.is_constant();
        }
        if all_constant {
            return UInt32::constant(sum as u32);
        }
        let width = (64 - max.leading_zeros()) as usize;
        debug_assert!(width < 64);
        let mut bits = [Boolean::Constant(false); 32];
        let mut carries = [Variable::ONE; 32];
        for j in 0..width {
            let bit = AllocatedBit::alloc(cs, (sum >> j) & 1 == 1);
            if j < 32 {
                bits[j] = Boolean::Is(bit);
            } else {
                carries[j - 32] = bit.variable();
            }
        }
        let p = pow2();
        let one = CS::one();
        cs.enforce(
            |mut lc| {
                let mut constant = Scalar::ZERO;
                for op in ops {
                    for (bit, coeff) in op.bits.iter().zip(p) {
                        match bit {
                            Boolean::Constant(false) => {}
                            Boolean::Constant(true) => constant += coeff,
                            Boolean::Is(b) => lc = lc + (*coeff, b.variable()),
                            Boolean::Not(b) => {
                                constant += coeff;
                                lc = lc - (*coeff, b.variable());
                            }
                        }
                    }
                }
                if constant != Scalar::ZERO {
                    lc = lc + (constant, one);
                }
                lc
            },
            |lc| lc + one,
            |mut lc| {
                for (bit, coeff) in bits.iter().take(width).zip(p) {
                    lc = bit.add_to(lc, one, *coeff);
                }
                for (var, coeff) in carries.iter().zip(&p[32..]).take(width.saturating_sub(32)) {
                    lc = lc + (*coeff, *var);
                }
                lc
            },
        );
        UInt32 { bits, value: sum as u32 }
    }
}
