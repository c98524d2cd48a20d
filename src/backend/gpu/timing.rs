//! Device-side timings for the timeline: a lane's spans are bracketed by CUDA events on its stream and mapped
//! to host instants through a reference event recorded on the idle stream right after a host
//! `Instant::now()` (start = t0 + elapsed(e0, start)), never host time around asynchronous launches. Nested
//! spans of one lane (`ntt_h` inside `ntt_msm_h`) share the outer span's reference, so opening them does not
//! drain the stream.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cudarc::driver::{sys::CUevent_flags, CudaEvent, CudaStream};

use super::device::Gpu;
use super::error::GResult;
use crate::vocab::DeviceTimer;

/// A reference point: host instant `t0` and the event `e0` recorded on the then-idle stream.
pub struct Clock {
    t0: Instant,
    e0: CudaEvent,
}

impl Clock {
    /// Waits for the stream to drain, then pins `t0` to a fresh event on it.
    fn start(gpu: &Gpu) -> GResult<Clock> {
        gpu.stream.synchronize()?;
        let t0 = Instant::now();
        let e0 = mark(gpu)?;
        Ok(Clock { t0, e0 })
    }

    /// The host instant and duration of the device work between `a` and `b`.
    fn span(&self, a: &CudaEvent, b: &CudaEvent) -> GResult<(Instant, Duration)> {
        b.synchronize()?;
        let from = self.e0.elapsed_ms(a)?.max(0.0) as f64;
        let dur = a.elapsed_ms(b)?.max(0.0) as f64;
        Ok((self.t0 + Duration::from_secs_f64(from / 1e3), Duration::from_secs_f64(dur / 1e3)))
    }
}

/// A timing event recorded on the lane's stream now (after everything enqueued so far).
fn mark(gpu: &Gpu) -> GResult<CudaEvent> {
    mark_on(&gpu.stream)
}

/// A timing event recorded on `s` now.
fn mark_on(s: &CudaStream) -> GResult<CudaEvent> {
    Ok(s.record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?)
}

/// The reference of a lane's open spans and how many are open.
#[derive(Default)]
pub struct ClockSlot {
    clock: Option<Arc<Clock>>,
    open: usize,
}

/// Times one span of a lane: from an event on the stream its work starts on to one on the stream it ends on
/// (the lane's stream for both, except `hpipe`'s staged circuits).
pub struct GpuTimer {
    slot: Arc<Mutex<ClockSlot>>,
    clock: Arc<Clock>,
    start: CudaEvent,
    end_on: Arc<CudaStream>,
    /// The end, when recorded before the span closes ([`GpuTimer::end_now`]).
    end: Option<CudaEvent>,
}

impl GpuTimer {
    /// Starts timing on `gpu`'s stream (draining it first when no other span of the lane is open).
    pub fn start(gpu: &Arc<Gpu>, slot: &Arc<Mutex<ClockSlot>>) -> GResult<GpuTimer> {
        GpuTimer::start_on(gpu, slot, &gpu.stream, &gpu.stream)
    }

    /// Starts timing with an event on `first`; the span ends with an event on `last` when stopped.
    pub fn start_on(
        gpu: &Arc<Gpu>,
        slot: &Arc<Mutex<ClockSlot>>,
        first: &CudaStream,
        last: &Arc<CudaStream>,
    ) -> GResult<GpuTimer> {
        let mut s = crate::util::lock(slot);
        let clock = match (&s.clock, s.open) {
            (Some(c), n) if n > 0 => c.clone(),
            _ => Arc::new(Clock::start(gpu)?),
        };
        let start = mark_on(first)?;
        s.clock = Some(clock.clone());
        s.open += 1;
        Ok(GpuTimer { slot: slot.clone(), clock, start, end_on: last.clone(), end: None })
    }

    /// Ends the span's device work here (an event on its last stream now); the span may close later, once
    /// work queued after this point no longer matters to it (`tailseq` closes its spans after one wait).
    pub fn end_now(&mut self) -> GResult<()> {
        self.end = Some(mark_on(&self.end_on)?);
        Ok(())
    }
}

impl DeviceTimer for GpuTimer {
    fn stop(mut self: Box<Self>) -> Result<(Instant, Duration), String> {
        let end = match self.end.take() {
            Some(e) => Ok(e),
            None => mark_on(&self.end_on),
        };
        end.and_then(|end| self.clock.span(&self.start, &end)).map_err(|e| e.to_string())
    }
}

impl Drop for GpuTimer {
    /// Stopped or dropped unstopped (an error between its start and its span's close), it is no longer open.
    fn drop(&mut self) {
        let mut s = crate::util::lock(&self.slot);
        s.open = s.open.saturating_sub(1);
    }
}
