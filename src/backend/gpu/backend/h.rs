//! A lane's `ntt_msm_h`: one circuit's a/b/c uploaded (B2's pool, B1's page-locked vectors, or pageable) and
//! through compute_h on the lane's streams, then msm_h; with `hpipe`, circuit k + 1 staged on `Gpu::stage`'s
//! streams by a thread of its own (`gpu::hpipe`) while circuit k's msm_h runs.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use blstrs::{G1Projective, Scalar};
use cudarc::driver::{CudaSlice, CudaStream};

use super::super::abc;
use super::super::device::Gpu;
use super::super::error::GResult;
use super::super::ntt::{self, HStreams};
use super::super::staging::Staging;
use super::super::{hpipe, msm, msm_shift};
use super::{bases_view, GpuLane};
use crate::backend::api::{Backend, Bases, BasesId, CallOpts, Query};
use crate::cs::Evals;
use crate::vocab::{Phase, Probe, Site, Span};

/// The domain of one circuit's a/b/c: the next power of two of the longest.
pub(super) fn domain(abc: &[Evals; 3]) -> usize {
    abc.iter().map(|e| e.len()).max().unwrap_or(0).max(1).next_power_of_two()
}

/// Device scratch of one circuit's compute_h and msm_h beside its a/b/c (the memory checks' other term).
fn h_scratch(n: usize, m: usize) -> usize {
    ntt::scratch_bytes(n.trailing_zeros()) + msm::scratch_bytes(m.max(1), msm::window_for(m.max(1)))
}

/// Where one circuit's a/b/c go up and through compute_h: the lane's streams or `hpipe`'s staging ones.
#[derive(Clone, Copy)]
struct StageOn<'s> {
    /// The uploads' stream (a, b, c in order).
    up: &'s Arc<CudaStream>,
    /// compute_h's streams.
    h: HStreams<'s>,
    /// The call's options (the upload's B1/B2).
    opts: CallOpts,
}

/// Page-locks host memory for the duration of an upload (B1); unregisters on drop. A buffer the driver
/// will not register (e.g. it shares a page with one registered already) is uploaded pageable instead: B1
/// changes speed, never whether a proof succeeds.
struct Pinned(Vec<(*mut std::ffi::c_void, u64)>);

/// Host bytes this process has page-locked through [`Pinned`] right now (the memory lanes' `host_pinned`).
pub(super) static PINNED_BYTES: AtomicU64 = AtomicU64::new(0);

impl Pinned {
    fn new(gpu: &Gpu, bufs: &[&[Scalar]]) -> GResult<Pinned> {
        use cudarc::driver::sys;
        gpu.ctx.bind_to_thread()?;
        let mut done = Pinned(Vec::new());
        for b in bufs.iter().filter(|b| !b.is_empty()) {
            let p = b.as_ptr() as *mut std::ffi::c_void;
            // SAFETY: `b` is a live host allocation of `size_of_val(b)` bytes that outlives the registration
            // (the guard is dropped, after a stream synchronize, before the vectors); flags 0 = page-lock only.
            let bytes = std::mem::size_of_val(*b);
            let r = unsafe { sys::cuMemHostRegister_v2(p, bytes, 0) };
            if r == sys::CUresult::CUDA_SUCCESS {
                PINNED_BYTES.fetch_add(bytes as u64, Ordering::Relaxed);
                done.0.push((p, bytes as u64));
            } else {
                tracing::warn!("pin_abc: cuMemHostRegister: {r:?}; uploading this buffer pageable");
            }
        }
        Ok(done)
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        for &(p, bytes) in &self.0 {
            // SAFETY: `p` was registered by `Pinned::new` and is unregistered exactly once.
            let _ = unsafe { cudarc::driver::sys::cuMemHostUnregister(p) };
            PINNED_BYTES.fetch_sub(bytes, Ordering::Relaxed);
        }
    }
}

impl GpuLane {
    /// The lane's own streams for one circuit's a/b/c: with `streams`, uploads on `side()[0]` and b's, c's
    /// transforms on `side()[1]`, `[2]` beside a's on the lane's stream; else all on the lane's stream.
    fn own_streams(&self, opts: CallOpts) -> GResult<StageOn<'_>> {
        let gpu = &*self.gpu;
        Ok(if opts.abc_streams {
            let s = gpu.side()?;
            StageOn { up: &s[0], h: HStreams { a: &gpu.stream, b: &s[1], c: &s[2] }, opts }
        } else {
            let h = HStreams { a: &gpu.stream, b: &gpu.stream, c: &gpu.stream };
            StageOn { up: &gpu.stream, h, opts }
        })
    }

    /// `hpipe`'s staging streams in the same roles (`Gpu::stage`), so a staged circuit never queues behind the
    /// lane's MSM.
    fn stage_streams(&self, opts: CallOpts) -> GResult<StageOn<'_>> {
        let s = self.gpu.stage()?;
        Ok(if opts.abc_streams {
            StageOn { up: &s[0], h: HStreams { a: &s[1], b: &s[2], c: &s[3] }, opts }
        } else {
            StageOn { up: &s[1], h: HStreams { a: &s[1], b: &s[1], c: &s[1] }, opts }
        })
    }

    pub(super) fn ntt_msm_h_impl(
        &self,
        probe: &Probe,
        circuit: usize,
        abc: [Evals; 3],
        h: Bases<'_>,
    ) -> GResult<G1Projective> {
        let gpu = &*self.gpu;
        let n = domain(&abc);
        let m = n.min(h.host.len());
        let mut held = self.abc.lock().unwrap_or_else(|p| p.into_inner());
        let opts = self.state().opts;
        if !opts.h_pipeline {
            // The second set is `hpipe`'s: a call without it holds one.
            held.trim(1);
        }
        gpu.check_mem("ntt_msm_h (a, b, c and scratch)", held.extra_bytes(n, 1) + h_scratch(n, m))?;
        let prof = abc::HProfile::from_env();
        let mut bufs = held.take(gpu, n)?;
        prof.mark("buffers");
        let on = self.own_streams(opts)?;
        // Buffers `take` just allocated are stream-ordered on the lane's stream.
        if !Arc::ptr_eq(on.up, &gpu.stream) {
            on.up.join(&gpu.stream)?;
        }
        self.stage_h(probe, circuit, abc, &mut bufs, n, on, &prof)?;
        let r = self.msm_h(probe, circuit, &bufs, h, m);
        prof.mark("msm_h");
        prof.report(n);
        held.keep(bufs);
        r
    }

    /// `hpipe`: the lane's circuits with circuit k + 1 uploaded and transformed on the staging streams (a thread
    /// of its own, `gpu::hpipe`) while circuit k's msm_h runs on the lane's; two a/b/c buffer sets. The
    /// circuits back (`Err`) when the second set does not fit beside the scratch: the caller runs them one
    /// after another.
    #[allow(clippy::type_complexity)] // the results, or the inputs handed back
    pub(super) fn ntt_msm_h_staged(
        &self,
        probe: &Probe,
        first: usize,
        abcs: Vec<[Evals; 3]>,
        h: Bases<'_>,
    ) -> GResult<Result<Vec<G1Projective>, Vec<[Evals; 3]>>> {
        let gpu = &*self.gpu;
        let n = abcs.iter().map(domain).max().unwrap_or(1);
        let m = n.min(h.host.len());
        let mut held = self.abc.lock().unwrap_or_else(|p| p.into_inner());
        let need = held.extra_bytes(n, 2) + h_scratch(n, m);
        if let Err(e) = gpu.check_mem("hpipe (two sets of a, b, c and scratch)", need) {
            tracing::warn!("GPU{}: {e}; hpipe off for this call, circuits one after another", gpu.ordinal);
            return Ok(Err(abcs));
        }
        let sets = vec![held.take(gpu, n)?, held.take(gpu, n)?];
        let opts = self.state().opts;
        let on = self.stage_streams(opts)?;
        // Buffers `take` just allocated are stream-ordered on the lane's stream; none of this call's MSMs is
        // queued there yet.
        on.up.join(&gpu.stream)?;
        let stage = |k: usize, abc: [Evals; 3], bufs: &mut [CudaSlice<u64>; 3]| -> GResult<Span> {
            let c = first + k;
            let site = Site::new(Phase::NttMsmH).circuit(c).arg("n", abc[0].len()).arg("staged", true);
            let span = self.open_on(probe, site, on.up, &gpu.stream);
            let prof = abc::HProfile::from_env();
            self.stage_h(probe, c, abc, bufs, n, on, &prof)?;
            prof.report(n);
            Ok(span)
        };
        let finish = |k: usize, span: Span, bufs: &[CudaSlice<u64>; 3]| {
            let r = self.msm_h(probe, first + k, bufs, h, m);
            drop(span);
            r
        };
        let stop = || probe.checkpoint().is_err();
        let (out, sets) = hpipe::run(abcs, sets, &stage, finish, &stop)?;
        for s in sets {
            held.keep(s);
        }
        Ok(Ok(out))
    }

    /// One circuit's a/b/c into `bufs` (zero-padded to `n`), then compute_h on `on`'s streams (span `ntt_h`,
    /// from the first upload to the combination): H's coefficients end in `bufs[0]`.
    #[allow(clippy::too_many_arguments)] // one circuit's whole staging; a struct would only rename them
    fn stage_h(
        &self,
        probe: &Probe,
        circuit: usize,
        [a, b, c]: [Evals; 3],
        bufs: &mut [CudaSlice<u64>; 3],
        n: usize,
        on: StageOn<'_>,
        prof: &abc::HProfile,
    ) -> GResult<()> {
        let gpu = &*self.gpu;
        // The call's options were read at its start: the state's lock is the MSM's while it runs (a staged
        // circuit waiting for it would queue behind the MSM it should run under).
        let CallOpts { pin_abc, pinned_pool, .. } = on.opts;
        let ntt_span =
            self.open_on(probe, Site::new(Phase::NttH).circuit(circuit).arg("n", n), on.up, on.h.a);
        let up = on.up;
        let lent = [&a, &b, &c].iter().all(|e| matches!(e, Evals::Lent(l) if l.block().page_locked()));
        if lent {
            // Synthesis wrote a/b/c into the page-locked pool: one DMA each, no host copy.
            abc::fill(up, bufs, [&a, &b, &c], n, |src, dst| abc::copy(up, src, dst))?;
        } else if pinned_pool && !pin_abc {
            let mut slot = self.staging.lock().unwrap_or_else(|p| p.into_inner());
            let pool = match &mut *slot {
                Some(p) => p,
                none => {
                    let p = Staging::new(gpu)?;
                    PINNED_BYTES.fetch_add(p.bytes(), Ordering::Relaxed);
                    none.insert(p)
                }
            };
            abc::fill(up, bufs, [&a, &b, &c], n, |src, dst| pool.upload(up, src, dst))?;
        } else {
            let _pin = if pin_abc {
                let site = Site::new(Phase::PinAbc).circuit(circuit).device(self.ordinal()).arg("n", n);
                let _span = probe.open(site);
                Some(Pinned::new(gpu, &[&a, &b, &c])?)
            } else {
                None
            };
            abc::fill(up, bufs, [&a, &b, &c], n, |src, dst| abc::copy(up, src, dst))?;
            // B1's registration ends with `_pin`: the copies must be done by then.
            up.synchronize()?;
        }
        prof.mark("upload (host side)");
        abc::release_after(up, [a, b, c])?;
        prof.mark("host release handed off");
        let [da, db, dc] = bufs;
        let log_n = n.trailing_zeros();
        if ntt::old_path() {
            ntt::compute_h_with(gpu, on.h, da, db, dc, log_n)?;
        } else {
            ntt::compute_h(gpu, da, db, dc, log_n, false)?;
        }
        prof.sync_mark(on.h.a, "compute_h (+ queued copies)")?;
        drop(ntt_span);
        Ok(())
    }

    /// msm_h of one circuit: Σ hᵢ·Hᵢ over the first `m` coefficients in `bufs[0]`, on the lane's streams (span
    /// `msm_h`; shifted bases when `shift` has them).
    fn msm_h(
        &self,
        probe: &Probe,
        circuit: usize,
        bufs: &[CudaSlice<u64>; 3],
        h: Bases<'_>,
        m: usize,
    ) -> GResult<G1Projective> {
        let gpu = &*self.gpu;
        let shifted = self.prepare_shifted(probe, &h, m)?;
        let _msm_span =
            self.open(probe, Site::new(Phase::MsmH).circuit(circuit).arg("n", m).arg("shifted", shifted));
        if m == 0 {
            return Ok(<G1Projective as group::Group>::identity());
        }
        let mut st = self.state();
        let msm_overlap = st.opts.msm_overlap;
        match &st.shifted {
            Some((_, sb)) if shifted => {
                msm_shift::count_prover(false);
                msm_shift::msm_g1_shifted(gpu, sb, &bufs[0].slice(0..4 * m), m, msm_overlap)
            }
            _ => {
                let mut tmp = None;
                let view = bases_view(gpu, &mut st, &mut tmp, h.prefix(m))?;
                msm::msm_g1(gpu, &view, &bufs[0].slice(0..4 * m), m, None, msm_overlap)
            }
        }
    }

    /// `shift`: whether msm_h over `m` points of `h` runs on shifted copies, building them (span `srs_upload`,
    /// query `h_shifted`) on first use for these params. Only with `srs_resident` (copies built per call would
    /// cost more than they save: 3.3 s at 2^24) and from [`msm_shift::MIN_POINTS`]; when
    /// the copies and the MSM's scratch do not fit, one warning and the per-window MSM for these params.
    fn prepare_shifted(&self, probe: &Probe, h: &Bases<'_>, m: usize) -> GResult<bool> {
        let gpu = &*self.gpu;
        let mut st = self.state();
        let BasesId::Srs { params, query: Query::H, start: 0 } = h.id else { return Ok(false) };
        let opts = st.opts;
        if !(opts.msm_shift && opts.srs_resident)
            || m < msm_shift::min_points()
            || st.shift_refused == Some(params)
        {
            return Ok(false);
        }
        let key = match st.srs.get(params, Query::H) {
            Some((k, _)) if k.len >= m => *k,
            _ => return Ok(false),
        };
        if st.shifted.as_ref().is_some_and(|(k, sb)| *k == key && sb.len() >= m) {
            return Ok(true);
        }
        let len = key.len;
        let c = msm_shift::window_for(len);
        st.shifted = None;
        let need = msm_shift::shifted_bytes(len, c) + msm_shift::scratch_bytes(len, c);
        if let Err(e) = gpu.check_mem("shifted H bases (toggle shift)", need) {
            tracing::warn!("GPU{}: {e}; msm_h runs per window for these params", gpu.ordinal);
            st.shift_refused = Some(params);
            return Ok(false);
        }
        let site = Site::new(Phase::SrsUpload)
            .device(self.ordinal())
            .arg("query", "h_shifted")
            .arg("bytes", msm_shift::shifted_bytes(len, c));
        let _span = probe.open(site);
        let Some((_, dev)) = st.srs.get(params, Query::H) else { return Ok(false) };
        let sb = msm_shift::shift_bases(gpu, &dev.slice(..12 * len), len, Some(c))?;
        msm_shift::count_prover(true);
        st.shifted = Some((key, sb));
        Ok(true)
    }
}
