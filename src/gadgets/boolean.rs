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

impl From<AllocatedBit> for Boolean {
    fn from(bit: AllocatedBit) -> Self {
        Boolean::Is(bit)
    }
}

/// Small field constants used by the one-constraint gadgets (built by additions, no Montgomery conversion).
#[inline]
fn small(n: u64) -> Scalar {
    let mut acc = Scalar::ZERO;
    for _ in 0..n {
        acc += Scalar::ONE;
    }
    acc
}

impl AllocatedBit {
    /// Allocates a bit without a booleanity constraint: for outputs that the caller's own constraint fixes
    /// uniquely to a 0/1 value whenever the inputs are bits.
    fn determined<CS: ConstraintSystem>(cs: &mut CS, value: bool) -> Self {
        let var = cs.alloc(if value { Scalar::ONE } else { Scalar::ZERO });
        AllocatedBit { var, value }
    }
}

impl Boolean {
    /// `a XOR b`: one constraint when both are allocated, free when either is constant.
    pub fn xor<CS: ConstraintSystem>(cs: &mut CS, a: &Self, b: &Self) -> Self {
        match (*a, *b) {
            (Boolean::Constant(false), x) | (x, Boolean::Constant(false)) => x,
            (Boolean::Constant(true), x) | (x, Boolean::Constant(true)) => x.not(),
            (Boolean::Is(x), Boolean::Is(y)) | (Boolean::Not(x), Boolean::Not(y)) => {
                Boolean::Is(AllocatedBit::xor(cs, &x, &y))
            }
            (Boolean::Is(x), Boolean::Not(y)) | (Boolean::Not(x), Boolean::Is(y)) => {
                Boolean::Not(AllocatedBit::xor(cs, &x, &y))
            }
        }
    }

    /// `a AND b`: one constraint when both are allocated, free when either is constant.
    pub fn and<CS: ConstraintSystem>(cs: &mut CS, a: &Self, b: &Self) -> Self {
        match (*a, *b) {
            (Boolean::Constant(false), _) | (_, Boolean::Constant(false)) => Boolean::Constant(false),
            (Boolean::Constant(true), x) | (x, Boolean::Constant(true)) => x,
            (Boolean::Is(x), Boolean::Is(y)) => Boolean::Is(AllocatedBit::and(cs, &x, &y)),
            (Boolean::Is(x), Boolean::Not(y)) | (Boolean::Not(y), Boolean::Is(x)) => {
                Boolean::Is(AllocatedBit::and_not(cs, &x, &y))
            }
            (Boolean::Not(x), Boolean::Not(y)) => Boolean::Is(AllocatedBit::nor(cs, &x, &y)),
        }
    }

    /// `a OR b` as `NOT (NOT a AND NOT b)`: one constraint when both are allocated.
    pub fn or<CS: ConstraintSystem>(cs: &mut CS, a: &Self, b: &Self) -> Self {
        Boolean::and(cs, &a.not(), &b.not()).not()
    }

    /// `a XOR b XOR c` in one constraint when all three are allocated (the SHA-256 Σ/σ functions).
    ///
    /// With s = a + b + c ∈ {0,1,2,3} and output m, the constraint (s − 2m)·s = 2s − 3m reads
    /// m·(2s − 3) = s² − 2s; since 2s − 3 ≠ 0 it fixes m = 0, 1, 0, 1, the parity of s, so m needs no
    /// booleanity constraint. Any constant input folds the gadget into a two-input XOR (or less).
    pub fn xor3<CS: ConstraintSystem>(cs: &mut CS, a: &Self, b: &Self, c: &Self) -> Self {
        match (*a, *b, *c) {
            (Boolean::Constant(k), x, y) | (x, Boolean::Constant(k), y) | (x, y, Boolean::Constant(k)) => {
                let r = Boolean::xor(cs, &x, &y);
                if k {
                    r.not()
                } else {
                    r
                }
            }
            _ => {
                let m = AllocatedBit::determined(cs, a.value() ^ b.value() ^ c.value());
                let one = CS::one();
                // Unit coefficients on s where possible: they skip a multiplication in every evaluation.
                cs.enforce(
                    |lc| sum3(lc, a, b, c, one, Scalar::ONE) - (small(2), m.var),
                    |lc| sum3(lc, a, b, c, one, Scalar::ONE),
                    |lc| sum3(lc, a, b, c, one, small(2)) - (small(3), m.var),
                );
                Boolean::Is(m)
            }
        }
    }

    /// SHA-256 `Ch(a, b, c) = (a AND b) XOR (NOT a AND c)`, i.e. `a ? b : c`.
    ///
    /// One constraint when all are allocated: a·(b − c) = m − c. Constants fold: a constant selector picks
    /// an input for free; a constant b or c leaves one AND/OR (one constraint); constant b and c cost nothing.
    pub fn sha256_ch<CS: ConstraintSystem>(cs: &mut CS, a: &Self, b: &Self, c: &Self) -> Self {
        match (*a, *b, *c) {
            (Boolean::Constant(true), x, _) | (Boolean::Constant(false), _, x) => x,
            (_, Boolean::Constant(kb), Boolean::Constant(kc)) => match (kb, kc) {
                (true, false) => *a,
                (false, true) => a.not(),
                _ => Boolean::Constant(kb),
            },
            (_, Boolean::Constant(true), _) => Boolean::or(cs, a, c),
            (_, Boolean::Constant(false), _) => Boolean::and(cs, &a.not(), c),
            (_, _, Boolean::Constant(true)) => Boolean::or(cs, &a.not(), b),
            (_, _, Boolean::Constant(false)) => Boolean::and(cs, a, b),
            _ => {
                let m = AllocatedBit::determined(cs, if a.value() { b.value() } else { c.value() });
                let one = CS::one();
                cs.enforce(
                    |lc| a.add_to(lc, one, Scalar::ONE),
                    |lc| c.add_to(b.add_to(lc, one, Scalar::ONE), one, -Scalar::ONE),
                    |lc| c.add_to(lc + m.var, one, -Scalar::ONE),
                );
                Boolean::Is(m)
            }
        }
    }

    /// SHA-256 `Maj(a, b, c) = (a AND b) XOR (a AND c) XOR (b AND c)`: true when at least two inputs are.
    ///
    /// One constraint when all are allocated: with s = a + b + c, (s − 4m)·s = s − 6m reads
    /// m·(4s − 6) = s² − s; since 4s − 6 ≠ 0 it fixes m = 0, 0, 1, 1 for s = 0..3, so m needs no booleanity
    /// constraint. A constant input leaves an AND (false) or OR (true) of the other two; two equal constants
    /// decide the result, two different ones select the third input.
    pub fn sha256_maj<CS: ConstraintSystem>(cs: &mut CS, a: &Self, b: &Self, c: &Self) -> Self {
        match (*a, *b, *c) {
            (Boolean::Constant(k), x, y) | (x, Boolean::Constant(k), y) | (x, y, Boolean::Constant(k)) => {
                if k {
                    Boolean::or(cs, &x, &y)
                } else {
                    Boolean::and(cs, &x, &y)
                }
            }
            _ => {
                let n = a.value() as u8 + b.value() as u8 + c.value() as u8;
                let m = AllocatedBit::determined(cs, n >= 2);
                let one = CS::one();
                cs.enforce(
                    |lc| sum3(lc, a, b, c, one, Scalar::ONE) - (small(4), m.var),
                    |lc| sum3(lc, a, b, c, one, Scalar::ONE),
                    |lc| sum3(lc, a, b, c, one, Scalar::ONE) - (small(6), m.var),
                );
                Boolean::Is(m)
            }
        }
    }

    /// Enforces `a = b` with one constraint (a − b)·1 = 0; free when both are equal constants, and an
    /// unsatisfiable constraint when they are different constants.
    pub fn enforce_equal<CS: ConstraintSystem>(cs: &mut CS, a: &Self, b: &Self) {
        if let (Boolean::Constant(x), Boolean::Constant(y)) = (a, b) {
            if x == y {
                return;
            }
        }
        let one = CS::one();
        cs.enforce(|lc| b.add_to(a.add_to(lc, one, Scalar::ONE), one, -Scalar::ONE), |lc| lc + one, |lc| lc);
    }
}

/// Adds `coeff · (a + b + c)` to `lc`.
#[inline]
fn sum3<S: TermStore>(
    lc: LinearCombination<S>,
    a: &Boolean,
    b: &Boolean,
    c: &Boolean,
    one: Variable,
    coeff: Scalar,
) -> LinearCombination<S> {
    c.add_to(b.add_to(a.add_to(lc, one, coeff), one, coeff), one, coeff)
}
