//! A reference constraint system for bellperson 0.27 circuits, independent of cuzk: it counts constraints,
//! inputs and aux, keeps the values, and evaluates every constraint with the witness.

use bellperson::{ConstraintSystem, Index, LinearCombination, SynthesisError, Variable};
use blstrs::Scalar;
use ff::Field;

/// Counts and checks a circuit's synthesis; input 0 is the constant one, as in bellperson's prover.
pub struct RefCs {
    /// Public inputs, ONE first.
    pub inputs: Vec<Scalar>,
    /// Private values.
    pub aux: Vec<Scalar>,
    /// Constraints the circuit wrote.
    pub constraints: usize,
    /// Indices of the constraints whose ⟨a,z⟩·⟨b,z⟩ ≠ ⟨c,z⟩ (the first few).
    pub unsatisfied: Vec<usize>,
}

impl Default for RefCs {
    fn default() -> Self {
        RefCs { inputs: vec![Scalar::ONE], aux: Vec::new(), constraints: 0, unsatisfied: Vec::new() }
    }
}

impl RefCs {
    fn eval(&self, lc: &LinearCombination<Scalar>) -> Scalar {
        lc.iter().fold(Scalar::ZERO, |acc, (v, k)| {
            acc + *k
                * match v.get_unchecked() {
                    Index::Input(i) => self.inputs[i],
                    Index::Aux(i) => self.aux[i],
                }
        })
    }
}

impl ConstraintSystem<Scalar> for RefCs {
    type Root = Self;

    fn alloc<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.aux.push(f()?);
        Ok(Variable::new_unchecked(Index::Aux(self.aux.len() - 1)))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.inputs.push(f()?);
        Ok(Variable::new_unchecked(Index::Input(self.inputs.len() - 1)))
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LB: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LC: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
    {
        let (a, b, c) =
            (a(LinearCombination::zero()), b(LinearCombination::zero()), c(LinearCombination::zero()));
        if self.eval(&a) * self.eval(&b) != self.eval(&c) && self.unsatisfied.len() < 8 {
            self.unsatisfied.push(self.constraints);
        }
        self.constraints += 1;
    }

    fn push_namespace<NR: Into<String>, N: FnOnce() -> NR>(&mut self, _: N) {}

    fn pop_namespace(&mut self) {}

    fn get_root(&mut self) -> &mut Self::Root {
        self
    }
}
