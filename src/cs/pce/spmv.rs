//! The SpMV: a = A·w, b = B·w, c = C·w over the record's CSR, in parallel over chunks of constraints.
//!
//! The limb additions are adc/sbb chains (`overflowing_add`), twice as fast as u128 carries; the sign stays
//! a branch and indexing stays checked, because the branchless and unchecked variants measured slower. About
//! half the kernel is memory traffic. The variants and their figures: docs/PERF.md ("SpMV kernel, measured
//! variants").

use std::mem::MaybeUninit;

use blstrs::Scalar;
use rayon::prelude::*;

use super::layout::{Coeff, Pce, GENERAL};
use crate::cs::fr::{self, as_limbs, Limbs};
use crate::cs::Evals;

/// Evaluates the record's rows against `w` (aux values, then inputs): returns a, b, c of length
/// `rows()` (constraints plus inputs) with the input rows set to (input, 0, 0).
pub(super) fn evaluate(
    pce: &Pce,
    w: &[Scalar],
    inputs: &[Scalar],
    chunk_rows: usize,
    bufs: [Evals; 3],
) -> [Evals; 3] {
    let n = pce.shape.constraints;
    let rows = pce.shape.rows();
    debug_assert_eq!(rows, n + inputs.len());
    // Written, not zeroed first: with reused heap memory a zero fill would be one more pass over 96 B/row.
    let [mut a, mut b, mut c] = bufs;
    for v in [&mut a, &mut b, &mut c] {
        v.clear();
        v.reserve_exact(rows);
    }
    {
        let (sa, sb, sc) = (
            &mut a.spare_capacity_mut()[..rows],
            &mut b.spare_capacity_mut()[..rows],
            &mut c.spare_capacity_mut()[..rows],
        );
        kernel(pce, as_limbs(w), &mut sa[..n], &mut sb[..n], &mut sc[..n], chunk_rows);
        // The input constraints input_i · 1 = 0, as `ProvingAssignment::synthesize` appends them.
        for (k, x) in inputs.iter().enumerate() {
            sa[n + k].write(*x);
            sb[n + k].write(Scalar::from(0u64));
            sc[n + k].write(Scalar::from(0u64));
        }
    }
    // SAFETY: the kernel wrote every one of the first n elements of each vector (its chunks cover the
    // slices exactly) and the loop above the remaining `inputs.len()`; rows ≤ capacity.
    unsafe {
        a.set_len(rows);
        b.set_len(rows);
        c.set_len(rows);
    }
    [a, b, c]
}

/// An empty vector with capacity for `rows` scalars whose pages are already mapped (in one call where the
/// kernel can, else one write per 4 KiB page), so the SpMV that fills it does not take the faults; meant to
/// run on another thread while the witness is synthesized.
pub(super) fn touched(rows: usize) -> Vec<Scalar> {
    const PER_PAGE: usize = 4096 / std::mem::size_of::<Scalar>();
    let mut v: Vec<Scalar> = Vec::with_capacity(rows);
    if crate::util::mem::populate(&mut v) {
        return v;
    }
    for slot in v.spare_capacity_mut().iter_mut().step_by(PER_PAGE) {
        slot.write(Scalar::from(0u64));
    }
    v
}

/// The kernel into initialized buffers (see [`Pce::evaluate_into`]).
pub(super) fn evaluate_into(
    pce: &Pce,
    w: &[Scalar],
    a: &mut [Scalar],
    b: &mut [Scalar],
    c: &mut [Scalar],
    chunk_rows: usize,
) {
    kernel(pce, as_limbs(w), uninit(a), uninit(b), uninit(c), chunk_rows);
}

/// Initialized scalars viewed as slots to overwrite.
fn uninit(s: &mut [Scalar]) -> &mut [MaybeUninit<Scalar>] {
    // SAFETY: MaybeUninit<T> has T's layout; the kernel only ever writes initialized values through it, so
    // the slice stays initialized.
    unsafe { &mut *(s as *mut [Scalar] as *mut [MaybeUninit<Scalar>]) }
}

/// a, b, c of the record's constraints (slices of exactly `constraints` slots), in parallel tasks of
/// `chunk_rows` constraints on the current rayon pool. A, B and C rows of a constraint are evaluated
/// together: they touch the same variables.
fn kernel(
    pce: &Pce,
    w: &[Limbs],
    a: &mut [MaybeUninit<Scalar>],
    b: &mut [MaybeUninit<Scalar>],
    c: &mut [MaybeUninit<Scalar>],
    chunk_rows: usize,
) {
    a.par_chunks_mut(chunk_rows)
        .zip(b.par_chunks_mut(chunk_rows))
        .zip(c.par_chunks_mut(chunk_rows))
        .enumerate()
        .for_each(|(chunk, ((a, b), c))| {
            let first = chunk * chunk_rows;
            let product = pce.c_product.words();
            for (i, ((a, b), c)) in a.iter_mut().zip(b.iter_mut()).zip(c.iter_mut()).enumerate() {
                let (k, r) = (first + i, 3 * (first + i));
                let (av, bv) = (fr::scalar(row(pce, r, w)), fr::scalar(row(pce, r + 1, w)));
                a.write(av);
                b.write(bv);
                if (product[k / 64] >> (k % 64)) & 1 == 1 {
                    c.write(av * bv);
                } else {
                    c.write(fr::scalar(row(pce, r + 2, w)));
                }
            }
        });
}

/// One row: Horner over the ±2^k terms (stored by descending k), then the table terms.
#[inline(always)]
fn row(pce: &Pce, r: usize, w: &[Limbs]) -> Limbs {
    let (start, end) = (pce.row_ptr[r] as usize, pce.row_ptr[r + 1] as usize);
    let cols = &pce.cols[start..end];
    let codes = &pce.codes[start..end];
    let mut acc: Limbs = [0; 4];
    for (&col, &code) in cols.iter().zip(codes) {
        if code < GENERAL {
            let v = &w[col as usize];
            acc = if code & 1 == 0 { fr::add(&acc, v) } else { fr::sub(&acc, v) };
            for _ in 0..code >> 1 {
                acc = fr::double(&acc);
            }
        } else {
            let e: &Coeff = &pce.table[usize::from(code & !GENERAL)];
            let v = if e.constant { e.value } else { e.value * fr::scalar(w[col as usize]) };
            acc = fr::add(&acc, &fr::limbs(&v));
        }
    }
    acc
}
