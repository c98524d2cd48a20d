//! The setup's QAP evaluation: every variable's A, B and C polynomials at τ, Σ over the rows that name it of
//! coefficient · Lᵢ(τ), and the A/B densities, from one synthesis pass per thread.
//!
//! Why per thread: building the linear combinations is most of a synthesis (dev-2c, a stacked porep sample:
//! 1.86 s normal against 0.24 s witness-only), and session r measured the one-thread pass at 64.7 s for the
//! 2^27 porep-32g. Each of T threads synthesizes the whole circuit but builds only the combinations of its
//! own slice of rows; the rest of its pass costs about a witness-only synthesis. It keeps no witness values
//! (no gadget reads them back through the system, and the params do not depend on them).
//!
//! Columns: thread t owns the aux variables allocated from the moment its first row is enforced (thread 0:
//! from the start) until the first row of thread t + 1, so the owners' windows partition the aux vector and
//! are concatenated in order. A term on an older variable (one owned by an earlier thread: a global such as
//! the replica id's bits) is kept as a spill and added after the join; each thread keeps its own copy of the
//! (few) inputs. Field addition commutes, so the sums, and the params, do not depend on T.

use std::ops::Range;

use blstrs::Scalar;
use ff::Field;
use rayon::prelude::*;

use crate::cs::{
    Circuit, ConstraintSystem, Densities, Index, Lc, LinearCombination, Shape, SynthesisError, Track,
    Variable, VecStore,
};
use crate::vocab::CancelToken;

/// Rows per thread below which more threads do not pay (each thread repeats the whole witness pass).
const MIN_ROWS_PER_THREAD: usize = 1 << 16;

/// The three polynomials, as in the rest of setup: index 0 over inputs, 1 over aux.
type Polys = [[Vec<Scalar>; 2]; 3];

/// The QAP at τ of a whole circuit.
pub(super) struct Qap {
    /// A, B, C at τ: `polys[k][0]` over the inputs (input 0 the constant one), `polys[k][1]` over aux.
    pub polys: Polys,
    /// Which variables A and B name.
    pub densities: Densities,
    /// Constraints the circuit enforced (without the appended input constraints).
    pub constraints: usize,
}

/// One thread's pass: its rows' contributions to the columns it owns, to every input, and to older columns.
struct Part<'a> {
    lagrange: &'a [Scalar],
    cancel: &'a CancelToken,
    stopped: bool,
    rows: Range<usize>,
    /// Constraints enforced so far.
    row: usize,
    inputs: usize,
    aux: usize,
    /// The first aux index this part owns, once its first row has been seen (thread 0 owns from 0).
    start: Option<usize>,
    /// A, B, C over the owned aux columns, from `start`.
    window: [Vec<Scalar>; 3],
    /// A, B, C over every input.
    input: [Vec<Scalar>; 3],
    /// (aux column, polynomial, value) on columns older than `start`.
    spill: Vec<(usize, u8, Scalar)>,
    densities: Densities,
}

impl Part<'_> {
    /// Whether newly allocated aux variables are this part's: from `start` until row `rows.end` is enforced.
    fn owns_new(&self) -> bool {
        self.start.is_some() && self.row <= self.rows.end
    }

    fn add(&mut self, k: usize, lc: &LinearCombination<VecStore>, l: Scalar) {
        let start = self.start.unwrap_or(0);
        for (var, coeff) in lc.terms() {
            let v = if *coeff == Scalar::ONE { l } else { *coeff * l };
            match var.0 {
                Index::Input(i) => self.input[k][i] += v,
                Index::Aux(i) if i >= start => self.window[k][i - start] += v,
                Index::Aux(i) => self.spill.push((i, k as u8, v)),
            }
        }
    }
}

impl ConstraintSystem for Part<'_> {
    type Store = VecStore;

    fn alloc(&mut self, _value: Scalar) -> Variable {
        if self.owns_new() {
            for w in &mut self.window {
                w.push(Scalar::ZERO);
            }
        }
        self.densities.alloc();
        self.aux += 1;
        Variable(Index::Aux(self.aux - 1))
    }

    fn alloc_input(&mut self, _value: Scalar) -> Variable {
        for p in &mut self.input {
            p.push(Scalar::ZERO);
        }
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
        let row = self.row;
        self.row += 1;
        if row.is_multiple_of(4096) && self.cancel.is_cancelled() {
            self.stopped = true;
        }
        if row == self.rows.start && self.start.is_none() {
            self.start = Some(self.aux);
        }
        if self.stopped || !self.rows.contains(&row) {
            return;
        }
        let Some(&l) = self.lagrange.get(row) else { return };
        let (a, b, c) =
            (a(LinearCombination::zero()), b(LinearCombination::zero()), c(LinearCombination::zero()));
        for (var, _) in a.terms() {
            if let Index::Aux(i) = var.0 {
                self.densities.a_aux.set(i);
            }
        }
        for (var, _) in b.terms() {
            match var.0 {
                Index::Input(i) => self.densities.b_input.set(i),
                Index::Aux(i) => self.densities.b_aux.set(i),
            }
        }
        self.add(0, &a, l);
        self.add(1, &b, l);
        self.add(2, &c, l);
    }

    fn wants_terms(&self) -> bool {
        !self.stopped && self.rows.contains(&self.row)
    }

    fn value(&self, _var: Variable) -> Scalar {
        // Keeps no witness: the evaluation depends only on which variables each row names.
        Scalar::ZERO
    }
}

/// Threads for a circuit of `rows` rows on this pool.
pub(super) fn threads_for(rows: usize) -> usize {
    rayon::current_num_threads().min(rows / MIN_ROWS_PER_THREAD).max(1)
}

/// Evaluates `circuit` (of shape `shape`) at the Lagrange basis `lagrange` in `threads` passes run in parallel;
/// `None` when `cancel` was cancelled (heard within a few thousand rows).
pub(super) fn evaluate<C: Circuit + ?Sized>(
    circuit: &C,
    shape: Shape,
    lagrange: &[Scalar],
    cancel: &CancelToken,
    threads: usize,
) -> Result<Option<Qap>, SynthesisError> {
    let n = shape.constraints;
    let threads = threads.clamp(1, n.max(1));
    let parts: Vec<Part> = (0..threads)
        .into_par_iter()
        .map(|t| {
            let rows = n * t / threads..n * (t + 1) / threads;
            let mut densities = Densities::default();
            densities.reserve(shape);
            let mut part = Part {
                lagrange,
                cancel,
                stopped: false,
                // The last part takes any rows past the shape's count, so a miscounted shape still adds up.
                rows: rows.start..if t + 1 == threads { usize::MAX } else { rows.end },
                row: 0,
                inputs: 0,
                aux: 0,
                start: (t == 0).then_some(0),
                window: Default::default(),
                input: Default::default(),
                spill: Vec::new(),
                densities,
            };
            part.alloc_input(Scalar::ONE);
            circuit.synthesize(&mut part)?;
            Ok(part)
        })
        .collect::<Result<_, SynthesisError>>()?;
    if cancel.is_cancelled() || parts.iter().any(|p| p.stopped) {
        return Ok(None);
    }
    Ok(Some(merge(parts)))
}

/// Joins the parts: windows concatenated in thread order, inputs summed, spills added, densities united.
fn merge(mut parts: Vec<Part>) -> Qap {
    let (inputs, aux, constraints) = (parts[0].inputs, parts[0].aux, parts[0].row);
    let mut polys: Polys = Default::default();
    for (k, poly) in polys.iter_mut().enumerate() {
        poly[0] = vec![Scalar::ZERO; inputs];
        for p in &mut parts {
            for (sum, v) in poly[0].iter_mut().zip(&p.input[k]) {
                *sum += v;
            }
            p.input[k] = Vec::new();
        }
        // One polynomial's windows at a time, freed once copied: the merge holds one polynomial more than
        // the parts did (3.8 GB at 2^27).
        let windows: Vec<Vec<Scalar>> = parts.iter_mut().map(|p| std::mem::take(&mut p.window[k])).collect();
        poly[1] = concat(&windows, aux);
        // Unmapped beside the next polynomial's copy (0.25 s per 3.8 GB on dev-2c); inline if no thread
        // starts.
        let _ = std::thread::Builder::new().name("qap-free".into()).spawn(move || drop(windows));
    }
    let mut densities = std::mem::take(&mut parts[0].densities);
    for p in &parts {
        for &(i, k, v) in &p.spill {
            polys[k as usize][1][i] += v;
        }
        densities.union_with(&p.densities);
    }
    Qap { polys, densities, constraints }
}

/// Rows per copy task of [`concat`].
const COPY_CHUNK: usize = 1 << 16;

/// `windows` end to end in a vector of `len` (zeros past them, any excess dropped), copied on every core:
/// at 2^27 the three polynomials are 11.5 GB of fresh pages, which one thread took seconds to fill.
fn concat(windows: &[Vec<Scalar>], len: usize) -> Vec<Scalar> {
    let mut out = crate::util::par::filled(len, Scalar::ZERO);
    let to = crate::util::par::pieces(&mut out, windows.iter().map(Vec::len));
    to.into_par_iter().zip(windows).for_each(|(to, from)| {
        let from = &from[..to.len()];
        to.par_chunks_mut(COPY_CHUNK)
            .zip(from.par_chunks(COPY_CHUNK))
            .for_each(|(t, f)| t.copy_from_slice(f));
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cs::test_circuit::Mixed;

    #[test]
    fn every_split_gives_the_one_pass_sums() {
        let c = Mixed(1000);
        let shape = Shape { constraints: 1000, inputs: 2, aux: 1001 };
        let lagrange: Vec<Scalar> = (0..1024u64).map(|i| Scalar::from(i * i + 11)).collect();
        let run =
            |t| evaluate(&c, shape, &lagrange, &CancelToken::new(), t).ok().flatten().expect("evaluated");
        let one = run(1);
        assert!(one.polys[0][1].iter().filter(|v| !bool::from(v.is_zero())).count() > 900);
        for t in [2, 3, 7, 16] {
            let many = run(t);
            assert_eq!(many.polys, one.polys, "{t} threads");
            assert_eq!(many.densities, one.densities, "{t} threads");
            assert_eq!(many.constraints, 1000);
        }
    }

    #[test]
    fn a_cancelled_token_stops_the_pass() {
        let cancel = CancelToken::new();
        cancel.cancel();
        let shape = Shape { constraints: 10, inputs: 2, aux: 11 };
        let r = evaluate(&Mixed(10), shape, &[Scalar::ONE; 16], &cancel, 2);
        assert!(matches!(r, Ok(None)));
    }
}
