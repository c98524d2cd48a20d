//! Pre-compiled constraint evaluation (PCE): a circuit's A, B, C recorded once as sparse matrices, then
//! later circuits of the same shape proved from witness-only synthesis plus a parallel sparse
//! matrix–vector product a = A·w, b = B·w, c = C·w.
//!
//! Why: building and evaluating linear combinations is most of synthesis, and synthesis is most of a proof's
//! wall time on the GPU. The matrices depend only on the circuit's structure, so they are built once per
//! shape; the witness of a later circuit comes from [`WitnessOnly`] synthesis, which builds none.
//!
//! Layout (measured in docs/PERF.md, "Pre-compiled constraint evaluation"): one CSR over 3·n rows with A_i,
//! B_i, C_i of constraint i adjacent (one stream for all three matrices, and the three rows of a constraint
//! touch the same variables). Per term a `u32` column (aux j is column j, public input i is column
//! `aux + i`, so the value vector is the aux vector with the inputs appended) and a `u16` code:
//! - below [`GENERAL`]: a ±2^k term. Bit 0 is the sign, bits 1.. the number of doublings to apply after
//!   adding it: a row's ±2^k terms are stored by descending k and evaluated by Horner's rule, so ±1, ±2
//!   and the 2^i of bit packings cost adds and doublings on raw limbs, never a multiplication;
//! - [`GENERAL`]` | i`: entry i of a table of deduplicated coefficients, multiplied by the column's value,
//!   or added as it is when the term is on the constant one.
//!
//! Repeated variables in a combination are merged and zero coefficients dropped; the density bitmaps are
//! taken from the raw terms at record time (they depend only on which variables appear in A and B). With
//! [`RecordOptions::c_from_products`], C rows dearer than one multiplication are not stored and a bitmap
//! says where c = a·b instead (Poseidon's x⁵ forms, SHA-256's addition packings).
//!
//! Use (what an engine does per circuit shape):
//! 1. first circuit of a shape: `let (pce, asg) = Pce::record_with(&circuit, opts)?` — `asg` is that
//!    circuit's assignment; keep `pce` (keyed by `pce.shape()`/`pce.digest()`, which equals
//!    `ShapeCounter::count_with_digest`'s), optionally `pce.to_bytes()` beside the params;
//! 2. later circuits: `pce.synthesize(&circuit)?` (witness-only synthesis, then the SpMV on the current
//!    rayon pool); a loaded record: `Pce::from_bytes_expecting(&bytes, shape, digest)?`, and on any error
//!    delete the file and record again.
//!
//! The engine does exactly this behind the `pce` toggle: `groth16::prover::synthesize_with` with the
//! shape's `PceSlot` (spans `pce_record` and `spmv`), the slot kept by the engine's memo and stored under
//! `<cache root>/pce/`.

mod encode;
mod error;
mod layout;
mod record;
mod record_par;
mod serial;
mod spmv;

pub use encode::RecordOptions;
pub use error::PceError;
use layout::Coeff;
pub use layout::{Pce, GENERAL};
pub use serial::VERSION as FORMAT_VERSION;

use blstrs::Scalar;

use super::witness::{Witness, WitnessOnly};
use super::{Circuit, Evals, HostPool, ProvingAssignment, Shape};

/// Constraints per parallel task of the SpMV (measured on dev-2c: docs/PERF.md).
pub const DEFAULT_CHUNK_ROWS: usize = 2048;

/// A circuit's witness-only synthesis and its a/b/c buffers, waiting for the record's SpMV
/// ([`Pce::witness_of`], then [`Pce::finish`]).
pub struct Pending {
    witness: Result<Witness, crate::cs::SynthesisError>,
    bufs: [Evals; 3],
}

/// Term counts of a record by evaluation cost, for reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PceStats {
    /// All stored terms (after merging repeated variables and dropping zeros).
    pub terms: usize,
    /// ±2^k terms: one add or subtract each.
    pub adds: usize,
    /// Of those, ±1 terms with no doubling after them (codes 0 and 1).
    pub unit: usize,
    /// Doublings of the Horner steps, summed over all rows.
    pub doublings: usize,
    /// Terms multiplied by a table coefficient.
    pub general: usize,
    /// Table coefficients added as constants (terms on the constant one).
    pub constant: usize,
    /// Distinct table coefficients.
    pub table: usize,
    /// Heap bytes of the record.
    pub bytes: usize,
    /// Constraints whose c is computed as a·b (C row not stored).
    pub c_products: usize,
    /// Rows with no term.
    pub empty_rows: usize,
    /// Rows with more than 255 terms.
    pub long_rows: usize,
    /// Terms whose column is within ±127 of the previous term's (across the rows of a constraint and
    /// from one constraint to the next): how far delta-coding the columns in one byte would go.
    pub delta_i8: usize,
    /// Terms whose column is within ±32767 of the previous term's.
    pub delta_i16: usize,
}

impl Pce {
    /// Records `circuit` (one full synthesis that also builds the matrices) and returns the record with the
    /// circuit's own assignment, computed from it (so the first circuit of a shape is not synthesized twice).
    pub fn record<C: Circuit + ?Sized>(circuit: &C) -> Result<(Pce, ProvingAssignment), PceError> {
        Self::record_with(circuit, RecordOptions::default())
    }

    /// [`Pce::record`] with options.
    pub fn record_with<C: Circuit + ?Sized>(
        circuit: &C,
        options: RecordOptions,
    ) -> Result<(Pce, ProvingAssignment), PceError> {
        let (pce, inputs, aux) = record::Recorder::run(circuit, None, options)?;
        let asg = pce.evaluate(inputs, aux)?;
        Ok((pce, asg))
    }

    /// [`Pce::record_with`]'s record made in `passes` passes at once on threads of their own (`util::long`;
    /// each encodes every `passes`-th block of rows; `rows`, about the circuit's constraints, sizes them),
    /// with no assignment: the first circuit's comes from [`Pce::synthesize`] then. The same record, byte
    /// for byte.
    pub fn record_striped<C: Circuit + ?Sized>(
        circuit: &C,
        options: RecordOptions,
        passes: usize,
        rows: usize,
    ) -> Result<Pce, PceError> {
        record_par::record(circuit, passes, rows, options)
    }

    /// Witness-only synthesis of `circuit` followed by the SpMV: the assignment
    /// `ProvingAssignment::synthesize` would produce, field by field. Errors when the circuit is not of the
    /// recorded shape.
    ///
    /// On a pool of two or more threads, the a/b/c buffers are allocated and their pages faulted in on
    /// another thread while the witness is synthesized (a fresh 32 B/row buffer costs about as much in page
    /// faults as the SpMV that fills it; docs/PERF.md).
    pub fn synthesize<C: Circuit + ?Sized>(&self, circuit: &C) -> Result<ProvingAssignment, PceError> {
        self.synthesize_marked(circuit, || ())
    }

    /// [`Pce::synthesize`], calling `mark` once the witness is checked and keeping what it returns until the
    /// SpMV ends: the engine opens its `spmv` span there, so the timeline shows the SpMV apart from the
    /// witness-only synthesis around it.
    pub fn synthesize_marked<C: Circuit + ?Sized, G>(
        &self,
        circuit: &C,
        mark: impl FnOnce() -> G,
    ) -> Result<ProvingAssignment, PceError> {
        self.synthesize_into(circuit, mark, None)
    }

    /// [`Pce::synthesize_marked`] with a, b, c written into blocks `pool` lends (the CUDA backend's
    /// page-locked pool, toggle B2), or into pre-faulted heap vectors when there is no pool or it lends none.
    pub fn synthesize_into<C: Circuit + ?Sized, G>(
        &self,
        circuit: &C,
        mark: impl FnOnce() -> G,
        pool: Option<&dyn HostPool>,
    ) -> Result<ProvingAssignment, PceError> {
        self.finish(Self::witness_of(circuit, self.shape, pool), mark)
    }

    /// The first half of [`Pce::synthesize_into`], which needs only the shape (so it can run while the record
    /// of that shape is still being read): `circuit`'s witness-only synthesis, and beside it the a/b/c
    /// buffers (lent by `pool`, or pre-faulted heap vectors).
    pub fn witness_of<C: Circuit + ?Sized>(
        circuit: &C,
        shape: Shape,
        pool: Option<&dyn HostPool>,
    ) -> Pending {
        let rows = shape.rows();
        let buf = || match pool.and_then(|p| p.lend(rows)) {
            Some(block) => Evals::lent(block),
            None => Evals::Heap(spmv::touched(rows)),
        };
        // The witness on the caller's thread, not as a rayon job another wait could pick up (`util::long`).
        // The three buffers one after another: lent at once (session an) they were all lent 40–58 ms after the
        // device started against ~66 one by one, but the one-shot was no faster (median 617 against 611 ms:
        // the SRS staging bounds it; docs/PERF.md). The marks show how long the SpMV waits after the witness.
        let (w, bufs) = crate::util::long::join(
            || {
                let w = WitnessOnly::synthesize(circuit, Some(shape));
                crate::util::marks::mark("witness_done");
                w
            },
            || {
                let v = [buf(), buf(), buf()];
                crate::util::marks::mark("abc_lent");
                v
            },
        );
        Pending { witness: w, bufs }
    }

    /// The second half: the witness checked against this record, then the SpMV into the buffers (`mark` as
    /// in [`Pce::synthesize_marked`]).
    pub fn finish<G>(&self, p: Pending, mark: impl FnOnce() -> G) -> Result<ProvingAssignment, PceError> {
        let w = p.witness?;
        self.check_witness(&w)?;
        let _mark = mark();
        self.evaluate_into_vecs(w.inputs, w.aux, DEFAULT_CHUNK_ROWS, p.bufs)
    }

    /// Errors unless `w` is of the recorded shape and fingerprint.
    fn check_witness(&self, w: &Witness) -> Result<(), PceError> {
        if w.shape != self.shape {
            return Err(PceError::ShapeMismatch { expected: self.shape, found: w.shape });
        }
        if w.fingerprint != self.fingerprint {
            return Err(PceError::FingerprintMismatch { expected: self.fingerprint, found: w.fingerprint });
        }
        Ok(())
    }

    /// The assignment of a witness from [`WitnessOnly::synthesize`], after checking its shape and
    /// fingerprint against the record.
    pub fn evaluate_witness(&self, w: Witness) -> Result<ProvingAssignment, PceError> {
        self.check_witness(&w)?;
        self.evaluate(w.inputs, w.aux)
    }

    /// a, b, c for the given assignments (inputs with the constant one first), then one `input_i · 1 = 0` row
    /// per input exactly as `ProvingAssignment::synthesize` appends them; the SpMV runs on the current rayon
    /// pool in tasks of [`DEFAULT_CHUNK_ROWS`] constraints. `aux` should have capacity for `inputs.len()`
    /// more values (witness-only synthesis with a hint reserves it), or it is reallocated once.
    pub fn evaluate(&self, inputs: Vec<Scalar>, aux: Vec<Scalar>) -> Result<ProvingAssignment, PceError> {
        self.evaluate_chunked(inputs, aux, DEFAULT_CHUNK_ROWS)
    }

    /// [`Pce::evaluate`] with `chunk_rows` constraints per parallel task (a tuning knob for benchmarks).
    pub fn evaluate_chunked(
        &self,
        inputs: Vec<Scalar>,
        aux: Vec<Scalar>,
        chunk_rows: usize,
    ) -> Result<ProvingAssignment, PceError> {
        self.evaluate_into_vecs(inputs, aux, chunk_rows, Default::default())
    }

    /// The evaluation, into `bufs` (grown to `rows()` when smaller).
    fn evaluate_into_vecs(
        &self,
        inputs: Vec<Scalar>,
        mut aux: Vec<Scalar>,
        chunk_rows: usize,
        bufs: [Evals; 3],
    ) -> Result<ProvingAssignment, PceError> {
        let found = Shape { constraints: self.shape.constraints, inputs: inputs.len(), aux: aux.len() };
        if found != self.shape {
            return Err(PceError::ShapeMismatch { expected: self.shape, found });
        }
        let n_aux = aux.len();
        aux.extend_from_slice(&inputs);
        let [a, b, c] = spmv::evaluate(self, &aux, &inputs, chunk_rows.max(1), bufs);
        aux.truncate(n_aux);
        Ok(ProvingAssignment {
            a,
            b,
            c,
            input_assignment: inputs,
            aux_assignment: aux,
            a_aux_density: self.a_aux.clone(),
            b_input_density: self.b_input.clone(),
            b_aux_density: self.b_aux.clone(),
        })
    }

    /// The SpMV alone, into caller-owned buffers (for reuse across proofs, and to time the kernel without
    /// the page faults of fresh allocations): `w` is the aux values followed by the inputs, and `a`, `b`,
    /// `c` receive the record's `constraints` rows (the input rows are the caller's). Errors on lengths
    /// that do not fit the record.
    pub fn evaluate_into(
        &self,
        w: &[Scalar],
        a: &mut [Scalar],
        b: &mut [Scalar],
        c: &mut [Scalar],
        chunk_rows: usize,
    ) -> Result<(), PceError> {
        let n = self.shape.constraints;
        let vars = self.shape.aux + self.shape.inputs;
        for (what, expected, found) in
            [("w", vars, w.len()), ("a", n, a.len()), ("b", n, b.len()), ("c", n, c.len())]
        {
            if expected != found {
                return Err(PceError::Length { what, expected, found });
            }
        }
        spmv::evaluate_into(self, w, a, b, c, chunk_rows.max(1));
        Ok(())
    }

    /// The recorded shape (the capacity hint for witness-only synthesis).
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The structure digest, equal to `ShapeCounter::count_with_digest(circuit).1`: the cache key.
    pub fn digest(&self) -> u64 {
        self.digest
    }

    /// The fingerprint of the order of allocations and constraints, checked against every witness.
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// Whether this record is for a circuit of `shape` and `digest`.
    pub fn matches(&self, shape: Shape, digest: u64) -> bool {
        self.shape == shape && self.digest == digest
    }

    /// Term counts by class and the record's size.
    pub fn stats(&self) -> PceStats {
        let mut s = PceStats {
            terms: self.codes.len(),
            table: self.table.len(),
            bytes: self.heap_bytes(),
            c_products: self.c_product.popcount(),
            ..Default::default()
        };
        for r in self.row_ptr.windows(2) {
            let len = (r[1] - r[0]) as usize;
            s.empty_rows += usize::from(len == 0);
            s.long_rows += usize::from(len > 255);
        }
        let mut prev = 0i64;
        for &col in &self.cols {
            let d = i64::from(col) - prev;
            s.delta_i8 += usize::from((-127..=127).contains(&d));
            s.delta_i16 += usize::from((-32767..=32767).contains(&d));
            prev = i64::from(col);
        }
        for &code in &self.codes {
            if code >= GENERAL {
                match self.table.get(usize::from(code & !GENERAL)) {
                    Some(e) if e.constant => s.constant += 1,
                    _ => s.general += 1,
                }
            } else {
                s.adds += 1;
                s.unit += usize::from(code < 2);
                s.doublings += usize::from(code >> 1);
            }
        }
        s
    }

    /// Heap bytes held by the record (matrices, table and bitmaps).
    pub fn heap_bytes(&self) -> usize {
        self.row_ptr.len() * 4
            + self.cols.len() * 4
            + self.codes.len() * 2
            + self.table.len() * std::mem::size_of::<Coeff>()
            + [&self.c_product, &self.a_aux, &self.b_input, &self.b_aux]
                .iter()
                .map(|d| d.words().len() * 8)
                .sum::<usize>()
    }

    /// Heap bytes per constraint (the figure docs/PERF.md reports).
    pub fn bytes_per_constraint(&self) -> f64 {
        self.heap_bytes() as f64 / self.shape.constraints.max(1) as f64
    }
}
