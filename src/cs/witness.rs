//! Witness-only synthesis: the circuit computes its values and nothing else.
//!
//! Why: with pre-compiled constraint evaluation ([`super::pce`]) the matrices A, B, C are known from a
//! recording, so a later circuit of the same shape only needs its witness. Here `enforce` does nothing (its
//! closures are never called, so no linear combination is built or evaluated) and allocation only stores the
//! value. Gadgets run unchanged: they compute every value natively and read values back through
//! [`ConstraintSystem::value`].

use blstrs::Scalar;
use ff::Field;

use super::shape::mix;
use super::{Circuit, ConstraintSystem, Index, Lc, Shape, SmallStore, SynthesisError, Variable};

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
    inputs: Vec<Scalar>,
    aux: Vec<Scalar>,
    constraints: usize,
    fingerprint: u64,
}

impl WitnessOnly {
    /// Runs `circuit` witness-only. `hint` (the shape, e.g. from a PCE record) pre-sizes the vectors; the
    /// aux vector then also has room for the inputs behind it.
    pub fn synthesize<C: Circuit + ?Sized>(
        circuit: &C,
        hint: Option<Shape>,
    ) -> Result<Witness, SynthesisError> {
        let mut cs = WitnessOnly {
            inputs: Vec::with_capacity(hint.map_or(1, |h| h.inputs)),
            aux: Vec::with_capacity(hint.map_or(0, |h| h.aux + h.inputs)),
            constraints: 0,
            fingerprint: FINGERPRINT_SEED,
        };
        cs.inputs.push(Scalar::ONE);
        circuit.synthesize(&mut cs)?;
        let shape = Shape { constraints: cs.constraints, inputs: cs.inputs.len(), aux: cs.aux.len() };
        Ok(Witness { inputs: cs.inputs, aux: cs.aux, shape, fingerprint: cs.fingerprint })
    }
}

impl ConstraintSystem for WitnessOnly {
    type Store = SmallStore;

    #[inline]
    fn alloc(&mut self, value: Scalar) -> Variable {
        self.aux.push(value);
        self.fingerprint = mix(self.fingerprint, EV_ALLOC);
        Variable(Index::Aux(self.aux.len() - 1))
    }

    #[inline]
    fn alloc_input(&mut self, value: Scalar) -> Variable {
        self.inputs.push(value);
        self.fingerprint = mix(self.fingerprint, EV_INPUT);
        Variable(Index::Input(self.inputs.len() - 1))
    }

    #[inline]
    fn enforce<A, B, C>(&mut self, _a: A, _b: B, _c: C)
    where
        A: FnOnce(Lc<Self>) -> Lc<Self>,
        B: FnOnce(Lc<Self>) -> Lc<Self>,
        C: FnOnce(Lc<Self>) -> Lc<Self>,
    {
        self.constraints += 1;
        self.fingerprint = mix(self.fingerprint, EV_ENFORCE);
    }

    #[inline]
    fn value(&self, var: Variable) -> Scalar {
        var.value_in(&self.inputs, &self.aux)
    }

    fn witness_only(&self) -> bool {
        true
    }
}
