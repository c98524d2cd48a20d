//! A `tracing_subscriber::Layer` that turns closed spans into `PhaseEvent`s and hands them to the current
//! capture through a bounded channel. The prover never waits on it: a full channel counts a drop. A
//! [`LiveTap`] streams the active capture (closed events so far, spans still open) to a console.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::Instant;

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id};
use tracing::Subscriber;
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

/// Events in flight between the prover and the collector: a run emits a few per circuit and phase, so this
/// absorbs bursts from thousands of circuits while the collector thread drains it.
const CHANNEL_CAPACITY: usize = 1 << 14;

/// One finished phase instance.
#[derive(Clone, Debug, PartialEq)]
pub struct PhaseEvent {
    /// Phase (span) name, one of `groth16::phases`.
    pub phase: &'static str,
    /// Circuit index within the job, when the span names one.
    pub circuit: Option<u64>,
    /// Device index, when the span names one.
    pub device: Option<u64>,
    /// Start in microseconds from the capture's start.
    pub start_us: u64,
    /// Duration in microseconds.
    pub dur_us: u64,
    /// OS-thread-stable small id of the thread that ran it.
    pub thread: u64,
    /// Other span fields (sizes, popcounts, …) as text.
    pub args: Vec<(&'static str, String)>,
}

/// Where the layer sends events while a capture is active.
struct Sink {
    tx: SyncSender<PhaseEvent>,
    origin: Instant,
    dropped: Arc<AtomicU64>,
    live: Arc<Live>,
}

/// The streaming tap of the active capture: what the collector has received so far and the spans still open,
/// for a console that draws a run while it proceeds. Both locks are held only for a push, a remove or a copy.
#[derive(Default)]
struct Live {
    closed: Mutex<Vec<PhaseEvent>>,
    open: Mutex<Vec<(u64, OpenSpan)>>,
}

/// A span that has started but not yet closed (the phase running now).
#[derive(Clone, Debug, PartialEq)]
pub struct OpenSpan {
    /// Phase (span) name.
    pub phase: &'static str,
    /// Circuit index, when the span names one.
    pub circuit: Option<u64>,
    /// Device index, when the span names one.
    pub device: Option<u64>,
    /// Start in microseconds from the capture's start.
    pub start_us: u64,
    /// Other span fields as text.
    pub args: Vec<(&'static str, String)>,
}

/// What one [`LiveTap::poll`] saw of the active capture.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LivePoll {
    /// Whether this is a different capture than the previous poll saw (the consumer should start over).
    pub restarted: bool,
    /// Events closed since the previous poll, in arrival order.
    pub closed: Vec<PhaseEvent>,
    /// Spans open now, oldest first.
    pub open: Vec<OpenSpan>,
    /// Microseconds since the capture's start.
    pub now_us: u64,
    /// Events dropped so far.
    pub dropped: u64,
}

/// A cursor over the process-global capture, so a consumer can stream a run's events while it proceeds
/// (the capture itself still hands every event to `Capture::finish`).
#[derive(Debug, Default)]
pub struct LiveTap {
    origin: Option<Instant>,
    seen: usize,
}

impl LiveTap {
    /// A tap that has seen nothing yet.
    pub fn new() -> LiveTap {
        LiveTap::default()
    }

    /// Events closed since the last poll and the spans open now; `None` when no capture is active.
    pub fn poll(&mut self) -> Option<LivePoll> {
        let (live, origin, dropped) = {
            let guard = SINK.lock().unwrap_or_else(|p| p.into_inner());
            let sink = guard.as_ref()?;
            (sink.live.clone(), sink.origin, sink.dropped.load(Ordering::Relaxed))
        };
        let restarted = self.origin != Some(origin);
        if restarted {
            self.origin = Some(origin);
            self.seen = 0;
        }
        let closed = {
            let all = live.closed.lock().unwrap_or_else(|p| p.into_inner());
            let new = all.get(self.seen..).map(<[PhaseEvent]>::to_vec).unwrap_or_default();
            self.seen = all.len();
            new
        };
        let open =
            live.open.lock().unwrap_or_else(|p| p.into_inner()).iter().map(|(_, o)| o.clone()).collect();
        let now_us = origin.elapsed().as_micros() as u64;
        Some(LivePoll { restarted, closed, open, now_us, dropped })
    }
}

static SINK: Mutex<Option<Sink>> = Mutex::new(None);
static TIMING_LOG: AtomicBool = AtomicBool::new(false);

/// Turns the `CUZK_TIMING:` stderr lines on or off (one line per finished phase, in the spirit of the lines
/// prover engineers already grep).
pub fn set_timing_log(on: bool) {
    TIMING_LOG.store(on, Ordering::Relaxed);
}
static INSTALLED: OnceLock<()> = OnceLock::new();

/// Span data kept from creation to close.
struct Open {
    start: Instant,
    circuit: Option<u64>,
    device: Option<u64>,
    args: Vec<(&'static str, String)>,
}

#[derive(Default)]
struct Fields {
    circuit: Option<u64>,
    device: Option<u64>,
    args: Vec<(&'static str, String)>,
}

impl Visit for Fields {
    fn record_u64(&mut self, field: &Field, value: u64) {
        match field.name() {
            "circuit" => self.circuit = Some(value),
            "device" => self.device = Some(value),
            name => self.args.push((name, value.to_string())),
        }
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        if value >= 0 {
            self.record_u64(field, value as u64);
        } else {
            self.args.push((field.name(), value.to_string()));
        }
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.args.push((field.name(), format!("{value:?}")));
    }
}

fn thread_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    thread_local!(static ID: u64 = NEXT.fetch_add(1, Ordering::Relaxed));
    ID.with(|id| *id)
}

/// The layer: cheap when no capture is active (one uncontended lock on span close).
struct PhaseLayer;

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for PhaseLayer {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut f = Fields::default();
        attrs.record(&mut f);
        let start = Instant::now();
        if let Some(sink) = SINK.lock().unwrap_or_else(|p| p.into_inner()).as_ref() {
            if start >= sink.origin {
                let open = OpenSpan {
                    phase: attrs.metadata().name(),
                    circuit: f.circuit,
                    device: f.device,
                    start_us: start.duration_since(sink.origin).as_micros() as u64,
                    args: f.args.clone(),
                };
                sink.live.open.lock().unwrap_or_else(|p| p.into_inner()).push((id.into_u64(), open));
            }
        }
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().insert(Open { start, circuit: f.circuit, device: f.device, args: f.args });
        }
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(&id) else { return };
        let Some(open) = span.extensions_mut().remove::<Open>() else { return };
        let end = Instant::now();
        if TIMING_LOG.load(Ordering::Relaxed) {
            let circuit = open.circuit.map(|c| format!(" circuit={c}")).unwrap_or_default();
            let args: String = open.args.iter().map(|(k, v)| format!(" {k}={v}")).collect();
            // eprintln! writes the whole line at once to unbuffered stderr.
            eprintln!(
                "CUZK_TIMING: {} dur_ms={:.3}{circuit}{args}",
                span.metadata().name(),
                end.duration_since(open.start).as_secs_f64() * 1e3
            );
        }
        let guard = SINK.lock().unwrap_or_else(|p| p.into_inner());
        let Some(sink) = guard.as_ref() else { return };
        sink.live.open.lock().unwrap_or_else(|p| p.into_inner()).retain(|(i, _)| *i != id.into_u64());
        if open.start < sink.origin {
            return; // began before this capture
        }
        let event = PhaseEvent {
            phase: span.metadata().name(),
            circuit: open.circuit,
            device: open.device,
            start_us: open.start.duration_since(sink.origin).as_micros() as u64,
            dur_us: end.duration_since(open.start).as_micros().max(1) as u64,
            thread: thread_id(),
            args: open.args,
        };
        if let Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) = sink.tx.try_send(event) {
            sink.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// The hook for device-side timings: a backend that measured a phase on the device (CUDA events on the
/// stream) reports it here with the host instant the device work started, instead of a host span around an
/// asynchronous launch. Dropped (and counted) like span events when the channel is full; ignored when no
/// capture is active.
pub fn emit_device_event(
    phase: &'static str,
    device: u64,
    circuit: Option<u64>,
    start: Instant,
    dur: std::time::Duration,
    args: Vec<(&'static str, String)>,
) {
    let guard = SINK.lock().unwrap_or_else(|p| p.into_inner());
    let Some(sink) = guard.as_ref() else { return };
    if start < sink.origin {
        return;
    }
    let event = PhaseEvent {
        phase,
        circuit,
        device: Some(device),
        start_us: start.duration_since(sink.origin).as_micros() as u64,
        dur_us: dur.as_micros().max(1) as u64,
        thread: thread_id(),
        args,
    };
    if sink.tx.try_send(event).is_err() {
        sink.dropped.fetch_add(1, Ordering::Relaxed);
    }
}

/// Installs the layer as the global subscriber once per process (rayon workers need a global one). Returns
/// false if another global subscriber was set first (then nothing is captured).
pub fn install() -> bool {
    INSTALLED.get_or_init(|| {
        let _ = tracing::subscriber::set_global_default(tracing_subscriber::registry().with(PhaseLayer));
    });
    tracing::dispatcher::get_default(|d| {
        d.is::<tracing_subscriber::layer::Layered<PhaseLayer, tracing_subscriber::Registry>>()
    })
}

/// An active capture: events of spans that start after `begin` and close before `finish`.
pub struct Capture {
    origin: Instant,
    dropped: Arc<AtomicU64>,
    collector: JoinHandle<Vec<PhaseEvent>>,
}

impl Capture {
    /// Starts capturing (replacing any capture still active) with the default channel capacity.
    pub fn begin() -> Capture {
        Self::with_capacity(CHANNEL_CAPACITY)
    }

    /// Starts capturing through a channel of `capacity` events (tests use tiny ones to force drops).
    pub fn with_capacity(capacity: usize) -> Capture {
        install();
        let (tx, rx): (SyncSender<PhaseEvent>, Receiver<PhaseEvent>) = sync_channel(capacity);
        let origin = Instant::now();
        let dropped = Arc::new(AtomicU64::new(0));
        let live = Arc::new(Live::default());
        *SINK.lock().unwrap_or_else(|p| p.into_inner()) =
            Some(Sink { tx, origin, dropped: dropped.clone(), live: live.clone() });
        // The collector keeps every event for `finish` and mirrors it into the live tap's snapshot.
        let collector = std::thread::spawn(move || {
            rx.into_iter()
                .inspect(|e| live.closed.lock().unwrap_or_else(|p| p.into_inner()).push(e.clone()))
                .collect()
        });
        Capture { origin, dropped, collector }
    }

    /// When the capture started.
    pub fn origin(&self) -> Instant {
        self.origin
    }

    /// Stops capturing; returns the events sorted by start and the number dropped.
    pub fn finish(self) -> (Vec<PhaseEvent>, u64) {
        {
            let mut sink = SINK.lock().unwrap_or_else(|p| p.into_inner());
            if sink.as_ref().is_some_and(|s| s.origin == self.origin) {
                *sink = None; // drops the sender, ending the collector
            }
        }
        let mut events = self.collector.join().unwrap_or_default();
        events.sort_by_key(|e| (e.start_us, e.phase));
        (events, self.dropped.load(Ordering::Relaxed))
    }
}

#[cfg(test)]
mod tests {
    use super::{Capture, LiveTap};

    /// The tap sees a span while it is open, then as a closed event, and a new capture as a restart.
    #[test]
    fn live_tap_streams_open_and_closed_spans() {
        let cap = Capture::begin();
        let mut tap = LiveTap::new();
        let span = tracing::info_span!("live_probe", circuit = 3u64).entered();
        let p = tap.poll().expect("capture active");
        assert!(p.restarted);
        assert!(p.open.iter().any(|o| o.phase == "live_probe" && o.circuit == Some(3)), "{p:?}");
        drop(span);
        let mut closed = Vec::new();
        for _ in 0..200 {
            let p = tap.poll().expect("capture active");
            assert!(!p.restarted);
            assert!(p.open.iter().all(|o| o.phase != "live_probe"));
            closed.extend(p.closed);
            if !closed.is_empty() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(closed.iter().any(|e| e.phase == "live_probe"), "{closed:?}");
        let (events, _) = cap.finish();
        assert!(events.iter().any(|e| e.phase == "live_probe"));
        assert!(tap.poll().is_none(), "no capture after finish");
    }
}
