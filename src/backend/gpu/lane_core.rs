//! What one device's lane holds, apart from the `Backend` face ([`lane::GpuLane`](super::lane::GpuLane)): the
//! device, the span clock, the call's options, the bases on the device, the a/b/c buffers, B2's staging, `g2d`'s
//! state and the lane's counters. The schemes (`h`, `sched::hpipe`, `sched::tailseq`) take it whole, so each is
//! one file with no fragment of the lane's impl elsewhere.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use cudarc::driver::CudaStream;

use super::device::Gpu;
use super::kernels::msm::shift;
use super::mem::abc::AbcBufs;
use super::mem::b2_staging::Staging;
use super::mem::srs::DeviceSrs;
use super::mem::stage_gate::StageGate;
use super::mem::upload::UploadCtx;
use super::sched::g2d::G2Dev;
use super::timing::{ClockSlot, GpuTimer};
use crate::backend::api::CallOpts;
use crate::backend::cpu::backend::CpuBackend;
use crate::vocab::{Probe, Site, Span};

/// The lock helper this module's users share.
pub use crate::util::lock;

/// What a lane has done, counted per lane (so a test reads its own backend's counts, whatever other tests run
/// at the same time).
#[derive(Debug, Default)]
pub struct Counters {
    /// Circuits `hpipe` staged ahead of their msm_h.
    pub hpipe_staged: AtomicUsize,
    /// `tailseq` sequences run to the end.
    pub tailseq_runs: AtomicUsize,
    /// Shifted copies of H built for msm_h (`shift`).
    pub shift_builds: AtomicUsize,
    /// msm_h runs over shifted copies.
    pub shift_runs: AtomicUsize,
    /// Host bytes page-locked now by B1's registrations and B2's staging buffers.
    pub pinned_bytes: AtomicU64,
}

/// A copy of a lane's counts at one moment (tests subtract two).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// See [`Counters::hpipe_staged`].
    pub hpipe_staged: usize,
    /// See [`Counters::tailseq_runs`].
    pub tailseq_runs: usize,
    /// See [`Counters::shift_builds`].
    pub shift_builds: usize,
    /// See [`Counters::shift_runs`].
    pub shift_runs: usize,
}

impl Counters {
    /// The counts now.
    pub fn get(&self) -> Counts {
        Counts {
            hpipe_staged: self.hpipe_staged.load(Ordering::Relaxed),
            tailseq_runs: self.tailseq_runs.load(Ordering::Relaxed),
            shift_builds: self.shift_builds.load(Ordering::Relaxed),
            shift_runs: self.shift_runs.load(Ordering::Relaxed),
        }
    }

    /// Adds one to `c`.
    pub fn bump(c: &AtomicUsize) {
        c.fetch_add(1, Ordering::Relaxed);
    }
}

/// One device's lane (module doc).
pub struct LaneCore {
    /// The lane's device.
    pub gpu: Arc<Gpu>,
    /// Where the lane's host-side operations run (small MSMs, G2 MSMs, B_G2 without `g2d`).
    pub cpu: Arc<CpuBackend>,
    /// The reference of the lane's open device-timed spans.
    pub clock: Arc<Mutex<ClockSlot>>,
    /// The call's options, set at `begin_call`.
    pub opts: Mutex<CallOpts>,
    /// The bases on the device.
    pub srs: Mutex<DeviceSrs>,
    /// The lane's a/b/c device buffer sets, kept across calls.
    pub abc: Mutex<AbcBufs>,
    /// B2's staging buffers for heap a/b/c, allocated on first use and kept.
    pub staging: Mutex<Option<Staging>>,
    /// `g2d`: B_G2 on the device and its second stream (its own lock, so the host's `b_g2_msm` thread never
    /// waits on the lane's G1 work).
    pub g2: Mutex<G2Dev>,
    /// The SRS sections still on their way to the device (`Backend::stage_set`), which operations wait for.
    pub gate: StageGate,
    /// What the lane has done.
    pub counters: Counters,
    /// Smallest msm_h that runs over shifted copies ([`shift::MIN_POINTS`]; tests lower it per backend).
    pub shift_min: AtomicUsize,
    /// Device bytes the lane's `ntt_msm_h` in flight may still allocate (0: none in flight); `tailseq`, which
    /// runs beside it, waits for [`LaneCore::h_done`] when both do not fit.
    h_flight: Mutex<usize>,
    /// Signalled when the lane's `ntt_msm_h` ends.
    h_done: Condvar,
}

/// An `ntt_msm_h` in flight on a lane ([`LaneCore::h_in_flight`]); its end when dropped.
pub struct HFlight<'a>(&'a LaneCore);

impl Drop for HFlight<'_> {
    fn drop(&mut self) {
        *lock(&self.0.h_flight) = 0;
        self.0.h_done.notify_all();
    }
}

impl LaneCore {
    /// A lane on `gpu` that has done nothing yet.
    pub fn new(gpu: Arc<Gpu>, cpu: Arc<CpuBackend>) -> LaneCore {
        LaneCore {
            gpu,
            cpu,
            clock: Arc::default(),
            opts: Mutex::default(),
            srs: Mutex::default(),
            abc: Mutex::default(),
            staging: Mutex::new(None),
            g2: Mutex::default(),
            gate: StageGate::default(),
            counters: Counters::default(),
            shift_min: AtomicUsize::new(shift::MIN_POINTS),
            h_flight: Mutex::new(0),
            h_done: Condvar::new(),
        }
    }

    /// Marks an `ntt_msm_h` that may still allocate `bytes` on the device as in flight until the guard drops.
    pub fn h_in_flight(&self, bytes: usize) -> HFlight<'_> {
        *lock(&self.h_flight) = bytes.max(1);
        HFlight(self)
    }

    /// The bytes the `ntt_msm_h` in flight may still allocate (0: none in flight).
    pub fn h_reserved(&self) -> usize {
        *lock(&self.h_flight)
    }

    /// Waits until no `ntt_msm_h` is in flight on the lane.
    pub fn wait_h_idle(&self) {
        let mut g = lock(&self.h_flight);
        while *g > 0 {
            g = self.h_done.wait(g).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// The device index (the spans' `device`).
    pub fn ordinal(&self) -> u64 {
        self.gpu.ordinal as u64
    }

    /// The call's options.
    pub fn opts(&self) -> CallOpts {
        *lock(&self.opts)
    }

    /// A span timed from an event on `first` to one on `last` (host time when events fail or nobody records).
    pub fn open_on(&self, probe: &Probe, site: Site, first: &CudaStream, last: &Arc<CudaStream>) -> Span {
        let site = site.device(self.ordinal());
        if !probe.recording() {
            return probe.open(site);
        }
        match GpuTimer::start_on(&self.gpu, &self.clock, first, last) {
            Ok(t) => probe.open_timed(site, Box::new(t)),
            Err(_) => probe.open(site), // no events: host time rather than no span
        }
    }

    /// A span of the lane's main stream.
    pub fn open(&self, probe: &Probe, site: Site) -> Span {
        self.open_on(probe, site, &self.gpu.stream, &self.gpu.stream)
    }

    /// What an upload of a/b/c may use.
    pub fn upload_ctx(&self) -> UploadCtx<'_> {
        UploadCtx { gpu: &self.gpu, staging: &self.staging, pinned: &self.counters.pinned_bytes }
    }
}
