//! [`Deferred`]: a device backend still starting (contexts opened, kernels loaded) while a run already reads
//! its params and synthesizes. Discovery has found a usable device by then, so what the run asks first
//! (lanes, whether there is a device) is known; every device operation waits for the start and then
//! delegates.
//!
//! Why: a fresh process's device start took ~110 ms after discovery on the H200 host (docs/PERF.md, session
//! ab), all of it before the run's first phase; a one-shot proof paid it in full.

use std::sync::{Arc, Mutex, Once, OnceLock};

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};

use super::api::{
    BResult, Backend, BackendError, Bases, CallOpts, G1Group, MemoryUse, ParamsId, SrsRef, SrsSection, Tick,
};
use super::cpu::backend::CpuBackend;
use crate::cs::{Evals, HostBlock, HostPool};
use crate::util::lock;
use crate::util::mem::Populated;
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
/// begins, which may be before the device is up). Asked before the start, it maps the first circuit's
/// a, b and c blocks at once ([`EARLY_BLOCKS`], on threads of their own) and hands them to the started
/// pool, which only registers them: mapped after the start, they were zeroed while the SRS went up and
/// slowed its copy (docs/PERF.md, session ak).
struct LatePool {
    started: Arc<OnceLock<Started>>,
    /// Blocks mapped before the start, not yet adopted.
    early: Mutex<Vec<Populated>>,
    mapped: Once,
}

/// Blocks mapped ahead: one circuit's a, b and c.
const EARLY_BLOCKS: usize = 3;

impl LatePool {
    /// Maps [`EARLY_BLOCKS`] blocks of `scalars` scalars, once, if the backend has not started yet.
    fn map_early(&self, scalars: usize) {
        if self.started.get().is_some() {
            return;
        }
        self.mapped.call_once(|| {
            let Some(bytes) = scalars.checked_mul(32) else { return };
            let maps: Vec<Populated> = std::thread::scope(|s| {
                let hs: Vec<_> = (0..EARLY_BLOCKS).map(|_| s.spawn(move || Populated::new(bytes))).collect();
                hs.into_iter().filter_map(|h| h.join().ok()?.ok()).collect()
            });
            crate::util::marks::mark_with(|| format!("b2_mapped_early blocks={}", maps.len()));
            *lock(&self.early) = maps;
        });
    }

    /// An early block of exactly `scalars` scalars, if one is left.
    fn take_early(&self, scalars: usize) -> Option<Populated> {
        let mut early = lock(&self.early);
        let i = early.iter().position(|m| Some(m.bytes()) == scalars.checked_mul(32))?;
        Some(early.swap_remove(i))
    }
}

impl HostPool for LatePool {
    fn lend(&self, scalars: usize) -> Option<Box<dyn HostBlock>> {
        self.lend_within(scalars, 0)
    }

    fn lend_within(&self, scalars: usize, window: u64) -> Option<Box<dyn HostBlock>> {
        self.map_early(scalars);
        let Some(pool) = self.started.wait().as_ref().ok().and_then(|b| b.host_pool()) else {
            lock(&self.early).clear();
            return None;
        };
        self.lend_from(pool, scalars, window)
    }
}

impl LatePool {
    /// A block from the started `pool`: an early one adopted if one fits, else one `pool` lends.
    fn lend_from(&self, pool: &dyn HostPool, scalars: usize, window: u64) -> Option<Box<dyn HostBlock>> {
        if let Some(map) = self.take_early(scalars) {
            if let Some(block) = pool.adopt(map, scalars, window) {
                return Some(block);
            }
        }
        pool.lend_within(scalars, window)
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
            pool: LatePool { started: started.clone(), early: Mutex::new(Vec::new()), mapped: Once::new() },
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A block over a mapping (adopted) or a vector (lent).
    struct TestBlock {
        ptr: *mut Scalar,
        scalars: usize,
        _heap: Vec<Scalar>,
        map: Option<memmap2::MmapMut>,
    }
    // SAFETY: the pointer is into the block's own mapping or vector, used by one owner at a time.
    unsafe impl Send for TestBlock {}
    // SAFETY: as above.
    unsafe impl Sync for TestBlock {}
    impl HostBlock for TestBlock {
        fn ptr(&self) -> *mut Scalar {
            self.ptr
        }
        fn capacity(&self) -> usize {
            self.scalars
        }
        fn page_locked(&self) -> bool {
            self.map.is_some()
        }
    }

    /// Adopts maps (up to `take` of them) and lends heap blocks; counts both.
    struct TestPool {
        take: usize,
        adopted: AtomicUsize,
        lent: AtomicUsize,
    }
    impl HostPool for TestPool {
        fn lend(&self, scalars: usize) -> Option<Box<dyn HostBlock>> {
            self.lent.fetch_add(1, Ordering::Relaxed);
            let mut heap = vec![Scalar::from(7u64); scalars];
            Some(Box::new(TestBlock { ptr: heap.as_mut_ptr(), scalars, _heap: heap, map: None }))
        }
        fn adopt(&self, map: Populated, scalars: usize, _window: u64) -> Option<Box<dyn HostBlock>> {
            if self.adopted.fetch_add(1, Ordering::Relaxed) >= self.take {
                return None;
            }
            let mut map = map.into_map();
            assert!(map.iter().all(|&b| b == 0), "an early block is zeroed");
            Some(Box::new(TestBlock {
                ptr: map.as_mut_ptr().cast(),
                scalars,
                _heap: Vec::new(),
                map: Some(map),
            }))
        }
    }

    fn late() -> LatePool {
        LatePool { started: Arc::new(OnceLock::new()), early: Mutex::new(Vec::new()), mapped: Once::new() }
    }

    /// Before the start, the first lend maps one circuit's three blocks, once; the started pool adopts those
    /// of the size asked for, and lends the rest (another size, or past what it adopts).
    #[test]
    fn blocks_mapped_before_the_start_are_adopted_by_size_then_the_pool_lends() {
        let (late, scalars) = (late(), 1 << 16);
        late.map_early(scalars);
        late.map_early(2 * scalars);
        assert_eq!(lock(&late.early).len(), EARLY_BLOCKS);
        assert!(lock(&late.early).iter().all(|m| m.bytes() == 32 * scalars));
        let pool = TestPool { take: 2, adopted: AtomicUsize::new(0), lent: AtomicUsize::new(0) };
        let other = late.lend_from(&pool, scalars + 1, 0).map(|b| b.page_locked());
        assert_eq!(other, Some(false), "no early block of another size");
        let got: Vec<bool> =
            (0..4).filter_map(|_| late.lend_from(&pool, scalars, 0)).map(|b| b.page_locked()).collect();
        // Two adopted; the third early block is refused (dropped) and lent instead; then plain lends.
        assert_eq!(got, [true, true, false, false]);
        assert_eq!((pool.adopted.load(Ordering::Relaxed), pool.lent.load(Ordering::Relaxed)), (3, 3));
        assert!(lock(&late.early).is_empty());
    }

    /// After the start nothing is mapped ahead; a failed start lends nothing and drops what was mapped.
    #[test]
    fn nothing_is_mapped_after_the_start_and_a_failed_start_drops_the_early_blocks() {
        let started = late();
        let _ = started.started.set(Err("no device".into()));
        started.map_early(1 << 10);
        assert!(lock(&started.early).is_empty());
        let failed = late();
        failed.map_early(1 << 10);
        assert_eq!(lock(&failed.early).len(), EARLY_BLOCKS);
        let _ = failed.started.set(Err("context creation failed".into()));
        assert!(failed.lend_within(1 << 10, 0).is_none());
        assert!(lock(&failed.early).is_empty());
    }
}
