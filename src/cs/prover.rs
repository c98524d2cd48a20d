//! Synthesis for proving: records a/b/c evaluations, assignments and density bitmaps.

use blstrs::Scalar;
use ff::Field;

use super::book::{Book, Densities};
use super::direct::DirectProver;
use super::{
    Circuit, ConstraintSystem, Density, Evals, Lc, LinearCombination, Shape, SynthesisError, Term, TermStore,
    Variable,
};

/// Everything the prover needs from one circuit's synthesis.
///
/// Memory: a, b, c and aux are 32 bytes per element each, so ~128 bytes per constraint (aux ≈ constraints),
/// plus 3 bits of density per variable.
#[derive(Clone, Debug, Default)]
pub struct ProvingAssignment {
    /// ⟨A_i, w⟩ per constraint (then one entry per public input, `input_i * 1 = 0`).
    pub a: Evals,
    /// ⟨B_i, w⟩ per constraint.
    pub b: Evals,
    /// ⟨C_i, w⟩ per constraint.
    pub c: Evals,
    /// Public inputs, input 0 being the constant 1.
    pub input_assignment: Vec<Scalar>,
    /// Private values.
    pub aux_assignment: Vec<Scalar>,
    /// Aux variables used by some A combination.
    pub a_aux_density: Density,
    /// Inputs used by some B combination.
    pub b_input_density: Density,
    /// Aux variables used by some B combination.
    pub b_aux_density: Density,
}

impl ProvingAssignment {
    /// Synthesizes `circuit` with term store `S` (A1) and optional capacity hint (A2), then appends one
    /// `input_i * 1 = 0` constraint per public input as bellperson does.
    pub fn synthesize<S: TermStore, C: Circuit + ?Sized>(
        circuit: &C,
        hint: Option<Shape>,
    ) -> Result<Self, SynthesisError> {
        let mut cs = Synthesizer::<S>::new(hint);
        circuit.synthesize(&mut cs)?;
        let (book, [mut a, mut b, mut c]) = cs.parts.into_parts();
        for &x in &book.inputs {
            a.push(x);
            b.push(Scalar::ZERO);
            c.push(Scalar::ZERO);
        }
        let Densities { a_aux, b_input, b_aux } = book.track;
        Ok(ProvingAssignment {
            a,
            b,
            c,
            input_assignment: book.inputs,
            aux_assignment: book.aux,
            a_aux_density: a_aux,
            b_input_density: b_input,
            b_aux_density: b_aux,
        })
    }

    /// Number of constraints including the appended input constraints.
    pub fn num_constraints(&self) -> usize {
        self.a.len()
    }

    /// Bytes held by a, b, c and the assignments.
    pub fn bytes(&self) -> usize {
        (self.a.len() + self.b.len() + self.c.len() + self.input_assignment.len() + self.aux_assignment.len())
            * std::mem::size_of::<Scalar>()
    }
}

/// The constraint system that fills a `ProvingAssignment`: the shared book (values, densities) and a/b/c.
struct Synthesizer<S: TermStore> {
    parts: DirectProver,
    _store: std::marker::PhantomData<S>,
}

impl<S: TermStore> Synthesizer<S> {
    fn new(hint: Option<Shape>) -> Self {
        let (mut a, mut b, mut c) = (Evals::default(), Evals::default(), Evals::default());
        if let Some(h) = hint {
            let rows = h.constraints + h.inputs;
            a.reserve_exact(rows);
            b.reserve_exact(rows);
            c.reserve_exact(rows);
        }
        let parts = DirectProver::new(Book::new(hint, 0), [a, b, c]);
        Synthesizer { parts, _store: std::marker::PhantomData }
    }
}

impl<S: TermStore> ConstraintSystem for Synthesizer<S> {
    type Store = S;

    #[inline]
    fn alloc(&mut self, value: Scalar) -> Variable {
        self.parts.book().alloc(value)
    }

    #[inline]
    fn alloc_input(&mut self, value: Scalar) -> Variable {
        self.parts.book().alloc_input(value)
    }

    #[inline]
    fn enforce<A, B, C>(&mut self, a: A, b: B, c: C)
    where
        A: FnOnce(Lc<Self>) -> Lc<Self>,
        B: FnOnce(Lc<Self>) -> Lc<Self>,
        C: FnOnce(Lc<Self>) -> Lc<Self>,
    {
        let book = self.parts.book();
        let av = book.eval_a(a(LinearCombination::zero()).terms().iter().copied());
        let bv = book.eval_b(b(LinearCombination::zero()).terms().iter().copied());
        let cv = book.eval(c(LinearCombination::zero()).terms().iter().copied());
        self.parts.push_row(av, bv, cv);
    }

    #[inline]
    fn value(&self, var: Variable) -> Scalar {
        self.parts.book_ref().value(var)
    }

    /// Evaluates foreign terms directly (no combination is built), marking densities as `enforce` does.
    #[inline]
    fn enforce_terms<A, B, C>(&mut self, a: A, b: B, c: C)
    where
        A: Iterator<Item = Term>,
        B: Iterator<Item = Term>,
        C: Iterator<Item = Term>,
    {
        let book = self.parts.book();
        let av = book.eval_a(a);
        let bv = book.eval_b(b);
        let cv = book.eval(c);
        self.parts.push_row(av, bv, cv);
    }

    #[inline]
    fn direct(&mut self) -> Option<&mut DirectProver> {
        Some(&mut self.parts)
    }
}
