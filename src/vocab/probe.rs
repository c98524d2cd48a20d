//! How a run reports its phases and hears a cancel: a [`Probe`] carried with the run (never a process
//! global). Every phase instance is opened as a [`Span`] guard at a [`Site`] (phase, circuit, slot, device,
//! args) and reported to the run's [`PhaseSink`] when the guard drops. On the host a span is timed with the
//! host clock; a device lane times its spans with a [`DeviceTimer`] (events on its stream) instead, because
//! host time around asynchronous launches lies.

use std::fmt::Display;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::Phase;

/// Sizes, popcounts and other facts about a phase instance, as text.
pub type Args = Vec<(&'static str, String)>;

/// Where a phase instance runs: which phase, for which circuit, in which synthesis slot, on which device.
#[derive(Clone, Debug, PartialEq)]
pub struct Site {
    /// The phase.
    pub phase: Phase,
    /// Job-wide circuit index, when the phase is per circuit.
    pub circuit: Option<u64>,
    /// Synthesis slot within the call (the `synthesis c<slot>` lane).
    pub slot: Option<u64>,
    /// Device index, when a device runs it.
    pub device: Option<u64>,
    /// Other facts.
    pub args: Args,
}

impl Site {
    /// A site of `phase` with nothing else known yet.
    pub fn new(phase: Phase) -> Site {
        Site { phase, circuit: None, slot: None, device: None, args: Vec::new() }
    }

    /// For job circuit `c`.
    pub fn circuit(mut self, c: usize) -> Site {
        self.circuit = Some(c as u64);
        self
    }

    /// In synthesis slot `s`.
    pub fn slot(mut self, s: usize) -> Site {
        self.slot = Some(s as u64);
        self
    }

    /// On device `d`.
    pub fn device(mut self, d: u64) -> Site {
        self.device = Some(d);
        self
    }

    /// With the fact `key = value`.
    pub fn arg(mut self, key: &'static str, value: impl Display) -> Site {
        self.args.push((key, value.to_string()));
        self
    }
}

/// One finished phase instance.
#[derive(Clone, Debug, PartialEq)]
pub struct PhaseEvent {
    /// Where it ran.
    pub site: Site,
    /// When its work started (host clock; for device work, mapped from the device's events).
    pub start: Instant,
    /// How long it took.
    pub dur: Duration,
}

/// Where a run's phase instances go: the timeline's capture implements it. Both calls must be cheap and
/// never block the prover for long (the capture counts what it cannot take).
pub trait PhaseSink: Send + Sync {
    /// Instance `id` started at `start` (a live view draws it growing).
    fn opened(&self, id: u64, site: &Site, start: Instant);
    /// Instance `id` finished.
    fn closed(&self, id: u64, event: PhaseEvent);
}

/// Times one span on a device: created when the span opens (an event recorded on the lane's stream), and
/// stopped when it closes.
pub trait DeviceTimer: Send {
    /// The host instant the device work started and its duration; `Err` (one line) when the device could not
    /// say, in which case the span falls back to host time.
    fn stop(self: Box<Self>) -> Result<(Instant, Duration), String>;
}

/// A request to stop, shared by whoever may ask (Ctrl-C, the console's quit) and the run that checks it
/// between phases.
#[derive(Clone, Debug, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    /// A token nobody has cancelled.
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    /// Asks the run to stop after its current phase.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    /// Whether a stop was asked for.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// A run stopped because a cancel was asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cancelled")]
pub struct Cancelled;

/// What a run carries to report phases and hear a cancel. Cheap to clone (shared handles).
#[derive(Clone)]
pub struct Probe {
    sink: Option<Arc<dyn PhaseSink>>,
    cancel: CancelToken,
    ids: Arc<AtomicU64>,
    /// Added to every slotted site's slot: concurrent synthesis workers keep their spans on their own rows.
    slot_base: u64,
}

impl std::fmt::Debug for Probe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Probe")
            .field("recording", &self.sink.is_some())
            .field("cancel", &self.cancel)
            .finish()
    }
}

impl Probe {
    /// A probe reporting to `sink` and stopping when `cancel` is cancelled.
    pub fn new(sink: Arc<dyn PhaseSink>, cancel: CancelToken) -> Probe {
        Probe { sink: Some(sink), cancel, ids: Arc::new(AtomicU64::new(0)), slot_base: 0 }
    }

    /// A probe that records nothing and is never cancelled (benchmarks, direct kernel calls).
    pub fn silent() -> Probe {
        Probe::quiet(CancelToken::new())
    }

    /// A probe that records nothing but stops on `cancel`.
    pub fn quiet(cancel: CancelToken) -> Probe {
        Probe { sink: None, cancel, ids: Arc::new(AtomicU64::new(0)), slot_base: 0 }
    }

    /// The same probe with slotted sites moved down by `base` rows (`synthesis c{slot + base}`), so
    /// calls synthesized at the same time never share a timeline row.
    pub fn with_slot_base(&self, base: usize) -> Probe {
        Probe { slot_base: base as u64, ..self.clone() }
    }

    /// Whether spans are reported anywhere (a device lane skips its timing events when not).
    pub fn recording(&self) -> bool {
        self.sink.is_some()
    }

    /// The run's cancel token.
    pub fn cancel_token(&self) -> &CancelToken {
        &self.cancel
    }

    /// `Err(Cancelled)` once a stop was asked for: called between phases.
    pub fn checkpoint(&self) -> Result<(), Cancelled> {
        if self.cancel.is_cancelled() {
            Err(Cancelled)
        } else {
            Ok(())
        }
    }

    /// Opens a host-timed span at `site`; it closes when dropped.
    pub fn open(&self, site: Site) -> Span {
        self.start(site, None)
    }

    /// Opens a span timed by `timer` (a device's events); it closes when dropped.
    pub fn open_timed(&self, site: Site, timer: Box<dyn DeviceTimer>) -> Span {
        self.start(site, Some(timer))
    }

    fn start(&self, mut site: Site, timer: Option<Box<dyn DeviceTimer>>) -> Span {
        let host = Instant::now();
        site.slot = site.slot.map(|s| s + self.slot_base);
        let Some(sink) = &self.sink else {
            return Span { live: None };
        };
        let id = self.ids.fetch_add(1, Ordering::Relaxed);
        sink.opened(id, &site, host);
        Span { live: Some(LiveSpan { sink: sink.clone(), id, site, host, timer }) }
    }
}

/// An open phase instance; reports itself to the run's sink when dropped (also on early return or error).
#[must_use = "a span measures until it is dropped"]
pub struct Span {
    live: Option<LiveSpan>,
}

struct LiveSpan {
    sink: Arc<dyn PhaseSink>,
    id: u64,
    site: Site,
    host: Instant,
    timer: Option<Box<dyn DeviceTimer>>,
}

impl Span {
    /// Adds a fact learned while the phase ran (e.g. a count known only at the end).
    pub fn arg(&mut self, key: &'static str, value: impl Display) {
        if let Some(l) = &mut self.live {
            l.site.args.push((key, value.to_string()));
        }
    }
}

impl Drop for Span {
    fn drop(&mut self) {
        let Some(l) = self.live.take() else { return };
        let end = Instant::now();
        let host = (l.host, end.duration_since(l.host));
        let (start, dur) = match l.timer {
            Some(t) => t.stop().unwrap_or(host),
            None => host,
        };
        l.sink.closed(l.id, PhaseEvent { site: l.site, start, dur });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[derive(Default)]
    struct Rec(Mutex<Vec<(u64, Option<PhaseEvent>)>>);

    impl PhaseSink for Rec {
        fn opened(&self, id: u64, _site: &Site, _start: Instant) {
            crate::util::lock(&self.0).push((id, None));
        }
        fn closed(&self, id: u64, event: PhaseEvent) {
            crate::util::lock(&self.0).push((id, Some(event)));
        }
    }

    struct Fixed(Instant);
    impl DeviceTimer for Fixed {
        fn stop(self: Box<Self>) -> Result<(Instant, Duration), String> {
            Ok((self.0, Duration::from_millis(7)))
        }
    }

    #[test]
    fn spans_report_open_then_close_with_their_site() {
        let rec = Arc::new(Rec::default());
        let probe = Probe::new(rec.clone(), CancelToken::new());
        {
            let mut s = probe.open(Site::new(Phase::TailMsm).circuit(4).arg("window", 9));
            s.arg("late", 1);
            let t0 = Instant::now();
            let _d = probe.open_timed(Site::new(Phase::MsmH).device(1), Box::new(Fixed(t0)));
        }
        let got = crate::util::lock(&rec.0).clone();
        assert_eq!(got.len(), 4);
        assert_eq!((got[0].0, got[1].0), (0, 1));
        let inner = got[2].1.as_ref().map(|e| (e.site.phase, e.dur));
        assert_eq!(inner, Some((Phase::MsmH, Duration::from_millis(7))), "device time wins");
        let outer = got[3].1.as_ref().map(|e| e.site.clone());
        let want = Site::new(Phase::TailMsm).circuit(4).arg("window", 9).arg("late", 1);
        assert_eq!(outer, Some(want));
    }

    #[test]
    fn cancel_is_per_token() {
        let (a, b) = (CancelToken::new(), CancelToken::new());
        let (pa, pb) = (Probe::quiet(a.clone()), Probe::quiet(b));
        a.cancel();
        assert_eq!(pa.checkpoint(), Err(Cancelled));
        assert_eq!(pb.checkpoint(), Ok(()));
    }
}
