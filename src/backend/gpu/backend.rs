//! [`GpuBackend`]: the CUDA backend, every visible device as a lane ([`GpuLane`]). The prover drives the
//! lanes; direct calls (benchmarks, tests) go to lane 0.

use std::sync::Arc;

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};

use super::device::{gpus, Gpu};
use super::error::{GResult, GpuError};
use super::kernels::msm;
use super::lane::GpuLane;
use super::mem::b2_pool::{caps, PinnedPool};
use crate::backend::api::{
    BResult, Backend, BackendError, Bases, CallOpts, DeviceMemory, G1Group, MemoryUse, ParamsId, SrsRef,
    SrsSection, Tick,
};
use crate::backend::cpu::backend::CpuBackend;
use crate::cs::{Evals, HostPool};
use crate::vocab::{Probe, Site, Span};

/// The CUDA backend (module doc).
pub struct GpuBackend {
    lanes: Vec<GpuLane>,
    /// The page-locked blocks synthesis writes a/b/c into (B2 with `pce`).
    pool: Arc<PinnedPool>,
}

impl GpuBackend {
    /// Opens every visible device and loads every kernel module on it (compiled in parallel, or from the
    /// cache); fails with the discovery reason when there is no device, or with NVRTC's log.
    pub fn new() -> GResult<GpuBackend> {
        let cpu = Arc::new(CpuBackend::new());
        let devices = gpus()?;
        crate::util::marks::mark("gpu_contexts_open");
        let lanes: Vec<GpuLane> = devices.iter().map(|g| GpuLane::new(g.clone(), cpu.clone())).collect();
        if lanes.is_empty() {
            return Err(GpuError::Unavailable("no CUDA device".into()));
        }
        for g in devices {
            // The first device compiles (into the cache); devices of the same arch then read the cache.
            g.preload()?;
        }
        crate::util::marks::mark("gpu_kernels_loaded");
        let pool = PinnedPool::new(devices[0].ctx.clone(), caps());
        Ok(GpuBackend { lanes, pool })
    }

    /// The page-locked pool synthesis writes a/b/c into (tests look at its idle blocks).
    pub fn pinned_pool(&self) -> &Arc<PinnedPool> {
        &self.pool
    }

    /// Lane 0, which direct calls use.
    pub fn first(&self) -> &GpuLane {
        &self.lanes[0]
    }

    /// The lanes, one per device.
    pub fn lanes_all(&self) -> &[GpuLane] {
        &self.lanes
    }

    /// `upload` on every lane at once, one thread each (the SRS's copies); the first error, if any.
    fn on_every_lane(&self, upload: impl Fn(&GpuLane) -> BResult<()> + Sync) -> BResult<()> {
        std::thread::scope(|s| {
            let hs: Vec<_> = self.lanes.iter().map(|l| s.spawn(|| upload(l))).collect();
            hs.into_iter().try_for_each(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(BackendError {
                        backend: "gpu",
                        op: "srs_upload",
                        msg: "upload thread panicked".into(),
                    })
                })
            })
        })
    }

    /// The device of lane `i`, for tests and benchmarks that call the kernels directly.
    pub fn gpu(&self, i: usize) -> Option<&Arc<Gpu>> {
        self.lanes.get(i).map(|l| l.gpu())
    }
}

impl Backend for GpuBackend {
    fn name(&self) -> &'static str {
        "gpu"
    }

    fn device(&self) -> String {
        match self.lanes.as_slice() {
            [one] => one.device(),
            all => format!("{}× {} (GPU0–{})", all.len(), all[0].gpu().name, all.len() - 1),
        }
    }

    fn has_device(&self) -> bool {
        true
    }

    fn lanes(&self) -> usize {
        self.lanes.len()
    }

    fn lane(&self, i: usize) -> Option<&dyn Backend> {
        self.lanes.get(i).map(|l| l as &dyn Backend)
    }

    fn host_pool(&self) -> Option<&dyn HostPool> {
        Some(&self.pool)
    }

    fn overlaps_host(&self) -> bool {
        true
    }

    fn open(&self, probe: &Probe, site: Site) -> Span {
        self.first().open(probe, site)
    }

    /// Uploads (or finds resident) the SRS on every device, the devices in parallel.
    fn begin_call(&self, probe: &Probe, opts: CallOpts, srs: SrsRef<'_>) -> BResult<()> {
        self.on_every_lane(|l| l.begin_call(probe, opts, srs))
    }

    /// Every device takes the section, the devices in parallel.
    fn stage_section(
        &self,
        probe: &Probe,
        opts: CallOpts,
        id: ParamsId,
        section: SrsSection<'_>,
    ) -> BResult<()> {
        self.on_every_lane(|l| l.stage_section(probe, opts, id, section))
    }

    /// Every lane marks what it lacks before `ready`; then each copies its sections up beside the others.
    fn stage_set(&self, probe: &Probe, opts: CallOpts, srs: SrsRef<'_>, ready: &dyn Fn()) -> BResult<()> {
        let marked: Vec<_> = self.lanes.iter().map(|l| l.expect_set(opts, srs)).collect();
        ready();
        std::thread::scope(|s| {
            let hs: Vec<_> = self
                .lanes
                .iter()
                .zip(marked)
                .map(|(l, st)| s.spawn(move || l.stage_expected(probe, st, srs)))
                .collect();
            hs.into_iter().try_for_each(|h| match h.join() {
                Ok(r) => r.map_err(|e| BackendError { backend: "gpu", op: "srs_upload", msg: e.to_string() }),
                Err(_) => Err(BackendError {
                    backend: "gpu",
                    op: "srs_upload",
                    msg: "staging thread panicked".into(),
                }),
            })
        })
    }

    fn end_call(&self) {
        self.lanes.iter().for_each(|l| l.end_call());
    }

    fn ntt_msm_h(
        &self,
        probe: &Probe,
        circuit: usize,
        abc: [Evals; 3],
        h: Bases<'_>,
    ) -> BResult<G1Projective> {
        self.first().ntt_msm_h(probe, circuit, abc, h)
    }

    fn ntt_msm_h_many(
        &self,
        probe: &Probe,
        first: usize,
        abcs: Vec<[Evals; 3]>,
        h: Bases<'_>,
    ) -> BResult<Vec<G1Projective>> {
        self.first().ntt_msm_h_many(probe, first, abcs, h)
    }

    fn g1_groups(&self, probe: &Probe, groups: Vec<G1Group<'_>>) -> BResult<Vec<Vec<G1Projective>>> {
        self.first().g1_groups(probe, groups)
    }

    fn batch_add_g1(&self, bases: Bases<'_>, bitmap: &[u64]) -> BResult<G1Projective> {
        self.first().batch_add_g1(bases, bitmap)
    }

    fn batch_add_g2(&self, bases: &[G2Affine], bitmap: &[u64]) -> BResult<G2Projective> {
        self.first().batch_add_g2(bases, bitmap)
    }

    fn batch_add_b_g2(&self, srs: SrsRef<'_>, start: usize, bitmap: &[u64]) -> BResult<G2Projective> {
        self.first().batch_add_b_g2(srs, start, bitmap)
    }

    fn msm_g1(&self, bases: Bases<'_>, scalars: &[Scalar], window: Option<usize>) -> BResult<G1Projective> {
        self.first().msm_g1(bases, scalars, window)
    }

    fn msm_g2(&self, bases: &[G2Affine], scalars: &[Scalar], window: Option<usize>) -> BResult<G2Projective> {
        self.first().msm_g2(bases, scalars, window)
    }

    fn msm_b_g2(&self, srs: SrsRef<'_>, idx: &[u32], parts: &[&[Scalar]]) -> Option<BResult<G2Projective>> {
        self.first().msm_b_g2(srs, idx, parts)
    }

    fn window_for(&self, n: usize) -> usize {
        msm::window_for(n)
    }

    fn fixed_base_g1(
        &self,
        base: &G1Projective,
        scalars: &[Scalar],
        out: &mut [G1Affine],
        tick: Tick,
    ) -> BResult<()> {
        self.first().fixed_base_g1(base, scalars, out, tick)
    }

    fn fixed_base_g2(
        &self,
        base: &G2Projective,
        scalars: &[Scalar],
        out: &mut [G2Affine],
        tick: Tick,
    ) -> BResult<()> {
        self.first().fixed_base_g2(base, scalars, out, tick)
    }

    /// Page-locked bytes: the B2 pool's blocks plus each lane's B1 registrations and staging buffers; each
    /// device's memory from `cuMemGetInfo` (a driver query that does not wait for the stream).
    fn memory(&self) -> MemoryUse {
        let devices = self
            .lanes
            .iter()
            .filter_map(|l| {
                let (free, total) = l.gpu().ctx.mem_get_info().ok()?;
                Some(DeviceMemory {
                    device: l.gpu().ordinal as u64,
                    used: total.saturating_sub(free) as u64,
                    total: total as u64,
                })
            })
            .collect();
        let lanes: u64 = self.lanes.iter().map(GpuLane::pinned_bytes).sum();
        MemoryUse { pinned_bytes: Some(self.pool.held_bytes() + lanes), devices }
    }
}
