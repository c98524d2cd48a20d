//! Witness-only synthesis: the circuit computes its values and nothing else.
//!
//! Why: with pre-compiled constraint evaluation ([`super::pce`]) the matrices A, B, C are known from a
//! recording, so a later circuit of the same shape only needs its witness. Here `enforce` does nothing (its
//! closures are never called, so no linear combination is built or evaluated) and allocation only stores the
//! value. Gadgets run unchanged: they compute every value natively and read values back through
//! [`ConstraintSystem::value`].

use blstrs::Scalar;

use super::book::{Book, NoDensity};
use super::shape::mix;
use super::{Circuit, ConstraintSystem, Lc, Shape, SmallStore, SynthesisError, Variable};

/// Event tags of the allocation/constraint fingerprint (shared with the PCE recorder).
pub(crate) const EV_ALLOC: u64 = 0xA1;
/// A public input was allocated.
pub(crate) const EV_INPUT: u64 = 0x1A;
/// A constraint was enforced.
pub(crate) const EV_ENFORCE: u64 = 0xE0;
/// Seed of the fingerprint.
pub(crate) const FINGERPRINT_SEED: u64 = 0x7769_746e;

/// What witness-only synthesis produces: the assignments, the shape they came from and a fingerprint of
/// the order of allocations and constraints (a cheap structural check; it does not see coefficients).
#[derive(Clone, Debug)]
pub struct Witness {
    /// Public inputs, input 0 being the constant 1.
    pub inputs: Vec<Scalar>,
    /// Private values. With a capacity hint, `inputs` more slots are reserved after them so the
    /// evaluation can append the inputs without reallocating (see [`super::pce::Pce::evaluate`]).
    pub aux: Vec<Scalar>,
    /// Constraints enforced, inputs (with the constant one) and aux allocated.
    pub shape: Shape,
    /// Fingerprint of the sequence of allocations, input allocations and constraints.
    pub fingerprint: u64,
}

/// The constraint system of witness-only synthesis: `enforce` is a no-op, allocation stores values.
///
/// The term store is A1's `SmallStore`: gadgets that build lazy sums outside `enforce` (e.g. `Num`) then
/// keep short ones inline.
pub struct WitnessOnly {
    book: Book<NoDensity>,
    fingerprint: u64,
}

impl WitnessOnly {
    /// Runs `circuit` witness-only. `hint` (the shape, e.g. from a PCE record) pre-sizes the vectors; the
    /// aux vector then also has room for the inputs behind it.
    pub fn synthesize<C: Circuit + ?Sized>(
        circuit: &C,
        hint: Option<Shape>,
    ) -> Result<Witness, SynthesisError> {
        let book = Book::new(hint, hint.map_or(0, |h| h.inputs));
        let mut cs = WitnessOnly { book, fingerprint: FINGERPRINT_SEED };
        circuit.synthesize(&mut cs)?;
        let shape = cs.book.shape();
        Ok(Witness { inputs: cs.book.inputs, aux: cs.book.aux, shape, fingerprint: cs.fingerprint })
    }
}

impl ConstraintSystem for WitnessOnly {
    type Store = SmallStore;

    #[inline]
    fn alloc(&mut self, value: Scalar) -> Variable {
        self.fingerprint = mix(self.fingerprint, EV_ALLOC);
        self.book.alloc(value)
    }

    #[inline]
    fn alloc_input(&mut self, value: Scalar) -> Variable {
        self.fingerprint = mix(self.fingerprint, EV_INPUT);
        self.book.alloc_input(value)
    }

    #[inline]
    fn enforce<A, B, C>(&mut self, _a: A, _b: B, _c: C)
    where
        A: FnOnce(Lc<Self>) -> Lc<Self>,
        B: FnOnce(Lc<Self>) -> Lc<Self>,
        C: FnOnce(Lc<Self>) -> Lc<Self>,
    {
        self.book.enforced();
        self.fingerprint = mix(self.fingerprint, EV_ENFORCE);
    }

    #[inline]
    fn value(&self, var: Variable) -> Scalar {
        self.book.value(var)
    }

    fn witness_only(&self) -> bool {
        true
    }
}
