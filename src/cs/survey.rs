//! The survey: a circuit's shape, structure digest and A/B densities in one pass per thread, run in parallel.
//! Thread t of T reads the combinations of every T-th block of [`DIGEST_BLOCK`] rows and skips the rest (a
//! foreign circuit's adapter does not even build them: [`ConstraintSystem::wants_terms`]); every thread
//! counts every allocation. The blocks' digests fold in order and the densities are unioned, so the result
//! is [`ShapeCounter::count_with_digest`]'s shape and digest and the budget counter's densities, for any
//! thread count, with no row count needed up front.
//!
//! Why: the digest names a circuit's params and PCE record, and the densities size the memory plan; both
//! run before every first proof of a process. One full pass with combinations costs about a normal
//! synthesis (1.4 s for the real 2 KiB C2 on one dev-2c thread, ~40 s at 2^27); a thread here pays about a
//! witness-only pass plus its share of the combinations. No witness values are kept (gadgets that read
//! values back see zeros): the structure of a circuit never depends on them.
//!
//! [`ShapeCounter::count_with_digest`]: super::ShapeCounter::count_with_digest

use blstrs::Scalar;
use ff::Field;

use super::book::{Densities, Track};
use super::shape::{absorb_terms, finish_blocks, mix, stripe_of, BLOCK_SEED, DIGEST_BLOCK, OUTER_SEED};
use super::{
    Circuit, ConstraintSystem, Index, Lc, LinearCombination, Shape, SynthesisError, Term, Variable, VecStore,
};

/// What one survey found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Survey {
    /// Constraints, inputs and aux variables.
    pub shape: Shape,
    /// The structure digest (`ShapeCounter::count_with_digest`'s).
    pub digest: u64,
    /// Which variables some A or B combination names.
    pub densities: Densities,
}

/// One thread's pass: counts everything, reads the rows of its own blocks.
struct Stripe {
    /// This pass's blocks are those with `block % of == mine`.
    mine: usize,
    of: usize,
    /// Constraints enforced so far.
    row: usize,
    inputs: usize,
    aux: usize,
    /// (block index, digest) of this pass's finished blocks, in order.
    blocks: Vec<(usize, u64)>,
    /// The digest of the block under way (when it is this pass's).
    block: u64,
    densities: Densities,
}

impl Stripe {
    fn owns(&self, row: usize) -> bool {
        stripe_of(row, self.of) == self.mine
    }

    /// One of this pass's rows: its densities marked and its terms digested.
    fn own_row(
        &mut self,
        a: impl Iterator<Item = Term>,
        b: impl Iterator<Item = Term>,
        c: impl Iterator<Item = Term>,
    ) {
        let row = self.row;
        self.row += 1;
        let d = &mut self.densities;
        let a = a.inspect(|(var, _)| {
            if let Index::Aux(i) = var.0 {
                d.a_aux.set(i);
            }
        });
        let mut h = absorb_terms(self.block, a, 0xA);
        let b = b.inspect(|(var, _)| match var.0 {
            Index::Input(i) => d.b_input.set(i),
            Index::Aux(i) => d.b_aux.set(i),
        });
        h = absorb_terms(h, b, 0xB);
        self.block = absorb_terms(h, c, 0xC);
        if self.row.is_multiple_of(DIGEST_BLOCK) {
            self.blocks.push((row / DIGEST_BLOCK, self.block));
            self.block = BLOCK_SEED;
        }
    }
}

impl ConstraintSystem for Stripe {
    type Store = VecStore;

    fn alloc(&mut self, _value: Scalar) -> Variable {
        self.densities.alloc();
        self.aux += 1;
        Variable(Index::Aux(self.aux - 1))
    }

    fn alloc_input(&mut self, _value: Scalar) -> Variable {
        self.densities.alloc_input();
        self.inputs += 1;
        Variable(Index::Input(self.inputs - 1))
    }

    fn enforce<A, B, C>(&mut self, a: A, b: B, c: C)
    where
        A: FnOnce(Lc<Self>) -> Lc<Self>,
        B: FnOnce(Lc<Self>) -> Lc<Self>,
        C: FnOnce(Lc<Self>) -> Lc<Self>,
    {
        if !self.owns(self.row) {
            self.row += 1;
            return;
        }
        let (a, b, c) =
            (a(LinearCombination::zero()), b(LinearCombination::zero()), c(LinearCombination::zero()));
        self.own_row(a.terms().iter().copied(), b.terms().iter().copied(), c.terms().iter().copied());
    }

    /// A foreign circuit's terms read as they come (no combination built: 14% of a pass when it was).
    fn enforce_terms<A, B, C>(&mut self, a: A, b: B, c: C)
    where
        A: Iterator<Item = Term>,
        B: Iterator<Item = Term>,
        C: Iterator<Item = Term>,
    {
        if !self.owns(self.row) {
            self.row += 1;
            return;
        }
        self.own_row(a, b, c);
    }

    fn wants_terms(&self) -> bool {
        self.owns(self.row)
    }

    fn value(&self, _var: Variable) -> Scalar {
        Scalar::ZERO
    }
}

impl Survey {
    /// Surveys `circuit` in `threads` passes at once (on threads of their own, `util::long`; 1 is one pass
    /// on this thread).
    pub fn of<C: Circuit + ?Sized>(circuit: &C, threads: usize) -> Result<Survey, SynthesisError> {
        let of = threads.max(1);
        let pass = |mine: usize| -> Result<Stripe, SynthesisError> {
            let mut cs = Stripe {
                mine,
                of,
                row: 0,
                inputs: 0,
                aux: 0,
                blocks: Vec::new(),
                block: BLOCK_SEED,
                densities: Densities::default(),
            };
            cs.alloc_input(Scalar::ONE);
            circuit.synthesize(&mut cs)?;
            // The circuit's last block, when partial and this pass's, is digested as it stands.
            if !cs.row.is_multiple_of(DIGEST_BLOCK) && cs.owns(cs.row - 1) {
                cs.blocks.push(((cs.row - 1) / DIGEST_BLOCK, cs.block));
            }
            Ok(cs)
        };
        let parts: Vec<Stripe> = if of == 1 {
            vec![pass(0)?]
        } else {
            // Each pass walks the whole circuit: threads of their own, not rayon jobs (`util::long`).
            crate::util::long::map_n(of, pass).into_iter().collect::<Result<_, _>>()?
        };
        let first = &parts[0];
        let shape = Shape { constraints: first.row, inputs: first.inputs, aux: first.aux };
        if let Some(p) =
            parts.iter().find(|p| (p.row, p.inputs, p.aux) != (first.row, first.inputs, first.aux))
        {
            let counts = |p: &Stripe| format!("{} rows, {} inputs, {} aux", p.row, p.inputs, p.aux);
            let (a, b) = (counts(p), counts(first));
            return Err(SynthesisError(format!(
                "the circuit synthesized differently in two passes ({a}; {b})"
            )));
        }
        let mut blocks: Vec<(usize, u64)> = parts.iter().flat_map(|p| p.blocks.iter().copied()).collect();
        blocks.sort_unstable_by_key(|&(i, _)| i);
        let outer = blocks.iter().fold(OUTER_SEED, |h, &(_, b)| mix(h, b));
        let mut parts = parts.into_iter();
        let mut densities = parts.next().map(|p| p.densities).unwrap_or_default();
        for p in parts {
            densities.union_with(&p.densities);
        }
        Ok(Survey { shape, digest: finish_blocks(outer, &shape), densities })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cs::test_circuit::Mixed;
    use crate::cs::ShapeCounter;

    #[test]
    fn every_thread_count_gives_the_one_pass_digest_and_densities() {
        for n in [0, 1, DIGEST_BLOCK - 1, DIGEST_BLOCK, 3 * DIGEST_BLOCK + 17] {
            let one = ShapeCounter::count_with_digest(&Mixed(n)).expect("count");
            let base = Survey::of(&Mixed(n), 1).expect("survey");
            assert_eq!((base.shape, base.digest), one, "{n} rows, one pass");
            // A names the global and every output but the last; B only the constant and the input.
            let d = &base.densities;
            assert_eq!(d.a_aux.popcount(), n, "{n} rows");
            assert_eq!(
                (d.b_aux.popcount(), d.b_input.popcount()),
                (0, if n > 0 { 2 } else { 0 }),
                "{n} rows"
            );
            assert_eq!(d.a_aux.len(), n + 1);
            for t in [2, 3, 7] {
                assert_eq!(Survey::of(&Mixed(n), t).expect("survey"), base, "{n} rows, {t} threads");
            }
        }
        let d = |c: &Mixed| Survey::of(c, 3).expect("survey").digest;
        assert_ne!(d(&Mixed(DIGEST_BLOCK)), d(&Mixed(DIGEST_BLOCK + 1)));
    }
}
