//! Field numbers in the circuit: allocated numbers, lazy linear sums, bit decomposition and selection.
//!
//! Two representations:
//! - [`AllocatedNum`]: one variable and its value; products, equality and bit decompositions start here.
//! - [`Num`]: a linear combination and its value, built without constraints; it becomes a variable only when a
//!   gadget needs one ([`Num::into_allocated`]).
//!
//! Gadgets that only add their operands into linear combinations take any [`LcValue`], so callers can pass
//! either without allocating.

use blstrs::Scalar;
use ff::Field;

use crate::cs::{ConstraintSystem, LinearCombination, TermStore, Variable};
use crate::gadgets::boolean::Boolean;

/// Widest decomposition [`AllocatedNum::to_bits_le`] accepts: 2^254 < r, so every value below 2^254 has
/// exactly one 254-bit little-endian decomposition and the packing constraint alone makes the bits unique.
pub const MAX_UNIQUE_BITS: usize = 254;

/// A value that can be added into a linear combination, so gadgets accept allocated numbers and lazy sums alike.
pub trait LcValue<S: TermStore> {
    /// The witness value.
    fn value(&self) -> Scalar;

    /// Adds `coeff · self` to `lc` in place (no move of the combination: a spilled-or-not `SmallVec` store is
    /// large, and passing it by value per term would copy it each time).
    fn push_scaled(&self, lc: &mut LinearCombination<S>, coeff: Scalar);
}

/// A field element held in one variable: the unit most gadgets consume and produce.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AllocatedNum {
    var: Variable,
    value: Scalar,
}

impl<S: TermStore> LcValue<S> for AllocatedNum {
    #[inline]
    fn value(&self) -> Scalar {
        self.value
    }

    #[inline]
    fn push_scaled(&self, lc: &mut LinearCombination<S>, coeff: Scalar) {
        lc.push(self.var, coeff);
    }
}

impl AllocatedNum {
    /// Allocates a private number (no constraint).
    pub fn alloc<CS: ConstraintSystem>(cs: &mut CS, value: Scalar) -> Self {
        AllocatedNum { var: cs.alloc(value), value }
    }

    /// Allocates a public input (no constraint).
    pub fn alloc_input<CS: ConstraintSystem>(cs: &mut CS, value: Scalar) -> Self {
        AllocatedNum { var: cs.alloc_input(value), value }
    }

    /// Exposes this number as a new public input equal to it (1 constraint); returns the input.
    pub fn inputize<CS: ConstraintSystem>(&self, cs: &mut CS) -> Self {
        let input = Self::alloc_input(cs, self.value);
        Self::enforce_equal(cs, self, &input);
        input
    }

    /// The underlying variable, for writing constraints by hand.
    #[inline]
    pub fn variable(&self) -> Variable {
        self.var
    }

    /// The witness value.
    #[inline]
    pub fn value(&self) -> Scalar {
        self.value
    }

    /// `self · other` (1 constraint).
    pub fn mul<CS: ConstraintSystem>(&self, cs: &mut CS, other: &Self) -> Self {
        let out = Self::alloc(cs, self.value * other.value);
        cs.enforce(|lc| lc + self.var, |lc| lc + other.var, |lc| lc + out.var);
        out
    }

    /// `self²` (1 constraint).
    pub fn square<CS: ConstraintSystem>(&self, cs: &mut CS) -> Self {
        self.mul(cs, self)
    }

    /// `self + other` in a fresh variable (1 constraint); use [`Num`] when a linear combination will do.
    pub fn add<CS: ConstraintSystem>(&self, cs: &mut CS, other: &Self) -> Self {
        let out = Self::alloc(cs, self.value + other.value);
        cs.enforce(|lc| lc + self.var + other.var, |lc| lc + CS::one(), |lc| lc + out.var);
        out
    }

    /// Enforces `a = b` (1 constraint).
    pub fn enforce_equal<CS: ConstraintSystem>(cs: &mut CS, a: &Self, b: &Self) {
        cs.enforce(|lc| lc + a.var, |lc| lc + CS::one(), |lc| lc + b.var);
    }

    /// The low `n_bits` bits of this number, little-endian: `n_bits` booleanity constraints plus 1 packing
    /// constraint `Σ 2^i·b_i = self`.
    ///
    /// `n_bits` ≤ [`MAX_UNIQUE_BITS`] (254), where the decomposition is unique; the strict 255-bit version
    /// (which must also prove the bits encode a value below r) is not provided. If the value does not fit in
    /// `n_bits` bits the low bits are allocated and the packing constraint is left unsatisfied, so the proof
    /// will not verify: callers must range-check witness data they do not control before synthesis.
    ///
    /// # Panics
    /// If `n_bits > MAX_UNIQUE_BITS` (a programmer error: the width is a property of the circuit).
    pub fn to_bits_le<CS: ConstraintSystem>(&self, cs: &mut CS, n_bits: usize) -> Vec<Boolean> {
        assert!(n_bits <= MAX_UNIQUE_BITS, "to_bits_le: {n_bits} bits requested, at most {MAX_UNIQUE_BITS}");
        let bytes = self.value.to_bytes_le();
        let bits: Vec<Boolean> =
            (0..n_bits).map(|i| Boolean::alloc(cs, (bytes[i / 8] >> (i % 8)) & 1 == 1)).collect();
        let var = self.var;
        cs.enforce(|lc| pack_bits_le(lc, &bits, CS::one()), |lc| lc + CS::one(), |lc| lc + var);
        bits
    }

    /// The number `Σ 2^i·bits[i]` (1 constraint); more than 254 bits wrap modulo r.
    pub fn from_bits_le<CS: ConstraintSystem>(cs: &mut CS, bits: &[Boolean]) -> Self {
        let out = Self::alloc(cs, bits_value_le(bits));
        cs.enforce(|lc| pack_bits_le(lc, bits, CS::one()), |lc| lc + CS::one(), |lc| lc + out.var);
        out
    }

    /// `condition ? if_true : if_false` (1 constraint; none when the condition is constant).
    pub fn select<CS: ConstraintSystem>(
        cs: &mut CS,
        condition: &Boolean,
        if_true: &Self,
        if_false: &Self,
    ) -> Self {
        if let Boolean::Constant(c) = condition {
            return if *c { *if_true } else { *if_false };
        }
        let out = Self::alloc(cs, if condition.value() { if_true.value } else { if_false.value });
        // c · (t − f) = out − f
        cs.enforce(
            |lc| condition.add_to(lc, CS::one(), Scalar::ONE),
            |lc| lc + if_true.var - if_false.var,
            |lc| lc + out.var - if_false.var,
        );
        out
    }

    /// `(a, b)` when `condition` is false, `(b, a)` when true: a Merkle node and its sibling put in hashing
    /// order (2 constraints; none when the condition is constant).
    pub fn conditionally_reverse<CS: ConstraintSystem>(
        cs: &mut CS,
        a: &Self,
        b: &Self,
        condition: &Boolean,
    ) -> (Self, Self) {
        let first = Self::select(cs, condition, b, a);
        let second = Self::select(cs, condition, a, b);
        (first, second)
    }
}

/// A linear combination with its value: sums and scalings cost no constraints until a variable is needed.
#[derive(Clone)]
pub struct Num<S: TermStore> {
    lc: LinearCombination<S>,
    value: Scalar,
}

impl<S: TermStore> LcValue<S> for Num<S> {
    #[inline]
    fn value(&self) -> Scalar {
        self.value
    }

    #[inline]
    fn push_scaled(&self, lc: &mut LinearCombination<S>, coeff: Scalar) {
        for &(var, c) in self.lc.terms() {
            lc.push(var, if coeff == Scalar::ONE { c } else { c * coeff });
        }
    }
}

impl<S: TermStore> Default for Num<S> {
    fn default() -> Self {
        Self::zero()
    }
}

impl<S: TermStore> From<AllocatedNum> for Num<S> {
    fn from(n: AllocatedNum) -> Self {
        Num { lc: LinearCombination::zero() + n.var, value: n.value }
    }
}

impl<S: TermStore> Num<S> {
    /// The zero sum, the starting point of an accumulation.
    pub fn zero() -> Self {
        Num { lc: LinearCombination::zero(), value: Scalar::ZERO }
    }

    /// The constant `value` (a multiple of the one variable).
    pub fn constant(value: Scalar, one: Variable) -> Self {
        Num { lc: LinearCombination::zero() + (value, one), value }
    }

    /// `Σ 2^i·bits[i]` with no constraint; more than 254 bits wrap modulo r.
    pub fn from_bits_le(bits: &[Boolean], one: Variable) -> Self {
        Num { lc: pack_bits_le(LinearCombination::zero(), bits, one), value: bits_value_le(bits) }
    }

    /// Adds `coeff · other`.
    pub fn add_scaled<T: LcValue<S> + ?Sized>(mut self, other: &T, coeff: Scalar) -> Self {
        self.value += other.value() * coeff;
        other.push_scaled(&mut self.lc, coeff);
        self
    }

    /// Adds `coeff · bit` (`one` stands for the constant variable).
    pub fn add_bool(mut self, bit: &Boolean, one: Variable, coeff: Scalar) -> Self {
        if bit.value() {
            self.value += coeff;
        }
        self.lc = bit.add_to(self.lc, one, coeff);
        self
    }

    /// The witness value.
    pub fn value(&self) -> Scalar {
        self.value
    }

    /// The linear combination.
    pub fn lc(&self) -> &LinearCombination<S> {
        &self.lc
    }

    /// Puts the sum in a variable (1 constraint), for gadgets that need an [`AllocatedNum`].
    pub fn into_allocated<CS: ConstraintSystem<Store = S>>(self, cs: &mut CS) -> AllocatedNum {
        let out = AllocatedNum::alloc(cs, self.value);
        cs.enforce(|lc| lc + &self.lc, |lc| lc + CS::one(), |lc| lc + out.var);
        out
    }
}

/// Adds `Σ 2^i·bits[i]` to `lc`.
pub(crate) fn pack_bits_le<S: TermStore>(
    mut lc: LinearCombination<S>,
    bits: &[Boolean],
    one: Variable,
) -> LinearCombination<S> {
    let mut coeff = Scalar::ONE;
    for bit in bits {
        lc = bit.add_to(lc, one, coeff);
        coeff = coeff.double();
    }
    lc
}

/// `Σ 2^i·bits[i]` computed natively.
fn bits_value_le(bits: &[Boolean]) -> Scalar {
    let mut acc = Scalar::ZERO;
    for bit in bits.iter().rev() {
        acc = acc.double();
        if bit.value() {
            acc += Scalar::ONE;
        }
    }
    acc
}
