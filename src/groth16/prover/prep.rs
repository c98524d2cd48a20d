//! `prep_msm`: classify each aux scalar of the L, A and B queries as zero (skip), one (batch addition) or
//! other (tail MSM), as supraseal does; decide per query whether splitting pays; gather the tail bases once
//! and the tail scalars per circuit.

use std::borrow::Cow;
use std::sync::OnceLock;

use blstrs::{G1Affine, G2Affine, Scalar};
use rayon::prelude::*;

use crate::cs::fr;
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
    /// Tail bases of B_G2's aux part, gathered on first use ([`Prep::b_g2_bases`]): with `g2d` a device
    /// gathers its own from the resident query, and the host's gather (192 B per base) is not made.
    b_g2_tail: OnceLock<Cow<'p, [G2Affine]>>,
    /// B_G2's aux part, for that gather.
    b_g2_aux: &'p [G2Affine],
}

/// The aux positions a density-filtered query (A, B) sees, shared by all circuits of a batch
/// (`Density::iter_set` tests bit by bit on one thread: 14.5 M bits at porep-16m, before any plan can start).
fn positions(density: &Density) -> Vec<u32> {
    set_bits(density.words())
}

/// Words of a bitmap per task of [`set_bits`].
const SET_BITS_WORDS: usize = 1 << 12;

/// Indices of the set bits of a bitmap (bit i of word i/64), ascending: counted, then written in parallel
/// into a vector of exactly that length in huge pages (collected from parallel pieces, the vector was built
/// in a fresh allocation by copying and faulted in 4 KiB pages: 520 MB at 2^27).
fn set_bits(words: &[u64]) -> Vec<u32> {
    let counts: Vec<usize> =
        words.par_chunks(SET_BITS_WORDS).map(|c| c.iter().map(|w| w.count_ones() as usize).sum()).collect();
    let total = counts.iter().sum();
    let mut out = Vec::with_capacity(total);
    crate::util::mem::advise_huge(&mut out);
    out.par_extend(rayon::iter::repeat_n(0u32, total));
    let pieces = crate::util::par::pieces(&mut out, counts);
    pieces.into_par_iter().zip(words.par_chunks(SET_BITS_WORDS)).enumerate().for_each(|(ci, (piece, c))| {
        let mut next = piece.iter_mut();
        for (k, &word) in c.iter().enumerate() {
            let base = ((ci * SET_BITS_WORDS + k) * 64) as u32;
            let mut m = word;
            while m != 0 {
                if let Some(slot) = next.next() {
                    *slot = base + m.trailing_zeros();
                }
                m &= m - 1;
            }
        }
    });
    out
}

/// One circuit's scalars as a query sees them: the aux assignment itself, or its entries at `pos`. Read in
/// place: a query's scalars are never copied out whole (they were, serially, for A and B: most of
/// `prep_msm`'s time at one circuit per call).
#[derive(Clone, Copy)]
struct View<'p, 'v> {
    aux: &'p [Scalar],
    pos: Option<&'v [u32]>,
}

impl<'p> View<'p, '_> {
    fn len(&self) -> usize {
        self.pos.map_or(self.aux.len(), |p| p.len())
    }

    fn at(&self, j: usize) -> &'p Scalar {
        match self.pos {
            None => &self.aux[j],
            Some(p) => &self.aux[p[j] as usize],
        }
    }

    /// Every scalar the query sees: borrowed when it sees all of them.
    fn all(&self) -> Cow<'p, [Scalar]> {
        match self.pos {
            None => Cow::Borrowed(self.aux),
            Some(p) => Cow::Owned(p.par_iter().map(|&i| self.aux[i as usize]).collect()),
        }
    }
}

/// Per 64-scalar word of a query, the mask of scalars other than zero and one, then the mask of ones.
type Masks = (Vec<u64>, Vec<u64>);

/// Words of [`classify`] per rayon task: 2^16 scalars (2 MiB) each.
const CLASSIFY_WORDS: usize = 1 << 10;

/// One circuit's aux scalars classified in one read, on their limbs ([`fr::is_one`], [`fr::is_zero`]):
/// blstrs' constant-time `==` and `is_zero` were most of the CPU time of this read (perf, porep-16m on
/// dev-2c).
fn classify(aux: &[Scalar]) -> Masks {
    aux.par_chunks(64)
        .with_min_len(CLASSIFY_WORDS)
        .map(|word| {
            let (mut other, mut ones) = (0u64, 0u64);
            for (bit, x) in word.iter().enumerate() {
                // Both tests every time, joined with `&`: a branch on the first cost 44% (porep-16m, dev-2c).
                let (one, zero) = (fr::is_one(x), fr::is_zero(x));
                ones |= u64::from(one) << bit;
                other |= u64::from(!one & !zero) << bit;
            }
            (other, ones)
        })
        .unzip()
}

/// A density-filtered query's masks, taken from the aux masks (bit j is aux bit `pos[j]`; `pos` ascending):
/// A and B see the scalars L already classified, so their 32-byte scalars are not read again (A sees 99.7%
/// of the aux at 32 GiB), only the 4-byte positions.
fn select(aux: &Masks, pos: &[u32]) -> Masks {
    pos.par_chunks(64)
        .with_min_len(CLASSIFY_WORDS)
        .map(|word| {
            let (mut other, mut ones) = (0u64, 0u64);
            for (bit, &p) in word.iter().enumerate() {
                let (w, b) = (p as usize / 64, p % 64);
                other |= ((aux.0[w] >> b) & 1) << bit;
                ones |= ((aux.1[w] >> b) & 1) << bit;
            }
            (other, ones)
        })
        .unzip()
}

/// Plans one query over the circuits' scalars, given each circuit's [`Masks`] for it; every loop is parallel
/// within a circuit (a call often holds one).
fn plan<'p>(name: &'static str, views: &[View<'p, '_>], masks: Vec<Masks>) -> QueryPlan<'p> {
    let n = views.first().map_or(0, View::len);
    let words = n.div_ceil(64);
    let (mut others, raw_ones): (Vec<Vec<u64>>, Vec<Vec<u64>>) = masks.into_iter().unzip();
    // "other" mask ORed across circuits (circuit 0's own when it is alone).
    let other: Vec<u64> = if others.len() == 1 {
        others.pop().unwrap_or_default()
    } else {
        (0..words).into_par_iter().map(|w| others.iter().fold(0, |m, o| m | o[w])).collect()
    };
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
            ones_count: vec![0; views.len()],
            tail_len: n,
            tail_scalars: views.iter().map(View::all).collect(),
        };
    }
    let tail_index = set_bits(&other);
    // A circuit's ones outside the tail: a base in the tail takes its scalar there, one or not.
    let ones: Vec<Vec<u64>> = raw_ones
        .into_iter()
        .map(|mut o| {
            o.par_iter_mut().zip(&other).for_each(|(m, t)| *m &= !t);
            o
        })
        .collect();
    let ones_count = ones.iter().map(|o| o.iter().map(|w| w.count_ones() as usize).sum()).collect();
    let tail_scalars = views
        .iter()
        .map(|v| Cow::Owned(tail_index.par_iter().map(|&j| *v.at(j as usize)).collect()))
        .collect();
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
        let density = |pick: fn(&ProvingAssignment) -> &Density| {
            asgs.first().map_or_else(Vec::new, |g| positions(pick(g)))
        };
        // Every scalar is read once, for L; A and B select their bits of L's masks.
        let ((a_pos, b_pos), l_masks) = rayon::join(
            || rayon::join(|| density(|g| &g.a_aux_density), || density(|g| &g.b_aux_density)),
            || asgs.iter().map(|g| classify(&g.aux_assignment)).collect::<Vec<_>>(),
        );
        let select_all = |pos: &[u32]| l_masks.iter().map(|m| select(m, pos)).collect::<Vec<_>>();
        let (a_masks, b_masks) = rayon::join(|| select_all(&a_pos), || select_all(&b_pos));
        fn views<'p, 'v>(asgs: &'p [ProvingAssignment], pos: Option<&'v [u32]>) -> Vec<View<'p, 'v>> {
            asgs.iter().map(|g| View { aux: &g.aux_assignment, pos }).collect()
        }
        let (l, (a, b)) = rayon::join(
            || plan("l", &views(asgs, None), l_masks),
            || {
                rayon::join(
                    || plan("a", &views(asgs, Some(&a_pos)), a_masks),
                    || plan("b", &views(asgs, Some(&b_pos)), b_masks),
                )
            },
        );
        Prep {
            l_bases: tail_bases(&l, bases.l),
            a_bases: tail_bases(&a, bases.a),
            b_g1_bases: tail_bases(&b, bases.b_g1),
            b_g2_tail: OnceLock::new(),
            b_g2_aux: bases.b_g2,
            l,
            a,
            b,
        }
    }
}

impl Prep<'_> {
    /// Tail bases of B_G2's aux part (gathered once, on the first call).
    pub fn b_g2_bases(&self) -> &[G2Affine] {
        self.b_g2_tail.get_or_init(|| tail_bases(&self.b, self.b_g2_aux))
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

#[cfg(test)]
mod tests {
    use super::*;
    use ff::Field;
    use rand::{Rng, SeedableRng};

    #[test]
    fn positions_are_the_set_bits_in_order() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        // The last two span several of set_bits' pieces, one of them with empty words between set bits.
        let many = SET_BITS_WORDS * 64 * 3 + 17;
        for (len, p) in [
            (0usize, 0.5),
            (1, 1.0),
            (63, 0.5),
            (64, 0.9),
            (1000, 0.1),
            (70_001, 0.6),
            (many, 0.7),
            (many, 0.001),
        ] {
            let mut d = Density::with_capacity(len);
            for _ in 0..len {
                d.push_clear();
                if rng.gen_bool(p) {
                    d.set(d.len() - 1);
                }
            }
            let want: Vec<u32> = d.iter_set().map(|i| i as u32).collect();
            assert_eq!(positions(&d), want, "len {len}");
        }
    }

    /// A scalar that is zero, one, one with a single limb changed (the limb comparison must see every
    /// limb), its negation, or random.
    fn mixed(rng: &mut impl Rng) -> Scalar {
        match rng.gen_range(0..6) {
            0 => Scalar::ZERO,
            1 => Scalar::ONE,
            2 => {
                let mut l = fr::limbs(&Scalar::ONE);
                l[rng.gen_range(0..4)] ^= 1 << rng.gen_range(0..8);
                // Still below r: R mod r's top limb is far below r's, and a low-bit flip stays there.
                fr::scalar(l)
            }
            3 => -Scalar::ONE,
            _ => Scalar::random(&mut *rng),
        }
    }

    /// The masks of L (every scalar, on raw limbs) and of a density-filtered query (bits selected from L's)
    /// against blstrs' own comparisons of the scalars the query sees, at lengths on and off a word's edge
    /// and across classify's tasks.
    #[test]
    fn masks_match_the_field_comparisons() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        for len in [1usize, 63, 64, 65, 1000, CLASSIFY_WORDS * 64 * 2 + 5] {
            let aux: Vec<Scalar> = (0..len).map(|_| mixed(&mut rng)).collect();
            let pos: Vec<u32> = (0..len as u32).filter(|_| rng.gen_bool(0.4)).collect();
            let reference = |seen: &[Scalar]| -> Masks {
                let mut m = (vec![0u64; seen.len().div_ceil(64)], vec![0u64; seen.len().div_ceil(64)]);
                for (j, x) in seen.iter().enumerate() {
                    if *x == Scalar::ONE {
                        m.1[j / 64] |= 1 << (j % 64);
                    } else if !bool::from(x.is_zero()) {
                        m.0[j / 64] |= 1 << (j % 64);
                    }
                }
                m
            };
            let l = classify(&aux);
            assert_eq!(l, reference(&aux), "L, len {len}");
            let seen: Vec<Scalar> = pos.iter().map(|&p| aux[p as usize]).collect();
            assert_eq!(select(&l, &pos), reference(&seen), "selected, len {len}");
        }
    }
}
