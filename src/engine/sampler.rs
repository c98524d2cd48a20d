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
