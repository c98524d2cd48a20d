//! Linear combinations with a run-time-selected term store (toggle A1).
//!
//! The store is a type parameter, so one run picks `Vec` or `SmallVec` once and every term push after that is
//! a direct call: no per-term dynamic dispatch.

use std::ops::{Add, Sub};

use blstrs::Scalar;
use ff::Field;
use smallvec::SmallVec;

use super::var::Variable;

/// One term of a linear combination: a variable and its coefficient.
pub type Term = (Variable, Scalar);

/// Inline capacity of the A1 store. 4: boolean, xor, ch/maj and equality combinations hold 1–4 terms, while
/// the packed sums of uint32 additions (32–160 terms) spill anyway. Not swept yet; with it, A1 measured
/// +10.8% synthesis on porep-mini, within noise (docs/PERF.md, "Toggles on the CPU").
pub const SMALLVEC_INLINE: usize = 4;

/// Where a linear combination keeps its terms; implemented by `Vec` (A1 off) and `SmallVec` (A1 on).
pub trait TermStore: Default + Clone + Send + Sync + 'static {
    /// Short name shown in tables and run records.
    const NAME: &'static str;
    /// Appends one term.
    fn push_term(&mut self, term: Term);
    /// The terms, in insertion order.
    fn terms(&self) -> &[Term];
    /// Reserves room for `n` more terms.
    fn reserve_terms(&mut self, n: usize);
}

/// The A1-off store: terms on the heap from the first push.
pub type VecStore = Vec<Term>;
/// The A1-on store: the first `SMALLVEC_INLINE` terms live inline.
pub type SmallStore = SmallVec<[Term; SMALLVEC_INLINE]>;

impl TermStore for VecStore {
    const NAME: &'static str = "vec";
    #[inline]
    fn push_term(&mut self, term: Term) {
        self.push(term);
    }
    #[inline]
    fn terms(&self) -> &[Term] {
        self
    }
    #[inline]
    fn reserve_terms(&mut self, n: usize) {
        self.reserve(n);
    }
}

impl TermStore for SmallStore {
    const NAME: &'static str = "smallvec";
    #[inline]
    fn push_term(&mut self, term: Term) {
        self.push(term);
    }
    #[inline]
    fn terms(&self) -> &[Term] {
        self
    }
    #[inline]
    fn reserve_terms(&mut self, n: usize) {
        self.reserve(n);
    }
}

/// A sum of coefficient·variable terms, the operand of every constraint.
#[derive(Clone, Default)]
pub struct LinearCombination<S: TermStore>(S);

impl<S: TermStore> LinearCombination<S> {
    /// The empty combination (value zero).
    #[inline]
    pub fn zero() -> Self {
        LinearCombination(S::default())
    }

    /// The terms in insertion order (a variable may appear more than once).
    #[inline]
    pub fn terms(&self) -> &[Term] {
        self.0.terms()
    }

    /// Adds `coeff · var`.
    #[inline]
    pub fn push(&mut self, var: Variable, coeff: Scalar) {
        self.0.push_term((var, coeff));
    }

    /// This combination with `terms` appended (room reserved for the iterator's lower bound).
    #[inline]
    pub fn extended(mut self, terms: impl Iterator<Item = Term>) -> Self {
        self.0.reserve_terms(terms.size_hint().0);
        for t in terms {
            self.0.push_term(t);
        }
        self
    }

    /// Evaluates the combination against input and aux assignments.
    #[inline]
    pub fn eval(&self, inputs: &[Scalar], aux: &[Scalar]) -> Scalar {
        let mut acc = Scalar::ZERO;
        for (var, coeff) in self.terms() {
            let v = var.value_in(inputs, aux);
            if *coeff == Scalar::ONE {
                acc += v;
            } else {
                acc += v * coeff;
            }
        }
        acc
    }
}

impl<S: TermStore> Add<Variable> for LinearCombination<S> {
    type Output = Self;
    #[inline]
    fn add(mut self, var: Variable) -> Self {
        self.push(var, Scalar::ONE);
        self
    }
}

impl<S: TermStore> Sub<Variable> for LinearCombination<S> {
    type Output = Self;
    #[inline]
    fn sub(mut self, var: Variable) -> Self {
        self.push(var, -Scalar::ONE);
        self
    }
}

impl<S: TermStore> Add<(Scalar, Variable)> for LinearCombination<S> {
    type Output = Self;
    #[inline]
    fn add(mut self, (coeff, var): (Scalar, Variable)) -> Self {
        self.push(var, coeff);
        self
    }
}

impl<S: TermStore> Sub<(Scalar, Variable)> for LinearCombination<S> {
    type Output = Self;
    #[inline]
    fn sub(mut self, (coeff, var): (Scalar, Variable)) -> Self {
        self.push(var, -coeff);
        self
    }
}

impl<S: TermStore> Add<&LinearCombination<S>> for LinearCombination<S> {
    type Output = Self;
    #[inline]
    fn add(mut self, other: &LinearCombination<S>) -> Self {
        self.0.reserve_terms(other.terms().len());
        for &(var, coeff) in other.terms() {
            self.push(var, coeff);
        }
        self
    }
}

impl<S: TermStore> Sub<&LinearCombination<S>> for LinearCombination<S> {
    type Output = Self;
    #[inline]
    fn sub(mut self, other: &LinearCombination<S>) -> Self {
        self.0.reserve_terms(other.terms().len());
        for &(var, coeff) in other.terms() {
            self.push(var, -coeff);
        }
        self
    }
}

impl<S: TermStore> Add<(Scalar, &LinearCombination<S>)> for LinearCombination<S> {
    type Output = Self;
    // Adding a scaled combination multiplies each coefficient by the scale: intended.
    #[allow(clippy::suspicious_arithmetic_impl)]
    #[inline]
    fn add(mut self, (scale, other): (Scalar, &LinearCombination<S>)) -> Self {
        self.0.reserve_terms(other.terms().len());
        for &(var, coeff) in other.terms() {
            self.push(var, coeff * scale);
        }
        self
    }
}

impl<S: TermStore> Sub<(Scalar, &LinearCombination<S>)> for LinearCombination<S> {
    type Output = Self;
    #[allow(clippy::suspicious_arithmetic_impl)]
    #[inline]
    fn sub(mut self, (scale, other): (Scalar, &LinearCombination<S>)) -> Self {
        self.0.reserve_terms(other.terms().len());
        for &(var, coeff) in other.terms() {
            self.push(var, -(coeff * scale));
        }
        self
    }
}
