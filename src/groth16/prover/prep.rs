//! `prep_msm`: classify each aux scalar of the L, A and B queries as zero (skip), one (batch addition) or
//! other (tail MSM), as supraseal does; decide per query whether splitting pays; gather the tail bases once
//! and the tail scalars per circuit.

use std::borrow::Cow;

use blstrs::{G1Affine, G2Affine, Scalar};
use ff::Field;
use rayon::prelude::*;

use crate::cs::{Density, ProvingAssignment};

/// One query's plan for a batch of circuits.
#[derive(Debug)]
pub struct QueryPlan<'p> {
    /// Query name for spans (`l`, `a`, `b`).
    pub name: &'static str,
    /// Bases of this query's aux part.
    pub bases: usize,
    /// Whether ones go to batch addition and the rest to a compacted tail MSM.
    pub split: bool,
    /// Per circuit: bit j set when scalar j is one and base j is not in the tail (empty when not split).
    pub ones: Vec<Vec<u64>>,
    /// Indices (into the query's aux bases) of the tail; `None` when not split (the tail is every base).
    pub tail_index: Option<Vec<u32>>,
    /// Per circuit: the scalars of the tail, aligned with `tail_index` (or with all bases when not split).
    pub tail_scalars: Vec<Cow<'p, [Scalar]>>,
    /// Tail length (the popcount of the OR of the circuits' "other" masks, or all bases when not split).
    pub tail_len: usize,
    /// Ones per circuit (popcount of `ones`).
    pub ones_count: Vec<usize>,
}

/// The three query plans of a batch and their tail bases, gathered once for all circuits.
#[derive(Debug)]
pub struct Prep<'p> {
    /// L over all aux variables.
    pub l: QueryPlan<'p>,
    /// A over A-dense aux variables.
    pub a: QueryPlan<'p>,
    /// B (G1 and G2) over B-dense aux variables.
    pub b: QueryPlan<'p>,
    /// Tail bases of L.
    pub l_bases: Cow<'p, [G1Affine]>,
    /// Tail bases of A's aux part.
    pub a_bases: Cow<'p, [G1Affine]>,
    /// Tail bases of B_G1's aux part.
    pub b_g1_bases: Cow<'p, [G1Affine]>,
    /// Tail bases of B_G2's aux part.
    pub b_g2_bases: Cow<'p, [G2Affine]>,
}

/// The aux scalars a query sees for one circuit: all of them, or those whose density bit is set.
fn query_scalars<'p>(asg: &'p ProvingAssignment, density: Option<&Density>) -> Cow<'p, [Scalar]> {
    match density {
        None => Cow::Borrowed(&asg.aux_assignment),
        Some(d) => Cow::Owned(d.iter_set().map(|i| asg.aux_assignment[i]).collect()),
    }
}

/// Plans one query over the circuits' scalars.
fn plan<'p>(name: &'static str, scalars: Vec<Cow<'p, [Scalar]>>) -> QueryPlan<'p> {
    let n = scalars.first().map_or(0, |s| s.len());
    let words = n.div_ceil(64);
    // "other" mask ORed across circuits.
    let other: Vec<u64> = (0..words)
        .into_par_iter()
        .map(|w| {
            let mut m = 0u64;
            for s in &scalars {
                for (bit, v) in s[w * 64..(w * 64 + 64).min(n)].iter().enumerate() {
                    if !bool::from(v.is_zero()) && *v != Scalar::ONE {
                        m |= 1 << bit;
                    }
                }
            }
            m
        })
        .collect();
    let tail_len: usize = other.iter().map(|w| w.count_ones() as usize).sum();
    // Split only when the tail is at most half the bases (supraseal's rule): otherwise one full MSM is cheaper
    // than batch addition plus a gather.
    let split = tail_len * 2 <= n;
    if !split {
        return QueryPlan {
            name,
            bases: n,
            split,
            ones: vec![],
            tail_index: None,
            ones_count: vec![0; scalars.len()],
            tail_len: n,
            tail_scalars: scalars,
        };
    }
    let tail_index: Vec<u32> =
        (0..n).filter(|&j| (other[j / 64] >> (j % 64)) & 1 == 1).map(|j| j as u32).collect();
    let ones: Vec<Vec<u64>> = scalars
        .par_iter()
        .map(|s| {
            (0..words)
                .map(|w| {
                    let mut m = 0u64;
                    for (bit, v) in s[w * 64..(w * 64 + 64).min(n)].iter().enumerate() {
                        if *v == Scalar::ONE {
                            m |= 1 << bit;
                        }
                    }
                    m & !other[w]
                })
                .collect()
        })
        .collect();
    let ones_count = ones.iter().map(|o| o.iter().map(|w| w.count_ones() as usize).sum()).collect();
    let tail_scalars =
        scalars.par_iter().map(|s| Cow::Owned(tail_index.iter().map(|&j| s[j as usize]).collect())).collect();
    QueryPlan {
        name,
        bases: n,
        split,
        ones,
        tail_index: Some(tail_index),
        tail_scalars,
        tail_len,
        ones_count,
    }
}

impl<'p> Prep<'p> {
    /// Classifies the batch and gathers tail bases from the aux parts of the params' queries. All circuits
    /// share one shape, so circuit 0's densities stand for all.
    pub fn new(asgs: &'p [ProvingAssignment], bases: AuxBases<'p>) -> Self {
        let (l, (a, b)) = rayon::join(
            || plan("l", asgs.iter().map(|g| query_scalars(g, None)).collect()),
            || {
                rayon::join(
                    || {
                        plan(
                            "a",
                            asgs.iter().map(|g| query_scalars(g, Some(&asgs[0].a_aux_density))).collect(),
                        )
                    },
                    || {
                        plan(
                            "b",
                            asgs.iter().map(|g| query_scalars(g, Some(&asgs[0].b_aux_density))).collect(),
                        )
                    },
                )
            },
        );
        Prep {
            l_bases: tail_bases(&l, bases.l),
            a_bases: tail_bases(&a, bases.a),
            b_g1_bases: tail_bases(&b, bases.b_g1),
            b_g2_bases: tail_bases(&b, bases.b_g2),
            l,
            a,
            b,
        }
    }
}

/// The aux parts of the params' L, A, B_G1 and B_G2 queries (inputs' bases cut off).
#[derive(Clone, Copy)]
pub struct AuxBases<'p> {
    /// L bases (all aux).
    pub l: &'p [G1Affine],
    /// A bases after the inputs.
    pub a: &'p [G1Affine],
    /// B_G1 bases after the B-dense inputs.
    pub b_g1: &'p [G1Affine],
    /// B_G2 bases after the B-dense inputs.
    pub b_g2: &'p [G2Affine],
}

/// The tail bases of a query: gathered once when split, else the query's bases as they are.
fn tail_bases<'b, T: Copy + Send + Sync>(plan: &QueryPlan, bases: &'b [T]) -> Cow<'b, [T]> {
    match &plan.tail_index {
        Some(idx) => Cow::Owned(idx.par_iter().map(|&j| bases[j as usize]).collect()),
        None => Cow::Borrowed(bases),
    }
}

/// D4 off: one window for every tail MSM, from the average tail size of the batch's L, A and B_G1 MSMs.
pub fn shared_window(prep: &Prep, window_for: impl Fn(usize) -> usize) -> usize {
    let avg = (prep.l.tail_len + prep.a.tail_len + prep.b.tail_len) / 3;
    window_for(avg.max(1))
}
