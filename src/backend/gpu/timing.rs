//! Device-side timings for the timeline: phases are bracketed by CUDA events on the device's stream and
//! mapped to host instants through a reference event recorded on the idle stream right after a host
//! `Instant::now()` (start = t0 + elapsed(e0, start)), never host time around asynchronous launches.

use std::time::{Duration, Instant};

use cudarc::driver::{sys::CUevent_flags, CudaEvent};

use super::device::Gpu;
use super::error::GResult;

/// A reference point: host instant `t0` and the event `e0` recorded on the then-idle stream.
pub struct Clock {
    t0: Instant,
    e0: CudaEvent,
}

impl Clock {
    /// Waits for the stream to drain, then pins `t0` to a fresh event on it.
    pub fn start(gpu: &Gpu) -> GResult<Clock> {
        gpu.stream.synchronize()?;
        let t0 = Instant::now();
        let e0 = gpu.stream.record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
        Ok(Clock { t0, e0 })
    }

    /// A timing event recorded on the stream now (after everything enqueued so far).
    pub fn mark(&self, gpu: &Gpu) -> GResult<CudaEvent> {
        Ok(gpu.stream.record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?)
    }

    /// The host instant and duration of the device work between `a` and `b` (both already complete).
    pub fn span(&self, a: &CudaEvent, b: &CudaEvent) -> GResult<(Instant, Duration)> {
        b.synchronize()?;
        let from = self.e0.elapsed_ms(a)?.max(0.0) as f64;
        let dur = a.elapsed_ms(b)?.max(0.0) as f64;
        Ok((self.t0 + Duration::from_secs_f64(from / 1e3), Duration::from_secs_f64(dur / 1e3)))
    }
}

/// One finished device phase waiting to be reported.
pub struct Mark {
    /// Phase name (`groth16::phases`).
    pub phase: &'static str,
    /// Job-wide circuit index.
    pub circuit: Option<u64>,
    /// Start event.
    pub start: CudaEvent,
    /// End event.
    pub end: CudaEvent,
    /// Span-like arguments (sizes).
    pub args: Vec<(&'static str, String)>,
}

/// Reports finished marks to the timeline as device events of `gpu`'s lane.
pub fn emit(clock: &Clock, gpu: &Gpu, marks: Vec<Mark>) -> GResult<()> {
    for m in marks {
        let (start, dur) = clock.span(&m.start, &m.end)?;
        crate::timeline::emit_device_event(m.phase, gpu.ordinal as u64, m.circuit, start, dur, m.args);
    }
    Ok(())
}
