//! The encoder: a recorded circuit's terms, constraint by constraint, into the compact CSR of [`Pce`], with
//! the structure digest and the A/B density bitmaps.
//!
//! It runs on a thread of its own beside the synthesis that feeds it (`super::record`): encoding a row
//! (merging repeated variables, classing coefficients, the digest) cost as much as a third of recording
//! the real C2 on the synthesizing thread (docs/PERF.md).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::OnceLock;

use blstrs::Scalar;
use ff::Field;

use super::error::PceError;
use super::layout::{Coeff, Pce, GENERAL};
use crate::cs::fr::{limbs, Limbs};
use crate::cs::shape::{absorb_coded, mix, StructureDigest};
use crate::cs::{Densities, Density, Shape};

/// Choices made when recording.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RecordOptions {
    /// Drop every C row whose evaluation costs more than a multiplication and compute c_i = a_i·b_i there
    /// instead. That equals ⟨C_i, w⟩ exactly when the witness satisfies constraint i, which every witness
    /// the prover is given does (an unsatisfying one gives an invalid proof either way, but then a/b/c differ
    /// from `ProvingAssignment`'s). Off: every row is stored and a/b/c equal the normal path's for any
    /// witness. Measured gains: docs/PERF.md.
    pub c_from_products: bool,
}

/// Tag bit of a raw input column while recording (inputs move behind the aux columns at the end).
pub(super) const INPUT_TAG: u32 = 1 << 31;
/// Most distinct general coefficients a record holds (15 bits of the code).
const MAX_TABLE: usize = 1 << 15;
/// Largest exponent k with 2^k < r.
const MAX_POW2: u32 = 254;

/// One term as recorded: the raw column (aux j is j, input i is `INPUT_TAG | i`) and its coefficient.
pub(super) type RawTerm = (u32, Scalar);

/// A multiply-xorshift hasher for coefficient limbs: every term of every row is looked up, and SipHash
/// showed up at 3–4% of recording time.
#[derive(Default)]
struct LimbHasher(u64);

impl Hasher for LimbHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(w));
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = mix(self.0, x);
    }

    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
}

/// Hash maps keyed by coefficient limbs.
type LimbMap<K, V> = HashMap<K, V, BuildHasherDefault<LimbHasher>>;

/// ±2^k for k ≤ 254, by Montgomery limbs: sign (true = negative) and k.
fn pow2_classes() -> &'static LimbMap<Limbs, (bool, u32)> {
    static T: OnceLock<LimbMap<Limbs, (bool, u32)>> = OnceLock::new();
    T.get_or_init(|| {
        let mut m = LimbMap::default();
        let mut p = Scalar::ONE;
        for k in 0..=MAX_POW2 {
            m.insert(limbs(&p), (false, k));
            m.entry(limbs(&-p)).or_insert((true, k));
            p = p.double();
        }
        m
    })
}

/// A density bitmap that grows with the highest variable marked (the encoder does not see allocations);
/// sized to the circuit's variables at the end.
#[derive(Default)]
struct Marks(Vec<u64>);

impl Marks {
    #[inline]
    fn set(&mut self, i: usize) {
        let w = i / 64;
        if w >= self.0.len() {
            self.0.resize(w + 1, 0);
        }
        self.0[w] |= 1u64 << (i % 64);
    }

    /// The bitmap over `len` variables.
    fn density(mut self, len: usize) -> Result<Density, PceError> {
        self.0.resize(len.div_ceil(64), 0);
        Density::from_words(self.0, len).ok_or(PceError::Invalid("a variable marked beyond those allocated"))
    }
}

/// Cost units of the evaluation, for the `c_from_products` choice: an add, subtract or doubling is 1; a
/// multiplication (a table term, or a·b) about 5 (blst's Montgomery product against the inline limb adds,
/// measured on dev-2c: docs/PERF.md).
const MUL_COST: usize = 5;

/// Everything a record holds but the witness, built row by row.
pub(super) struct Encoder {
    /// Constraints encoded.
    rows: usize,
    row_ptr: Vec<u32>,
    /// Raw columns until [`Encoder::finish`].
    cols: Vec<u32>,
    codes: Vec<u16>,
    table: Vec<Coeff>,
    table_index: LimbMap<(Limbs, bool), u16>,
    digest: StructureDigest,
    a_aux: Marks,
    b_input: Marks,
    b_aux: Marks,
    /// The first problem met; encoding stops there, synthesis runs to the end.
    error: Option<PceError>,
    /// Per-row scratch: (raw column, coefficient).
    scratch: Vec<RawTerm>,
    /// Per-row scratch: (exponent, negative, raw column) of the ±2^k terms.
    pow2: Vec<(u32, bool, u32)>,
    /// Per-row scratch: the other terms.
    general: Vec<RawTerm>,
    options: RecordOptions,
    /// Constraints whose C row is not stored: c = a·b there.
    c_product: Density,
    /// The row (of this encoder's) at which each table entry was added: a striped recording orders the
    /// merged table by first appearance, as one pass would.
    table_rows: Vec<u32>,
    /// A striped recording's finished block digests, in order (`None`: one pass, not kept).
    blocks: Option<Vec<u64>>,
}

/// What one pass of a striped recording encoded (its own rows only), for `super::record_par` to merge.
pub(super) struct Part {
    pub(super) rows: usize,
    pub(super) row_ptr: Vec<u32>,
    /// Raw columns (inputs tagged).
    pub(super) cols: Vec<u32>,
    pub(super) codes: Vec<u16>,
    pub(super) table: Vec<Coeff>,
    pub(super) table_rows: Vec<u32>,
    pub(super) c_product: Density,
    /// Density words of the variables this pass's rows name.
    pub(super) a_aux: Vec<u64>,
    pub(super) b_input: Vec<u64>,
    pub(super) b_aux: Vec<u64>,
    /// The digests of this pass's blocks in order, a partial last one included.
    pub(super) blocks: Vec<u64>,
}

/// The digest's name of a raw column (what `shape::var_code` gives its variable).
#[inline]
fn col_code(col: u32) -> u64 {
    if col & INPUT_TAG != 0 {
        u64::from(col & !INPUT_TAG) << 1
    } else {
        (u64::from(col) << 1) | 1
    }
}

impl Encoder {
    /// An empty encoder, with room for `hint`'s constraints.
    pub(super) fn new(hint: Option<Shape>, options: RecordOptions) -> Self {
        let rows = hint.map_or(0, |h| 3 * h.constraints);
        let mut row_ptr = Vec::with_capacity(rows + 1);
        row_ptr.push(0);
        Encoder {
            rows: 0,
            row_ptr,
            cols: Vec::with_capacity(2 * rows),
            codes: Vec::with_capacity(2 * rows),
            table: Vec::new(),
            table_index: LimbMap::default(),
            digest: StructureDigest::default(),
            a_aux: Marks::default(),
            b_input: Marks::default(),
            b_aux: Marks::default(),
            error: None,
            scratch: Vec::new(),
            pow2: Vec::new(),
            general: Vec::new(),
            options,
            c_product: Density::default(),
            table_rows: Vec::new(),
            blocks: None,
        }
    }

    /// An encoder for one pass of a striped recording, with room for about `rows` constraints; it keeps its
    /// blocks' digests.
    pub(super) fn for_part(rows: usize, options: RecordOptions) -> Self {
        let hint = Shape { constraints: rows, inputs: 0, aux: 0 };
        Encoder {
            blocks: Some(Vec::with_capacity(rows.div_ceil(crate::cs::shape::DIGEST_BLOCK))),
            ..Self::new(Some(hint), options)
        }
    }

    /// The rows of one pass, unmerged (see [`Part`]).
    pub(super) fn finish_part(mut self) -> Result<Part, PceError> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let mut blocks = self.blocks.take().unwrap_or_default();
        blocks.extend(self.digest.partial());
        Ok(Part {
            rows: self.rows,
            row_ptr: self.row_ptr,
            cols: self.cols,
            codes: self.codes,
            table: self.table,
            table_rows: self.table_rows,
            c_product: self.c_product,
            a_aux: self.a_aux.0,
            b_input: self.b_input.0,
            b_aux: self.b_aux.0,
            blocks,
        })
    }

    /// Encodes one constraint: its digest, densities and the three rows.
    pub(super) fn row(&mut self, a: &[RawTerm], b: &[RawTerm], c: &[RawTerm]) {
        let row = self.rows;
        self.rows += 1;
        for (terms, tag) in [(a, 0xA), (b, 0xB), (c, 0xC)] {
            let done = self
                .digest
                .absorb_with(|h| absorb_coded(h, terms.iter().map(|&(col, k)| (col_code(col), k)), tag), tag);
            if let (Some(d), Some(blocks)) = (done, self.blocks.as_mut()) {
                blocks.push(d);
            }
        }
        for &(col, _) in a {
            if col & INPUT_TAG == 0 {
                self.a_aux.set(col as usize);
            }
        }
        for &(col, _) in b {
            if col & INPUT_TAG == 0 {
                self.b_aux.set(col as usize);
            } else {
                self.b_input.set((col & !INPUT_TAG) as usize);
            }
        }
        self.encode_row(a);
        self.encode_row(b);
        let start = self.cols.len();
        self.encode_row(c);
        // A C row dearer than one multiplication is dropped: c = a·b wherever the witness satisfies the
        // constraint. (Table entries it added stay; they are shared and few.)
        let product = self.options.c_from_products && self.error.is_none() && self.cost(start) > MUL_COST;
        self.c_product.push_clear();
        if product {
            self.c_product.set(row);
            self.cols.truncate(start);
            self.codes.truncate(start);
            if let Some(last) = self.row_ptr.last_mut() {
                *last = start as u32;
            }
        }
    }

    /// The record of a circuit of `shape` (its rows all encoded), with the synthesis's `fingerprint`.
    pub(super) fn finish(mut self, shape: Shape, fingerprint: u64) -> Result<Pce, PceError> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if self.rows != shape.constraints {
            return Err(PceError::Invalid("the encoder saw a different number of constraints"));
        }
        let n_aux = u32::try_from(shape.aux).map_err(|_| PceError::TooLarge("more than 2^31 variables"))?;
        if (shape.aux + shape.inputs) as u64 >= u64::from(INPUT_TAG) {
            return Err(PceError::TooLarge("more than 2^31 variables"));
        }
        for c in self.cols.iter_mut() {
            if *c & INPUT_TAG != 0 {
                *c = n_aux + (*c & !INPUT_TAG);
            }
        }
        let densities = Densities {
            a_aux: self.a_aux.density(shape.aux)?,
            b_input: self.b_input.density(shape.inputs)?,
            b_aux: self.b_aux.density(shape.aux)?,
        };
        Ok(Pce {
            shape,
            digest: self.digest.finish(&shape),
            fingerprint,
            row_ptr: self.row_ptr,
            cols: self.cols,
            codes: self.codes,
            table: self.table,
            c_product: self.c_product,
            a_aux: densities.a_aux,
            b_input: densities.b_input,
            b_aux: densities.b_aux,
        })
    }

    /// Evaluation cost of the terms appended since `start` (see [`MUL_COST`]).
    fn cost(&self, start: usize) -> usize {
        self.codes[start..]
            .iter()
            .map(|&code| match code {
                c if c < GENERAL => 1 + usize::from(c >> 1),
                c if self.table.get(usize::from(c & !GENERAL)).is_some_and(|e| e.constant) => 1,
                _ => MUL_COST,
            })
            .sum()
    }

    /// Appends one row: merged, zero-free, pow2 terms by descending exponent (each carrying the doublings
    /// down to the next term's exponent), then general terms (column order within each group).
    fn encode_row(&mut self, terms: &[RawTerm]) {
        if self.error.is_some() {
            return;
        }
        let s = &mut self.scratch;
        s.clear();
        s.extend_from_slice(terms);
        // Merge repeated variables (small rows: a sort is cheaper than a map).
        s.sort_unstable_by_key(|t| t.0);
        let mut merged = 0;
        for i in 0..s.len() {
            if merged > 0 && s[merged - 1].0 == s[i].0 {
                let add = s[i].1;
                s[merged - 1].1 += add;
            } else {
                s[merged] = s[i];
                merged += 1;
            }
        }
        s.truncate(merged);
        s.retain(|t| t.1 != Scalar::ZERO);

        let classes = pow2_classes();
        // (k, negative, col) for pow2 terms; general terms separately. The buffers live in `self` so a row
        // costs no allocation.
        let (mut pow2, mut general) = (std::mem::take(&mut self.pow2), std::mem::take(&mut self.general));
        pow2.clear();
        general.clear();
        for &(col, coeff) in s.iter() {
            match classes.get(&limbs(&coeff)) {
                Some(&(neg, k)) => pow2.push((k, neg, col)),
                None => general.push((col, coeff)),
            }
        }
        pow2.sort_unstable_by(|x, y| y.0.cmp(&x.0).then(x.2.cmp(&y.2)));
        for (i, &(k, neg, col)) in pow2.iter().enumerate() {
            let next_k = pow2.get(i + 1).map_or(0, |t| t.0);
            self.cols.push(col);
            self.codes.push((((k - next_k) as u16) << 1) | u16::from(neg));
        }
        for &(col, coeff) in general.iter() {
            let constant = col == INPUT_TAG;
            let key = (limbs(&coeff), constant);
            let idx = match self.table_index.get(&key) {
                Some(&i) => i,
                None if self.table.len() >= MAX_TABLE => {
                    self.error = Some(PceError::TooLarge("more than 32768 distinct coefficients"));
                    break;
                }
                None => {
                    let i = self.table.len() as u16;
                    self.table.push(Coeff { value: coeff, constant });
                    self.table_rows.push((self.rows - 1) as u32);
                    self.table_index.insert(key, i);
                    i
                }
            };
            self.cols.push(col);
            self.codes.push(GENERAL | idx);
        }
        (self.pow2, self.general) = (pow2, general);
        match u32::try_from(self.cols.len()) {
            Ok(end) => self.row_ptr.push(end),
            Err(_) => self.error = Some(PceError::TooLarge("more than 2^32 terms")),
        }
    }
}
