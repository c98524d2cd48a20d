//! The bookkeeping every constraint system shares: the witness values allocated so far (gadgets read them
//! back), the constraint count, and, where the consumer needs them, the density bitmaps of the A and B
//! queries (which variables some A or B combination names).
//!
//! Why one type: the prover, the PCE recorder, witness-only synthesis, the shape counter, the setup's
//! evaluator and the budget's counter all keep the same vectors and mark the same bits, and they must agree
//! exactly (a record's densities are the prover's; the budget's counts are the params'). The density part is
//! a type parameter, so witness-only synthesis and the shape counter pay nothing for it.
//!
//! `MatrixRecorder` keeps its own vectors on purpose: it is the independent reference tests compare against.

use blstrs::Scalar;
use ff::Field;
use serde::{Deserialize, Serialize};

use super::{Density, Index, Term, Variable};

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

/// What a [`Book`] keeps besides values: [`Densities`] or nothing ([`NoDensity`]).
pub trait Track: Default {
    /// A private variable was allocated.
    fn alloc(&mut self);
    /// A public input was allocated.
    fn alloc_input(&mut self);
    /// Room for a circuit of this shape (A2 pre-sizing).
    fn reserve(&mut self, hint: Shape);
}

/// No density bitmaps (witness-only synthesis, the shape counter).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoDensity;

impl Track for NoDensity {
    #[inline]
    fn alloc(&mut self) {}
    #[inline]
    fn alloc_input(&mut self) {}
    #[inline]
    fn reserve(&mut self, _hint: Shape) {}
}

/// The density bitmaps of the A and B queries; a variable counts as used when it appears in a combination,
/// even if its coefficients cancel (as bellperson marks them).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Densities {
    /// Aux variables named by some A combination.
    pub a_aux: Density,
    /// Inputs named by some B combination.
    pub b_input: Density,
    /// Aux variables named by some B combination.
    pub b_aux: Density,
}

impl Densities {
    /// Adds `other`'s marks (passes over disjoint rows of one circuit: the survey's, the setup's).
    pub fn union_with(&mut self, other: &Densities) {
        self.a_aux.union_with(&other.a_aux);
        self.b_input.union_with(&other.b_input);
        self.b_aux.union_with(&other.b_aux);
    }
}

impl Track for Densities {
    #[inline]
    fn alloc(&mut self) {
        self.a_aux.push_clear();
        self.b_aux.push_clear();
    }

    #[inline]
    fn alloc_input(&mut self) {
        self.b_input.push_clear();
    }

    fn reserve(&mut self, hint: Shape) {
        self.a_aux = Density::with_capacity(hint.aux);
        self.b_aux = Density::with_capacity(hint.aux);
        self.b_input = Density::with_capacity(hint.inputs);
    }
}

/// Values allocated so far, constraints enforced, and the tracked densities.
#[derive(Clone, Debug)]
pub struct Book<T: Track = Densities> {
    /// Public inputs, input 0 being the constant 1.
    pub inputs: Vec<Scalar>,
    /// Private values.
    pub aux: Vec<Scalar>,
    /// Constraints enforced (without the input constraints the prover appends).
    pub constraints: usize,
    /// The densities, or nothing.
    pub track: T,
}

impl<T: Track> Book<T> {
    /// A book holding only the constant one, pre-sized for `hint`; `aux_extra` more aux slots are reserved
    /// (witness-only synthesis keeps room to append the inputs behind the aux values).
    pub fn new(hint: Option<Shape>, aux_extra: usize) -> Self {
        let mut track = T::default();
        let (inputs, aux) = match hint {
            Some(h) => {
                track.reserve(h);
                // A vector of the run's earlier circuit, its pages mapped (`util::recycle`), else a fresh one
                // in huge pages or mapped in one call: faulted in 4 KiB pages the aux vector cost a third of
                // witness-only synthesis of the real 2 KiB C2 (docs/PERF.md).
                let aux = crate::util::recycle::take(h.aux + aux_extra).unwrap_or_else(|| {
                    let mut aux = Vec::with_capacity(h.aux + aux_extra);
                    crate::util::mem::prepare(&mut aux);
                    aux
                });
                (Vec::with_capacity(h.inputs), aux)
            }
            None => (Vec::with_capacity(1), Vec::new()),
        };
        let mut book = Book { inputs, aux, constraints: 0, track };
        book.alloc_input(Scalar::ONE);
        book
    }

    /// Allocates a private variable.
    #[inline]
    pub fn alloc(&mut self, value: Scalar) -> Variable {
        self.aux.push(value);
        self.track.alloc();
        Variable(Index::Aux(self.aux.len() - 1))
    }

    /// Allocates a public input.
    #[inline]
    pub fn alloc_input(&mut self, value: Scalar) -> Variable {
        self.inputs.push(value);
        self.track.alloc_input();
        Variable(Index::Input(self.inputs.len() - 1))
    }

    /// The value of a variable.
    #[inline]
    pub fn value(&self, var: Variable) -> Scalar {
        var.value_in(&self.inputs, &self.aux)
    }

    /// Counts one constraint; returns its index.
    #[inline]
    pub fn enforced(&mut self) -> usize {
        self.constraints += 1;
        self.constraints - 1
    }

    /// Constraints, inputs and aux so far.
    #[inline]
    pub fn shape(&self) -> Shape {
        Shape { constraints: self.constraints, inputs: self.inputs.len(), aux: self.aux.len() }
    }

    /// ⟨C, w⟩ of a combination kept as inputs and aux apart, marking nothing.
    #[inline]
    pub fn eval_split<'t>(
        &self,
        inputs: impl Iterator<Item = (&'t usize, &'t Scalar)>,
        aux: impl Iterator<Item = (&'t usize, &'t Scalar)>,
    ) -> Scalar {
        split_sum(&self.inputs, &self.aux, inputs, aux, None, None)
    }

    /// ⟨terms, w⟩, marking nothing (C, or a system without densities).
    #[inline]
    pub fn eval(&self, terms: impl Iterator<Item = Term>) -> Scalar {
        let mut acc = Scalar::ZERO;
        for (var, coeff) in terms {
            add_term(&mut acc, var.value_in(&self.inputs, &self.aux), coeff);
        }
        acc
    }
}

/// Σ coeff·value over a split combination, marking each variable named in `mark_in` / `mark_aux` when given.
#[inline]
fn split_sum<'t>(
    in_values: &[Scalar],
    aux_values: &[Scalar],
    inputs: impl Iterator<Item = (&'t usize, &'t Scalar)>,
    aux: impl Iterator<Item = (&'t usize, &'t Scalar)>,
    mut mark_in: Option<&mut Density>,
    mut mark_aux: Option<&mut Density>,
) -> Scalar {
    let mut acc = Scalar::ZERO;
    for (&i, k) in inputs {
        if let Some(m) = mark_in.as_deref_mut() {
            m.set(i);
        }
        add_term(&mut acc, in_values[i], *k);
    }
    for (&i, k) in aux {
        if let Some(m) = mark_aux.as_deref_mut() {
            m.set(i);
        }
        add_term(&mut acc, aux_values[i], *k);
    }
    acc
}

/// acc += v·coeff, skipping the multiplication for coefficient one (most terms of SHA-256 and booleans) and
/// for values zero or one (a boolean witness: most of SHA-256's variables are bits).
#[inline]
fn add_term(acc: &mut Scalar, v: Scalar, coeff: Scalar) {
    if v == Scalar::ZERO {
        return;
    }
    if coeff == Scalar::ONE {
        *acc += v;
    } else if v == Scalar::ONE {
        *acc += coeff;
    } else {
        *acc += v * coeff;
    }
}

impl Book<Densities> {
    /// Marks the aux variables of an A combination.
    #[inline]
    pub fn mark_a(&mut self, terms: &[Term]) {
        for (var, _) in terms {
            if let Index::Aux(i) = var.0 {
                self.track.a_aux.set(i);
            }
        }
    }

    /// Marks the variables of a B combination.
    #[inline]
    pub fn mark_b(&mut self, terms: &[Term]) {
        for (var, _) in terms {
            match var.0 {
                Index::Input(i) => self.track.b_input.set(i),
                Index::Aux(i) => self.track.b_aux.set(i),
            }
        }
    }

    /// ⟨terms, w⟩ of an A combination, marking its aux variables in the same pass.
    #[inline]
    pub fn eval_a(&mut self, terms: impl Iterator<Item = Term>) -> Scalar {
        let mut acc = Scalar::ZERO;
        for (var, coeff) in terms {
            let v = match var.0 {
                Index::Input(i) => self.inputs[i],
                Index::Aux(i) => {
                    self.track.a_aux.set(i);
                    self.aux[i]
                }
            };
            add_term(&mut acc, v, coeff);
        }
        acc
    }

    /// ⟨A, w⟩ of a combination kept as inputs and aux apart (a foreign one, read in place), marking its aux
    /// variables: no enum per term and no copy of the terms.
    #[inline]
    pub fn eval_a_split<'t>(
        &mut self,
        inputs: impl Iterator<Item = (&'t usize, &'t Scalar)>,
        aux: impl Iterator<Item = (&'t usize, &'t Scalar)>,
    ) -> Scalar {
        split_sum(&self.inputs, &self.aux, inputs, aux, None, Some(&mut self.track.a_aux))
    }

    /// ⟨B, w⟩ of a combination kept as inputs and aux apart, marking its variables.
    #[inline]
    pub fn eval_b_split<'t>(
        &mut self,
        inputs: impl Iterator<Item = (&'t usize, &'t Scalar)>,
        aux: impl Iterator<Item = (&'t usize, &'t Scalar)>,
    ) -> Scalar {
        let t = &mut self.track;
        split_sum(&self.inputs, &self.aux, inputs, aux, Some(&mut t.b_input), Some(&mut t.b_aux))
    }

    /// ⟨terms, w⟩ of a B combination, marking its variables in the same pass.
    #[inline]
    pub fn eval_b(&mut self, terms: impl Iterator<Item = Term>) -> Scalar {
        let mut acc = Scalar::ZERO;
        for (var, coeff) in terms {
            let v = match var.0 {
                Index::Input(i) => {
                    self.track.b_input.set(i);
                    self.inputs[i]
                }
                Index::Aux(i) => {
                    self.track.b_aux.set(i);
                    self.aux[i]
                }
            };
            add_term(&mut acc, v, coeff);
        }
        acc
    }
}
