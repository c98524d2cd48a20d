//! Synthesis for proving: records a/b/c evaluations, assignments and density bitmaps.

use blstrs::Scalar;
use ff::Field;

use super::{
    Circuit, ConstraintSystem, Density, Evals, Index, Lc, LinearCombination, Shape, SynthesisError, Term,
    TermStore, Variable,
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
        cs.asg.input_assignment.push(Scalar::ONE);
        cs.asg.b_input_density.push_clear();
        circuit.synthesize(&mut cs)?;
        let mut asg = cs.asg;
        for i in 0..asg.input_assignment.len() {
            asg.a.push(asg.input_assignment[i]);
            asg.b.push(Scalar::ZERO);
            asg.c.push(Scalar::ZERO);
        }
        Ok(asg)
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

/// The constraint system that fills a `ProvingAssignment`.
struct Synthesizer<S: TermStore> {
    asg: ProvingAssignment,
    _store: std::marker::PhantomData<S>,
}

impl<S: TermStore> Synthesizer<S> {
    fn new(hint: Option<Shape>) -> Self {
        let mut asg = ProvingAssignment::default();
        if let Some(h) = hint {
            let rows = h.constraints + h.inputs;
            asg.a.reserve_exact(rows);
            asg.b.reserve_exact(rows);
            asg.c.reserve_exact(rows);
            asg.input_assignment.reserve_exact(h.inputs);
            asg.aux_assignment.reserve_exact(h.aux);
            asg.a_aux_density = Density::with_capacity(h.aux);
            asg.b_aux_density = Density::with_capacity(h.aux);
            asg.b_input_density = Density::with_capacity(h.inputs);
        }
        Synthesizer { asg, _store: std::marker::PhantomData }
    }
}

/// Evaluates `lc`, marking the variables it touches in the given densities.
#[inline]
fn eval_marking<S: TermStore>(
    lc: &LinearCombination<S>,
    inputs: &[Scalar],
    aux: &[Scalar],
    input_density: Option<&mut Density>,
    aux_density: Option<&mut Density>,
) -> Scalar {
    eval_terms(lc.terms().iter().copied(), inputs, aux, input_density, aux_density)
}

/// Evaluates terms, marking the variables they touch in the given densities.
#[inline]
fn eval_terms(
    terms: impl Iterator<Item = Term>,
    inputs: &[Scalar],
    aux: &[Scalar],
    mut input_density: Option<&mut Density>,
    mut aux_density: Option<&mut Density>,
) -> Scalar {
    let mut acc = Scalar::ZERO;
    for (var, coeff) in terms {
        let v = match var.0 {
            Index::Input(i) => {
                if let Some(d) = input_density.as_deref_mut() {
                    d.set(i);
                }
                inputs[i]
            }
            Index::Aux(i) => {
                if let Some(d) = aux_density.as_deref_mut() {
                    d.set(i);
                }
                aux[i]
            }
        };
        if coeff == Scalar::ONE {
            acc += v;
        } else {
            acc += v * coeff;
        }
    }
    acc
}

impl<S: TermStore> ConstraintSystem for Synthesizer<S> {
    type Store = S;

    #[inline]
    fn alloc(&mut self, value: Scalar) -> Variable {
        self.asg.aux_assignment.push(value);
        self.asg.a_aux_density.push_clear();
        self.asg.b_aux_density.push_clear();
        Variable(Index::Aux(self.asg.aux_assignment.len() - 1))
    }

    #[inline]
    fn alloc_input(&mut self, value: Scalar) -> Variable {
        self.asg.input_assignment.push(value);
        self.asg.b_input_density.push_clear();
        Variable(Index::Input(self.asg.input_assignment.len() - 1))
    }

    #[inline]
    fn enforce<A, B, C>(&mut self, a: A, b: B, c: C)
    where
        A: FnOnce(Lc<Self>) -> Lc<Self>,
        B: FnOnce(Lc<Self>) -> Lc<Self>,
        C: FnOnce(Lc<Self>) -> Lc<Self>,
    {
        let asg = &mut self.asg;
        let (inp, aux) = (&asg.input_assignment[..], &asg.aux_assignment[..]);
        let av = eval_marking(&a(LinearCombination::zero()), inp, aux, None, Some(&mut asg.a_aux_density));
        let bv = eval_marking(
            &b(LinearCombination::zero()),
            inp,
            aux,
            Some(&mut asg.b_input_density),
            Some(&mut asg.b_aux_density),
        );
        let cv = c(LinearCombination::zero()).eval(inp, aux);
        asg.a.push(av);
        asg.b.push(bv);
        asg.c.push(cv);
    }

    #[inline]
    fn value(&self, var: Variable) -> Scalar {
        var.value_in(&self.asg.input_assignment, &self.asg.aux_assignment)
    }

    /// Evaluates foreign terms directly (no combination is built), marking densities as `enforce` does.
    #[inline]
    fn enforce_terms<A, B, C>(&mut self, a: A, b: B, c: C)
    where
        A: Iterator<Item = Term>,
        B: Iterator<Item = Term>,
        C: Iterator<Item = Term>,
    {
        let asg = &mut self.asg;
        let (inp, aux) = (&asg.input_assignment[..], &asg.aux_assignment[..]);
        let av = eval_terms(a, inp, aux, None, Some(&mut asg.a_aux_density));
        let bv = eval_terms(b, inp, aux, Some(&mut asg.b_input_density), Some(&mut asg.b_aux_density));
        let cv = eval_terms(c, inp, aux, None, None);
        asg.a.push(av);
        asg.b.push(bv);
        asg.c.push(cv);
    }
}
