//! Whole proofs on the device equal the CPU's byte for byte across toggle combinations, and the prover's
//! lane path (split, overlap) on a fake device-timed backend.

use super::*;

#[test]
fn gpu_proofs_porep_tiny_all_toggles() {
    let Some(g) = gpu("gpu_proofs_porep_tiny_all_toggles") else { return };
    same_proofs(&g, "samples/porep-tiny.toml", &(0..64).collect::<Vec<_>>(), &[true, false]);
}

#[test]
fn gpu_proofs_porep_mini_some_toggles() {
    let Some(g) = gpu("gpu_proofs_porep_mini_some_toggles") else { return };
    same_proofs(&g, "samples/porep-mini.toml", &[0, 0b11111, 0b01000, 0b10100, 0b100000, 0b110100], &[true]);
}

/// A device-like backend made of CPU lanes that run beside the host: exercises the prover's lane path
/// (split, overlap, lane-opened phases) on any machine.
struct FakeLanes {
    lanes: Vec<FakeLane>,
    calls: AtomicUsize,
}

#[derive(Default)]
struct FakeLane {
    cpu: CpuBackend,
    phases: AtomicUsize,
}

macro_rules! delegate {
    () => {
        fn ntt_msm_h(&self, p: &Probe, c: usize, abc: [Evals; 3], h: Bases<'_>) -> BResult<G1Projective> {
            self.cpu().ntt_msm_h(p, c, abc, h)
        }
        fn batch_add_g1(&self, bases: Bases<'_>, bitmap: &[u64]) -> BResult<G1Projective> {
            self.cpu().batch_add_g1(bases, bitmap)
        }
        fn batch_add_g2(&self, bases: &[G2Affine], bitmap: &[u64]) -> BResult<G2Projective> {
            self.cpu().batch_add_g2(bases, bitmap)
        }
        fn msm_g1(&self, bases: Bases<'_>, s: &[Scalar], w: Option<usize>) -> BResult<G1Projective> {
            self.cpu().msm_g1(bases, s, w)
        }
        fn msm_g2(&self, bases: &[G2Affine], s: &[Scalar], w: Option<usize>) -> BResult<G2Projective> {
            self.cpu().msm_g2(bases, s, w)
        }
        fn window_for(&self, n: usize) -> usize {
            self.cpu().window_for(n)
        }
        fn overlaps_host(&self) -> bool {
            true
        }
    };
}

impl FakeLane {
    fn cpu(&self) -> &CpuBackend {
        &self.cpu
    }
}

impl Backend for FakeLane {
    fn name(&self) -> &'static str {
        "fake"
    }
    fn device(&self) -> String {
        "fake lane".into()
    }
    delegate!();
    fn open(&self, probe: &Probe, site: Site) -> Span {
        self.phases.fetch_add(1, Ordering::SeqCst);
        probe.open(site.device(7))
    }
}

impl FakeLanes {
    fn cpu(&self) -> &CpuBackend {
        &self.lanes[0].cpu
    }
}

impl Backend for FakeLanes {
    fn name(&self) -> &'static str {
        "fake"
    }
    fn device(&self) -> String {
        format!("{} fake lanes", self.lanes.len())
    }
    delegate!();
    fn lanes(&self) -> usize {
        self.lanes.len()
    }
    fn lane(&self, i: usize) -> Option<&dyn Backend> {
        self.lanes.get(i).map(|l| l as &dyn Backend)
    }
    fn begin_call(&self, _p: &Probe, _o: CallOpts, srs: SrsRef<'_>) -> BResult<()> {
        assert!(!srs.h.is_empty());
        self.calls.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }
}

#[test]
fn lane_path_matches_cpu_path() {
    let (params, circuits) = setup_for("samples/porep-tiny.toml");
    let want = prove(&CpuBackend::new(), &params, &circuits, &Toggles::default());
    for lanes in [1usize, 2, 3] {
        let b = FakeLanes {
            lanes: (0..lanes).map(|_| FakeLane::default()).collect(),
            calls: AtomicUsize::new(0),
        };
        for mask in [0u32, 0b11111, 0b00100] {
            assert_eq!(prove(&b, &params, &circuits, &toggles(mask)), want, "{lanes} lanes, mask {mask:05b}");
        }
        assert_eq!(b.calls.load(Ordering::SeqCst), 3);
        // Three lane phases (ntt_msm_h, batch_add, tail_msm) per circuit per call, spread over the lanes.
        let phases: usize = b.lanes.iter().map(|l| l.phases.load(Ordering::SeqCst)).sum();
        assert_eq!(phases, 3 * 3 * circuits.len(), "{lanes} lanes");
    }
}
