//! The console fixture the snapshot and layout tests share: deterministic porep-tiny-like run records with
//! spread between repeats and a host RSS series, a console over them, and drawing to a test terminal.
#![allow(dead_code)]

use std::collections::BTreeMap;

use cuzk::timeline::record::{
    CounterSeries, HostInfo, PhaseTotals, ProofEntry, RecordEvent, RepeatSummary, RunRecord, SampleInfo,
    SCHEMA,
};
use cuzk::tui::state::Msg;
use cuzk::tui::state::{App, BackendMeta, SampleMeta};
use cuzk::tui::theme::{Theme, ThemeSet};
use cuzk::tui::view;
use cuzk::vocab::Toggles;
use ratatui::backend::TestBackend;
use ratatui::Terminal;

/// One phase instance: (phase, lane, circuit, start ms, duration ms).
pub type Ev = (&'static str, &'static str, Option<u64>, f64, f64);

/// A repeat of a porep-tiny-like run on the CPU; `slow` scales tail_msm (a regression when > 1).
pub fn repeat_events(slow: f64) -> Vec<Ev> {
    vec![
        ("synthesis", "synthesis c0", Some(0), 0.5, 20.0),
        ("synthesis", "synthesis c1", Some(1), 0.5, 21.0),
        ("prep_msm", "prep_msm", None, 22.0, 1.0),
        ("ntt_msm_h", "cpu", Some(0), 23.0, 160.0),
        ("ntt_h", "cpu", Some(0), 23.0, 30.0),
        ("msm_h", "cpu", Some(0), 53.0, 130.0),
        ("ntt_msm_h", "cpu", Some(1), 183.0, 160.0),
        ("ntt_h", "cpu", Some(1), 183.0, 30.0),
        ("msm_h", "cpu", Some(1), 213.0, 130.0),
        ("batch_add", "cpu", Some(0), 343.0, 2.0),
        ("tail_msm", "cpu", Some(0), 345.0, 100.0 * slow),
        ("tail_msm", "cpu", Some(1), 345.0 + 100.0 * slow, 100.0 * slow),
        ("b_g2_msm", "b_g2_msm", None, 343.0, 330.0),
        ("assemble", "assemble", None, 678.0 + 200.0 * (slow - 1.0), 2.0),
        ("verify", "verify", None, 680.0 + 200.0 * (slow - 1.0), 6.5),
    ]
}

/// Params loaded before the first repeat: outside every wall.
pub const SETUP_MS: f64 = 12.0;

/// A record with `repeats` repeats after a 12 ms `srs_load`; repeat r is stretched by r × 0.5% so repeats
/// have spread; host RSS sampled every 5 ms.
pub fn record(id: &str, toggles: Toggles, slow: f64, repeats: u32) -> RunRecord {
    let mut events = vec![RecordEvent {
        phase: "srs_load".into(),
        lane: "setup".into(),
        circuit: None,
        device: None,
        batch: None,
        repeat: 0,
        start_us: 0,
        dur_us: (SETUP_MS * 1000.0) as u64,
        args: BTreeMap::new(),
    }];
    let mut reps = Vec::new();
    let mut offset = (SETUP_MS * 1000.0) as u64 + 500;
    for r in 0..repeats {
        let stretch = 1.0 + 0.005 * f64::from(r);
        let mut phases: BTreeMap<String, PhaseTotals> = BTreeMap::new();
        let mut end = offset;
        for (phase, lane, circuit, start, d) in repeat_events(slow) {
            let start_us = offset + (start * 1000.0 * stretch) as u64;
            let dur_us = (d * 1000.0 * stretch) as u64;
            end = end.max(start_us + dur_us);
            let t = phases.entry(phase.to_string()).or_default();
            t.count += 1;
            t.sum_us += dur_us;
            t.span_us += dur_us;
            let mut args = BTreeMap::new();
            if phase == "tail_msm" {
                args.insert("window".to_string(), "11".to_string());
                args.insert("tail_l".to_string(), "9981".to_string());
            }
            events.push(RecordEvent {
                phase: phase.into(),
                lane: lane.into(),
                circuit,
                device: None,
                batch: circuit.map(|_| 0),
                repeat: r,
                start_us,
                dur_us,
                args,
            });
        }
        reps.push(RepeatSummary { wall_us: end - offset, phases });
        offset = end + 500;
    }
    let rss = (0..=offset / 5_000).map(|i| (i * 5_000, (300 + (i * 7) % 200) << 20)).collect();
    RunRecord {
        schema: SCHEMA.into(),
        id: id.into(),
        started: "2026-01-01T00:00:00Z".into(),
        sample: SampleInfo {
            name: "porep-tiny".into(),
            path: "samples/porep-tiny.toml".into(),
            constraints: 9981,
            circuits: 2,
            seed: 7,
        },
        toggles,
        backend: "cpu".into(),
        devices: vec!["CPU, 2 threads".into()],
        host: HostInfo { cpu: "test cpu".into(), threads: 2, memory_bytes: 8 << 30, ..HostInfo::default() },
        events,
        repeats: reps,
        wall_us: offset - 500,
        peak_rss_bytes: 0,
        dropped_events: 0,
        proofs: vec![ProofEntry { hex: "00".into(), verified: Some(true) }; 2],
        outcome: Default::default(),
        error: String::new(),
        counters: vec![CounterSeries { name: "host_rss".into(), capacity: 8 << 30, samples: rss }],
        version: "0.1.0".into(),
    }
}

/// A CPU console on porep-tiny in the dark theme over `runs`.
pub fn app(runs: Vec<RunRecord>) -> App {
    App::new(
        SampleMeta {
            name: "porep-tiny".into(),
            path: "samples/porep-tiny.toml".into(),
            circuits: 2,
            proof: None,
        },
        BackendMeta { name: "cpu".into(), device: "CPU, 2 threads".into(), reason: "requested".into() },
        Toggles::default(),
        runs,
        ThemeSet { themes: vec![Theme::default_dark()], errors: vec![] },
    )
}

/// A baseline and a candidate with d4 off and tail_msm 30% slower, 3 repeats each.
pub fn two_runs() -> Vec<RunRecord> {
    let mut t = Toggles::default();
    let base = record("20260101-000000-aaaa", t, 1.0, 3);
    t.set(cuzk::vocab::Toggle::D4, false);
    let cand = record("20260101-000100-bbbb", t, 1.3, 3);
    vec![base, cand]
}

/// `app` drawn on a `w`×`h` test terminal.
pub fn draw(app: &App, w: u16, h: u16) -> Terminal<TestBackend> {
    let mut term = Terminal::new(TestBackend::new(w, h)).expect("test terminal");
    term.draw(|f| view::render(f, app)).expect("draw");
    term
}

/// The screen as text, one line per row.
pub fn text(app: &App, w: u16, h: u16) -> String {
    let term = draw(app, w, h);
    let buf = term.backend().buffer();
    let mut out = String::new();
    for y in 0..h {
        for x in 0..w {
            out.push_str(buf.cell((x, y)).map_or(" ", |c| c.symbol()));
        }
        out.push('\n');
    }
    out
}

/// A run in progress: repeat 1 of a one-repeat run at 250 ms, ntt_msm_h c1 open, host RSS sampled so far.
pub fn live_msgs(app: &mut App) {
    app.apply(Msg::Started { label: String::new(), toggles: Toggles::default(), repeats: 1 });
    let rec = record("x", Toggles::default(), 1.0, 1);
    let closed: Vec<RecordEvent> = rec.events.iter().filter(|e| e.start_us < 190_000).cloned().collect();
    let mut open = rec.events.iter().find(|e| e.phase == "ntt_msm_h" && e.circuit == Some(1)).cloned();
    let mut open = open.take().expect("ntt_msm_h c1");
    open.dur_us = 250_000 - open.start_us;
    open.args.insert("running".into(), "yes".into());
    let counters = vec![CounterSeries {
        samples: rec.counters[0].samples.iter().copied().filter(|s| s.0 <= 250_000).collect(),
        ..rec.counters[0].clone()
    }];
    app.apply(Msg::Live { restarted: true, closed, open: vec![open], counters, now_us: 250_000, dropped: 0 });
    app.elapsed_us = 250_000;
}
