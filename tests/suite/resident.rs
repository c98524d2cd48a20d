//! Resident device data is found by identity, never by host address: a copy made for one params set is not
//! reused for another set (even one whose bases sit where the first set's were), and a copy that no longer
//! matches the host is rebuilt. The key logic is the same on every backend, so it is checked here without a
//! GPU.

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use cuzk::backend::api::{BasesId, Query};
use cuzk::backend::resident::{Found, ResidentKey, ResidentSet};
use cuzk::groth16::{Parameters, VerifyingKey};
use ff::Field;
use group::prime::PrimeCurveAffine;
use group::{Curve, Group};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn points(n: usize, seed: u64) -> Vec<G1Affine> {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    (0..n).map(|_| (G1Projective::generator() * Scalar::random(&mut r)).to_affine()).collect()
}

fn params(seed: u64) -> Parameters {
    let g1 = points(1, seed)[0];
    let g2 = (G2Projective::generator() * Scalar::from(seed + 2)).to_affine();
    let vk = VerifyingKey {
        alpha_g1: g1,
        beta_g1: g1,
        beta_g2: g2,
        gamma_g2: g2,
        delta_g1: g1,
        delta_g2: g2,
        ic: points(2, seed + 1),
    };
    let b_g2: Vec<G2Affine> = vec![g2; 3];
    Parameters::new(
        vk,
        points(64, seed + 3),
        points(8, seed + 4),
        points(5, seed + 5),
        points(3, seed + 6),
        b_g2,
    )
}

/// What a device copy holds in this simulation: the host bases it was made from.
type Copy = Vec<G1Affine>;

/// The backend's rule: find by (params id, query, len), check the held copy against the host, else build.
fn resident<'s>(set: &'s mut ResidentSet<Copy>, p: &Parameters) -> (&'s Copy, Found) {
    let key = ResidentKey { params: p.id(), query: Query::H, len: p.h.len() };
    set.get_or_insert(key, |held| held[..] == p.h[..], || Ok::<_, ()>(p.h.clone()))
        .unwrap_or_else(|()| panic!())
}

#[test]
fn another_params_set_at_the_same_address_is_not_reused() {
    let mut set = ResidentSet::default();
    let first = params(1);
    let first_addr = first.h.as_ptr() as usize;
    let first_id = first.id();
    assert_eq!(resident(&mut set, &first).1, Found::Built);
    assert_eq!(resident(&mut set, &first).1, Found::Reused);
    drop(first);
    // A new set of the same shape: the allocator often hands out the freed block again.
    let second = params(2);
    let same_address = second.h.as_ptr() as usize == first_addr;
    eprintln!("second params at the first's address: {same_address}");
    assert_ne!(second.id(), first_id, "identities are never reused");
    let (held, how) = resident(&mut set, &second);
    assert_eq!(how, Found::Built, "a copy of other params must not be reused");
    assert_eq!(held, &second.h);
    // A call with the second params frees the first's copies first.
    set.retain_params(second.id());
    assert_eq!(set.len(), 1);
    assert!(set.get(first_id, Query::H).is_none());
}

#[test]
fn a_clone_is_another_set_and_a_changed_copy_is_rebuilt() {
    let mut set = ResidentSet::default();
    let mut p = params(3);
    let clone = p.clone();
    assert_ne!(clone.id(), p.id(), "a clone may change on its own: new identity");
    assert_eq!(clone, p, "same content compares equal");
    assert_eq!(resident(&mut set, &p).1, Found::Built);
    // The host bases change under the same identity (pub fields): the check rejects the stale copy.
    p.h[7] = G1Affine::identity();
    let (held, how) = resident(&mut set, &p);
    assert_eq!(how, Found::Rebuilt);
    assert_eq!(held[7], G1Affine::identity());
}

#[test]
fn srs_bases_are_named_by_params_query_and_offset() {
    let p = params(4);
    let srs = p.srs();
    let a_aux = srs.bases(Query::A, 2);
    assert_eq!(a_aux.id, BasesId::Srs { params: p.id(), query: Query::A, start: 2 });
    assert_eq!(a_aux.host, &p.a[2..]);
    assert_eq!(a_aux.prefix(2).host, &p.a[2..4]);
    assert_eq!(srs.bases(Query::BG1, 99).host.len(), 0, "an offset past the end is empty, not a panic");
}
