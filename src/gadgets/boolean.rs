//! Bits in the circuit: allocated bits (constrained to 0/1) and booleans that may be negated or constant.

use blstrs::Scalar;
use ff::Field;

use crate::cs::{ConstraintSystem, LinearCombination, TermStore, Variable};

/// A variable constrained to be 0 or 1, with its value.
#[derive(Clone, Copy, Debug)]
pub struct AllocatedBit {
    var: Variable,
    value: bool,
}

impl AllocatedBit {
    /// Allocates a bit and enforces `b · (1 − b) = 0`.
    pub fn alloc<CS: ConstraintSystem>(cs: &mut CS, value: bool) -> Self {
        let var = cs.alloc(if value { Scalar::ONE } else { Scalar::ZERO });
        cs.enforce(|lc| lc + var, |lc| lc + CS::one() - var, |lc| lc);
        AllocatedBit { var, value }
    }

    /// The underlying variable.
    pub fn variable(&self) -> Variable {
        self.var
    }

    /// The bit's value.
    pub fn value(&self) -> bool {
        self.value
    }

    /// `a AND b` in one constraint.
    pub fn and<CS: ConstraintSystem>(cs: &mut CS, a: &Self, b: &Self) -> Self {
        let value = a.value & b.value;
        let var = cs.alloc(if value { Scalar::ONE } else { Scalar::ZERO });
        cs.enforce(|lc| lc + a.var, |lc| lc + b.var, |lc| lc + var);
        AllocatedBit { var, value }
    }

    /// `a AND NOT b` in one constraint.
    pub fn and_not<CS: ConstraintSystem>(cs: &mut CS, a: &Self, b: &Self) -> Self {
        let value = a.value & !b.value;
        let var = cs.alloc(if value { Scalar::ONE } else { Scalar::ZERO });
        cs.enforce(|lc| lc + a.var, |lc| lc + CS::one() - b.var, |lc| lc + var);
        AllocatedBit { var, value }
    }

    /// `NOT a AND NOT b` in one constraint.
    pub fn nor<CS: ConstraintSystem>(cs: &mut CS, a: &Self, b: &Self) -> Self {
        let value = !a.value & !b.value;
        let var = cs.alloc(if value { Scalar::ONE } else { Scalar::ZERO });
        cs.enforce(|lc| lc + CS::one() - a.var, |lc| lc + CS::one() - b.var, |lc| lc + var);
        AllocatedBit { var, value }
    }

    /// `a XOR b` in one constraint: (2a)·b = a + b − c.
    pub fn xor<CS: ConstraintSystem>(cs: &mut CS, a: &Self, b: &Self) -> Self {
        let value = a.value ^ b.value;
        let var = cs.alloc(if value { Scalar::ONE } else { Scalar::ZERO });
        cs.enforce(|lc| lc + a.var + a.var, |lc| lc + b.var, |lc| lc + a.var + b.var - var);
        AllocatedBit { var, value }
    }
}

/// A bit that is allocated, the negation of an allocated bit, or a constant (constants cost no constraints).
#[derive(Clone, Copy, Debug)]
pub enum Boolean {
    /// An allocated bit.
    Is(AllocatedBit),
    /// The negation of an allocated bit.
    Not(AllocatedBit),
    /// A constant.
    Constant(bool),
}

impl Boolean {
    /// Allocates a fresh bit.
    pub fn alloc<CS: ConstraintSystem>(cs: &mut CS, value: bool) -> Self {
        Boolean::Is(AllocatedBit::alloc(cs, value))
    }

    /// The value.
    pub fn value(&self) -> bool {
        match self {
            Boolean::Is(b) => b.value,
            Boolean::Not(b) => !b.value,
            Boolean::Constant(c) => *c,
        }
    }

    /// Whether this is a constant.
    pub fn is_constant(&self) -> bool {
        matches!(self, Boolean::Constant(_))
    }

    /// `coeff · self` as a linear combination (`one` stands for the constant variable).
    pub fn lc<S: TermStore>(&self, one: Variable, coeff: Scalar) -> LinearCombination<S> {
        self.add_to(LinearCombination::zero(), one, coeff)
    }

    /// Adds `coeff · self` to `lc`.
    #[inline]
    pub fn add_to<S: TermStore>(
        &self,
        lc: LinearCombination<S>,
        one: Variable,
        coeff: Scalar,
    ) -> LinearCombination<S> {
        match self {
            Boolean::Constant(false) => lc,
            Boolean::Constant(true) => lc + (coeff, one),
            Boolean::Is(b) => lc + (coeff, b.var),
            Boolean::Not(b) => lc + (coeff, one) - (coeff, b.var),
        }
    }

    /// The negation (free).
    pub fn not(&self) -> Self {
        match *self {
            Boolean::Constant(c) => Boolean::Constant(!c),
            Boolean::Is(b) => Boolean::Not(b),
            Boolean::Not(b) => Boolean::Is(b),
        }
    }
}
