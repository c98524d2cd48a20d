//! The timeline's [`PhaseSink`]: one [`Capture`] per run collects that run's phase instances through a
//! bounded channel (the prover never waits on it: a full channel counts a drop), and a [`LiveFeed`] lets a
//! console stream the run while it proceeds. Nothing here is process-global: two runs in one process keep
//! their events apart.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

use super::record::CounterSeries;
use crate::util::lock;
use crate::vocab::{PhaseEvent, PhaseSink, Site};

/// Events in flight between the prover and the collector: a run emits a few per circuit and phase, so this
/// absorbs bursts from thousands of circuits while the collector thread drains it.
pub const CHANNEL_CAPACITY: usize = 1 << 14;

/// One finished phase instance, in microseconds from the capture's start.
#[derive(Clone, Debug, PartialEq)]
pub struct Captured {
    /// Where it ran.
    pub site: Site,
    /// Start, µs from the capture's start.
    pub start_us: u64,
    /// Duration in µs (at least 1).
    pub dur_us: u64,
}

/// A phase instance that has started but not yet finished.
#[derive(Clone, Debug, PartialEq)]
pub struct OpenSpan {
    /// Where it runs.
    pub site: Site,
    /// Start, µs from the capture's start.
    pub start_us: u64,
}

/// What a capture shows a live view: events closed so far and spans open now. Each lock is held only for a
/// push, a remove or a copy.
#[derive(Default)]
struct Live {
    closed: Mutex<Vec<Captured>>,
    open: Mutex<Vec<(u64, OpenSpan)>>,
    counters: Mutex<Vec<CounterSeries>>,
}

/// Where a memory sampler writes a run's counters: time-stamped from the capture's start, kept as change
/// points (a sample equal to the previous one is dropped unless forced, so a flat stretch costs nothing).
#[derive(Clone)]
pub struct CounterSink {
    origin: Instant,
    live: Arc<Live>,
}

impl CounterSink {
    /// Records `value` of counter `name` (bounded by `capacity` bytes, 0 when unknown) now; `force` keeps it
    /// even when unchanged (the last sample of a run, so the series reaches its end).
    pub fn record(&self, name: &str, capacity: u64, value: u64, force: bool) {
        let t = self.origin.elapsed().as_micros() as u64;
        let mut all = lock(&self.live.counters);
        let series = match all.iter().position(|c| c.name == name) {
            Some(i) => &mut all[i],
            None => {
                all.push(CounterSeries { name: name.to_string(), capacity, samples: Vec::new() });
                let last = all.len() - 1;
                &mut all[last]
            }
        };
        if force || series.samples.last().is_none_or(|s| s.1 != value) {
            series.samples.push((t, value));
        }
    }
}

/// The sink side of a capture (shared with the run's probe).
struct Inner {
    tx: Mutex<Option<SyncSender<Captured>>>,
    origin: Instant,
    dropped: AtomicU64,
    live: Arc<Live>,
    timing_log: bool,
}

impl Inner {
    fn us_since_origin(&self, t: Instant) -> u64 {
        t.saturating_duration_since(self.origin).as_micros() as u64
    }
}

impl PhaseSink for Inner {
    fn opened(&self, id: u64, site: &Site, start: Instant) {
        let open = OpenSpan { site: site.clone(), start_us: self.us_since_origin(start) };
        lock(&self.live.open).push((id, open));
    }

    fn closed(&self, id: u64, event: PhaseEvent) {
        lock(&self.live.open).retain(|(i, _)| *i != id);
        if self.timing_log {
            log_line(&event);
        }
        let c = Captured {
            start_us: self.us_since_origin(event.start),
            dur_us: event.dur.as_micros().max(1) as u64,
            site: event.site,
        };
        let sent = lock(&self.tx).as_ref().map(|tx| tx.try_send(c).is_ok());
        if sent == Some(false) {
            self.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// One `CUZK_TIMING:` line on stderr per finished phase, in the spirit of the lines prover engineers
/// already grep.
fn log_line(e: &PhaseEvent) {
    let circuit = e.site.circuit.map(|c| format!(" circuit={c}")).unwrap_or_default();
    let args: String = e.site.args.iter().map(|(k, v)| format!(" {k}={v}")).collect();
    eprintln!("CUZK_TIMING: {} dur_ms={:.3}{circuit}{args}", e.site.phase, e.dur.as_secs_f64() * 1e3);
}

/// How a capture behaves.
#[derive(Clone, Default)]
pub struct CaptureOpts {
    /// Channel capacity (0: [`CHANNEL_CAPACITY`]); tests use tiny ones to force drops.
    pub capacity: usize,
    /// Print a `CUZK_TIMING:` line per finished phase.
    pub timing_log: bool,
    /// Where a console watches the capture while it runs.
    pub feed: Option<LiveFeed>,
}

/// An active capture: every phase instance its sink receives until [`Capture::finish`].
pub struct Capture {
    inner: Arc<Inner>,
    feed: Option<LiveFeed>,
    collector: JoinHandle<Vec<Captured>>,
}

impl Capture {
    /// Starts capturing.
    pub fn begin(opts: CaptureOpts) -> Capture {
        let capacity = if opts.capacity == 0 { CHANNEL_CAPACITY } else { opts.capacity };
        let (tx, rx) = sync_channel::<Captured>(capacity);
        let live = Arc::new(Live::default());
        let inner = Arc::new(Inner {
            tx: Mutex::new(Some(tx)),
            origin: Instant::now(),
            dropped: AtomicU64::new(0),
            live: live.clone(),
            timing_log: opts.timing_log,
        });
        if let Some(f) = &opts.feed {
            *lock(&f.0) = Some(Attached { origin: inner.origin, live: live.clone(), inner: inner.clone() });
        }
        // The collector keeps every event for `finish` and mirrors it into the live view.
        let collector = std::thread::spawn(move || {
            rx.into_iter().inspect(|e| lock(&live.closed).push(e.clone())).collect()
        });
        Capture { inner, feed: opts.feed, collector }
    }

    /// The sink to hand the run's probe.
    pub fn sink(&self) -> Arc<dyn PhaseSink> {
        self.inner.clone()
    }

    /// Where a memory sampler writes this run's counters.
    pub fn counter_sink(&self) -> CounterSink {
        CounterSink { origin: self.inner.origin, live: self.inner.live.clone() }
    }

    /// The counters sampled so far (every series, every sample).
    pub fn counters(&self) -> Vec<CounterSeries> {
        lock(&self.inner.live.counters).clone()
    }

    /// When the capture started (event times count from here).
    pub fn origin(&self) -> Instant {
        self.inner.origin
    }

    /// Stops capturing (later events are ignored); returns the events sorted by start and the number dropped.
    pub fn finish(self) -> (Vec<Captured>, u64) {
        lock(&self.inner.tx).take(); // ends the collector
        if let Some(f) = &self.feed {
            let mut slot = lock(&f.0);
            if slot.as_ref().is_some_and(|a| Arc::ptr_eq(&a.inner, &self.inner)) {
                *slot = None;
            }
        }
        let mut events = self.collector.join().unwrap_or_default();
        events.sort_by_key(|e| (e.start_us, e.site.phase));
        (events, self.inner.dropped.load(Ordering::Relaxed))
    }
}

struct Attached {
    origin: Instant,
    live: Arc<Live>,
    inner: Arc<Inner>,
}

/// The place a console watches runs through: hand a clone to each run, poll it with a [`LiveTap`].
#[derive(Clone, Default)]
pub struct LiveFeed(Arc<Mutex<Option<Attached>>>);

impl LiveFeed {
    /// A feed no capture is attached to yet.
    pub fn new() -> LiveFeed {
        LiveFeed::default()
    }
}

/// What one [`LiveTap::poll`] saw of the attached capture.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LivePoll {
    /// Whether this is a different capture than the previous poll saw (the consumer should start over).
    pub restarted: bool,
    /// Events closed since the previous poll, in arrival order.
    pub closed: Vec<Captured>,
    /// Spans open now, oldest first.
    pub open: Vec<OpenSpan>,
    /// Counter samples taken since the previous poll (series that gained none are left out).
    pub counters: Vec<CounterSeries>,
    /// Microseconds since the capture's start.
    pub now_us: u64,
    /// Events dropped so far.
    pub dropped: u64,
}

/// A cursor over a [`LiveFeed`]: each poll returns what is new since the last.
pub struct LiveTap {
    feed: LiveFeed,
    origin: Option<Instant>,
    seen: usize,
    counters_seen: Vec<usize>,
}

impl LiveTap {
    /// A tap over `feed` that has seen nothing yet.
    pub fn new(feed: LiveFeed) -> LiveTap {
        LiveTap { feed, origin: None, seen: 0, counters_seen: Vec::new() }
    }

    /// Events closed since the last poll and the spans open now; `None` when no capture is attached.
    pub fn poll(&mut self) -> Option<LivePoll> {
        let (live, origin, dropped) = {
            let slot = lock(&self.feed.0);
            let a = slot.as_ref()?;
            (a.live.clone(), a.origin, a.inner.dropped.load(Ordering::Relaxed))
        };
        let restarted = self.origin != Some(origin);
        if restarted {
            self.origin = Some(origin);
            self.seen = 0;
            self.counters_seen.clear();
        }
        let closed = {
            let all = lock(&live.closed);
            let new = all.get(self.seen..).map(<[Captured]>::to_vec).unwrap_or_default();
            self.seen = all.len();
            new
        };
        let open = lock(&live.open).iter().map(|(_, o)| o.clone()).collect();
        let counters = {
            let all = lock(&live.counters);
            self.counters_seen.resize(all.len(), 0);
            let mut new = Vec::new();
            for (c, seen) in all.iter().zip(self.counters_seen.iter_mut()) {
                if c.samples.len() > *seen {
                    let samples = c.samples[*seen..].to_vec();
                    new.push(CounterSeries { name: c.name.clone(), capacity: c.capacity, samples });
                    *seen = c.samples.len();
                }
            }
            new
        };
        let now_us = origin.elapsed().as_micros() as u64;
        Some(LivePoll { restarted, closed, open, counters, now_us, dropped })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::{CancelToken, Phase, Probe};

    /// The tap sees a span while it is open, then as a closed event, and nothing after the capture ends.
    #[test]
    fn live_tap_streams_open_and_closed_spans() {
        let feed = LiveFeed::new();
        let cap = Capture::begin(CaptureOpts { feed: Some(feed.clone()), ..Default::default() });
        let probe = Probe::new(cap.sink(), CancelToken::new());
        let mut tap = LiveTap::new(feed);
        let span = probe.open(Site::new(Phase::PrepMsm).circuit(3));
        let p = tap.poll().expect("capture attached");
        assert!(p.restarted);
        assert!(p.open.iter().any(|o| o.site.phase == Phase::PrepMsm && o.site.circuit == Some(3)), "{p:?}");
        drop(span);
        let mut closed = Vec::new();
        for _ in 0..200 {
            let p = tap.poll().expect("capture attached");
            assert!(!p.restarted);
            assert!(p.open.is_empty());
            closed.extend(p.closed);
            if !closed.is_empty() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(closed.iter().any(|e| e.site.phase == Phase::PrepMsm), "{closed:?}");
        let (events, dropped) = cap.finish();
        assert_eq!((events.len(), dropped), (1, 0));
        assert!(tap.poll().is_none(), "nothing attached after finish");
        drop(probe.open(Site::new(Phase::Verify))); // after finish: ignored, no panic
    }

    #[test]
    fn a_full_channel_counts_drops() {
        let cap = Capture::begin(CaptureOpts { capacity: 1, ..Default::default() });
        let probe = Probe::new(cap.sink(), CancelToken::new());
        // The collector may drain between sends, so send enough that some must drop.
        for i in 0..20_000 {
            drop(probe.open(Site::new(Phase::BatchAdd).circuit(i)));
        }
        let (events, dropped) = cap.finish();
        assert_eq!(events.len() as u64 + dropped, 20_000);
    }
}
