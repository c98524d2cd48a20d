//! CPU MSM (G1, G2), batch addition and fixed-base multiplication against naive scalar multiplication and
//! blstrs' own `multi_exp`.

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use cuzk::backend::cpu::affine::batch_normalize;
use cuzk::backend::cpu::batch_add::{batch_add_g1, batch_add_g2, batch_add_mixed};
use cuzk::backend::cpu::curve::MsmAffine;
use cuzk::backend::cpu::digits::{booth_digit, num_windows, signed_limbs, NEGATE_FLAG};
use cuzk::backend::cpu::field::Coord;
use cuzk::backend::cpu::fixed_base::{fixed_base_g1, fixed_base_g2, FixedBaseTable};
use cuzk::backend::cpu::msm::{msm_g1, msm_g2, window_for, MAX_WINDOW};
use ff::Field;
use group::{prime::PrimeCurveAffine, Curve, Group};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// Random bases with the awkward cases mixed in: infinity, repeated points and negations.
/// Cheap pseudo-random points: sums of three of 3×64 random points (hashing to the curve per point is slow).
fn spread<G: Group>(n: usize, r: &mut ChaCha8Rng) -> Vec<G> {
    let t: Vec<G> = (0..192).map(|_| G::random(&mut *r)).collect();
    (0..n).map(|i| t[i % 64] + t[64 + (i / 64) % 64] + t[128 + (i / 4096) % 64]).collect()
}

fn bases_g1(n: usize, r: &mut ChaCha8Rng) -> Vec<G1Affine> {
    let mut v: Vec<G1Affine> = spread::<G1Projective>(n, r).iter().map(|p| p.to_affine()).collect();
    for i in 0..n {
        match i % 11 {
            3 => v[i] = G1Affine::identity(),
            5 if i > 0 => v[i] = v[i - 1],
            7 if i > 0 => v[i] = -v[i - 1],
            _ => {}
        }
    }
    v
}

fn bases_g2(n: usize, r: &mut ChaCha8Rng) -> Vec<G2Affine> {
    let mut v: Vec<G2Affine> = spread::<G2Projective>(n, r).iter().map(|p| p.to_affine()).collect();
    for i in 0..n {
        match i % 7 {
            2 => v[i] = G2Affine::identity(),
            4 if i > 0 => v[i] = v[i - 1],
            6 if i > 0 => v[i] = -v[i - 1],
            _ => {}
        }
    }
    v
}

/// Scalars mixing 0, 1, −1, small values, repeats and random ones.
fn scalars(n: usize, r: &mut ChaCha8Rng) -> Vec<Scalar> {
    (0..n)
        .map(|i| match r.next_u32() % 6 {
            0 => Scalar::ZERO,
            1 => Scalar::ONE,
            2 => -Scalar::ONE,
            3 => Scalar::from((i % 5) as u64 + 2),
            _ => Scalar::random(&mut *r),
        })
        .collect()
}

fn naive<G: Group<Scalar = Scalar>, A: Copy + Into<G>>(bases: &[A], s: &[Scalar]) -> G {
    bases.iter().zip(s).fold(G::identity(), |acc, (b, k)| acc + (*b).into() * k)
}

#[test]
fn booth_digits_recompose_the_scalar() {
    let mut r = rng(10);
    let half = (Scalar::ZERO - Scalar::ONE) * Scalar::from(2u64).invert().unwrap(); // (r − 1)/2
    let mut cases = vec![Scalar::ZERO, Scalar::ONE, -Scalar::ONE, half, half + Scalar::ONE, -half];
    cases.extend((0..6).map(|_| Scalar::random(&mut r)));
    for c in 1..=MAX_WINDOW {
        for k in &cases {
            let limbs = signed_limbs(k);
            let mut acc = Scalar::ZERO;
            let radix = Scalar::from(2u64).pow_vartime([c as u64]);
            for w in (0..num_windows(c)).rev() {
                let d = booth_digit(&limbs, w, c);
                assert!(d.unsigned_abs() <= 1 << (c - 1), "c={c} digit {d}");
                let dd = Scalar::from(d.unsigned_abs() as u64);
                acc = acc * radix + if d < 0 { -dd } else { dd };
            }
            let negated = limbs[3] & NEGATE_FLAG != 0;
            assert_eq!(if negated { -acc } else { acc }, *k, "c={c}");
        }
    }
    assert_eq!(signed_limbs(&half)[3] & NEGATE_FLAG, 0);
    assert_ne!(signed_limbs(&(half + Scalar::ONE))[3] & NEGATE_FLAG, 0);
    assert_eq!(signed_limbs(&-Scalar::ONE), [1, 0, 0, NEGATE_FLAG]);
}

#[test]
fn window_choice_is_in_range() {
    for lg in 0..30 {
        let c = window_for(1 << lg);
        assert!((1..=MAX_WINDOW).contains(&c));
    }
    assert!(window_for(1 << 16) > window_for(1 << 8));
}

#[test]
fn g1_msm_matches_naive_and_blst() {
    let mut r = rng(11);
    for n in [0usize, 1, 2, 3, 7, 64, 255, 256, 257, 1000, 4097] {
        let b = bases_g1(n, &mut r);
        let s = scalars(n, &mut r);
        let expected: G1Projective = naive(&b, &s);
        let proj: Vec<G1Projective> = b.iter().map(|p| p.to_curve()).collect();
        if n > 0 {
            assert_eq!(G1Projective::multi_exp(&proj, &s), expected, "blst reference, n={n}");
        }
        // D4 on (window per MSM) and off (one shared window forced on every MSM), plus extremes.
        let shared = window_for(1500);
        for window in [None, Some(shared), Some(1), Some(2), Some(5), Some(8), Some(13), Some(16)] {
            assert_eq!(msm_g1(&b, &s, window), expected, "n={n} window={window:?}");
        }
    }
}

#[test]
fn g1_msm_deep_buckets_and_lengths() {
    let mut r = rng(12);
    // Every point in the same few buckets (deep addition trees), with repeats that force doublings.
    let p = G1Projective::random(&mut r).to_affine();
    let mut b: Vec<G1Affine> = spread::<G1Projective>(3000, &mut r).iter().map(|p| p.to_affine()).collect();
    for x in b.iter_mut().step_by(3) {
        *x = p;
    }
    let s: Vec<Scalar> = (0..3000).map(|i| Scalar::from(5 + (i % 2) as u64)).collect();
    let expected: G1Projective = naive(&b, &s);
    for window in [None, Some(3), Some(4), Some(10)] {
        assert_eq!(msm_g1(&b, &s, window), expected, "window={window:?}");
    }
    // P and −P in one bucket cancel to the identity.
    let b2 = vec![p, -p, p, -p];
    assert_eq!(msm_g1(&b2, &[Scalar::ONE; 4], None), G1Projective::identity());
    // Mismatched lengths use the common prefix, like blstrs.
    assert_eq!(msm_g1(&b[..10], &s, None), naive::<G1Projective, _>(&b[..10], &s[..10]));
}

#[test]
fn g1_msm_multiple_batches() {
    // More points than one bucket-sorting batch (2^16) so bucket values carry across batches.
    let mut r = rng(13);
    let n = (1 << 16) + 1234;
    let b: Vec<G1Affine> = spread::<G1Projective>(n, &mut r).iter().map(|p| p.to_affine()).collect();
    let s = scalars(n, &mut r);
    let proj: Vec<G1Projective> = b.iter().map(|p| p.to_curve()).collect();
    let expected = G1Projective::multi_exp(&proj, &s);
    for window in [None, Some(6), Some(15)] {
        assert_eq!(msm_g1(&b, &s, window), expected, "window={window:?}");
    }
}

#[test]
fn g2_msm_matches_naive_and_blst() {
    let mut r = rng(14);
    for n in [0usize, 1, 3, 64, 257] {
        let b = bases_g2(n, &mut r);
        let s = scalars(n, &mut r);
        let expected: G2Projective = naive(&b, &s);
        if n > 0 {
            let proj: Vec<G2Projective> = b.iter().map(|p| p.to_curve()).collect();
            assert_eq!(G2Projective::multi_exp(&proj, &s), expected, "blst reference, n={n}");
        }
        for window in [None, Some(2), Some(7), Some(11)] {
            assert_eq!(msm_g2(&b, &s, window), expected, "n={n} window={window:?}");
        }
    }
}

fn random_bitmap(n: usize, r: &mut ChaCha8Rng) -> Vec<u64> {
    let mut words: Vec<u64> =
        (0..n.div_ceil(64)).map(|_| r.next_u64() & r.next_u64() | r.next_u64()).collect();
    // Junk past the end must be ignored.
    if !n.is_multiple_of(64) {
        if let Some(last) = words.last_mut() {
            *last |= !0u64 << (n % 64);
        }
    }
    words
}

fn selected_sum<G: Group, A: Copy + Into<G>>(bases: &[A], bitmap: &[u64]) -> G {
    bases
        .iter()
        .enumerate()
        .filter(|(i, _)| bitmap.get(i / 64).is_some_and(|w| (w >> (i % 64)) & 1 == 1))
        .fold(G::identity(), |acc, (_, b)| acc + (*b).into())
}

#[test]
fn batch_add_matches_naive_sum() {
    let mut r = rng(15);
    for n in [0usize, 1, 63, 64, 65, 1000, 8192 + 77, 20000] {
        let b = bases_g1(n, &mut r);
        let maps = [random_bitmap(n, &mut r), vec![0; n.div_ceil(64)], vec![!0; n.div_ceil(64)], vec![!0; 1]];
        for map in &maps {
            let expected: G1Projective = selected_sum(&b, map);
            assert_eq!(batch_add_g1(&b, map), expected, "n={n}");
            assert_eq!(batch_add_mixed(&b, map), expected, "mixed n={n}");
        }
    }
    // All the same point: every round is doublings; P, −P pairs cancel.
    let p = G1Projective::random(&mut r).to_affine();
    assert_eq!(batch_add_g1(&[p; 100], &[!0, !0]), p * Scalar::from(100u64));
    assert_eq!(batch_add_g1(&[p, -p, p, -p, p], &[0b11111]), p.to_curve());
    for n in [0usize, 5, 130, 9000] {
        let b = bases_g2(n, &mut r);
        for map in [random_bitmap(n, &mut r), vec![!0; n.div_ceil(64)]] {
            let expected: G2Projective = selected_sum(&b, &map);
            assert_eq!(batch_add_g2(&b, &map), expected, "G2 n={n}");
        }
    }
}

#[test]
fn fixed_base_matches_scalar_multiplication() {
    let mut r = rng(16);
    let s = scalars(300, &mut r);
    let g1 = G1Projective::random(&mut r);
    let out = fixed_base_g1(&g1, &s);
    assert_eq!(out.len(), s.len());
    for (o, k) in out.iter().zip(&s) {
        assert_eq!(*o, (g1 * k).to_affine());
    }
    for c in [1, 2, 5, 9] {
        let table = FixedBaseTable::<G1Affine>::new(&g1, c);
        for k in &s[..40] {
            assert_eq!(table.mul(k), g1 * k, "c={c}");
        }
    }
    let g2 = G2Projective::random(&mut r);
    let out = fixed_base_g2(&g2, &s[..60]);
    for (o, k) in out.iter().zip(&s) {
        assert_eq!(*o, (g2 * k).to_affine());
    }
    assert!(fixed_base_g1(&g1, &[]).is_empty());
}

#[test]
fn batch_normalize_matches_to_affine() {
    let mut r = rng(17);
    let mut p: Vec<G1Projective> = (0..2500).map(|_| G1Projective::random(&mut r)).collect();
    p[7] = G1Projective::identity();
    p[2000] = G1Projective::identity();
    let mut out = vec![G1Affine::identity(); p.len()];
    batch_normalize::<G1Affine>(&p, &mut out);
    for (a, q) in out.iter().zip(&p) {
        assert_eq!(*a, q.to_affine());
    }
    let q: Vec<G2Projective> =
        (0..50).map(|i| G2Projective::random(&mut r) * Scalar::from(i as u64)).collect();
    let mut out2 = vec![G2Affine::identity(); q.len()];
    batch_normalize::<G2Affine>(&q, &mut out2);
    for (a, x) in out2.iter().zip(&q) {
        assert_eq!(*a, x.to_affine());
    }
}

#[test]
fn coordinate_field_ops_match_blst() {
    let mut r = rng(18);
    // Fp through G1 coordinates: blstrs' result is read back through a point built from it.
    let pts: Vec<G1Affine> = spread::<G1Projective>(40, &mut r).iter().map(|p| p.to_affine()).collect();
    let fq = |p: &G1Affine| p.xy().x;
    let back = |p: &G1Affine, v| G1Affine::from_raw_unchecked(v, p.y(), false).xy().x;
    for (p, q) in pts.iter().zip(pts.iter().rev()) {
        let (a, b) = (fq(p), fq(q));
        assert_eq!(a + b, back(p, p.x() + q.x()));
        assert_eq!(a - b, back(p, p.x() - q.x()));
        assert_eq!(b - a, back(p, q.x() - p.x()));
        assert_eq!(-a, back(p, -p.x()));
        assert_eq!(a * b, back(p, p.x() * q.x()));
        assert_eq!(a.square(), back(p, p.x().square()));
        assert_eq!(a.double(), back(p, p.x().double()));
        assert_eq!(a.invert() * a, <cuzk::backend::cpu::field::Fq as Coord>::ONE);
        assert_eq!(a - a, Coord::ZERO);
        assert!((a - a).is_zero() && !a.is_zero());
        assert_eq!(-(a - a), Coord::ZERO);
    }
    // Fp2 through G2 coordinates.
    let pts: Vec<G2Affine> = spread::<G2Projective>(20, &mut r).iter().map(|p| p.to_affine()).collect();
    let back2 = |p: &G2Affine, v| G2Affine::from_raw_unchecked(v, p.y(), false).xy().x;
    for (p, q) in pts.iter().zip(pts.iter().rev()) {
        let (a, b) = (p.xy().x, q.xy().x);
        assert_eq!(a + b, back2(p, p.x() + q.x()));
        assert_eq!(a - b, back2(p, p.x() - q.x()));
        assert_eq!(-a, back2(p, -p.x()));
        assert_eq!(a * b, back2(p, p.x() * q.x()));
        assert_eq!(a.square(), back2(p, p.x().square()));
        assert_eq!(a.invert() * a, <cuzk::backend::cpu::field::Fq2 as Coord>::ONE);
    }
}
