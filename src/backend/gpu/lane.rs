//! [`GpuLane`]: one device as a `Backend` (the prover's `gpu<d>` lane). `ntt_msm_h`, `batch_add` and the G1
//! tail MSMs run on the device; `b_g2_msm` (B_G2's batch addition and MSM) runs on the lane's second stream
//! when `g2d` holds B_G2 there, else on the host beside the lanes. Lane phases
//! are timed with CUDA events on the lane's stream. Every method of the lane is here; what it holds is
//! [`LaneCore`], the schemes it runs are `h` (one circuit's H), `sched::hpipe`, `sched::tailseq` and
//! `sched::g2d`, each whole in its file.

use std::sync::atomic::Ordering;
use std::sync::{Arc, MutexGuard};

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};

use super::device::Gpu;
use super::error::{GResult, GpuError};
use super::h;
use super::kernels::{batch_add, fixed_base, msm};
use super::lane_core::{lock, Counts, LaneCore};
use super::mem::resident::{lock_in_place, upload_on};
use super::mem::stage_gate::{sections, Section, Staging};
use super::sched::g2d::G2Dev;
use super::sched::{hpipe, tailseq};
use crate::backend::api::{
    g1_groups_each, ntt_msm_h_each, BResult, Backend, BackendError, Bases, CallOpts, G1Group, ParamsId,
    Query, SrsRef, SrsSection, Tick,
};
use crate::backend::cpu::backend::CpuBackend;
use crate::backend::resident::ResidentKey;
use crate::cs::Evals;
use crate::vocab::{Phase, Probe, Site, Span};

fn berr(op: &'static str) -> impl Fn(GpuError) -> BackendError {
    move |e| BackendError { backend: "gpu", op, msg: e.to_string() }
}

/// G1 MSMs of fewer points run on the host (the prover's public-input MSMs, tiny tails): at 64 and 128 points
/// the device's fixed cost (a dozen launches, dependent chains of additions) matched or exceeded 16 host
/// cores' whole MSM (docs/PERF.md, 2026-11-30).
pub const GPU_MSM_MIN: usize = 128;

/// One device as a backend of its own (module doc).
pub struct GpuLane {
    core: LaneCore,
}

impl GpuLane {
    pub(super) fn new(gpu: Arc<Gpu>, cpu: Arc<CpuBackend>) -> GpuLane {
        GpuLane { core: LaneCore::new(gpu, cpu) }
    }

    /// The lane's device.
    pub fn gpu(&self) -> &Arc<Gpu> {
        &self.core.gpu
    }

    /// The lane's `g2d` state (tests: uploads so far, resident or not, a memory cap for the fallback).
    pub fn g2(&self) -> MutexGuard<'_, G2Dev> {
        lock(&self.core.g2)
    }

    /// What the lane has done so far (tests compare two readings around a call).
    pub fn counts(&self) -> Counts {
        self.core.counters.get()
    }

    /// Host bytes the lane holds page-locked now (B1's registrations, B2's staging buffers).
    pub fn pinned_bytes(&self) -> u64 {
        self.core.counters.pinned_bytes.load(Ordering::Relaxed)
    }

    /// Lowers (or raises) the smallest msm_h that runs over shifted copies (`shift`), for tests of the path
    /// on small circuits; results are identical either way.
    pub fn set_shift_min_points(&self, n: usize) {
        self.core.shift_min.store(n, Ordering::Relaxed);
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
        let gpu = &*self.core.gpu;
        let w = window.unwrap_or_else(|| msm::window_for(n));
        gpu.check_mem("msm_g1 (scalars and scratch)", n * 32 + msm::scratch_bytes(n, w))?;
        let overlap = self.core.opts().msm_overlap;
        self.core.gate.wait_bases(bases.id);
        let mut srs = lock(&self.core.srs);
        let mut tmp = None;
        let view = srs.view(gpu, &mut tmp, bases.prefix(n))?;
        let ds = gpu.stream.clone_htod(super::limbs(&scalars[..n]))?;
        msm::msm_g1(gpu, &view, &ds.slice(..), n, window, overlap)
    }

    fn batch_add_g1_impl(&self, bases: Bases<'_>, bitmap: &[u64]) -> GResult<G1Projective> {
        let n = bases.host.len().min(bitmap.len() * 64);
        if n == 0 || bitmap.iter().all(|&w| w == 0) {
            return Ok(<G1Projective as group::Group>::identity());
        }
        let gpu = &*self.core.gpu;
        self.core.gate.wait_bases(bases.id);
        let mut srs = lock(&self.core.srs);
        let mut tmp = None;
        let view = srs.view(gpu, &mut tmp, bases.prefix(n))?;
        batch_add::batch_add_g1(gpu, &view, n, bitmap)
    }

    /// The call's options; its SRS resident (G1 queries, and B_G2 with `g2d`).
    fn begin_impl(&self, probe: &Probe, opts: CallOpts, srs: SrsRef<'_>) -> GResult<()> {
        let core = &self.core;
        let gpu = &*core.gpu;
        if let Some(p) = &gpu.pool {
            p.keep_warm(&gpu.ctx, opts.device_pool);
        }
        *lock(&core.opts) = opts;
        lock(&core.srs).begin(gpu, probe, srs, opts.msm_shift, &core.gate)?;
        if core.gate.pending((srs.id, None)) {
            return Ok(()); // B_G2 is on its way (`stage_set`)
        }
        let mut g2 = self.g2();
        let bytes = std::mem::size_of_val(srs.b_g2);
        let site =
            Site::new(Phase::SrsUpload).device(core.ordinal()).arg("bytes", bytes).arg("query", "b_g2");
        let span = (opts.g2_device && !g2.resident()).then(|| probe.open(site));
        let uploaded = g2.prepare(gpu, opts.g2_device, srs.id, srs.b_g2);
        if let Some(mut s) = span {
            s.arg("uploaded", uploaded);
        }
        Ok(())
    }

    /// [`Backend::stage_section`] on this lane: a G1 query into the resident SRS, B_G2 to `g2d` when on.
    fn stage_impl(
        &self,
        probe: &Probe,
        opts: CallOpts,
        id: ParamsId,
        section: SrsSection<'_>,
    ) -> GResult<()> {
        let core = &self.core;
        let gpu = &*core.gpu;
        match section {
            SrsSection::G1(query, host) => {
                crate::util::marks::mark_with(|| format!("gpu_stage_{}_entered", query.name()));
                let mut srs = lock(&core.srs);
                crate::util::marks::mark_with(|| format!("gpu_stage_{}_locked", query.name()));
                srs.stage(gpu, probe, id, query, host)
            }
            SrsSection::BG2(host) => {
                let mut g2 = self.g2();
                let site = Site::new(Phase::SrsUpload)
                    .device(core.ordinal())
                    .arg("bytes", std::mem::size_of_val(host))
                    .arg("query", "b_g2");
                let span = opts.g2_device.then(|| probe.open(site));
                let uploaded = g2.prepare(gpu, opts.g2_device, id, host);
                if let Some(mut s) = span {
                    s.arg("uploaded", uploaded);
                }
                Ok(())
            }
        }
    }

    /// [`Backend::stage_set`]'s first half on this lane: the sections of `srs` not on the device yet (B_G2
    /// only with `g2d`), marked as on their way so the call's `begin_call` leaves them to the stager.
    pub(super) fn expect_set(&self, opts: CallOpts, srs: SrsRef<'_>) -> Staging<'_> {
        let core = &self.core;
        let gpu = &*core.gpu;
        let missing: Vec<Section> = {
            let (held, g2) = (lock(&core.srs), self.g2());
            sections(srs.id)
                .into_iter()
                .filter(|(id, q)| match q {
                    Some(q) => !held.holds(gpu, *id, *q, srs.query(*q)),
                    None => opts.g2_device && !srs.b_g2.is_empty() && !g2.holds(gpu, *id, srs.b_g2),
                })
                .collect()
        };
        core.gate.expect(missing)
    }

    /// The second half: each marked section copied up on the lane's `srs` stream outside the bases' locks (a
    /// running MSM keeps them), put in place and settled, while a thread beside page-locks the next one. A
    /// section that fails is left to the operations that need it (each uploads its own copy) and the rest
    /// are not staged.
    pub(super) fn stage_expected(&self, probe: &Probe, mut st: Staging<'_>, srs: SrsRef<'_>) -> GResult<()> {
        let core = &self.core;
        let gpu = &*core.gpu;
        let s = &gpu.streams()?.srs;
        let secs = st.left().to_vec();
        let host_bytes = |q: Option<Query>| {
            q.map_or(std::mem::size_of_val(srs.b_g2), |q| std::mem::size_of_val(srs.query(q)))
        };
        let g1_bytes: usize = secs.iter().filter(|(_, q)| q.is_some()).map(|&(_, q)| host_bytes(q)).sum();
        let lock_g2 = self.g2().would_fit(gpu, srs.b_g2, g1_bytes);
        std::thread::scope(|sc| {
            // One section locked ahead of the copy (a registration costs 8–12 ms a 2 KiB C2 section); B_G2
            // only when it will go up.
            let (tx, rx) = std::sync::mpsc::sync_channel(1);
            let ahead = secs.clone();
            sc.spawn(move || {
                for (_, q) in ahead {
                    let locked = match q {
                        Some(q) => lock_in_place(gpu, srs.query(q)),
                        None if lock_g2 => lock_in_place(gpu, srs.b_g2),
                        None => None,
                    };
                    if tx.send(locked).is_err() {
                        break;
                    }
                }
            });
            for sec in secs {
                let (id, q) = sec;
                let locked = rx.recv().ok().flatten();
                let site = Site::new(Phase::SrsUpload).device(core.ordinal()).arg("bytes", host_bytes(q));
                match q {
                    Some(q) => {
                        let host = srs.query(q);
                        gpu.check_mem("the SRS bases (H, L, A, B_G1)", host_bytes(Some(q)))?;
                        let dev = {
                            let _span = probe.open(site.arg("query", q.name()));
                            upload_on(s, host)?
                        };
                        lock(&core.srs).adopt(ResidentKey { params: id, query: q, len: host.len() }, dev);
                    }
                    None if self.g2().room(gpu, srs.b_g2) => {
                        let dev = {
                            let mut span = probe.open(site.arg("query", "b_g2"));
                            span.arg("uploaded", true);
                            upload_on(s, srs.b_g2)?
                        };
                        self.g2().adopt(id, srs.b_g2.len(), dev);
                    }
                    None => {} // no room: B_G2 stays on the host (said once)
                }
                drop(locked);
                crate::util::marks::mark_with(|| format!("gpu_{}_staged", q.map_or("b_g2", |q| q.name())));
                st.settle(sec);
            }
            Ok(())
        })
    }

    /// B_G2's batch addition on the device when `g2d` made the bases resident, else on the host.
    fn batch_add_b_g2_impl(&self, srs: SrsRef<'_>, start: usize, bitmap: &[u64]) -> BResult<G2Projective> {
        let host = &srs.b_g2[start.min(srs.b_g2.len())..];
        let n = host.len().min(bitmap.len() * 64);
        if n == 0 || bitmap.iter().all(|&w| w == 0) {
            return Ok(<G2Projective as group::Group>::identity());
        }
        let gpu = &self.core.gpu;
        self.core.gate.wait((srs.id, None));
        match self.g2().add(gpu, srs.id, start, n, bitmap) {
            Some(r) => {
                let (sum, ms) = r.map_err(berr("b_g2_msm"))?;
                tracing::debug!("g2d: GPU{}: {n} B_G2 bases added on the device in {ms:.2} ms", gpu.ordinal);
                Ok(sum)
            }
            None => self.core.cpu.batch_add_g2(host, bitmap),
        }
    }

    /// B_G2's MSM on the device when `g2d` made the bases resident (and there is room), else `None`.
    fn msm_b_g2_impl(
        &self,
        srs: SrsRef<'_>,
        idx: &[u32],
        parts: &[&[Scalar]],
    ) -> Option<BResult<G2Projective>> {
        if idx.is_empty() {
            return Some(Ok(<G2Projective as group::Group>::identity()));
        }
        let gpu = &self.core.gpu;
        self.core.gate.wait((srs.id, None));
        let r = self.g2().msm(gpu, srs.id, idx, parts)?;
        Some(r.map_err(berr("b_g2_msm")).map(|(sum, ms)| {
            tracing::debug!(
                "g2d: GPU{}: {}-point B_G2 MSM on the device in {ms:.2} ms",
                gpu.ordinal,
                idx.len()
            );
            sum
        }))
    }
}

impl Backend for GpuLane {
    fn name(&self) -> &'static str {
        "gpu"
    }

    fn device(&self) -> String {
        format!("GPU{} {}", self.core.gpu.ordinal, self.core.gpu.name)
    }

    fn has_device(&self) -> bool {
        true
    }

    fn overlaps_host(&self) -> bool {
        true
    }

    /// Device-timed: CUDA events on this lane's stream.
    fn open(&self, probe: &Probe, site: Site) -> Span {
        self.core.open(probe, site)
    }

    fn begin_call(&self, probe: &Probe, opts: CallOpts, srs: SrsRef<'_>) -> BResult<()> {
        self.begin_impl(probe, opts, srs).map_err(berr("srs_upload"))
    }

    fn stage_section(
        &self,
        probe: &Probe,
        opts: CallOpts,
        id: ParamsId,
        section: SrsSection<'_>,
    ) -> BResult<()> {
        self.stage_impl(probe, opts, id, section).map_err(berr("srs_upload"))
    }

    fn stage_set(&self, probe: &Probe, opts: CallOpts, srs: SrsRef<'_>, ready: &dyn Fn()) -> BResult<()> {
        let st = self.expect_set(opts, srs);
        ready();
        self.stage_expected(probe, st, srs).map_err(berr("srs_upload"))
    }

    fn end_call(&self) {
        let resident = self.core.opts().srs_resident;
        lock(&self.core.srs).end(resident);
        if !resident {
            self.g2().release();
        }
    }

    fn ntt_msm_h(
        &self,
        probe: &Probe,
        circuit: usize,
        abc: [Evals; 3],
        hb: Bases<'_>,
    ) -> BResult<G1Projective> {
        h::one(&self.core, probe, circuit, abc, hb).map_err(berr("ntt_msm_h"))
    }

    /// With `hpipe` and several circuits, staged (`sched::hpipe`); else one after another.
    fn ntt_msm_h_many(
        &self,
        probe: &Probe,
        first: usize,
        abcs: Vec<[Evals; 3]>,
        hb: Bases<'_>,
    ) -> BResult<Vec<G1Projective>> {
        // What H may still allocate (its scratch, and a/b/c's buffers if not held): `tailseq` beside it waits
        // for it to end when the device cannot hold both.
        let reserve = abcs
            .iter()
            .map(|abc| {
                let n = h::domain(abc);
                h::h_scratch(n, n.min(hb.host.len())) + 96 * n
            })
            .max()
            .unwrap_or(0);
        let _flight = self.core.h_in_flight(reserve);
        let abcs = if abcs.len() > 1 && self.core.opts().h_pipeline {
            match hpipe::ntt_msm_h(&self.core, probe, first, abcs, hb).map_err(berr("ntt_msm_h"))? {
                Ok(out) => return Ok(out),
                Err(abcs) => abcs,
            }
        } else {
            abcs
        };
        ntt_msm_h_each(self, probe, first, abcs, hb)
    }

    /// With `tailseq` and several groups, one launch sequence (`sched::tailseq`); else one by one.
    fn g1_groups(&self, probe: &Probe, groups: Vec<G1Group<'_>>) -> BResult<Vec<Vec<G1Projective>>> {
        let groups = if groups.len() > 1 && self.core.opts().tail_seq {
            match tailseq::g1_groups(&self.core, probe, groups, GPU_MSM_MIN).map_err(berr("tail_msm"))? {
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
        self.core.cpu.batch_add_g2(bases, bitmap)
    }

    fn batch_add_b_g2(&self, srs: SrsRef<'_>, start: usize, bitmap: &[u64]) -> BResult<G2Projective> {
        self.batch_add_b_g2_impl(srs, start, bitmap)
    }

    /// Below [`GPU_MSM_MIN`] points on the host.
    fn msm_g1(&self, bases: Bases<'_>, scalars: &[Scalar], window: Option<usize>) -> BResult<G1Projective> {
        if bases.host.len().min(scalars.len()) < GPU_MSM_MIN {
            return self.core.cpu.msm_g1(bases, scalars, window);
        }
        self.msm_g1_impl(bases, scalars, window).map_err(berr("msm_g1"))
    }

    /// Anonymous G2 bases: on the host (the prover's B_G2 goes through `msm_b_g2`).
    fn msm_g2(&self, bases: &[G2Affine], scalars: &[Scalar], window: Option<usize>) -> BResult<G2Projective> {
        self.core.cpu.msm_g2(bases, scalars, window)
    }

    fn msm_b_g2(&self, srs: SrsRef<'_>, idx: &[u32], parts: &[&[Scalar]]) -> Option<BResult<G2Projective>> {
        self.msm_b_g2_impl(srs, idx, parts)
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
        fixed_base::fixed_base_g1(&self.core.gpu, base, scalars, out, tick).map_err(berr("fixed_base_g1"))
    }

    fn fixed_base_g2(
        &self,
        base: &G2Projective,
        scalars: &[Scalar],
        out: &mut [G2Affine],
        tick: Tick,
    ) -> BResult<()> {
        fixed_base::fixed_base_g2(&self.core.gpu, base, scalars, out, tick).map_err(berr("fixed_base_g2"))
    }
}
