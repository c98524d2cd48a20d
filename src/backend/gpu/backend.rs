//! `GpuBackend`: the `Backend` implementation on CUDA, one lane per visible device. `ntt_msm_h`, `batch_add`
//! and the G1 tail MSMs run on the lane's device; `msm_g2` (phase `b_g2_msm`) stays on the host, which the
//! prover runs beside the lanes, and so does B_G2's batch addition unless `g2d` puts it on the lane's second
//! stream (`gpu::g2d`). Lane phases are timed with CUDA events on the lane's stream.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard};

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use cudarc::driver::{CudaSlice, CudaStream};

use super::abc::AbcBufs;
use super::device::{gpus, Gpu};
use super::error::{GResult, GpuError};
use super::g2d::G2Dev;
use super::hostpool::{PinnedPool, POOL_BYTES};
use super::msm_shift::ShiftedBases;
use super::resident::{matches, upload};
use super::staging::Staging;
use super::timing::{ClockSlot, GpuTimer};
use super::{batch_add, limbs, msm, ntt};
use crate::backend::api::{
    g1_groups_each, ntt_msm_h_each, BResult, Backend, BackendError, Bases, CallId, CallOpts, DeviceMemory,
    G1Group, MemoryUse, ParamsId, Query, SrsRef,
};
use crate::backend::cpu::backend::CpuBackend;
use crate::backend::resident::{ResidentKey, ResidentSet};
use crate::cs::{Evals, HostPool};
use crate::vocab::{Phase, Probe, Site, Span};

mod bases;
mod h;
mod tails;

use bases::{bases_on, bases_prepare, bases_view};
use h::PINNED_BYTES;

fn berr(op: &'static str) -> impl Fn(GpuError) -> BackendError {
    move |e| BackendError { backend: "gpu", op, msg: e.to_string() }
}

/// Mutable per-lane state: the call's options, the SRS on the device, the call's gathered bases.
#[derive(Default)]
struct State {
    opts: CallOpts,
    srs: ResidentSet<CudaSlice<u64>>,
    call: HashMap<(CallId, Query), CudaSlice<u64>>,
    in_call: bool,
    /// `shift`: the resident H bases' shifted copies, freed with them.
    shifted: Option<(ResidentKey, ShiftedBases)>,
    /// Params whose shifted copies did not fit (warned once; msm_h runs per window for them).
    shift_refused: Option<ParamsId>,
}

/// G1 MSMs of fewer points run on the host (the prover's public-input MSMs, tiny tails). Measured on
/// h200-16c (docs/PERF.md, 2026-11-30, device kernels against 16 host cores): 64 points 0.80/0.95 ms on the
/// device against 0.62/0.89 ms on the host (two runs), 128 points 0.81/0.91 against 0.80/1.36 ms.
pub const GPU_MSM_MIN: usize = 128;

/// One device as a backend of its own (the prover's `gpu<d>` lane).
pub struct GpuLane {
    gpu: Arc<Gpu>,
    cpu: Arc<CpuBackend>,
    state: Mutex<State>,
    clock: Arc<Mutex<ClockSlot>>,
    /// B2's pinned staging pool, allocated on the first call that uses it and kept for the process.
    staging: Mutex<Option<Staging>>,
    /// The lane's a/b/c device buffers, kept across calls.
    abc: Mutex<AbcBufs>,
    /// `g2d`: B_G2 on the device and the second stream its batch addition runs on (its own lock, so the host's
    /// `b_g2_msm` thread never waits on the lane's G1 work).
    g2: Mutex<G2Dev>,
}

impl GpuLane {
    fn new(gpu: Arc<Gpu>, cpu: Arc<CpuBackend>) -> GpuLane {
        GpuLane {
            gpu,
            cpu,
            state: Mutex::new(State::default()),
            clock: Arc::default(),
            staging: Mutex::new(None),
            abc: Mutex::default(),
            g2: Mutex::default(),
        }
    }

    /// The lane's `g2d` state (tests: uploads so far, resident or not, a memory cap for the fallback).
    pub fn g2(&self) -> MutexGuard<'_, G2Dev> {
        self.g2.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn ordinal(&self) -> u64 {
        self.gpu.ordinal as u64
    }

    /// A span timed from an event on `first` to one on `last`.
    fn open_on(&self, probe: &Probe, site: Site, first: &CudaStream, last: &Arc<CudaStream>) -> Span {
        let site = site.device(self.ordinal());
        if !probe.recording() {
            return probe.open(site);
        }
        match GpuTimer::start_on(&self.gpu, &self.clock, first, last) {
            Ok(t) => probe.open_timed(site, Box::new(t)),
            Err(_) => probe.open(site), // no events: host time rather than no span
        }
    }

    fn msm_g1_impl(
        &self,
        bases: Bases<'_>,
        scalars: &[Scalar],
        window: Option<usize>,
    ) -> GResult<G1Projective> {
        let n = bases.host.len().min(scalars.len());
        if n == 0 {
            return Ok(<G1Projective as group::Group>::identity());
        }
        let gpu = &*self.gpu;
        let mut st = self.state();
        let w = window.unwrap_or_else(|| msm::window_for(n));
        gpu.check_mem("msm_g1 (scalars and scratch)", n * 32 + msm::scratch_bytes(n, w))?;
        let overlap = st.opts.msm_overlap;
        let mut tmp = None;
        let view = bases_view(gpu, &mut st, &mut tmp, bases.prefix(n))?;
        let ds = gpu.stream.clone_htod(limbs(&scalars[..n]))?;
        msm::msm_g1(gpu, &view, &ds.slice(..), n, window, overlap)
    }

    fn batch_add_g1_impl(&self, bases: Bases<'_>, bitmap: &[u64]) -> GResult<G1Projective> {
        let n = bases.host.len().min(bitmap.len() * 64);
        if n == 0 || bitmap.iter().all(|&w| w == 0) {
            return Ok(<G1Projective as group::Group>::identity());
        }
        let gpu = &*self.gpu;
        let mut st = self.state();
        let mut tmp = None;
        let view = bases_view(gpu, &mut st, &mut tmp, bases.prefix(n))?;
        batch_add::batch_add_g1(gpu, &view, n, bitmap)
    }

    /// Makes the call's SRS resident: entries of other params are freed first; an entry of these params is
    /// reused only if its sampled points still equal the host's.
    fn begin_impl(&self, probe: &Probe, opts: CallOpts, srs: SrsRef<'_>) -> GResult<()> {
        let gpu = &*self.gpu;
        if let Some(p) = &gpu.pool {
            p.keep_warm(&gpu.ctx, opts.device_pool);
        }
        let mut st = self.state();
        st.opts = opts;
        st.in_call = true;
        st.call.clear();
        st.srs.retain_params(srs.id);
        // Copies of other params, or of a call that runs without `shift`, are freed (18 GiB at 2^24): turned
        // off, `shift` gives its memory back, and turned on again it rebuilds them.
        if !opts.msm_shift || st.shifted.as_ref().is_some_and(|(k, _)| k.params != srs.id) {
            st.shifted = None;
        }
        let mut span: Option<Span> = None;
        let mut h_uploaded = false;
        for q in Query::ALL {
            let host: &[G1Affine] = srs.query(q);
            let key = ResidentKey { params: srs.id, query: q, len: host.len() };
            st.srs.get_or_insert(
                key,
                |dev| matches(gpu, dev, host),
                || {
                    if span.is_none() {
                        let bytes: usize =
                            Query::ALL.iter().map(|q| std::mem::size_of_val(srs.query(*q))).sum();
                        gpu.check_mem("the SRS bases (H, L, A, B_G1)", bytes)?;
                        let site = Site::new(Phase::SrsUpload).device(self.ordinal()).arg("bytes", bytes);
                        span = Some(probe.open(site));
                    }
                    h_uploaded |= q == Query::H;
                    upload(gpu, host)
                },
            )?;
        }
        drop(span);
        if h_uploaded {
            st.shifted = None; // copies of bases that were just replaced
        }
        drop(st);
        let mut g2 = self.g2();
        let bytes = std::mem::size_of_val(srs.b_g2);
        let site =
            Site::new(Phase::SrsUpload).device(self.ordinal()).arg("bytes", bytes).arg("query", "b_g2");
        let span = (opts.g2_device && !g2.resident()).then(|| probe.open(site));
        let uploaded = g2.prepare(gpu, opts.g2_device, srs.id, srs.b_g2);
        if let Some(mut s) = span {
            s.arg("uploaded", uploaded);
        }
        Ok(())
    }

    /// B_G2's batch addition on the device when `g2d` made the bases resident, else on the host.
    fn batch_add_b_g2_impl(&self, srs: SrsRef<'_>, start: usize, bitmap: &[u64]) -> BResult<G2Projective> {
        let host = &srs.b_g2[start.min(srs.b_g2.len())..];
        let n = host.len().min(bitmap.len() * 64);
        if n == 0 || bitmap.iter().all(|&w| w == 0) {
            return Ok(<G2Projective as group::Group>::identity());
        }
        match self.g2().add(&self.gpu, srs.id, start, n, bitmap) {
            Some(r) => {
                let (sum, ms) = r.map_err(berr("b_g2_msm"))?;
                tracing::debug!(
                    "g2d: GPU{}: {n} B_G2 bases added on the device in {ms:.2} ms",
                    self.gpu.ordinal
                );
                Ok(sum)
            }
            None => self.cpu.batch_add_g2(host, bitmap),
        }
    }
}

impl Backend for GpuLane {
    fn name(&self) -> &'static str {
        "gpu"
    }

    fn device(&self) -> String {
        format!("GPU{} {}", self.gpu.ordinal, self.gpu.name)
    }

    fn has_device(&self) -> bool {
        true
    }

    fn overlaps_host(&self) -> bool {
        true
    }

    /// Device-timed: CUDA events on this lane's stream.
    fn open(&self, probe: &Probe, site: Site) -> Span {
        self.open_on(probe, site, &self.gpu.stream, &self.gpu.stream)
    }

    fn begin_call(&self, probe: &Probe, opts: CallOpts, srs: SrsRef<'_>) -> BResult<()> {
        self.begin_impl(probe, opts, srs).map_err(berr("srs_upload"))
    }

    fn end_call(&self) {
        let mut st = self.state();
        st.in_call = false;
        st.call.clear();
        if !st.opts.srs_resident {
            st.srs.clear();
            st.shifted = None;
            self.g2().release();
        }
    }

    fn ntt_msm_h(
        &self,
        probe: &Probe,
        circuit: usize,
        abc: [Evals; 3],
        h: Bases<'_>,
    ) -> BResult<G1Projective> {
        self.ntt_msm_h_impl(probe, circuit, abc, h).map_err(berr("ntt_msm_h"))
    }

    fn ntt_msm_h_many(
        &self,
        probe: &Probe,
        first: usize,
        abcs: Vec<[Evals; 3]>,
        h: Bases<'_>,
    ) -> BResult<Vec<G1Projective>> {
        let abcs = if abcs.len() > 1 && self.state().opts.h_pipeline && ntt::old_path() {
            match self.ntt_msm_h_staged(probe, first, abcs, h).map_err(berr("ntt_msm_h"))? {
                Ok(out) => return Ok(out),
                Err(abcs) => abcs,
            }
        } else {
            abcs
        };
        ntt_msm_h_each(self, probe, first, abcs, h)
    }

    fn g1_groups(&self, probe: &Probe, groups: Vec<G1Group<'_>>) -> BResult<Vec<Vec<G1Projective>>> {
        let groups = if groups.len() > 1 && self.state().opts.tail_seq {
            match self.g1_groups_seq(probe, groups).map_err(berr("tail_msm"))? {
                Ok(out) => return Ok(out),
                Err(groups) => groups,
            }
        } else {
            groups
        };
        g1_groups_each(self, probe, groups)
    }

    fn batch_add_g1(&self, bases: Bases<'_>, bitmap: &[u64]) -> BResult<G1Projective> {
        self.batch_add_g1_impl(bases, bitmap).map_err(berr("batch_add"))
    }

    /// Anonymous G2 bases: on the host (the prover's B_G2 goes through `batch_add_b_g2`).
    fn batch_add_g2(&self, bases: &[G2Affine], bitmap: &[u64]) -> BResult<G2Projective> {
        self.cpu.batch_add_g2(bases, bitmap)
    }

    fn batch_add_b_g2(&self, srs: SrsRef<'_>, start: usize, bitmap: &[u64]) -> BResult<G2Projective> {
        self.batch_add_b_g2_impl(srs, start, bitmap)
    }

    /// Below [`GPU_MSM_MIN`] points on the host: there the device's fixed cost (a dozen launches, dependent
    /// chains of additions) exceeds the host's whole MSM (docs/PERF.md).
    fn msm_g1(&self, bases: Bases<'_>, scalars: &[Scalar], window: Option<usize>) -> BResult<G1Projective> {
        if bases.host.len().min(scalars.len()) < GPU_MSM_MIN {
            return self.cpu.msm_g1(bases, scalars, window);
        }
        self.msm_g1_impl(bases, scalars, window).map_err(berr("msm_g1"))
    }

    /// On the host on every backend.
    fn msm_g2(&self, bases: &[G2Affine], scalars: &[Scalar], window: Option<usize>) -> BResult<G2Projective> {
        self.cpu.msm_g2(bases, scalars, window)
    }

    fn window_for(&self, n: usize) -> usize {
        msm::window_for(n)
    }
}

/// The CUDA backend: every visible device as a lane. The prover drives the lanes; direct calls (benchmarks,
/// tests) go to lane 0.
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
        let lanes: Vec<GpuLane> = devices.iter().map(|g| GpuLane::new(g.clone(), cpu.clone())).collect();
        if lanes.is_empty() {
            return Err(GpuError::Unavailable("no CUDA device".into()));
        }
        for g in devices {
            // The first device compiles (into the cache); devices of the same arch then read the cache.
            g.preload()?;
        }
        let pool = PinnedPool::new(devices[0].ctx.clone(), super::hostpool::cap_bytes());
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

    /// The device of lane `i`, for tests and benchmarks that call the kernels directly.
    pub fn gpu(&self, i: usize) -> Option<&Arc<Gpu>> {
        self.lanes.get(i).map(|l| &l.gpu)
    }
}

impl Backend for GpuBackend {
    fn name(&self) -> &'static str {
        "gpu"
    }

    fn device(&self) -> String {
        match self.lanes.as_slice() {
            [one] => one.device(),
            all => format!("{}× {} (GPU0–{})", all.len(), all[0].gpu.name, all.len() - 1),
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
        std::thread::scope(|s| {
            let hs: Vec<_> =
                self.lanes.iter().map(|l| s.spawn(move || l.begin_call(probe, opts, srs))).collect();
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

    fn window_for(&self, n: usize) -> usize {
        msm::window_for(n)
    }

    /// Pinned bytes from B1's registrations; each device's memory from `cuMemGetInfo` (a driver query
    /// that does not wait for the stream).
    fn memory(&self) -> MemoryUse {
        let devices = self
            .lanes
            .iter()
            .filter_map(|l| {
                let (free, total) = l.gpu.ctx.mem_get_info().ok()?;
                Some(DeviceMemory {
                    device: l.ordinal(),
                    used: total.saturating_sub(free) as u64,
                    total: total as u64,
                })
            })
            .collect();
        MemoryUse {
            pinned_bytes: Some(PINNED_BYTES.load(Ordering::Relaxed) + POOL_BYTES.load(Ordering::Relaxed)),
            devices,
        }
    }
}
