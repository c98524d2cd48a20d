//! `GpuBackend`: the `Backend` implementation on CUDA, one lane per visible device. `ntt_msm_h`, `batch_add`
//! and the G1 tail MSMs run on the lane's device; `msm_g2` and `batch_add_g2` (phase `b_g2_msm`) stay on the
//! CPU, which the prover runs concurrently with the lanes. Device phases are timed with CUDA events.

use std::sync::{Arc, Mutex, MutexGuard};

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use cudarc::driver::{CudaSlice, CudaView};
use tracing::info_span;

use super::device::{gpus, Gpu};
use super::error::{GResult, GpuError};
use super::resident::{find, HostKey, Uploaded};
use super::timing::{emit, Clock, Mark};
use super::{batch_add, limbs, msm, ntt};
use crate::backend::api::{BResult, Backend, BackendError, CallOpts, Srs};
use crate::backend::cpu::backend::CpuBackend;
use crate::groth16::phases;

fn berr(op: &'static str) -> impl Fn(GpuError) -> BackendError {
    move |e| BackendError { backend: "gpu", op, msg: e.to_string() }
}

/// A phase bracket opened by `phase_begin`.
struct Open {
    clock: Clock,
    phase: &'static str,
    circuit: u64,
    start: cudarc::driver::CudaEvent,
    args: Vec<(&'static str, String)>,
    subs: Vec<Mark>,
}

/// Mutable per-lane state: the call's options, the SRS on the device, per-call uploads, the open phase.
#[derive(Default)]
struct State {
    opts: CallOpts,
    in_call: bool,
    srs: Vec<Uploaded>,
    scratch: Vec<Uploaded>,
    open: Option<Open>,
}

/// One device as a backend of its own (the prover's `gpu<d>` lane).
pub struct GpuLane {
    gpu: Arc<Gpu>,
    cpu: Arc<CpuBackend>,
    state: Mutex<State>,
}

/// The device view of `v`: resident SRS, a per-call upload, or (outside a call) a fresh upload in `tmp`.
fn bases_view<'a, T: super::Limbs>(
    gpu: &Gpu,
    st: &'a mut State,
    tmp: &'a mut Option<Uploaded>,
    v: &[T],
) -> GResult<CudaView<'a, u64>> {
    let known = find(&st.srs, v).is_some() || find(&st.scratch, v).is_some();
    if !known {
        gpu.check_mem("bases", std::mem::size_of_val(v))?;
        let up = Uploaded::new(gpu, v)?;
        if st.in_call {
            st.scratch.push(up);
        } else {
            *tmp = Some(up);
        }
    }
    let st: &'a State = st;
    if let Some(v) = find(&st.srs, v).or_else(|| find(&st.scratch, v)) {
        return Ok(v);
    }
    match tmp {
        Some(u) => Ok(u.dev.slice(..)),
        None => Err(GpuError::Invalid("bases vanished from the device cache".into())),
    }
}

/// Page-locks host memory for the duration of an upload (B1); unregisters on drop. A buffer the driver
/// will not register (e.g. it shares a page with one registered already) is uploaded pageable instead: B1
/// changes speed, never whether a proof succeeds.
struct Pinned(Vec<*mut std::ffi::c_void>);

impl Pinned {
    fn new(gpu: &Gpu, bufs: &[&[Scalar]]) -> GResult<Pinned> {
        use cudarc::driver::sys;
        gpu.ctx.bind_to_thread()?;
        let mut done = Pinned(Vec::new());
        for b in bufs.iter().filter(|b| !b.is_empty()) {
            let p = b.as_ptr() as *mut std::ffi::c_void;
            // SAFETY: `b` is a live host allocation of `size_of_val(b)` bytes that outlives the registration
            // (the guard is dropped, after a stream synchronize, before the vectors); flags 0 = page-lock only.
            let r = unsafe { sys::cuMemHostRegister_v2(p, std::mem::size_of_val(*b), 0) };
            if r == sys::CUresult::CUDA_SUCCESS {
                done.0.push(p);
            } else {
                tracing::warn!("pin_abc: cuMemHostRegister: {r:?}; uploading this buffer pageable");
            }
        }
        Ok(done)
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        for &p in &self.0 {
            // SAFETY: `p` was registered by `Pinned::new` and is unregistered exactly once.
            let _ = unsafe { cudarc::driver::sys::cuMemHostUnregister(p) };
        }
    }
}

/// a/b/c copied into zero-padded device buffers of N = 2^log_n elements.
fn upload_padded(gpu: &Gpu, v: &[Scalar], n: usize) -> GResult<CudaSlice<u64>> {
    let mut d = gpu.stream.alloc_zeros::<u64>(4 * n)?;
    if !v.is_empty() {
        gpu.stream.memcpy_htod(limbs(v), &mut d.slice_mut(0..4 * v.len()))?;
    }
    Ok(d)
}

impl GpuLane {
    fn new(gpu: Arc<Gpu>, cpu: Arc<CpuBackend>) -> GpuLane {
        GpuLane { gpu, cpu, state: Mutex::new(State::default()) }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records a sub-phase mark when a phase is open.
    fn sub(
        &self,
        st: &mut State,
        phase: &'static str,
        start: Option<cudarc::driver::CudaEvent>,
    ) -> GResult<()> {
        if let (Some(open), Some(start)) = (st.open.as_mut(), start) {
            let end = open.clock.mark(&self.gpu)?;
            open.subs.push(Mark { phase, circuit: Some(open.circuit), start, end, args: Vec::new() });
        }
        Ok(())
    }

    fn mark(&self, st: &State) -> GResult<Option<cudarc::driver::CudaEvent>> {
        st.open.as_ref().map(|o| o.clock.mark(&self.gpu)).transpose()
    }

    fn ntt_msm_h_impl(
        &self,
        a: Vec<Scalar>,
        b: Vec<Scalar>,
        c: Vec<Scalar>,
        h: &[G1Affine],
    ) -> GResult<G1Projective> {
        let gpu = &*self.gpu;
        let mut st = self.state();
        let n = a.len().max(b.len()).max(c.len()).max(1).next_power_of_two();
        let log_n = n.trailing_zeros();
        let m = n.min(h.len());
        let window = msm::window_for(m.max(1));
        let need = 3 * n * 32 + ntt::scratch_bytes(log_n) + msm::scratch_bytes(m.max(1), window);
        gpu.check_mem("ntt_msm_h (a, b, c and scratch)", need)?;
        let t_ntt = self.mark(&st)?;
        let (mut da, mut db, mut dc) = {
            let _pin = if st.opts.pin_abc {
                let _span = info_span!(phases::PIN_ABC, device = gpu.ordinal as u64, n = n).entered();
                Some(Pinned::new(gpu, &[&a, &b, &c])?)
            } else {
                None
            };
            let up = (upload_padded(gpu, &a, n)?, upload_padded(gpu, &b, n)?, upload_padded(gpu, &c, n)?);
            gpu.stream.synchronize()?;
            up
        };
        drop((a, b, c));
        ntt::compute_h(gpu, &mut da, &mut db, &mut dc, log_n)?;
        drop((db, dc));
        self.sub(&mut st, phases::NTT_H, t_ntt)?;
        let t_msm = self.mark(&st)?;
        let mut tmp = None;
        let r = if m == 0 {
            <G1Projective as group::Group>::identity()
        } else {
            let bases = bases_view(gpu, &mut st, &mut tmp, &h[..m])?;
            msm::msm_g1(gpu, &bases, &da.slice(0..4 * m), m, None)?
        };
        self.sub(&mut st, phases::MSM_H, t_msm)?;
        Ok(r)
    }

    fn msm_g1_impl(
        &self,
        bases: &[G1Affine],
        scalars: &[Scalar],
        window: Option<usize>,
    ) -> GResult<G1Projective> {
        let n = bases.len().min(scalars.len());
        if n == 0 {
            return Ok(<G1Projective as group::Group>::identity());
        }
        let gpu = &*self.gpu;
        let mut st = self.state();
        let w = window.unwrap_or_else(|| msm::window_for(n));
        gpu.check_mem("msm_g1 (scalars and scratch)", n * 32 + msm::scratch_bytes(n, w))?;
        let mut tmp = None;
        let view = bases_view(gpu, &mut st, &mut tmp, &bases[..n])?;
        let ds = gpu.stream.clone_htod(limbs(&scalars[..n]))?;
        msm::msm_g1(gpu, &view, &ds.slice(..), n, window)
    }

    fn batch_add_g1_impl(&self, bases: &[G1Affine], bitmap: &[u64]) -> GResult<G1Projective> {
        let n = bases.len().min(bitmap.len() * 64);
        if n == 0 || bitmap.iter().all(|&w| w == 0) {
            return Ok(<G1Projective as group::Group>::identity());
        }
        let gpu = &*self.gpu;
        let mut st = self.state();
        let mut tmp = None;
        let view = bases_view(gpu, &mut st, &mut tmp, &bases[..n])?;
        batch_add::batch_add_g1(gpu, &view, n, bitmap)
    }

    fn begin_impl(&self, opts: CallOpts, srs: Srs<'_>) -> GResult<()> {
        let gpu = &*self.gpu;
        let mut st = self.state();
        st.opts = opts;
        st.in_call = true;
        st.scratch.clear();
        let parts = [srs.h, srs.l, srs.a, srs.b_g1];
        let same =
            st.srs.len() == parts.len() && st.srs.iter().zip(parts).all(|(u, p)| u.is(&HostKey::of(p)));
        if !same {
            st.srs.clear(); // another params (or none yet): free before uploading
            let need: usize = parts.iter().map(|p| std::mem::size_of_val(*p)).sum();
            gpu.check_mem("the SRS bases (H, L, A, B_G1)", need)?;
            let _span =
                info_span!(phases::SRS_UPLOAD, device = gpu.ordinal as u64, bytes = need as u64).entered();
            for p in parts {
                st.srs.push(Uploaded::new(gpu, p)?);
            }
        }
        Ok(())
    }

    fn phase_begin_impl(
        &self,
        phase: &'static str,
        circuit: u64,
        args: Vec<(&'static str, String)>,
    ) -> GResult<()> {
        let clock = Clock::start(&self.gpu)?;
        let start = clock.mark(&self.gpu)?;
        self.state().open = Some(Open { clock, phase, circuit, start, args, subs: Vec::new() });
        Ok(())
    }

    fn phase_end_impl(&self) -> GResult<()> {
        let Some(open) = self.state().open.take() else { return Ok(()) };
        let end = open.clock.mark(&self.gpu)?;
        let mut marks = vec![Mark {
            phase: open.phase,
            circuit: Some(open.circuit),
            start: open.start,
            end,
            args: open.args,
        }];
        marks.extend(open.subs);
        emit(&open.clock, &self.gpu, marks)
    }
}

impl Backend for GpuLane {
    fn name(&self) -> &'static str {
        "gpu"
    }

    fn device(&self) -> String {
        format!("GPU{} {}", self.gpu.ordinal, self.gpu.name)
    }

    fn ntt_msm_h(
        &self,
        a: Vec<Scalar>,
        b: Vec<Scalar>,
        c: Vec<Scalar>,
        h: &[G1Affine],
    ) -> BResult<G1Projective> {
        self.ntt_msm_h_impl(a, b, c, h).map_err(berr("ntt_msm_h"))
    }

    fn batch_add_g1(&self, bases: &[G1Affine], bitmap: &[u64]) -> BResult<G1Projective> {
        self.batch_add_g1_impl(bases, bitmap).map_err(berr("batch_add"))
    }

    /// On the CPU: it belongs to `b_g2_msm`, which runs beside the device lanes.
    fn batch_add_g2(&self, bases: &[G2Affine], bitmap: &[u64]) -> BResult<G2Projective> {
        self.cpu.batch_add_g2(bases, bitmap)
    }

    fn msm_g1(&self, bases: &[G1Affine], scalars: &[Scalar], window: Option<usize>) -> BResult<G1Projective> {
        self.msm_g1_impl(bases, scalars, window).map_err(berr("msm_g1"))
    }

    /// On the CPU on every backend (DESIGN.md §3).
    fn msm_g2(&self, bases: &[G2Affine], scalars: &[Scalar], window: Option<usize>) -> BResult<G2Projective> {
        self.cpu.msm_g2(bases, scalars, window)
    }

    fn window_for(&self, n: usize) -> usize {
        msm::window_for(n)
    }

    fn device_timed(&self) -> bool {
        true
    }

    fn begin_call(&self, opts: CallOpts, srs: Srs<'_>) -> BResult<()> {
        self.begin_impl(opts, srs).map_err(berr("srs_upload"))
    }

    fn end_call(&self) {
        let mut st = self.state();
        st.in_call = false;
        st.scratch.clear();
        st.open = None;
        if !st.opts.srs_resident {
            st.srs.clear();
        }
    }

    fn phase_begin(
        &self,
        phase: &'static str,
        circuit: u64,
        args: Vec<(&'static str, String)>,
    ) -> BResult<()> {
        self.phase_begin_impl(phase, circuit, args).map_err(berr(phase))
    }

    fn phase_end(&self) -> BResult<()> {
        self.phase_end_impl().map_err(berr("timing"))
    }
}

/// The CUDA backend: every visible device as a lane; direct calls (bench, tests) use lane 0.
pub struct GpuBackend {
    lanes: Vec<GpuLane>,
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
        Ok(GpuBackend { lanes })
    }

    fn first(&self) -> &GpuLane {
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

    fn ntt_msm_h(
        &self,
        a: Vec<Scalar>,
        b: Vec<Scalar>,
        c: Vec<Scalar>,
        h: &[G1Affine],
    ) -> BResult<G1Projective> {
        self.first().ntt_msm_h(a, b, c, h)
    }

    fn batch_add_g1(&self, bases: &[G1Affine], bitmap: &[u64]) -> BResult<G1Projective> {
        self.first().batch_add_g1(bases, bitmap)
    }

    fn batch_add_g2(&self, bases: &[G2Affine], bitmap: &[u64]) -> BResult<G2Projective> {
        self.first().batch_add_g2(bases, bitmap)
    }

    fn msm_g1(&self, bases: &[G1Affine], scalars: &[Scalar], window: Option<usize>) -> BResult<G1Projective> {
        self.first().msm_g1(bases, scalars, window)
    }

    fn msm_g2(&self, bases: &[G2Affine], scalars: &[Scalar], window: Option<usize>) -> BResult<G2Projective> {
        self.first().msm_g2(bases, scalars, window)
    }

    fn window_for(&self, n: usize) -> usize {
        msm::window_for(n)
    }

    fn lanes(&self) -> usize {
        self.lanes.len()
    }

    fn lane(&self, i: usize) -> Option<&dyn Backend> {
        self.lanes.get(i).map(|l| l as &dyn Backend)
    }

    fn device_timed(&self) -> bool {
        true
    }

    /// Uploads (or finds resident) the SRS on every device, the devices in parallel.
    fn begin_call(&self, opts: CallOpts, srs: Srs<'_>) -> BResult<()> {
        std::thread::scope(|s| {
            let hs: Vec<_> = self.lanes.iter().map(|l| s.spawn(move || l.begin_call(opts, srs))).collect();
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

    fn phase_begin(
        &self,
        phase: &'static str,
        circuit: u64,
        args: Vec<(&'static str, String)>,
    ) -> BResult<()> {
        self.first().phase_begin(phase, circuit, args)
    }

    fn phase_end(&self) -> BResult<()> {
        self.first().phase_end()
    }
}
