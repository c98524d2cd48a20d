//! Shape-only consumers: a counter (constraints, inputs, aux) and a matrix recorder for tests and analysis.

use blstrs::Scalar;
use ff::Field;
use serde::{Deserialize, Serialize};

use super::{Circuit, ConstraintSystem, Index, Lc, LinearCombination, Term, Variable, VecStore};

/// Size of a circuit as the prover sees it; also the A2 capacity hint.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, Hash)]
pub struct Shape {
    /// Constraints written by the circuit (without the appended input constraints).
    pub constraints: usize,
    /// Public inputs including the constant one.
    pub inputs: usize,
    /// Private variables.
    pub aux: usize,
}

impl Shape {
    /// Rows of a/b/c: constraints plus one per public input.
    pub fn rows(&self) -> usize {
        self.constraints + self.inputs
    }

    /// The evaluation domain size: the next power of two ≥ rows.
    pub fn domain(&self) -> usize {
        self.rows().next_power_of_two()
    }
}

/// Counts a circuit's shape while still computing its witness values (so gadgets can read values back).
#[derive(Default)]
pub struct ShapeCounter {
    shape: Shape,
    inputs: Vec<Scalar>,
    aux: Vec<Scalar>,
}

impl ShapeCounter {
    /// The shape of `circuit`.
    pub fn count<C: Circuit + ?Sized>(circuit: &C) -> Shape {
        let mut cs = ShapeCounter {
            shape: Shape { inputs: 1, ..Shape::default() },
            inputs: vec![Scalar::ONE],
            aux: vec![],
        };
        circuit.synthesize(&mut cs);
        cs.shape
    }
}

impl ConstraintSystem for ShapeCounter {
    type Store = VecStore;

    fn alloc(&mut self, value: Scalar) -> Variable {
        self.aux.push(value);
        self.shape.aux += 1;
        Variable(Index::Aux(self.aux.len() - 1))
    }

    fn alloc_input(&mut self, value: Scalar) -> Variable {
        self.inputs.push(value);
        self.shape.inputs += 1;
        Variable(Index::Input(self.inputs.len() - 1))
    }

    fn enforce<A, B, C>(&mut self, _a: A, _b: B, _c: C)
    where
        A: FnOnce(Lc<Self>) -> Lc<Self>,
        B: FnOnce(Lc<Self>) -> Lc<Self>,
        C: FnOnce(Lc<Self>) -> Lc<Self>,
    {
        self.shape.constraints += 1;
    }

    fn value(&self, var: Variable) -> Scalar {
        var.value_in(&self.inputs, &self.aux)
    }
}

/// Records the full A, B, C matrices and the witness: the independent reference for satisfaction tests and
/// the source of `cuzk info`'s density and value statistics. Memory grows with the number of terms, so it is
/// meant for samples up to a few million constraints.
#[derive(Default)]
pub struct MatrixRecorder {
    /// Public inputs, input 0 being one.
    pub inputs: Vec<Scalar>,
    /// Private values.
    pub aux: Vec<Scalar>,
    /// Rows of A, B, C as term lists (without the appended input constraints).
    pub a: Vec<Vec<Term>>,
    /// Rows of B.
    pub b: Vec<Vec<Term>>,
    /// Rows of C.
    pub c: Vec<Vec<Term>>,
}

impl MatrixRecorder {
    /// Records `circuit`.
    pub fn record<C: Circuit + ?Sized>(circuit: &C) -> Self {
        let mut cs = MatrixRecorder { inputs: vec![Scalar::ONE], ..Default::default() };
        circuit.synthesize(&mut cs);
        cs
    }

    /// Rows whose ⟨A,w⟩·⟨B,w⟩ ≠ ⟨C,w⟩, evaluated from the recorded matrices.
    pub fn unsatisfied(&self) -> Vec<usize> {
        let eval = |row: &[Term]| {
            row.iter().fold(Scalar::ZERO, |acc, (v, c)| acc + v.value_in(&self.inputs, &self.aux) * c)
        };
        (0..self.a.len()).filter(|&i| eval(&self.a[i]) * eval(&self.b[i]) != eval(&self.c[i])).collect()
    }

    /// The shape recorded.
    pub fn shape(&self) -> Shape {
        Shape { constraints: self.a.len(), inputs: self.inputs.len(), aux: self.aux.len() }
    }
}

impl ConstraintSystem for MatrixRecorder {
    type Store = VecStore;

    fn alloc(&mut self, value: Scalar) -> Variable {
        self.aux.push(value);
        Variable(Index::Aux(self.aux.len() - 1))
    }

    fn alloc_input(&mut self, value: Scalar) -> Variable {
        self.inputs.push(value);
        Variable(Index::Input(self.inputs.len() - 1))
    }

    fn enforce<A, B, C>(&mut self, a: A, b: B, c: C)
    where
        A: FnOnce(Lc<Self>) -> Lc<Self>,
        B: FnOnce(Lc<Self>) -> Lc<Self>,
        C: FnOnce(Lc<Self>) -> Lc<Self>,
    {
        let take = |lc: LinearCombination<VecStore>| lc.terms().to_vec();
        self.a.push(take(a(LinearCombination::zero())));
        self.b.push(take(b(LinearCombination::zero())));
        self.c.push(take(c(LinearCombination::zero())));
    }

    fn value(&self, var: Variable) -> Scalar {
        var.value_in(&self.inputs, &self.aux)
    }
}
