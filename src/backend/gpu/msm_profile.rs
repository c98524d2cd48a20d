//! Per-stage device times of one G1 MSM (`CUZK_MSM_PROFILE`), apart from the launch sequence in msm.rs.

use super::{GResult, Gpu};

/// Per-stage device times of one MSM, printed on stderr when `CUZK_MSM_PROFILE` is set and not empty or 0
/// (events on the stream between stages, summed over passes, every stage on `gpu.stream`); otherwise inert.
pub(super) struct Profile<'a> {
    gpu: &'a Gpu,
    marks: Option<std::cell::RefCell<Vec<(&'static str, cudarc::driver::CudaEvent)>>>,
}

impl<'a> Profile<'a> {
    pub(super) fn new(gpu: &'a Gpu) -> GResult<Self> {
        let marks = if std::env::var_os("CUZK_MSM_PROFILE").is_some_and(|v| !v.is_empty() && v != "0") {
            Some(std::cell::RefCell::new(vec![("start", Self::event(gpu)?)]))
        } else {
            None
        };
        Ok(Profile { gpu, marks })
    }

    /// Whether stages are being timed (they then all run on `gpu.stream`).
    pub(super) fn on(&self) -> bool {
        self.marks.is_some()
    }

    fn event(gpu: &Gpu) -> GResult<cudarc::driver::CudaEvent> {
        use cudarc::driver::sys::CUevent_flags;
        Ok(gpu.stream.record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?)
    }

    /// Ends stage `name` here (on the stream).
    pub(super) fn mark(&self, name: &'static str) -> GResult<()> {
        if let Some(m) = &self.marks {
            m.borrow_mut().push((name, Self::event(self.gpu)?));
        }
        Ok(())
    }

    /// Prints each stage's summed milliseconds after `head` (the plan's shape; the stream is drained by then).
    pub(super) fn report(&self, head: impl FnOnce() -> String) -> GResult<()> {
        let Some(m) = &self.marks else { return Ok(()) };
        let m = m.borrow();
        let mut sums: Vec<(&str, f32)> = Vec::new();
        for w in m.windows(2) {
            let ms = w[0].1.elapsed_ms(&w[1].1)?;
            match sums.iter_mut().find(|(k, _)| *k == w[1].0) {
                Some(e) => e.1 += ms,
                None => sums.push((w[1].0, ms)),
            }
        }
        let total: f32 = sums.iter().map(|e| e.1).sum();
        let parts: Vec<String> = sums.iter().map(|(k, v)| format!("{k} {v:.3}")).collect();
        eprintln!("msm_profile {} device_ms={total:.3}: {}", head(), parts.join(", "));
        Ok(())
    }
}
