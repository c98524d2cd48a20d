//! Snapshots of every console view (ratatui `TestBackend` + insta) from deterministic, in-code run records,
//! at 80×24 and 160×48; and every view drawn at tiny and odd sizes without panicking.

use std::collections::BTreeMap;

use cuzk::engine::compare::{compare, AblationEntry};
use cuzk::timeline::record::{
    HostInfo, PhaseTotals, ProofEntry, RecordEvent, RepeatSummary, RunRecord, SampleInfo, SCHEMA,
};
use cuzk::tui::keys::Key;
use cuzk::tui::state::Msg;
use cuzk::tui::state::{App, BackendMeta, Level, SampleMeta, View};
use cuzk::tui::theme::{Theme, ThemeSet};
use cuzk::tui::view;
use cuzk::vocab::Toggles;
use ratatui::backend::TestBackend;
use ratatui::Terminal;

/// One phase instance: (phase, lane, circuit, start ms, duration ms).
type Ev = (&'static str, &'static str, Option<u64>, f64, f64);

/// A repeat of a porep-tiny-like run on the CPU; `slow` scales tail_msm (a regression when > 1).
fn repeat_events(slow: f64) -> Vec<Ev> {
    vec![
        ("srs_load", "srs", None, 0.0, 12.0),
        ("synthesis", "synthesis c0", Some(0), 12.5, 20.0),
        ("synthesis", "synthesis c1", Some(1), 12.5, 21.0),
        ("prep_msm", "prep_msm", None, 34.0, 1.0),
        ("ntt_msm_h", "cpu", Some(0), 35.0, 160.0),
        ("ntt_h", "cpu", Some(0), 35.0, 30.0),
        ("msm_h", "cpu", Some(0), 65.0, 130.0),
        ("ntt_msm_h", "cpu", Some(1), 195.0, 160.0),
        ("batch_add", "cpu", Some(0), 355.0, 2.0),
        ("tail_msm", "cpu", Some(0), 357.0, 200.0 * slow),
        ("b_g2_msm", "b_g2_msm", None, 355.0, 330.0),
        ("assemble", "assemble", None, 690.0 + 200.0 * (slow - 1.0), 2.0),
        ("verify", "verify", None, 692.0 + 200.0 * (slow - 1.0), 6.5),
    ]
}

/// A record with `repeats` repeats; repeat r is stretched by r × 0.5% so repeats have spread.
fn record(id: &str, toggles: Toggles, slow: f64, repeats: u32) -> RunRecord {
    let mut events = Vec::new();
    let mut reps = Vec::new();
    let mut offset = 0u64;
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
                args.insert("points".to_string(), "9981".to_string());
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
        host: HostInfo { cpu: "test cpu".into(), threads: 2, memory_bytes: 8 << 30 },
        events,
        repeats: reps,
        wall_us: offset - 500,
        peak_rss_bytes: 0,
        dropped_events: 0,
        proofs: vec![ProofEntry { hex: "00".into(), verified: Some(true) }; 2],
        version: "0.1.0".into(),
    }
}

fn app(runs: Vec<RunRecord>) -> App {
    App::new(
        SampleMeta { name: "porep-tiny".into(), path: "samples/porep-tiny.toml".into(), circuits: 2 },
        BackendMeta { name: "cpu".into(), device: "CPU, 2 threads".into(), reason: "requested".into() },
        Toggles::default(),
        runs,
        ThemeSet { themes: vec![Theme::default_dark()], errors: vec![] },
    )
}

fn two_runs() -> Vec<RunRecord> {
    let mut t = Toggles::default();
    let base = record("20260101-000000-aaaa", t, 1.0, 3);
    t.set(cuzk::vocab::Toggle::D4, false);
    let cand = record("20260101-000100-bbbb", t, 1.3, 3);
    vec![base, cand]
}

fn draw(app: &App, w: u16, h: u16) -> Terminal<TestBackend> {
    let mut term = Terminal::new(TestBackend::new(w, h)).expect("test terminal");
    term.draw(|f| view::render(f, app)).expect("draw");
    term
}

/// Snapshots `app` at 80×24 and 160×48.
fn snap(name: &str, app: &App) {
    for (w, h) in [(80, 24), (160, 48)] {
        let term = draw(app, w, h);
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), term.backend());
    }
}

fn live_msgs(app: &mut App) {
    app.apply(Msg::Started { label: String::new(), toggles: Toggles::default(), repeats: 1 });
    let rec = record("x", Toggles::default(), 1.0, 1);
    let closed: Vec<RecordEvent> = rec.events.iter().filter(|e| e.start_us < 300_000).cloned().collect();
    let mut open = rec.events.iter().find(|e| e.phase == "b_g2_msm").cloned().expect("b_g2_msm");
    open.start_us = 355_000;
    open.dur_us = 45_000;
    open.args.insert("running".into(), "yes".into());
    app.apply(Msg::Live { restarted: true, closed, open: vec![open], now_us: 400_000, dropped: 0 });
    app.elapsed_us = 400_000;
}

#[test]
fn live_idle() {
    snap("live_idle", &app(Vec::new()));
}

#[test]
fn live_mid_run() {
    let mut a = app(two_runs());
    live_msgs(&mut a);
    snap("live_mid_run", &a);
}

#[test]
fn live_setup_progress() {
    let mut a = app(Vec::new());
    a.apply(Msg::Started { label: String::new(), toggles: Toggles::default(), repeats: 1 });
    a.apply(Msg::Progress { stage: "g1_l".into(), done: 4_000, total: 10_000 });
    a.elapsed_us = 1_200_000;
    snap("live_setup_progress", &a);
}

#[test]
fn live_finished() {
    let mut a = app(vec![record("20260101-000000-aaaa", Toggles::default(), 1.0, 1)]);
    a.apply(Msg::Started { label: String::new(), toggles: Toggles::default(), repeats: 1 });
    let rec = record("20260101-000100-bbbb", Toggles::default(), 1.0, 1);
    a.apply(Msg::Finished { record: Box::new(rec), saved: Ok("runs/x.json".into()) });
    a.apply(Msg::Exported { id: "20260101-000100-bbbb".into(), paths: vec!["/data/exports/x.svg".into()] });
    snap("live_finished", &a);
}

#[test]
fn live_failed_run() {
    let mut a = app(Vec::new());
    a.apply(Msg::Started { label: String::new(), toggles: Toggles::default(), repeats: 1 });
    a.apply(Msg::Failed("samples/bad.toml: line 3: unknown key `chalenges`".into()));
    snap("live_failed", &a);
}

#[test]
fn history() {
    let mut a = app(two_runs());
    a.handle_key(Key::F(2));
    a.handle_key(Key::Up);
    a.handle_key(Key::Char('b'));
    snap("history", &a);
}

#[test]
fn compare_with_a_regression() {
    let mut a = app(two_runs());
    a.handle_key(Key::Char('c'));
    assert_eq!(a.view, View::Compare);
    let rows = compare(&a.runs[0], &a.runs[1]);
    let tail = rows.iter().find(|r| r.phase == "tail_msm").expect("tail row");
    assert_eq!(tail.verdict, Some(cuzk::engine::stats::Verdict::Slower));
    snap("compare", &a);
}

#[test]
fn ablation() {
    let mut a = app(Vec::new());
    let base = record("20260101-000000-aaaa", Toggles::default(), 1.0, 3);
    let entries = ["a1", "a2", "a4", "b1", "d4", "pipeline"]
        .iter()
        .enumerate()
        .map(|(i, id)| {
            let r = record(&format!("20260101-00010{i}-cccc"), Toggles::default(), 0.8 + 0.1 * i as f64, 3);
            AblationEntry { toggle: id.to_string(), record_id: r.id.clone(), rows: compare(&base, &r) }
        })
        .collect();
    a.apply(Msg::AblationDone { baseline: base.id.clone(), entries });
    assert_eq!(a.view, View::Ablation);
    snap("ablation", &a);
}

#[test]
fn help() {
    let mut a = app(Vec::new());
    a.handle_key(Key::Char('?'));
    snap("help", &a);
}

#[test]
fn details_popup() {
    let mut a = app(vec![record("20260101-000000-aaaa", Toggles::default(), 1.0, 1)]);
    for _ in 0..4 {
        a.handle_key(Key::Down);
    }
    a.handle_key(Key::Enter);
    let d = a.details.as_ref().expect("details");
    assert_eq!(d.lane, "cpu");
    snap("details", &a);
}

#[test]
fn too_small() {
    let a = app(two_runs());
    let term = draw(&a, 50, 12);
    insta::assert_snapshot!("too_small_50x12", term.backend());
}

#[test]
fn every_view_draws_at_any_size() {
    let mut a = app(two_runs());
    live_msgs(&mut a);
    a.push_log(Level::Error, "x".repeat(500));
    for view in View::ALL {
        a.view = view;
        for (w, h) in [(1, 1), (10, 5), (59, 15), (60, 16), (79, 23), (80, 24), (200, 60), (300, 3)] {
            draw(&a, w, h);
        }
    }
    a.handle_key(Key::Enter);
    a.details = a.runs[0].events.first().cloned();
    for (w, h) in [(1, 1), (10, 5), (60, 16), (80, 24)] {
        draw(&a, w, h);
    }
}
