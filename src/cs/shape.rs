//! Shape-only consumers: a counter (constraints, inputs, aux) and a matrix recorder for tests and analysis.

use blstrs::Scalar;
use ff::Field;

use super::book::{Book, NoDensity};
use super::{
    Circuit, ConstraintSystem, Index, Lc, LinearCombination, Shape, SynthesisError, Term, Variable, VecStore,
};

/// Counts a circuit's shape and digests its matrices (not its witness), while still computing witness values
/// so gadgets can read values back.
pub struct ShapeCounter {
    book: Book<NoDensity>,
    digest: StructureDigest,
}

/// One step of a 64-bit multiply-xorshift mix (fast, non-cryptographic: it names cache entries, it does not
/// defend against adversaries).
#[inline]
pub(crate) fn mix(h: u64, x: u64) -> u64 {
    let h = (h ^ x).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    h ^ (h >> 29)
}

/// Rows per block of the structure digest: each block is digested from a fixed seed and the blocks are folded
/// in order, so passes over disjoint blocks of rows (`cs::survey`) give the digest of
/// one pass.
pub(crate) const DIGEST_BLOCK: usize = 1 << 12;
/// The pass of `of` that reads row `row` when passes take whole [`DIGEST_BLOCK`]s in turn (the survey's and
/// the striped PCE recording's split), so each pass's blocks fold into the one-pass digest.
#[inline]
pub(crate) fn stripe_of(row: usize, of: usize) -> usize {
    (row / DIGEST_BLOCK) % of
}

/// Seed of every block's digest.
pub(super) const BLOCK_SEED: u64 = 0x626c_6f63;
/// Seed of the fold over blocks.
pub(crate) const OUTER_SEED: u64 = 0x6375_7a6b;

/// The running digest of a circuit's A, B, C matrices, shared by [`ShapeCounter`] and the PCE recorder so
/// both name a circuit shape with the same 64-bit value.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StructureDigest {
    /// The fold of the finished blocks.
    outer: u64,
    /// The block under way.
    block: u64,
    /// Rows absorbed (a row ends with its C combination).
    rows: usize,
}

impl Default for StructureDigest {
    fn default() -> Self {
        StructureDigest { outer: OUTER_SEED, block: BLOCK_SEED, rows: 0 }
    }
}

/// One combination into a running hash (`tag` 0xA, 0xB or 0xC says which matrix), terms in insertion order.
pub(super) fn absorb_terms(h: u64, terms: impl IntoIterator<Item = Term>, tag: u64) -> u64 {
    absorb_coded(h, terms.into_iter().map(|(var, coeff)| (var_code(var), coeff)), tag)
}

/// A variable as the digest names it: input i is 2i, aux i is 2i + 1.
#[inline]
pub(crate) fn var_code(var: Variable) -> u64 {
    match var.0 {
        Index::Input(i) => (i as u64) << 1,
        Index::Aux(i) => ((i as u64) << 1) | 1,
    }
}

/// [`absorb_terms`] over variables already coded by [`var_code`].
#[inline]
pub(crate) fn absorb_coded(h: u64, terms: impl Iterator<Item = (u64, Scalar)>, tag: u64) -> u64 {
    let mut h = mix(h, tag);
    for (v, coeff) in terms {
        h = mix(h, v);
        if coeff == Scalar::ONE {
            h = mix(h, 1);
            continue;
        }
        for limb in coeff.to_bytes_le().chunks_exact(8) {
            let mut w = [0u8; 8];
            w.copy_from_slice(limb);
            h = mix(h, u64::from_le_bytes(w));
        }
    }
    h
}

impl StructureDigest {
    /// Absorbs one linear combination (`tag` 0xA, 0xB or 0xC says which matrix; C ends the row), terms in
    /// insertion order.
    pub(crate) fn absorb(&mut self, terms: &[Term], tag: u64) {
        self.absorb_with(|h| absorb_terms(h, terms.iter().copied(), tag), tag);
    }

    /// [`StructureDigest::absorb`] with the combination hashed by `hash` from the running block value (the
    /// PCE encoder's terms are coded columns, not variables). Returns the digest of a block this completes
    /// (a striped recording folds its blocks with other passes').
    #[inline]
    pub(crate) fn absorb_with(&mut self, hash: impl FnOnce(u64) -> u64, tag: u64) -> Option<u64> {
        self.block = hash(self.block);
        if tag == 0xC {
            self.rows += 1;
            if self.rows.is_multiple_of(DIGEST_BLOCK) {
                let done = self.block;
                self.outer = mix(self.outer, done);
                self.block = BLOCK_SEED;
                return Some(done);
            }
        }
        None
    }

    /// The digest of the block under way when it is partial (the circuit's last, folded by `finish`).
    pub(crate) fn partial(&self) -> Option<u64> {
        (!self.rows.is_multiple_of(DIGEST_BLOCK)).then_some(self.block)
    }

    /// The final digest, folding in a partial last block and the shape.
    pub(crate) fn finish(self, shape: &Shape) -> u64 {
        let outer =
            if self.rows.is_multiple_of(DIGEST_BLOCK) { self.outer } else { mix(self.outer, self.block) };
        finish_blocks(outer, shape)
    }
}

/// The digest's last step: the shape folded into the fold of the blocks.
pub(crate) fn finish_blocks(outer: u64, shape: &Shape) -> u64 {
    mix(mix(mix(outer, shape.constraints as u64), shape.inputs as u64), shape.aux as u64)
}

impl ShapeCounter {
    /// The shape of `circuit`.
    pub fn count<C: Circuit + ?Sized>(circuit: &C) -> Result<Shape, SynthesisError> {
        Ok(Self::count_with_digest(circuit)?.0)
    }

    /// The shape and a 64-bit digest of the A, B, C matrices (variables and coefficients, in order): two
    /// circuits with equal digests need the same params.
    pub fn count_with_digest<C: Circuit + ?Sized>(circuit: &C) -> Result<(Shape, u64), SynthesisError> {
        let mut cs = ShapeCounter { book: Book::new(None, 0), digest: StructureDigest::default() };
        circuit.synthesize(&mut cs)?;
        let shape = cs.book.shape();
        Ok((shape, cs.digest.finish(&shape)))
    }
}

impl ConstraintSystem for ShapeCounter {
    type Store = VecStore;

    fn alloc(&mut self, value: Scalar) -> Variable {
        self.book.alloc(value)
    }

    fn alloc_input(&mut self, value: Scalar) -> Variable {
        self.book.alloc_input(value)
    }

    fn enforce<A, B, C>(&mut self, a: A, b: B, c: C)
    where
        A: FnOnce(Lc<Self>) -> Lc<Self>,
        B: FnOnce(Lc<Self>) -> Lc<Self>,
        C: FnOnce(Lc<Self>) -> Lc<Self>,
    {
        self.book.enforced();
        self.digest.absorb(a(LinearCombination::zero()).terms(), 0xA);
        self.digest.absorb(b(LinearCombination::zero()).terms(), 0xB);
        self.digest.absorb(c(LinearCombination::zero()).terms(), 0xC);
    }

    /// A foreign circuit's terms digested where they are.
    fn enforce_slices(&mut self, a: &[Term], b: &[Term], c: &[Term]) {
        self.book.enforced();
        self.digest.absorb(a, 0xA);
        self.digest.absorb(b, 0xB);
        self.digest.absorb(c, 0xC);
    }

    fn value(&self, var: Variable) -> Scalar {
        self.book.value(var)
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
    pub fn record<C: Circuit + ?Sized>(circuit: &C) -> Result<Self, SynthesisError> {
        let mut cs = MatrixRecorder { inputs: vec![Scalar::ONE], ..Default::default() };
        circuit.synthesize(&mut cs)?;
        Ok(cs)
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
