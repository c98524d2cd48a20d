//! The memory sampler: while a run proceeds, a thread samples host RSS, pinned host bytes and each device's
//! memory every [`PERIOD`] into the run's capture (change points only), so the record and the console get
//! counter lanes and each phase its peak. It never touches the prover's threads: it reads /proc and asks the
//! backend ([`Backend::memory`]), which answers from counters and a driver query.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use super::host;
use crate::backend::api::Backend;
use crate::timeline::CounterSink;
use crate::vocab::Counter;

/// How often the sampler looks: well under the 10 ms a phase must be sampled at.
pub const PERIOD: Duration = Duration::from_millis(5);

/// Samples every counter once (`ram`: the host's memory, the host counters' bound); `force` records even
/// unchanged values (the first and last sample).
fn sample(sink: &CounterSink, backend: &dyn Backend, ram: u64, force: bool) {
    let rss = host::rss_bytes();
    if rss > 0 {
        sink.record(&Counter::HostRss.name(), ram, rss, force);
    }
    let mem = backend.memory();
    if let Some(p) = mem.pinned_bytes {
        sink.record(&Counter::HostPinned.name(), ram, p, force);
    }
    for d in mem.devices {
        sink.record(&Counter::DeviceMem(d.device).name(), d.total, d.used, force);
    }
}

/// The first (forced) sample, taken on the caller's thread before the run starts so that every series begins
/// before the first phase however late the sampler thread is scheduled; returns the host's memory for [`run`].
pub fn begin(sink: &CounterSink, backend: &dyn Backend) -> u64 {
    let ram = host::memory_bytes();
    sample(sink, backend, ram, true);
    ram
}

/// After [`begin`]: samples into `sink` every [`PERIOD`] until `stop` is set, then once more (forced) so each
/// series reaches the run's end.
pub fn run(sink: &CounterSink, backend: &dyn Backend, ram: u64, stop: &AtomicBool) {
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(PERIOD);
        sample(sink, backend, ram, false);
    }
    sample(sink, backend, ram, true);
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::time::Duration;

    use blstrs::{G1Projective, G2Affine, G2Projective, Scalar};

    use crate::backend::api::{BResult, Backend, Bases, DeviceMemory, MemoryUse};
    use crate::backend::cpu::backend::CpuBackend;
    use crate::cs::Evals;
    use crate::timeline::{Capture, CaptureOpts};
    use crate::vocab::{Counter, Probe};

    /// The CPU backend with pinned bytes and a device whose use changes at every look, so the sampler keeps
    /// every sample it takes and the series shows how often it looked.
    struct Ticking {
        cpu: CpuBackend,
        looks: AtomicU64,
    }

    impl Backend for Ticking {
        fn name(&self) -> &'static str {
            "ticking"
        }
        fn device(&self) -> String {
            "test".into()
        }
        fn ntt_msm_h(&self, p: &Probe, c: usize, abc: [Evals; 3], h: Bases<'_>) -> BResult<G1Projective> {
            self.cpu.ntt_msm_h(p, c, abc, h)
        }
        fn batch_add_g1(&self, bases: Bases<'_>, bitmap: &[u64]) -> BResult<G1Projective> {
            self.cpu.batch_add_g1(bases, bitmap)
        }
        fn batch_add_g2(&self, bases: &[G2Affine], bitmap: &[u64]) -> BResult<G2Projective> {
            self.cpu.batch_add_g2(bases, bitmap)
        }
        fn msm_g1(&self, b: Bases<'_>, s: &[Scalar], w: Option<usize>) -> BResult<G1Projective> {
            self.cpu.msm_g1(b, s, w)
        }
        fn msm_g2(&self, b: &[G2Affine], s: &[Scalar], w: Option<usize>) -> BResult<G2Projective> {
            self.cpu.msm_g2(b, s, w)
        }
        fn window_for(&self, n: usize) -> usize {
            self.cpu.window_for(n)
        }
        fn memory(&self) -> MemoryUse {
            let n = self.looks.fetch_add(1, Ordering::Relaxed);
            MemoryUse {
                pinned_bytes: Some(4096 * (n % 2 + 1)),
                devices: vec![DeviceMemory { device: 0, used: n << 20, total: 1 << 40 }],
            }
        }
    }

    /// Over 400 ms the sampler looks at least every 10 ms (the bound: a phase of 10 ms gets a sample),
    /// records every counter the backend reports beside host RSS, and closes each series after `stop`.
    #[test]
    fn samples_every_counter_at_least_every_10_ms() {
        let capture = Capture::begin(CaptureOpts::default());
        let sink = capture.counter_sink();
        let b = Ticking { cpu: CpuBackend::new(), looks: AtomicU64::new(0) };
        let stop = AtomicBool::new(false);
        let ram = super::begin(&sink, &b);
        std::thread::scope(|s| {
            s.spawn(|| super::run(&sink, &b, ram, &stop));
            std::thread::sleep(Duration::from_millis(400));
            stop.store(true, Ordering::Relaxed);
        });
        let counters = capture.counters();
        let names: Vec<&str> = counters.iter().map(|c| c.name.as_str()).collect();
        for c in [Counter::HostRss, Counter::HostPinned, Counter::DeviceMem(0)] {
            assert!(names.contains(&c.name().as_str()), "{} missing from {names:?}", c.name());
        }
        let dev = counters.iter().find(|c| c.name == Counter::DeviceMem(0).name()).map(|c| &c.samples);
        let dev = dev.expect("device series");
        let mut gaps: Vec<u64> = dev.windows(2).map(|w| w[1].0 - w[0].0).collect();
        gaps.sort_unstable();
        let median = gaps.get(gaps.len() / 2).copied().unwrap_or(u64::MAX);
        assert!(dev.len() >= 40, "{} samples in 400 ms", dev.len());
        assert!(median <= 10_000, "median gap {median} µs");
        assert!(dev.last().is_some_and(|s| s.0 >= 400_000), "the last sample follows stop");
        assert_eq!(dev.len() as u64, b.looks.load(Ordering::Relaxed), "every changed value is kept");
    }
}
