//! The attached console's model without a daemon: a recorded watch stream (as `cuzk daemon` sends it, spans
//! on the daemon's clock, opened then closed, memory samples, job states) fed through `tui::attach::feed`
//! reaches the state the in-process worker's messages reach for the same run; several jobs, a daemon that
//! goes away and comes back, and the keys that act on the daemon or say why not.

use crate::fixture;

use std::path::PathBuf;

use cuzk::timeline::record::{RecordEvent, RunRecord};
use cuzk::tui::attach::attached_app;
use cuzk::tui::attach::feed::Feed;
use cuzk::tui::keys::Key;
use cuzk::tui::state::daemon::Link;
use cuzk::tui::state::{App, Command, Msg, RunState};
use cuzk::tui::theme::{Theme, ThemeSet};
use cuzk::vocab::{Toggle, Toggles};
use cuzk::wire::console::{self as pb, watch_event::Event};

/// Where the job's run starts on the daemon's clock (the daemon has been up a while).
const ORIGIN: u64 = 7_300_000;
const JOB: &str = "20260101-000000-job1";

/// The fixture's one-repeat run with the toggles a daemon runs with, its events as the live feed has them
/// (no call or repeat index: neither the worker's live events nor the stream carry one).
fn run() -> RunRecord {
    let mut t = Toggles::default();
    t.set(Toggle::D4, false);
    let mut r = fixture::record("20260101-000000-aaaa", t, 1.0, 1);
    for e in &mut r.events {
        e.batch = None;
    }
    r
}

struct Stream {
    seq: u64,
    out: Vec<pb::WatchEvent>,
}

impl Stream {
    fn push(&mut self, t_us: u64, ev: Event) {
        self.seq += 1;
        self.out.push(pb::WatchEvent { seq: self.seq, t_us, event: Some(ev) });
    }

    fn status(&mut self, t_us: u64, toggles: Toggles, running: u32) {
        self.push(
            t_us,
            Event::Status(pb::DaemonStatus {
                queues: vec![pb::QueueDepth { kind: "sample".into(), pending: 1, running }],
                gpus: vec![pb::GpuState {
                    ordinal: 0,
                    name: "CPU, 2 threads".into(),
                    current_job_id: if running > 0 { JOB.into() } else { String::new() },
                    ..Default::default()
                }],
                toggles: Toggle::ALL.iter().map(|t| (t.id().to_string(), toggles.on(*t))).collect(),
                batch: toggles.batch as u32,
                backend: "cpu (CPU, 2 threads)".into(),
                mem_budget_bytes: 8 << 30,
                mem_in_use_bytes: 1 << 30,
                ..Default::default()
            }),
        );
    }

    fn job(&mut self, t_us: u64, id: &str, state: &str, run_id: &str) {
        self.push(
            t_us,
            Event::Job(pb::JobEvent {
                job_id: id.into(),
                kind: "sample".into(),
                circuit_id: "porep-tiny".into(),
                priority: "normal".into(),
                state: state.into(),
                run_id: run_id.into(),
                error: if state == "failed" { "boom".into() } else { String::new() },
                ..Default::default()
            }),
        );
    }

    fn phase(&mut self, id: &str, origin: u64, e: &RecordEvent, open: bool) {
        let t = origin + e.start_us + if open { 0 } else { e.dur_us };
        self.push(
            t,
            Event::Phase(pb::PhaseEvent {
                job_id: id.into(),
                phase: e.phase.clone(),
                lane: e.lane.clone(),
                circuit: e.circuit,
                device: e.device,
                start_us: origin + e.start_us,
                dur_us: if open { 0 } else { e.dur_us },
                args: e.args.clone().into_iter().collect(),
                open,
            }),
        );
    }

    fn memory(&mut self, id: &str, origin: u64, at_us: u64, bytes: u64) {
        self.push(
            origin + at_us,
            Event::Memory(pb::MemorySample {
                job_id: id.into(),
                counter: "host_rss".into(),
                capacity: 8 << 30,
                at_us: origin + at_us,
                bytes,
            }),
        );
    }

    /// Every span of `rec` as the daemon streams a job: opened at its start, closed at its end, with the memory
    /// samples in time order between them, up to `until_us` of the run.
    fn spans(&mut self, id: &str, origin: u64, rec: &RunRecord, until_us: u64) {
        let mut moments: Vec<(u64, u8, usize)> = Vec::new();
        for (i, e) in rec.events.iter().enumerate() {
            moments.push((e.start_us, 0, i));
            moments.push((e.start_us + e.dur_us, 2, i));
        }
        for (i, s) in rec.counters[0].samples.iter().enumerate() {
            moments.push((s.0, 1, i));
        }
        moments.sort();
        for (t, what, i) in moments.into_iter().filter(|m| m.0 <= until_us) {
            match what {
                0 => self.phase(id, origin, &rec.events[i], true),
                2 => self.phase(id, origin, &rec.events[i], false),
                _ => self.memory(id, origin, t, rec.counters[0].samples[i].1),
            }
        }
    }
}

fn themes() -> ThemeSet {
    ThemeSet { themes: vec![Theme::default_dark()], errors: vec![] }
}

fn attached(runs: Vec<RunRecord>) -> App {
    let mut a = attached_app("unix:///tmp/cuzk.sock", "samples/porep-tiny.toml", runs, themes());
    a.apply(Msg::Link(Link::Up));
    a
}

/// Feeds `events` to `app` through `feed`; `store` stands for this console's run store.
fn feed_all(app: &mut App, feed: &mut Feed, events: Vec<pb::WatchEvent>, store: Option<&RunRecord>) {
    let look = |id: &str| store.filter(|r| r.id == id).map(|r| (r.clone(), PathBuf::from("x.json")));
    for ev in events {
        for m in feed.event(ev, &look) {
            app.apply(m);
        }
    }
}

/// The timeline as drawn: the events and the time they cover, sorted, the running mark dropped.
fn timeline(a: &App) -> (Vec<RecordEvent>, u64) {
    let (evs, end) = a.timeline_events();
    let mut evs: Vec<RecordEvent> = evs.into_iter().cloned().collect();
    for e in &mut evs {
        e.args.remove("running");
    }
    evs.sort_by(|x, y| (x.start_us, &x.phase, x.circuit).cmp(&(y.start_us, &y.phase, y.circuit)));
    (evs, end)
}

/// The in-process worker's messages for `rec` up to `until_us` (closed spans, the open ones drawn up to
/// then, host RSS so far), then its end when `finish`.
fn in_process(app: &mut App, rec: &RunRecord, until_us: u64, finish: bool) {
    app.apply(Msg::Started { label: String::new(), toggles: rec.toggles, repeats: 1 });
    let closed = rec.events.iter().filter(|e| e.start_us + e.dur_us <= until_us).cloned().collect();
    let open = rec
        .events
        .iter()
        .filter(|e| e.start_us <= until_us && e.start_us + e.dur_us > until_us)
        .map(|e| RecordEvent { dur_us: (until_us - e.start_us).max(1), ..e.clone() })
        .collect();
    let mut counters = rec.counters.clone();
    counters[0].samples.retain(|s| s.0 <= until_us);
    app.apply(Msg::Live { restarted: true, closed, open, counters, now_us: until_us, dropped: 0 });
    if finish {
        app.apply(Msg::Finished { record: Box::new(rec.clone()), saved: Ok("x.json".into()) });
    }
}

#[test]
fn a_recorded_stream_reaches_the_in_process_state() {
    let rec = run();
    // Mid-run: ntt_msm_h c1 open at 250 ms.
    for until in [250_000u64, rec.wall_us + 400] {
        let mut local = fixture::app(Vec::new());
        in_process(&mut local, &rec, until, false);
        let mut a = attached(Vec::new());
        let mut feed = Feed::new();
        let mut s = Stream { seq: 0, out: Vec::new() };
        s.status(ORIGIN - 900, rec.toggles, 0);
        s.job(ORIGIN - 800, JOB, "queued", "");
        s.job(ORIGIN - 700, JOB, "running", "");
        s.spans(JOB, ORIGIN, &rec, until);
        s.status(ORIGIN + until, rec.toggles, 1);
        feed_all(&mut a, &mut feed, s.out, None);
        assert_eq!(a.state, RunState::Running);
        assert_eq!(timeline(&a), timeline(&local), "the timeline at {until} µs");
        assert_eq!(a.timeline_counters(), local.timeline_counters(), "memory lanes at {until} µs");
        assert_eq!(a.toggles, rec.toggles, "the toggles shown are the daemon's");
        assert_eq!(a.backend.name, "cpu");
        assert_eq!(feed.following(), Some(JOB));
        let (at, lt) = (a.phase_table(), local.phase_table());
        assert_eq!(at.rows, lt.rows, "phase table at {until} µs");
        assert_eq!(at.setup, lt.setup);
    }
}

#[test]
fn a_completed_job_becomes_its_record_or_the_run_as_streamed() {
    let rec = run();
    let mut local = fixture::app(Vec::new());
    in_process(&mut local, &rec, rec.wall_us + 400, true);
    for shared in [true, false] {
        let mut a = attached(Vec::new());
        let mut feed = Feed::new();
        let mut s = Stream { seq: 0, out: Vec::new() };
        s.job(ORIGIN - 700, JOB, "running", "");
        s.spans(JOB, ORIGIN, &rec, u64::MAX);
        s.job(ORIGIN + rec.wall_us + 600, JOB, "completed", &rec.id);
        feed_all(&mut a, &mut feed, s.out, shared.then_some(&rec));
        assert_eq!(a.state, RunState::Idle);
        assert!(a.live.is_none());
        assert_eq!(a.runs.len(), 1);
        let got = &a.runs[0];
        assert_eq!(got.id, rec.id);
        if shared {
            assert_eq!(got, &local.runs[0], "the daemon's record, as the in-process run's");
        } else {
            let mut want = rec.events.clone();
            let mut have = got.events.clone();
            let key = |e: &RecordEvent| (e.start_us, e.phase.clone(), e.circuit);
            want.sort_by_key(key);
            have.sort_by_key(key);
            assert_eq!(have, want, "the streamed run keeps every span");
            let phases = |r: &RunRecord| r.repeats[0].phases.keys().cloned().collect::<Vec<_>>();
            assert_eq!(phases(got), phases(&rec));
            assert!(a.log.iter().any(|l| l.text.contains("shown as streamed")), "{:?}", a.log);
        }
        assert!(a.log.iter().any(|l| l.text.contains("finished")), "{:?}", a.log);
        assert_eq!(feed.following(), None);
    }
}

#[test]
fn the_newest_running_job_is_followed_then_the_next() {
    let rec = run();
    let other = "20260101-000000-job2";
    let mut a = attached(Vec::new());
    let mut feed = Feed::new();
    let mut s = Stream { seq: 0, out: Vec::new() };
    s.job(ORIGIN - 10, JOB, "running", "");
    s.job(ORIGIN - 5, other, "running", "");
    s.spans(JOB, ORIGIN, &rec, 100_000);
    s.spans(other, ORIGIN + 50_000, &rec, 60_000);
    feed_all(&mut a, &mut feed, s.out, None);
    assert_eq!(feed.following(), Some(JOB), "the first to run is followed until it ends");
    let mut s = Stream { seq: 100, out: Vec::new() };
    s.job(ORIGIN + 100_000, JOB, "failed", "");
    feed_all(&mut a, &mut feed, s.out, None);
    assert!(a.log.iter().any(|l| l.text.contains("failed") && l.text.contains("boom")), "{:?}", a.log);
    assert_eq!(feed.following(), Some(other));
    assert_eq!(a.state, RunState::Running);
    let mut local = fixture::app(Vec::new());
    in_process(&mut local, &rec, 60_000, false);
    // The second job's run from its start, on its own clock.
    assert_eq!(timeline(&a), timeline(&local));
    assert_eq!(a.sample.path, format!("job {other}"));
}

/// A record the daemon saved joins the history when its job ends, not at the next dial: a job not followed
/// that completes, and the followed one that fails (its partial record is shown, then the failure). The
/// history's selection stays on the run the user chose.
#[test]
fn a_failed_or_unfollowed_jobs_record_joins_the_history_at_once() {
    use cuzk::timeline::record::RunOutcome;
    let older =
        RunRecord { id: "20251231-000000-old0".into(), started: "2025-12-31T00:00:00Z".into(), ..run() };
    let done = RunRecord { id: "20260101-000001-done".into(), ..run() };
    let failed = RunRecord {
        id: "20260101-000002-fail".into(),
        outcome: RunOutcome::Failed,
        error: "boom".into(),
        repeats: Vec::new(),
        ..run()
    };
    let other = "20260101-000000-job2";
    let mut a = attached(vec![older.clone(), run()]);
    a.history_sel = 0;
    let mut feed = Feed::new();
    let store = [done.clone(), failed.clone()];
    let look = |id: &str| store.iter().find(|r| r.id == id).map(|r| (r.clone(), PathBuf::from("x.json")));
    let mut s = Stream { seq: 0, out: Vec::new() };
    s.job(ORIGIN - 10, JOB, "running", "");
    s.job(ORIGIN - 5, other, "running", "");
    s.spans(JOB, ORIGIN, &run(), 100_000);
    s.job(ORIGIN + 90_000, other, "completed", &done.id);
    let mut apply = |a: &mut App, events: Vec<pb::WatchEvent>| {
        for ev in events {
            for m in feed.event(ev, &look) {
                a.apply(m);
            }
        }
    };
    apply(&mut a, s.out);
    assert!(a.run_index(&done.id).is_some(), "the unfollowed job's record is listed");
    assert_eq!(a.runs[a.history_sel].id, older.id, "the selection stays");
    assert_eq!(a.state, RunState::Running, "the followed job still runs");
    let mut s = Stream { seq: 100, out: Vec::new() };
    s.job(ORIGIN + 100_000, JOB, "failed", &failed.id);
    apply(&mut a, s.out);
    let i = a.run_index(&failed.id).expect("the failed job's record is listed");
    assert_eq!(a.runs[i].outcome, RunOutcome::Failed);
    assert_eq!(a.shown, Some(i), "and shown");
    assert_eq!(a.state, RunState::Failed);
    assert!(a.log.iter().any(|l| l.text.contains("(failed) is saved to x.json")), "{:?}", a.log);
    assert!(a.log.iter().any(|l| l.text.contains("failed: job") && l.text.contains("boom")), "{:?}", a.log);
    assert_eq!(a.runs.len(), 4);
}

#[test]
fn a_daemon_going_away_keeps_the_state_and_a_reconnect_starts_over() {
    let rec = run();
    let mut a = attached(Vec::new());
    let mut feed = Feed::new();
    let mut s = Stream { seq: 0, out: Vec::new() };
    s.status(ORIGIN, rec.toggles, 1);
    s.job(ORIGIN, JOB, "running", "");
    s.spans(JOB, ORIGIN, &rec, 200_000);
    feed_all(&mut a, &mut feed, s.out, None);
    let before = timeline(&a);
    a.apply(Msg::Link(Link::Lost("unreachable (connection refused)".into())));
    assert_eq!(timeline(&a), before, "the last state stays");
    assert!(a.log.iter().any(|l| l.text.contains("gone") && l.text.contains("dialing again")));
    let screen = fixture::text(&a, 120, 40);
    assert!(screen.contains("daemon gone"), "{screen}");
    assert!(screen.contains("dialing again every 2 s"), "{screen}");
    assert_eq!(a.handle_key(Key::Char('r')), None, "no submit while the daemon is away");
    for m in feed.reset() {
        a.apply(m);
    }
    a.apply(Msg::Link(Link::Up));
    assert!(a.live.is_none() && a.state == RunState::Idle, "the job may have ended meanwhile");
    a.apply(Msg::Stored(vec![rec.clone()]));
    assert_eq!(a.runs.len(), 1, "runs saved meanwhile are listed");
    a.apply(Msg::Stored(vec![rec.clone()]));
    assert_eq!(a.runs.len(), 1, "once");
}

#[test]
fn keys_act_on_the_daemon_or_say_why_not() {
    let rec = run();
    let mut a = attached(Vec::new());
    let mut feed = Feed::new();
    let mut s = Stream { seq: 0, out: Vec::new() };
    s.status(ORIGIN, rec.toggles, 0);
    feed_all(&mut a, &mut feed, s.out, None);
    let toggles = a.toggles;
    a.handle_key(Key::Char('1'));
    assert_eq!(a.toggles, toggles, "the daemon's toggles are not flipped");
    assert!(a.log.last().is_some_and(|l| l.text.contains("the daemon's")), "{:?}", a.log.last());
    for k in ['R', 'a'] {
        assert_eq!(a.handle_key(Key::Char(k)), None);
        assert!(a.prompt.is_none());
        assert!(a.log.last().is_some_and(|l| l.text.contains("in-process only")));
    }
    assert!(matches!(a.handle_key(Key::Char('r')), Some(Command::Run { .. })));
    let mut s = Stream { seq: 10, out: Vec::new() };
    s.job(ORIGIN, JOB, "running", "");
    feed_all(&mut a, &mut feed, s.out, None);
    assert!(
        matches!(a.handle_key(Key::Char('r')), Some(Command::Run { .. })),
        "r queues beside a running job"
    );
    assert_eq!(a.handle_key(Key::Char('x')), Some(Command::Cancel));
    assert!(a.log.last().is_some_and(|l| l.text.contains(JOB)));
    let screen = fixture::text(&a, 120, 40);
    assert!(screen.contains("attached unix:///tmp/cuzk.sock"), "{screen}");
    assert!(screen.contains("queue 1 waiting, 0 running"), "{screen}");
    assert!(screen.contains("gpu0"), "{screen}");
    assert_eq!(a.handle_key(Key::Char('q')), Some(Command::Quit));
}
