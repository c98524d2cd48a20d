//! [`Deferred`]: a device backend still starting (contexts opened, kernels loaded) while a run already reads
//! its params and synthesizes. Discovery has found a usable device by then, so what the run asks first
//! (lanes, whether there is a device) is known; every device operation waits for the start and then
//! delegates.
//!
//! Why: a fresh process's device start took ~110 ms after discovery on the H200 host (docs/PERF.md, session
//! ab), all of it before the run's first phase; a one-shot proof paid it in full.

use std::sync::{Arc, OnceLock};

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};

use super::api::{
    BResult, Backend, BackendError, Bases, CallOpts, G1Group, MemoryUse, ParamsId, SrsRef, SrsSection, Tick,
};
use super::cpu::backend::CpuBackend;
use crate::cs::{Evals, HostBlock, HostPool};
use crate::vocab::{Probe, Site, Span};

/// The started backend, or why it could not start.
type Started = Result<Box<dyn Backend>, String>;

/// A backend whose start runs on a thread of its own (module doc).
pub struct Deferred {
    name: &'static str,
    lanes: usize,
    started: Arc<OnceLock<Started>>,
    pool: LatePool,
    /// What infallible questions get answered by when the start failed (operations fail with its reason).
    fallback: CpuBackend,
}

/// The host pool of the started backend, lending once it is there (synthesis asks for blocks as soon as it
/// begins, which may be before the device is up).
struct LatePool {
    started: Arc<OnceLock<Started>>,
}

impl HostPool for LatePool {
    fn lend(&self, scalars: usize) -> Option<Box<dyn HostBlock>> {
        self.started.wait().as_ref().ok()?.host_pool()?.lend(scalars)
    }

    fn lend_within(&self, scalars: usize, window: u64) -> Option<Box<dyn HostBlock>> {
        self.started.wait().as_ref().ok()?.host_pool()?.lend_within(scalars, window)
    }
}

impl Deferred {
    /// Starts `start` on a thread; `name` and `lanes` answer for it meanwhile (discovery's findings).
    pub fn start(
        name: &'static str,
        lanes: usize,
        start: impl FnOnce() -> Started + Send + 'static,
    ) -> Deferred {
        let started = Arc::new(OnceLock::new());
        let cell = started.clone();
        std::thread::spawn(move || {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(start))
                .unwrap_or_else(|_| Err("the device start panicked".into()));
            let _ = cell.set(r);
            crate::util::marks::mark("device_started");
        });
        Deferred {
            name,
            lanes,
            pool: LatePool { started: started.clone() },
            started,
            fallback: CpuBackend::new(),
        }
    }

    /// The started backend, waiting for it; its start's error as an operation's error.
    fn ready(&self, op: &'static str) -> BResult<&dyn Backend> {
        match self.started.wait() {
            Ok(b) => Ok(b.as_ref()),
            Err(e) => Err(BackendError { backend: self.name, op, msg: e.clone() }),
        }
    }

    /// The started backend, or the CPU's answers where the start failed (for questions that cannot fail).
    fn any(&self) -> &dyn Backend {
        match self.started.wait() {
            Ok(b) => b.as_ref(),
            Err(_) => &self.fallback,
        }
    }
}

impl Backend for Deferred {
    fn name(&self) -> &'static str {
        match self.started.wait() {
            Ok(b) => b.name(),
            Err(_) => self.name,
        }
    }

    fn device(&self) -> String {
        match self.started.wait() {
            Ok(b) => b.device(),
            Err(e) => format!("unavailable: {e}"),
        }
    }

    fn has_device(&self) -> bool {
        self.started.get().is_none_or(|r| r.as_ref().is_ok_and(|b| b.has_device()))
    }

    fn lanes(&self) -> usize {
        self.started.get().and_then(|r| r.as_ref().ok()).map_or(self.lanes, |b| b.lanes())
    }

    fn lane(&self, i: usize) -> Option<&dyn Backend> {
        self.started.wait().as_ref().ok()?.lane(i)
    }

    fn overlaps_host(&self) -> bool {
        self.any().overlaps_host()
    }

    fn host_pool(&self) -> Option<&dyn HostPool> {
        match self.started.get() {
            Some(Ok(b)) => b.host_pool(),
            Some(Err(_)) => None,
            None => Some(&self.pool),
        }
    }

    fn open(&self, probe: &Probe, site: Site) -> Span {
        self.any().open(probe, site)
    }

    fn begin_call(&self, probe: &Probe, opts: CallOpts, srs: SrsRef<'_>) -> BResult<()> {
        self.ready("srs_upload")?.begin_call(probe, opts, srs)
    }

    fn stage_section(
        &self,
        probe: &Probe,
        opts: CallOpts,
        id: ParamsId,
        section: SrsSection<'_>,
    ) -> BResult<()> {
        self.ready("srs_upload")?.stage_section(probe, opts, id, section)
    }

    /// Waits for the device to start; if it did not, `ready` is called and the start's error returned.
    fn stage_set(&self, probe: &Probe, opts: CallOpts, srs: SrsRef<'_>, ready: &dyn Fn()) -> BResult<()> {
        match self.ready("srs_upload") {
            Ok(b) => b.stage_set(probe, opts, srs, ready),
            Err(e) => {
                ready();
                Err(e)
            }
        }
    }

    fn end_call(&self) {
        if let Some(Ok(b)) = self.started.get() {
            b.end_call();
        }
    }

    fn ntt_msm_h(
        &self,
        probe: &Probe,
        circuit: usize,
        abc: [Evals; 3],
        h: Bases<'_>,
    ) -> BResult<G1Projective> {
        self.ready("ntt_msm_h")?.ntt_msm_h(probe, circuit, abc, h)
    }

    fn ntt_msm_h_many(
        &self,
        probe: &Probe,
        first: usize,
        abcs: Vec<[Evals; 3]>,
        h: Bases<'_>,
    ) -> BResult<Vec<G1Projective>> {
        self.ready("ntt_msm_h")?.ntt_msm_h_many(probe, first, abcs, h)
    }

    fn g1_groups(&self, probe: &Probe, groups: Vec<G1Group<'_>>) -> BResult<Vec<Vec<G1Projective>>> {
        self.ready("g1_groups")?.g1_groups(probe, groups)
    }

    fn batch_add_g1(&self, bases: Bases<'_>, bitmap: &[u64]) -> BResult<G1Projective> {
        self.ready("batch_add")?.batch_add_g1(bases, bitmap)
    }

    fn batch_add_g2(&self, bases: &[G2Affine], bitmap: &[u64]) -> BResult<G2Projective> {
        self.ready("batch_add")?.batch_add_g2(bases, bitmap)
    }

    fn batch_add_b_g2(&self, srs: SrsRef<'_>, start: usize, bitmap: &[u64]) -> BResult<G2Projective> {
        self.ready("batch_add")?.batch_add_b_g2(srs, start, bitmap)
    }

    fn msm_g1(&self, bases: Bases<'_>, scalars: &[Scalar], window: Option<usize>) -> BResult<G1Projective> {
        self.ready("msm_g1")?.msm_g1(bases, scalars, window)
    }

    fn msm_g2(&self, bases: &[G2Affine], scalars: &[Scalar], window: Option<usize>) -> BResult<G2Projective> {
        self.ready("msm_g2")?.msm_g2(bases, scalars, window)
    }

    fn msm_b_g2(&self, srs: SrsRef<'_>, idx: &[u32], parts: &[&[Scalar]]) -> Option<BResult<G2Projective>> {
        match self.ready("b_g2_msm") {
            Ok(b) => b.msm_b_g2(srs, idx, parts),
            Err(e) => Some(Err(e)),
        }
    }

    fn window_for(&self, n: usize) -> usize {
        self.any().window_for(n)
    }

    fn fixed_base_g1(
        &self,
        base: &G1Projective,
        scalars: &[Scalar],
        out: &mut [G1Affine],
        tick: Tick,
    ) -> BResult<()> {
        self.ready("fixed_base")?.fixed_base_g1(base, scalars, out, tick)
    }

    fn fixed_base_g2(
        &self,
        base: &G2Projective,
        scalars: &[Scalar],
        out: &mut [G2Affine],
        tick: Tick,
    ) -> BResult<()> {
        self.ready("fixed_base")?.fixed_base_g2(base, scalars, out, tick)
    }

    /// Nothing until the start is done (the sampler never waits for it).
    fn memory(&self) -> MemoryUse {
        match self.started.get() {
            Some(Ok(b)) => b.memory(),
            _ => MemoryUse::default(),
        }
    }
}
