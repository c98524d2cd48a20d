//! A record made in several passes at once: pass t of T encodes the constraints of every T-th block of
//! [`DIGEST_BLOCK`] rows (as the survey reads them, `crate::cs::survey`) and only walks the others; the
//! passes' rows are then merged into the one record a single pass makes, byte for byte (the coefficient
//! table in order of first appearance, the digest folded block by block).
//!
//! Why: one pass records a 2^27 porep-32g partition in ~70 s on h200-16c (docs/PERF.md, session aa), the
//! whole first sector's wait. Each pass here pays the circuit's walk (its gadgets' own work) plus its share
//! of the encoding. No witness is kept: the first circuit's assignment then comes from the record
//! ([`super::Pce::synthesize`]), as every later circuit's does.

use std::collections::HashMap;

use blstrs::Scalar;
use ff::Field;
use rayon::prelude::*;

use super::encode::{Encoder, Part, RawTerm, RecordOptions, INPUT_TAG};
use super::error::PceError;
use super::layout::{Coeff, Pce, GENERAL};
use super::record::raw_col;
use crate::cs::fr::{limbs, Limbs};
use crate::cs::shape::{finish_blocks, mix, stripe_of, DIGEST_BLOCK, OUTER_SEED};
use crate::cs::witness::{EV_ALLOC, EV_ENFORCE, EV_INPUT, FINGERPRINT_SEED};
use crate::cs::{
    Circuit, ConstraintSystem, Density, Index, Lc, LinearCombination, Shape, SmallStore, Term, Variable,
};

/// One pass: every event fingerprinted and counted, the rows of its own blocks encoded.
struct Stripe {
    mine: usize,
    of: usize,
    row: usize,
    inputs: usize,
    aux: usize,
    fingerprint: u64,
    enc: Encoder,
    /// Per-row scratch: a, b, c as raw terms.
    raw: [Vec<RawTerm>; 3],
}

impl Stripe {
    fn owns(&self, row: usize) -> bool {
        stripe_of(row, self.of) == self.mine
    }

    /// Counts a constraint; true when its row is this pass's to encode.
    fn next_row(&mut self) -> bool {
        self.fingerprint = mix(self.fingerprint, EV_ENFORCE);
        let own = self.owns(self.row);
        self.row += 1;
        own
    }

    fn encode(
        &mut self,
        a: impl Iterator<Item = Term>,
        b: impl Iterator<Item = Term>,
        c: impl Iterator<Item = Term>,
    ) {
        let [ra, rb, rc] = &mut self.raw;
        ra.clear();
        ra.extend(a.map(raw_term));
        rb.clear();
        rb.extend(b.map(raw_term));
        rc.clear();
        rc.extend(c.map(raw_term));
        self.enc.row(ra, rb, rc);
    }
}

fn raw_term((var, coeff): Term) -> RawTerm {
    (raw_col(var), coeff)
}

impl ConstraintSystem for Stripe {
    type Store = SmallStore;

    fn alloc(&mut self, _value: Scalar) -> Variable {
        self.fingerprint = mix(self.fingerprint, EV_ALLOC);
        self.aux += 1;
        Variable(Index::Aux(self.aux - 1))
    }

    fn alloc_input(&mut self, _value: Scalar) -> Variable {
        self.fingerprint = mix(self.fingerprint, EV_INPUT);
        self.inputs += 1;
        Variable(Index::Input(self.inputs - 1))
    }

    fn enforce<A, B, C>(&mut self, a: A, b: B, c: C)
    where
        A: FnOnce(Lc<Self>) -> Lc<Self>,
        B: FnOnce(Lc<Self>) -> Lc<Self>,
        C: FnOnce(Lc<Self>) -> Lc<Self>,
    {
        if !self.next_row() {
            return;
        }
        let (a, b, c) =
            (a(LinearCombination::zero()), b(LinearCombination::zero()), c(LinearCombination::zero()));
        self.encode(a.terms().iter().copied(), b.terms().iter().copied(), c.terms().iter().copied());
    }

    fn enforce_terms<A, B, C>(&mut self, a: A, b: B, c: C)
    where
        A: Iterator<Item = Term>,
        B: Iterator<Item = Term>,
        C: Iterator<Item = Term>,
    {
        if self.next_row() {
            self.encode(a, b, c);
        }
    }

    fn enforce_slices(&mut self, a: &[Term], b: &[Term], c: &[Term]) {
        if self.next_row() {
            self.encode(a.iter().copied(), b.iter().copied(), c.iter().copied());
        }
    }

    fn wants_terms(&self) -> bool {
        self.owns(self.row)
    }

    /// No values are kept: the structure never depends on them.
    fn value(&self, _var: Variable) -> Scalar {
        Scalar::ZERO
    }
}

/// Records `circuit` in `passes` passes at once on threads of their own (about `rows` constraints, for
/// sizing).
pub(super) fn record<C: Circuit + ?Sized>(
    circuit: &C,
    passes: usize,
    rows: usize,
    options: RecordOptions,
) -> Result<Pce, PceError> {
    let of = passes.max(1);
    let pass = |mine: usize| -> Result<(Part, Shape, u64), PceError> {
        let mut cs = Stripe {
            mine,
            of,
            row: 0,
            // Input 0, the constant one, is there from the start (and, as in one pass, not fingerprinted).
            inputs: 1,
            aux: 0,
            fingerprint: FINGERPRINT_SEED,
            enc: Encoder::for_part(rows.div_ceil(of) + DIGEST_BLOCK, options),
            raw: Default::default(),
        };
        circuit.synthesize(&mut cs)?;
        let shape = Shape { constraints: cs.row, inputs: cs.inputs, aux: cs.aux };
        Ok((cs.enc.finish_part()?, shape, cs.fingerprint))
    };
    // Each pass walks the whole circuit: threads of their own, not rayon jobs (`util::long`).
    let parts: Vec<(Part, Shape, u64)> =
        crate::util::long::map_n(of, pass).into_iter().collect::<Result<_, _>>()?;
    let (shape, fingerprint) = (parts[0].1, parts[0].2);
    if parts.iter().any(|p| (p.1, p.2) != (shape, fingerprint)) {
        return Err(PceError::Invalid("the circuit synthesized differently in two passes"));
    }
    merge(parts.into_iter().map(|p| p.0).collect(), shape, fingerprint)
}

/// Where global block `b` lives: (pass, its block index there).
fn home(b: usize, of: usize) -> (usize, usize) {
    (stripe_of(b * DIGEST_BLOCK, of), b / of)
}

/// The passes' rows as one record.
fn merge(parts: Vec<Part>, shape: Shape, fingerprint: u64) -> Result<Pce, PceError> {
    let of = parts.len();
    let n = shape.constraints;
    let blocks = n.div_ceil(DIGEST_BLOCK);
    // Each pass holds exactly its blocks' rows.
    let own_rows =
        |p: usize| (p..blocks).step_by(of).map(|b| DIGEST_BLOCK.min(n - b * DIGEST_BLOCK)).sum::<usize>();
    if parts
        .iter()
        .enumerate()
        .any(|(p, part)| part.rows != own_rows(p) || part.blocks.len() != part.rows.div_ceil(DIGEST_BLOCK))
    {
        return Err(PceError::Invalid("a pass encoded other rows than its blocks'"));
    }
    let (table, remap) = merge_table(&parts, of)?;

    // The digest: the blocks folded in order, then the shape.
    let outer = (0..blocks).fold(OUTER_SEED, |h, b| {
        let (p, k) = home(b, of);
        mix(h, parts[p].blocks[k])
    });
    let digest = finish_blocks(outer, &shape);

    // Terms and row ends, block by block, each written into its own piece of the merged vectors.
    let local = |b: usize| {
        let (p, k) = home(b, of);
        let lo = k * DIGEST_BLOCK;
        (p, lo, (lo + DIGEST_BLOCK).min(parts[p].rows))
    };
    let term_lens: Vec<usize> = (0..blocks)
        .map(|b| {
            let (p, lo, hi) = local(b);
            (parts[p].row_ptr[3 * hi] - parts[p].row_ptr[3 * lo]) as usize
        })
        .collect();
    let total: usize = term_lens.iter().sum();
    let total32 = u32::try_from(total).map_err(|_| PceError::TooLarge("more than 2^32 terms"))?;
    let n_aux = u32::try_from(shape.aux).map_err(|_| PceError::TooLarge("more than 2^31 variables"))?;
    let mut cols = crate::util::par::filled(total, 0u32);
    let mut codes = crate::util::par::filled(total, 0u16);
    let mut row_ptr = crate::util::par::filled(3 * n + 1, 0u32);
    row_ptr[3 * n] = total32;
    let mut starts = Vec::with_capacity(blocks);
    let mut at = 0u32;
    for &len in &term_lens {
        starts.push(at);
        at += len as u32;
    }
    let row_lens = (0..blocks).map(|b| 3 * (DIGEST_BLOCK.min(n - b * DIGEST_BLOCK)));
    let col_pieces = crate::util::par::pieces(&mut cols, term_lens.iter().copied());
    let code_pieces = crate::util::par::pieces(&mut codes, term_lens.iter().copied());
    let ptr_pieces = crate::util::par::pieces(&mut row_ptr[..3 * n], row_lens);
    col_pieces.into_par_iter().zip(code_pieces).zip(ptr_pieces).enumerate().for_each(
        |(b, ((dc, dk), dp))| {
            let (p, lo, hi) = local(b);
            let part = &parts[p];
            let (t0, t1) = (part.row_ptr[3 * lo] as usize, part.row_ptr[3 * hi] as usize);
            for (d, &c) in dc.iter_mut().zip(&part.cols[t0..t1]) {
                *d = if c & INPUT_TAG != 0 { n_aux + (c & !INPUT_TAG) } else { c };
            }
            for (d, &k) in dk.iter_mut().zip(&part.codes[t0..t1]) {
                *d = if k >= GENERAL { GENERAL | remap[p][usize::from(k & !GENERAL)] } else { k };
            }
            let shift = starts[b].wrapping_sub(t0 as u32);
            for (d, &r) in dp.iter_mut().zip(&part.row_ptr[3 * lo..3 * hi]) {
                *d = r.wrapping_add(shift);
            }
        },
    );

    // c = a·b rows: a block's 4 096 bits are 64 whole words in both bitmaps.
    let words = DIGEST_BLOCK / 64;
    let mut c_words = vec![0u64; n.div_ceil(64)];
    for (b, dst) in c_words.chunks_mut(words).enumerate() {
        let (p, lo, _) = local(b);
        let src = parts[p].c_product.words();
        let from = lo / 64;
        let take = dst.len().min(src.len().saturating_sub(from));
        dst[..take].copy_from_slice(&src[from..from + take]);
    }
    let c_product = Density::from_words(c_words, n).ok_or(PceError::Invalid("the merged c = a·b bitmap"))?;
    let union = |pick: fn(&Part) -> &Vec<u64>, len: usize| -> Result<Density, PceError> {
        let mut w = vec![0u64; len.div_ceil(64)];
        for part in &parts {
            let src = pick(part);
            if src.len() > w.len() {
                return Err(PceError::Invalid("a variable marked beyond those allocated"));
            }
            w.iter_mut().zip(src).for_each(|(d, s)| *d |= s);
        }
        Density::from_words(w, len).ok_or(PceError::Invalid("a variable marked beyond those allocated"))
    };
    let a_aux = union(|p| &p.a_aux, shape.aux)?;
    let b_input = union(|p| &p.b_input, shape.inputs)?;
    let b_aux = union(|p| &p.b_aux, shape.aux)?;
    Ok(Pce { shape, digest, fingerprint, row_ptr, cols, codes, table, c_product, a_aux, b_input, b_aux })
}

/// A coefficient as the table tells entries apart: its limbs, and whether it is on the constant one.
type Key = (Limbs, bool);

/// The merged coefficient table, each entry where one pass would have put it (first appearance: the
/// earliest row, then the order within that row, which one pass's table already has), and each pass's map
/// from its indices to the merged ones.
fn merge_table(parts: &[Part], of: usize) -> Result<(Vec<Coeff>, Vec<Vec<u16>>), PceError> {
    let global_row = |p: usize, r: u32| {
        let r = r as usize;
        let (k, within) = (r / DIGEST_BLOCK, r % DIGEST_BLOCK);
        (k * of + p) * DIGEST_BLOCK + within
    };
    // Per distinct coefficient: its earliest (row, index in that pass).
    let mut first: HashMap<Key, (usize, usize, Coeff)> = HashMap::new();
    for (p, part) in parts.iter().enumerate() {
        for (i, (c, &r)) in part.table.iter().zip(&part.table_rows).enumerate() {
            let at = (global_row(p, r), i, *c);
            first
                .entry((limbs(&c.value), c.constant))
                .and_modify(|e| {
                    if (at.0, at.1) < (e.0, e.1) {
                        *e = at;
                    }
                })
                .or_insert(at);
        }
    }
    let mut order: Vec<(Key, (usize, usize, Coeff))> = first.into_iter().collect();
    order.sort_unstable_by_key(|(_, (row, i, _))| (*row, *i));
    if order.len() > usize::from(!GENERAL) + 1 {
        return Err(PceError::TooLarge("more than 32768 distinct coefficients"));
    }
    let index: HashMap<Key, u16> = order.iter().enumerate().map(|(g, (key, _))| (*key, g as u16)).collect();
    let remap = parts
        .iter()
        .map(|part| {
            let to = |c: &Coeff| index.get(&(limbs(&c.value), c.constant)).copied();
            part.table.iter().map(to).collect::<Option<Vec<u16>>>()
        })
        .collect::<Option<Vec<_>>>()
        .ok_or(PceError::Invalid("a coefficient missing from the merged table"))?;
    Ok((order.into_iter().map(|(_, (_, _, c))| c).collect(), remap))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cs::test_circuit::Mixed;

    /// Every pass count gives the one-pass record, equal in every field (the table in first-appearance order,
    /// the digest, the c = a·b rows), for circuits ending on and off a block's edge, with either option.
    #[test]
    fn striped_records_equal_the_one_pass_record() {
        for n in [1, DIGEST_BLOCK - 1, DIGEST_BLOCK, 2 * DIGEST_BLOCK + 1, 3 * DIGEST_BLOCK + 17] {
            for c_from_products in [false, true] {
                let options = RecordOptions { c_from_products };
                let (one, _) = Pce::record_with(&Mixed(n), options).expect("one pass");
                for passes in [1, 2, 3, 5] {
                    let striped = record(&Mixed(n), passes, n, options).expect("striped");
                    assert!(striped == one, "{n} rows, {passes} passes, {options:?}");
                }
            }
        }
    }
}
