//! Device-side timings for the timeline: a lane's spans are bracketed by CUDA events on its stream and mapped
//! to host instants through a reference event recorded on the idle stream right after a host
//! `Instant::now()` (start = t0 + elapsed(e0, start)), never host time around asynchronous launches. Nested
//! spans of one lane (`ntt_h` inside `ntt_msm_h`) share the outer span's reference, so opening them does not
//! drain the stream.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cudarc::driver::{sys::CUevent_flags, CudaEvent};

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

/// A timing event recorded on the stream now (after everything enqueued so far).
fn mark(gpu: &Gpu) -> GResult<CudaEvent> {
    Ok(gpu.stream.record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?)
}

/// The reference of a lane's open spans and how many are open.
#[derive(Default)]
pub struct ClockSlot {
    clock: Option<Arc<Clock>>,
    open: usize,
}

/// Times one span of a lane on its stream.
pub struct GpuTimer {
    gpu: Arc<Gpu>,
    slot: Arc<Mutex<ClockSlot>>,
    clock: Arc<Clock>,
    start: CudaEvent,
}

impl GpuTimer {
    /// Starts timing on `gpu`'s stream (draining it first when no other span of the lane is open).
    pub fn start(gpu: &Arc<Gpu>, slot: &Arc<Mutex<ClockSlot>>) -> GResult<GpuTimer> {
        let mut s = slot.lock().unwrap_or_else(|p| p.into_inner());
        let clock = match (&s.clock, s.open) {
            (Some(c), n) if n > 0 => c.clone(),
            _ => Arc::new(Clock::start(gpu)?),
        };
        let start = mark(gpu)?;
        s.clock = Some(clock.clone());
        s.open += 1;
        Ok(GpuTimer { gpu: gpu.clone(), slot: slot.clone(), clock, start })
    }
}

impl DeviceTimer for GpuTimer {
    fn stop(self: Box<Self>) -> Result<(Instant, Duration), String> {
        let r = mark(&self.gpu).and_then(|end| self.clock.span(&self.start, &end)).map_err(|e| e.to_string());
        let mut s = self.slot.lock().unwrap_or_else(|p| p.into_inner());
        s.open = s.open.saturating_sub(1);
        r
    }
}
