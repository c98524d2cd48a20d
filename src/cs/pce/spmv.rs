//! The SpMV: a = A·w, b = B·w, c = C·w over the record's CSR, in parallel over chunks of constraints.

use blstrs::Scalar;
use rayon::prelude::*;

use super::fr::{self, as_limbs, Limbs};
use super::{Coeff, Pce, GENERAL};

/// Evaluates the record's rows against `w` (aux values, then inputs): returns a, b, c of length
/// `rows()` (constraints plus inputs), the input rows left zero for the caller.
pub(super) fn evaluate(
    pce: &Pce,
    w: &[Scalar],
    chunk_rows: usize,
) -> (Vec<Scalar>, Vec<Scalar>, Vec<Scalar>) {
    let n = pce.shape.constraints;
    let rows = pce.shape.rows();
    let (mut a, mut b, mut c) = (fr::zeroed(rows), fr::zeroed(rows), fr::zeroed(rows));
    let w = as_limbs(w);
    a[..n]
        .par_chunks_mut(chunk_rows)
        .zip(b[..n].par_chunks_mut(chunk_rows))
        .zip(c[..n].par_chunks_mut(chunk_rows))
        .enumerate()
        .for_each(|(chunk, ((a, b), c))| {
            let first = chunk * chunk_rows;
            for (i, ((a, b), c)) in a.iter_mut().zip(b.iter_mut()).zip(c.iter_mut()).enumerate() {
                let r = 3 * (first + i);
                *a = fr::scalar(row(pce, r, w));
                *b = fr::scalar(row(pce, r + 1, w));
                *c = fr::scalar(row(pce, r + 2, w));
            }
        });
    (a, b, c)
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
