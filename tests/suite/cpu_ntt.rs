//! CPU NTT against naive polynomial evaluation/interpolation, and `compute_h` against naive polynomial
//! arithmetic with long division by X^N − 1.

use blstrs::Scalar;
use cuzk::backend::cpu::fr;
use cuzk::backend::cpu::ntt::{compute_h, Domain, NttError};
use ff::{Field, PrimeField};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

fn random_vec(n: usize, r: &mut ChaCha8Rng) -> Vec<Scalar> {
    (0..n).map(|_| Scalar::random(&mut *r)).collect()
}

/// Σ coeffs[i]·x^i by Horner.
fn eval(coeffs: &[Scalar], x: Scalar) -> Scalar {
    coeffs.iter().rev().fold(Scalar::ZERO, |acc, c| acc * x + c)
}

fn omega(log_n: u32) -> Scalar {
    Scalar::ROOT_OF_UNITY.pow_vartime([1u64 << (Scalar::S - log_n)])
}

/// Coefficients of the polynomial of degree < n through (ω^j, evals[j]) by Lagrange interpolation.
fn interpolate(evals: &[Scalar], log_n: u32) -> Vec<Scalar> {
    let n = evals.len();
    let w = omega(log_n);
    let xs: Vec<Scalar> = (0..n).map(|j| w.pow_vartime([j as u64])).collect();
    let mut out = vec![Scalar::ZERO; n];
    for j in 0..n {
        // basis_j(X) = Π_{m≠j} (X − x_m) / (x_j − x_m)
        let mut basis = vec![Scalar::ONE];
        let mut denom = Scalar::ONE;
        for m in 0..n {
            if m == j {
                continue;
            }
            let mut next = vec![Scalar::ZERO; basis.len() + 1];
            for (k, b) in basis.iter().enumerate() {
                next[k + 1] += b;
                next[k] -= *b * xs[m];
            }
            basis = next;
            denom *= xs[j] - xs[m];
        }
        let f = evals[j] * denom.invert().unwrap();
        for (o, b) in out.iter_mut().zip(&basis) {
            *o += *b * f;
        }
    }
    out
}

fn poly_mul(a: &[Scalar], b: &[Scalar]) -> Vec<Scalar> {
    let mut out = vec![Scalar::ZERO; a.len() + b.len() - 1];
    for (i, x) in a.iter().enumerate() {
        for (j, y) in b.iter().enumerate() {
            out[i + j] += *x * y;
        }
    }
    out
}

/// (quotient, remainder) of p divided by X^n − 1.
fn div_by_vanishing(p: &[Scalar], n: usize) -> (Vec<Scalar>, Vec<Scalar>) {
    let mut r = p.to_vec();
    let mut q = vec![Scalar::ZERO; p.len().saturating_sub(n)];
    for d in (n..r.len()).rev() {
        let lead = r[d];
        q[d - n] = lead;
        r[d] = Scalar::ZERO;
        r[d - n] += lead; // X^d = X^(d−n)·(X^n − 1) + X^(d−n)
    }
    r.truncate(n);
    (q, r)
}

#[test]
fn native_fr_addition_matches_blst() {
    let mut r = rng(6);
    let mut vals = vec![Scalar::ZERO, Scalar::ONE, -Scalar::ONE, -Scalar::from(2u64)];
    vals.extend(random_vec(40, &mut r));
    for a in &vals {
        for b in &vals {
            assert_eq!(fr::add(*a, *b), *a + b);
            assert_eq!(fr::sub(*a, *b), *a - b);
        }
    }
}

#[test]
fn inverse_undoes_forward() {
    let mut r = rng(1);
    for (log_n, table_bits) in [
        (0, 21),
        (1, 21),
        (2, 21),
        (5, 21),
        (12, 21),
        (13, 21),
        (14, 21),
        (15, 21),
        (16, 21),
        (17, 21),
        (14, 4),
        (16, 6),
    ] {
        let d = Domain::with_table_bits(log_n, table_bits).unwrap();
        let x = random_vec(d.size(), &mut r);
        let mut y = x.clone();
        d.ntt(&mut y).unwrap();
        if log_n > 0 {
            assert_ne!(x, y, "2^{log_n}: the transform did nothing");
        }
        d.intt(&mut y).unwrap();
        assert_eq!(x, y, "2^{log_n} (table bits {table_bits})");
        d.coset_ntt(&mut y).unwrap();
        d.icoset_ntt(&mut y).unwrap();
        assert_eq!(x, y, "coset 2^{log_n} (table bits {table_bits})");
    }
}

#[test]
fn forward_matches_naive_evaluation() {
    let mut r = rng(2);
    for log_n in 1..=6 {
        let d = Domain::new(log_n).unwrap();
        let coeffs = random_vec(d.size(), &mut r);
        let mut y = coeffs.clone();
        d.ntt(&mut y).unwrap();
        let w = omega(log_n);
        assert_eq!(d.omega(), w);
        for (i, yi) in y.iter().enumerate() {
            assert_eq!(*yi, eval(&coeffs, w.pow_vartime([i as u64])), "2^{log_n} point {i}");
        }
        let mut z = coeffs.clone();
        d.coset_ntt(&mut z).unwrap();
        let g = Scalar::MULTIPLICATIVE_GENERATOR;
        assert_eq!(d.coset_generator(), g);
        for (i, zi) in z.iter().enumerate() {
            assert_eq!(*zi, eval(&coeffs, g * w.pow_vartime([i as u64])), "coset 2^{log_n} point {i}");
        }
        // The inverse transforms recover the coefficients from naive evaluations.
        let mut e: Vec<Scalar> = (0..d.size()).map(|i| eval(&coeffs, w.pow_vartime([i as u64]))).collect();
        d.intt(&mut e).unwrap();
        assert_eq!(e, coeffs);
        let mut e: Vec<Scalar> =
            (0..d.size()).map(|i| eval(&coeffs, g * w.pow_vartime([i as u64]))).collect();
        d.icoset_ntt(&mut e).unwrap();
        assert_eq!(e, coeffs);
    }
}

/// Large domains (out-of-cache stages, both twiddle table layouts): spot-check evaluation points.
#[test]
fn forward_matches_naive_at_sampled_points_large() {
    let mut r = rng(3);
    for (log_n, table_bits) in [(13, 21), (14, 21), (14, 5), (17, 8)] {
        let d = Domain::with_table_bits(log_n, table_bits).unwrap();
        let coeffs = random_vec(d.size(), &mut r);
        let mut y = coeffs.clone();
        d.ntt(&mut y).unwrap();
        let mut z = coeffs.clone();
        d.coset_ntt(&mut z).unwrap();
        let w = omega(log_n);
        let g = d.coset_generator();
        for i in [
            0,
            1,
            2,
            3,
            d.size() / 2 - 1,
            d.size() / 2,
            d.size() / 2 + 5,
            d.size() - 1,
            4097,
            12345 % d.size(),
        ] {
            let x = w.pow_vartime([i as u64]);
            assert_eq!(y[i], eval(&coeffs, x), "2^{log_n}/{table_bits} point {i}");
            assert_eq!(z[i], eval(&coeffs, g * x), "coset 2^{log_n}/{table_bits} point {i}");
        }
    }
}

/// H = (A·B − C)/Z exactly: for any input it is (Q + R/(g^N − 1)) truncated to N − 1 coefficients, where
/// A·B − C = Q·(X^N − 1) + R; for a satisfied input R = 0.
#[test]
fn compute_h_matches_naive_division() {
    let mut r = rng(4);
    for log_n in [1u32, 3, 4] {
        let n = 1usize << log_n;
        let d = Domain::new(log_n).unwrap();
        for satisfied in [true, false] {
            // Evaluations at the domain points; the last entries are left off to test zero-padding.
            let len = n - 1;
            let a = random_vec(len, &mut r);
            let b = random_vec(len, &mut r);
            let c: Vec<Scalar> = if satisfied {
                a.iter().zip(&b).map(|(x, y)| *x * y).collect()
            } else {
                random_vec(len, &mut r)
            };
            let pad = |v: &[Scalar]| {
                let mut v = v.to_vec();
                v.resize(n, Scalar::ZERO);
                v
            };
            let (pa, pb, pc) =
                (interpolate(&pad(&a), log_n), interpolate(&pad(&b), log_n), interpolate(&pad(&c), log_n));
            let w = omega(log_n);
            for j in 0..n {
                assert_eq!(eval(&pa, w.pow_vartime([j as u64])), pad(&a)[j]);
            }
            let mut p = poly_mul(&pa, &pb);
            for (pi, ci) in p.iter_mut().zip(&pc) {
                *pi -= ci;
            }
            let (q, rem) = div_by_vanishing(&p, n);
            assert_eq!(rem.iter().all(|x| bool::from(x.is_zero())), satisfied, "remainder, 2^{log_n}");
            let z_inv = (d.coset_generator().pow_vartime([n as u64]) - Scalar::ONE).invert().unwrap();
            let mut expected: Vec<Scalar> =
                (0..n).map(|i| q.get(i).copied().unwrap_or(Scalar::ZERO)).collect();
            for (e, ri) in expected.iter_mut().zip(&rem) {
                *e += *ri * z_inv;
            }
            expected.truncate(n - 1);
            let (mut ha, mut hb, mut hc) = (a.clone(), b.clone(), c.clone());
            compute_h(&mut ha, &mut hb, &mut hc, &d).unwrap();
            assert_eq!(ha, expected, "2^{log_n} satisfied={satisfied}");
            assert!(ha.iter().any(|x| !bool::from(x.is_zero())));
        }
    }
}

/// compute_h on a larger satisfied input: H·Z = A·B − C checked at random points.
#[test]
fn compute_h_identity_at_random_points_large() {
    let mut r = rng(5);
    let log_n = 14;
    let n = 1usize << log_n;
    let d = Domain::new(log_n).unwrap();
    // Satisfied: c = a·b on the domain.
    let a = random_vec(n - 3, &mut r);
    let b = random_vec(n - 3, &mut r);
    let c: Vec<Scalar> = a.iter().zip(&b).map(|(x, y)| *x * y).collect();
    let (mut pa, mut pb, mut pc) = (a.clone(), b.clone(), c.clone());
    for v in [&mut pa, &mut pb, &mut pc] {
        v.resize(n, Scalar::ZERO);
        d.intt(v).unwrap();
    }
    let (mut h, mut hb, mut hc) = (a, b, c);
    compute_h(&mut h, &mut hb, &mut hc, &d).unwrap();
    assert_eq!(h.len(), n - 1);
    for _ in 0..4 {
        let x = Scalar::random(&mut r);
        let lhs = eval(&h, x) * (x.pow_vartime([n as u64]) - Scalar::ONE);
        let rhs = eval(&pa, x) * eval(&pb, x) - eval(&pc, x);
        assert_eq!(lhs, rhs);
    }
}

/// compute_h's six transforms against bellperson's seven, composed from the Domain transforms (iNTT, coset
/// NTT of each vector; (a·b − c)·z; inverse coset NTT), on unsatisfied random input, with and without padding.
#[test]
fn compute_h_equals_the_seven_transform_composition() {
    let mut r = rng(6);
    for (log_n, len) in [(0u32, 1usize), (2, 3), (10, 1024), (12, 4000)] {
        let n = 1usize << log_n;
        let d = Domain::new(log_n).unwrap();
        let (a, b, c) = (random_vec(len, &mut r), random_vec(len, &mut r), random_vec(len, &mut r));
        let want: Vec<Vec<Scalar>> = [&a, &b, &c]
            .iter()
            .map(|v| {
                let mut v = v.to_vec();
                v.resize(n, Scalar::ZERO);
                d.intt(&mut v).unwrap();
                d.coset_ntt(&mut v).unwrap();
                v
            })
            .collect();
        let z_inv = (d.coset_generator().pow_vartime([n as u64]) - Scalar::ONE).invert().unwrap();
        let mut h: Vec<Scalar> = (0..n).map(|i| (want[0][i] * want[1][i] - want[2][i]) * z_inv).collect();
        d.icoset_ntt(&mut h).unwrap();
        h.truncate(n.saturating_sub(1));
        let (mut ha, mut hb, mut hc) = (a, b, c);
        compute_h(&mut ha, &mut hb, &mut hc, &d).unwrap();
        assert_eq!(ha, h, "2^{log_n} len {len}");
        assert!(n == 1 || ha.iter().any(|x| !bool::from(x.is_zero())));
    }
}

#[test]
fn errors_instead_of_panics() {
    assert!(matches!(Domain::new(29), Err(NttError::TooLarge { .. })));
    assert_eq!(Domain::for_len(0).unwrap().size(), 1);
    assert_eq!(Domain::for_len(1000).unwrap().size(), 1024);
    let d = Domain::new(3).unwrap();
    let mut short = vec![Scalar::ONE; 7];
    assert_eq!(d.ntt(&mut short), Err(NttError::WrongLength { len: 7, n: 8 }));
    let (mut a, mut b, mut c) = (vec![Scalar::ONE; 9], vec![Scalar::ONE; 2], vec![Scalar::ONE; 2]);
    assert_eq!(compute_h(&mut a, &mut b, &mut c, &d), Err(NttError::TooLong { len: 9, n: 8 }));
}
