//! `g2d`: B_G2's batch addition and MSM on a lane's device (bases resident, a second stream) against the CPU:
//! random bases and bitmaps with edge cases, whole proofs with g2d on and off, bases kept across calls, the
//! fallback when the device has no room; and, on any machine, the prover's g2d path over fake device lanes
//! (MSMs run by the lane, or declined and run on the host). The MSM alone: `msm_g2.rs`.

use std::sync::atomic::AtomicU64;

use cuzk::backend::api::ParamsId;

use super::*;

/// An SRS holding only B_G2 (the G1 queries empty), under a fresh identity.
fn srs_g2(b_g2: &[G2Affine]) -> SrsRef<'_> {
    SrsRef { id: ParamsId::fresh(), h: &[], l: &[], a: &[], b_g1: &[], b_g2 }
}

fn opts(g2d: bool, srs_resident: bool) -> CallOpts {
    CallOpts { g2_device: g2d, srs_resident, ..CallOpts::default() }
}

/// Bitmaps over `n` bases: empty, none, every bit (also past n), random halves, sparse, one past the end only.
fn bitmaps(n: usize, seed: u64) -> Vec<(&'static str, Vec<u64>)> {
    let w = n.div_ceil(64);
    let mut r = rng(seed);
    let mut past = vec![0u64; w + 1];
    past[w] = !0;
    if !n.is_multiple_of(64) {
        past[w - 1] = !0 << (n % 64); // only bits at or past n
    }
    vec![
        ("empty", vec![]),
        ("zeros", vec![0; w]),
        ("ones", vec![!0; w + 2]),
        ("half", (0..w).map(|_| r.gen::<u64>()).collect()),
        ("sparse", (0..w).map(|_| r.gen::<u64>() & r.gen::<u64>() & r.gen::<u64>()).collect()),
        ("short", (0..w / 2).map(|_| r.gen::<u64>()).collect()),
        ("past_n", past),
    ]
}

#[test]
fn g2d_batch_add_matches_cpu() {
    let Some(g) = gpu("g2d_batch_add_matches_cpu") else { return };
    let cpu = CpuBackend::new();
    let lane = g.first();
    for (k, &n) in [1usize, 63, 64, 65, 4097, 70_001].iter().enumerate() {
        let mut bases = g2_points(n, 90 + k as u64);
        // Bases at infinity add nothing (blst's affine identity is all zeros).
        for i in (0..n).step_by(7) {
            bases[i] = G2Projective::identity().to_affine();
        }
        let srs = srs_g2(&bases);
        lane.begin_call(&Probe::silent(), opts(true, true), srs).unwrap_or_else(|e| panic!("{e}"));
        assert!(lane.g2().resident(), "n={n}: B_G2 not resident with g2d on");
        for start in [0, n / 3] {
            for (name, bm) in bitmaps(n - start, 7 * k as u64 + start as u64) {
                let want = cpu.batch_add_g2(&bases[start..], &bm).unwrap_or_else(|e| panic!("{e}"));
                let got =
                    lane.batch_add_b_g2(srs, start, &bm).unwrap_or_else(|e| panic!("n={n} {name}: {e}"));
                assert_eq!(got.to_affine(), want.to_affine(), "g2d n={n} start={start} {name}");
            }
        }
        lane.end_call();
    }
    let (adds, ms) = lane.g2().adds();
    assert!(adds > 0, "no batch addition ran on the device");
    eprintln!("g2d: {adds} device batch additions, {ms:.1} ms in all");
}

#[test]
fn g2d_bases_stay_resident_across_calls() {
    let Some(g) = gpu("g2d_bases_stay_resident_across_calls") else { return };
    let lane = g.first();
    let bases = g2_points(3000, 95);
    let srs = srs_g2(&bases);
    let p = Probe::silent();
    let bm = bitmaps(3000, 5).swap_remove(3).1;
    let want = CpuBackend::new().batch_add_g2(&bases, &bm).unwrap_or_else(|e| panic!("{e}"));
    for call in 0..3 {
        lane.begin_call(&p, opts(true, true), srs).unwrap_or_else(|e| panic!("{e}"));
        let got = lane.batch_add_b_g2(srs, 0, &bm).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(got.to_affine(), want.to_affine(), "call {call}");
        lane.end_call();
        assert_eq!(lane.g2().uploads(), 1, "call {call}: resident B_G2 uploaded again");
    }
    // Without srs_resident the bases go with the call; the next call uploads them again.
    lane.begin_call(&p, opts(true, false), srs).unwrap_or_else(|e| panic!("{e}"));
    lane.end_call();
    assert!(!lane.g2().resident());
    lane.begin_call(&p, opts(true, true), srs).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(lane.g2().uploads(), 2);
    // Other params replace them; g2d off frees them.
    let other = srs_g2(&bases);
    lane.begin_call(&p, opts(true, true), other).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(lane.g2().uploads(), 3);
    lane.begin_call(&p, opts(false, true), other).unwrap_or_else(|e| panic!("{e}"));
    assert!(!lane.g2().resident(), "g2d off keeps no B_G2 on the device");
    let got = lane.batch_add_b_g2(other, 0, &bm).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(got.to_affine(), want.to_affine(), "g2d off: host path");
    lane.end_call();
}

#[test]
fn g2d_falls_back_to_the_host_without_room() {
    let Some(g) = gpu("g2d_falls_back_to_the_host_without_room") else { return };
    let lane = g.first();
    let bases = g2_points(2000, 96);
    let srs = srs_g2(&bases);
    lane.g2().limit(Some(1024));
    lane.begin_call(&Probe::silent(), opts(true, true), srs)
        .unwrap_or_else(|e| panic!("no room is no error: {e}"));
    assert!(!lane.g2().resident() && lane.g2().uploads() == 0, "bases uploaded past the limit");
    let adds = lane.g2().adds().0;
    let bm = bitmaps(2000, 6).swap_remove(3).1;
    let want = CpuBackend::new().batch_add_g2(&bases, &bm).unwrap_or_else(|e| panic!("{e}"));
    let got = lane.batch_add_b_g2(srs, 0, &bm).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(got.to_affine(), want.to_affine(), "host fallback");
    assert_eq!(lane.g2().adds().0, adds, "the fallback added on the device");
    lane.end_call();
    lane.g2().limit(None);
    lane.begin_call(&Probe::silent(), opts(true, true), srs).unwrap_or_else(|e| panic!("{e}"));
    assert!(lane.g2().resident(), "room again: uploaded");
    lane.end_call();
}

/// `toggles(mask)` (six bits) with g2d and srs_resident set.
fn with_g2d(mask: u32, g2d: bool, res: bool) -> Toggles {
    let mut t = toggles(mask);
    t.set(Toggle::G2d, g2d);
    t.set(Toggle::SrsResident, res);
    t
}

#[test]
fn g2d_proofs_match_cpu_for_every_toggle_combination() {
    let Some(g) = gpu("g2d_proofs_match_cpu_for_every_toggle_combination") else { return };
    let (params, circuits) = setup_for("samples/porep-tiny.toml");
    let want = prove(&CpuBackend::new(), &params, &circuits, &Toggles::default());
    // The six prover toggles' 64 masks, each with g2d on and off; srs_resident flips with bit 0.
    for mask in 0u32..64 {
        for g2d in [true, false] {
            let t = with_g2d(mask, g2d, mask.is_multiple_of(2));
            assert_eq!(prove(&g, &params, &circuits, &t), want, "porep-tiny: toggles {}", t.compact());
        }
    }
    // porep-tiny does not split B_G2 (no batch addition); the small SHA chain and porep-mini do.
    let (params, circuits) = small_sha();
    let want = prove(&CpuBackend::new(), &params, &circuits, &Toggles::default());
    for mask in 0u32..64 {
        for g2d in [true, false] {
            let t = with_g2d(mask, g2d, mask.is_multiple_of(2));
            assert_eq!(prove(&g, &params, &circuits, &t), want, "sha chain: toggles {}", t.compact());
        }
    }
    // The loops end on g2d off (bases freed); one more resident g2d call must keep them.
    let t = with_g2d(0, true, true);
    assert_eq!(prove(&g, &params, &circuits, &t), want, "sha chain: toggles {}", t.compact());
    assert!(g.first().g2().resident(), "g2d's last resident call kept B_G2");
    assert!(g.first().g2().adds().0 >= 64, "the sha chain's g2d runs added on the device");
    assert!(g.first().g2().msms().0 >= 128, "the g2d runs' B_G2 MSMs ran on the device");
    let (params, circuits) = setup_for("samples/porep-mini.toml");
    let want = prove(&CpuBackend::new(), &params, &circuits, &Toggles::default());
    for mask in [0u32, 0b111111, 0b100100] {
        let t = with_g2d(mask, true, true);
        assert_eq!(prove(&g, &params, &circuits, &t), want, "porep-mini: toggles {}", t.compact());
    }
}

/// Device-like lanes on the CPU that count the B_G2 batch additions routed to each.
struct G2Lanes {
    lanes: Vec<G2Lane>,
}

#[derive(Default)]
struct G2Lane {
    cpu: CpuBackend,
    adds: AtomicU64,
    /// MSMs run by the lane.
    msms: AtomicU64,
    /// Declines every MSM (a lane without room): the prover runs them on the host.
    decline: bool,
}

impl G2Lane {
    fn cpu(&self) -> &CpuBackend {
        &self.cpu
    }
}

impl Backend for G2Lane {
    fn name(&self) -> &'static str {
        "fake"
    }
    fn device(&self) -> String {
        "fake g2d lane".into()
    }
    delegate!();
    fn has_device(&self) -> bool {
        true
    }
    fn batch_add_b_g2(&self, srs: SrsRef<'_>, start: usize, bitmap: &[u64]) -> BResult<G2Projective> {
        self.adds.fetch_add(1, Ordering::SeqCst);
        self.cpu.batch_add_g2(&srs.b_g2[start..], bitmap)
    }
    fn msm_b_g2(&self, srs: SrsRef<'_>, idx: &[u32], parts: &[&[Scalar]]) -> Option<BResult<G2Projective>> {
        if self.decline {
            return None;
        }
        self.msms.fetch_add(1, Ordering::SeqCst);
        let bases: Vec<G2Affine> = idx.iter().map(|&i| srs.b_g2[i as usize]).collect();
        Some(self.cpu.msm_g2(&bases, &parts.concat(), None))
    }
}

impl G2Lanes {
    fn cpu(&self) -> &CpuBackend {
        &self.lanes[0].cpu
    }
}

impl Backend for G2Lanes {
    fn name(&self) -> &'static str {
        "fake"
    }
    fn device(&self) -> String {
        format!("{} fake g2d lanes", self.lanes.len())
    }
    delegate!();
    fn has_device(&self) -> bool {
        true
    }
    fn lanes(&self) -> usize {
        self.lanes.len()
    }
    fn lane(&self, i: usize) -> Option<&dyn Backend> {
        self.lanes.get(i).map(|l| l as &dyn Backend)
    }
    fn batch_add_b_g2(&self, _: SrsRef<'_>, _: usize, _: &[u64]) -> BResult<G2Projective> {
        panic!("g2d goes to a lane, never to the whole backend");
    }
    fn msm_b_g2(&self, _: SrsRef<'_>, _: &[u32], _: &[&[Scalar]]) -> Option<BResult<G2Projective>> {
        panic!("g2d goes to a lane, never to the whole backend");
    }
}

/// A two-circuit SHA-256 chain small enough to set up on a laptop: its B aux scalars are mostly 0/1, so
/// `prep_msm` splits B_G2 and the batch addition runs (porep-tiny's does not split).
fn small_sha() -> (Arc<Parameters>, Vec<SampleCircuit>) {
    let text = "name = \"sha-g2d\"\nseed = 3\npartitions = 2\nsectors = 1\n\n[circuit]\nkind = \"sha256-chain\"\ncompressions = 1\n";
    let s = Sample::parse(Path::new("sha-g2d.toml"), text).unwrap_or_else(|e| panic!("{e}"));
    let circuits = s.sector_circuits(0);
    let shape = ShapeCounter::count(&circuits[0]).expect("count");
    (Arc::new(generate(&circuits[0], shape, s.seed, &|_, _, _| {}).expect("setup")), circuits)
}

/// Runs without a GPU: with g2d on each circuit's B_G2 batch addition and MSM go to a lane and the proofs equal
/// the CPU's, also when the lanes decline the MSMs (the host runs them); with g2d off none does. porep-tiny's B
/// does not split: its MSM (over all of B's bases) still goes to the lane.
#[test]
fn g2d_prover_path_over_fake_device_lanes() {
    let (params, circuits) = small_sha();
    let want = prove(&CpuBackend::new(), &params, &circuits, &Toggles::default());
    let count = |b: &G2Lanes| -> (u64, u64) {
        b.lanes
            .iter()
            .fold((0, 0), |(a, m), l| (a + l.adds.load(Ordering::SeqCst), m + l.msms.load(Ordering::SeqCst)))
    };
    for lanes in [1usize, 2] {
        for decline in [false, true] {
            let b = G2Lanes { lanes: (0..lanes).map(|_| G2Lane { decline, ..G2Lane::default() }).collect() };
            for (mask, g2d) in [(0u32, true), (0b111111, true), (0b000100, true), (0b111111, false)] {
                let before = count(&b);
                let t = with_g2d(mask, g2d, true);
                let what = format!("{lanes} lanes, decline={decline}, {}", t.compact());
                assert_eq!(prove(&b, &params, &circuits, &t), want, "{what}");
                let after = count(&b);
                let on = if g2d { circuits.len() as u64 } else { 0 };
                assert_eq!(after.0 - before.0, on, "{what}: lane batch additions");
                assert_eq!(after.1 - before.1, if decline { 0 } else { on }, "{what}: lane MSMs");
            }
            if lanes == 2 && circuits.len() > 1 {
                assert!(
                    b.lanes.iter().all(|l| l.adds.load(Ordering::SeqCst) > 0),
                    "circuits spread over lanes"
                );
            }
        }
    }
    let (params, circuits) = setup_for("samples/porep-tiny.toml");
    let want = prove(&CpuBackend::new(), &params, &circuits, &Toggles::default());
    let b = G2Lanes { lanes: vec![G2Lane::default()] };
    assert_eq!(prove(&b, &params, &circuits, &with_g2d(0, true, true)), want, "porep-tiny, g2d");
    assert_eq!(count(&b), (0, circuits.len() as u64), "porep-tiny: no batch addition, every MSM on the lane");
}
