//! Snapshots of every console view (ratatui `TestBackend` + insta) from deterministic, in-code run records,
//! at 80×24 and 160×48 (and 200×60); the fixed defects as assertions on the drawn screen (sample mismatch
//! banner, one wall across views, no verdict at n=1, scrolling to the wall row at 80×24, one minimum size);
//! the mouse; and every view drawn at tiny and odd sizes without panicking.

use std::collections::BTreeMap;

use cuzk::engine::compare::{compare, AblationEntry};
use cuzk::engine::floor::{CpuFloor, Floors};
use cuzk::timeline::record::{
    CounterSeries, HostInfo, PhaseTotals, ProofEntry, RecordEvent, RepeatSummary, RunRecord, SampleInfo,
    SCHEMA,
};
use cuzk::tui::keys::{Key, Mouse};
use cuzk::tui::state::Msg;
use cuzk::tui::state::{App, BackendMeta, Level, Panel, SampleMeta, SetupProgress, View};
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
const SETUP_MS: f64 = 12.0;

/// A record with `repeats` repeats after a 12 ms `srs_load`; repeat r is stretched by r × 0.5% so repeats
/// have spread; host RSS sampled every 5 ms.
fn record(id: &str, toggles: Toggles, slow: f64, repeats: u32) -> RunRecord {
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
        host: HostInfo { cpu: "test cpu".into(), threads: 2, memory_bytes: 8 << 30 },
        events,
        repeats: reps,
        wall_us: offset - 500,
        peak_rss_bytes: 0,
        dropped_events: 0,
        proofs: vec![ProofEntry { hex: "00".into(), verified: Some(true) }; 2],
        counters: vec![CounterSeries { name: "host_rss".into(), capacity: 8 << 30, samples: rss }],
        version: "0.1.0".into(),
    }
}

fn app(runs: Vec<RunRecord>) -> App {
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

/// The screen as text, one line per row.
fn text(app: &App, w: u16, h: u16) -> String {
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

#[test]
fn live_idle() {
    snap("live_idle", &app(Vec::new()));
}

/// Mid-run, Δ shows only for phases that have finished (synthesis, prep_msm): ntt_msm_h (one instance
/// closed, one running), tail_msm (not started) and the wall show none.
#[test]
fn live_mid_run() {
    let mut a = app(two_runs());
    live_msgs(&mut a);
    let t = a.phase_table();
    let row = |p: &str| t.rows.iter().find(|r| r.phase == p).unwrap_or_else(|| panic!("{p} row"));
    assert!(row("synthesis").delta_pct.is_some() && row("prep_msm").delta_pct.is_some());
    for p in ["ntt_msm_h", "tail_msm", "wall"] {
        assert_eq!(row(p).delta_pct, None, "{p} has not finished");
    }
    assert!(t.rows.iter().all(|r| r.verdict.is_none()), "no verdicts while running");
    snap("live_mid_run", &a);
}

#[test]
fn live_setup_progress() {
    let mut a = app(Vec::new());
    a.apply(Msg::Started { label: String::new(), toggles: Toggles::default(), repeats: 1 });
    let p = SetupProgress {
        stage: "h".into(),
        index: 2,
        stages: 7,
        done: 196_608,
        total: 262_143,
        eta_s: Some(8.2),
    };
    a.apply(Msg::Progress(p));
    a.elapsed_us = 1_200_000;
    let screen = text(&a, 160, 48);
    assert!(
        screen.contains(
            "generating params for porep-tiny: stage 2 of 7, h 196 608/262 143, ~8 s left; cached afterwards"
        ),
        "{screen}"
    );
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

/// Two single-repeat runs: every row shows Δ marked n=1 and no verdict word.
#[test]
fn no_verdict_at_n1() {
    let mut a = app(vec![record("20260101-000000-aaaa", Toggles::default(), 1.0, 1)]);
    a.apply(Msg::Started { label: String::new(), toggles: Toggles::default(), repeats: 1 });
    let rec = record("20260101-000100-bbbb", Toggles::default(), 1.5, 1);
    a.apply(Msg::Finished { record: Box::new(rec), saved: Ok("runs/x.json".into()) });
    let screen = text(&a, 160, 48);
    let tail = screen.lines().find(|l| l.contains("tail_msm ") && l.contains('%')).expect("tail row");
    assert!(tail.contains("+50.0%") && tail.contains("n=1"), "{tail}");
    for word in ["slower", "faster", "within noise"] {
        assert!(!screen.contains(word), "{word} at n=1:\n{screen}");
    }
    snap("no_verdict_n1", &a);
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
    a.handle_key(Key::Char('/'));
    for c in "d4=off".chars() {
        a.handle_key(Key::Char(c));
    }
    a.handle_key(Key::Enter);
    assert_eq!(a.history_rows(), vec![1]);
    let screen = text(&a, 80, 24);
    assert!(screen.contains("1 of 2 runs") && screen.contains("d4=off"), "{screen}");
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

/// At 80×24 the compare table does not fit: G (or End, PgDn) scrolls it down to the wall row.
#[test]
fn compare_scrolls_to_the_wall_row_at_80x24() {
    let mut a = app(two_runs());
    a.handle_key(Key::Char('c'));
    let wall = |s: &str| s.lines().any(|l| l.starts_with("│wall "));
    assert!(!wall(&text(&a, 80, 24)), "the wall row fits without scrolling: the test proves nothing");
    a.handle_key(Key::Char('G'));
    let screen = text(&a, 80, 24);
    assert!(wall(&screen), "G does not reach the wall row:\n{screen}");
    insta::assert_snapshot!("compare_scrolled_80x24", draw(&a, 80, 24).backend());
    a.handle_key(Key::Char('g'));
    a.handle_key(Key::PageDown);
    a.handle_key(Key::PageDown);
    assert!(wall(&text(&a, 80, 24)), "PgDn reaches the wall row");
}

/// The Live phase table at 80×24: focus it (f) and scroll (End) to the wall and setup rows.
#[test]
fn phase_table_scrolls_to_the_wall_row_at_80x24() {
    let mut a = app(two_runs());
    let wall = |s: &str| s.lines().any(|l| l.contains("│wall "));
    assert!(!wall(&text(&a, 80, 24)));
    a.handle_key(Key::Char('f'));
    assert_eq!(a.focus, Panel::Phases);
    a.handle_key(Key::End);
    let screen = text(&a, 80, 24);
    assert!(wall(&screen) && screen.contains("│srs_load"), "{screen}");
    // `e` maximizes the focused table: everything fits.
    a.handle_key(Key::Char('g'));
    a.handle_key(Key::Char('e'));
    let screen = text(&a, 80, 24);
    assert!(wall(&screen) && screen.contains("│synthesis"), "{screen}");
    insta::assert_snapshot!("phases_maximized_80x24", draw(&a, 80, 24).backend());
}

/// A porep-mini console with a porep-tiny run stored: the Live view starts empty (never another sample's
/// run); marking the tiny run as baseline shows one line saying the shapes differ and no verdicts.
#[test]
fn sample_mismatch_banner() {
    let mut tiny = record("20260101-000000-aaaa", Toggles::default(), 1.0, 3);
    tiny.sample.name = "porep-tiny".into();
    let mut a = App::new(
        SampleMeta {
            name: "porep-mini".into(),
            path: "samples/porep-mini.toml".into(),
            circuits: 2,
            proof: None,
        },
        BackendMeta { name: "cpu".into(), device: "CPU, 2 threads".into(), reason: "requested".into() },
        Toggles::default(),
        vec![tiny],
        ThemeSet { themes: vec![Theme::default_dark()], errors: vec![] },
    );
    assert_eq!(a.shown, None, "the mini console does not show the tiny run");
    let mut mini = record("20260101-000100-bbbb", Toggles::default(), 1.0, 3);
    mini.sample = SampleInfo { name: "porep-mini".into(), constraints: 219_498, ..mini.sample };
    a.apply(Msg::Started { label: String::new(), toggles: Toggles::default(), repeats: 3 });
    a.apply(Msg::Finished { record: Box::new(mini), saved: Ok("x".into()) });
    assert_eq!(a.phase_table().base_label, None, "no baseline of another sample by default");
    a.handle_key(Key::Char('c'));
    assert_eq!(a.view, View::Live, "compare needs a same-sample baseline");
    a.handle_key(Key::F(2));
    a.handle_key(Key::Up);
    a.handle_key(Key::Char('b'));
    a.handle_key(Key::Down);
    a.handle_key(Key::Enter);
    assert_eq!(a.view, View::Compare);
    let screen = text(&a, 120, 40);
    assert_eq!(screen.matches("different circuit shapes").count(), 1, "{screen}");
    for word in ["slower", "faster", "within noise", "%"] {
        let rows = screen.lines().filter(|l| l.contains("│tail_msm") || l.contains("│wall"));
        assert!(rows.clone().all(|l| !l.contains(word)), "{word}:\n{screen}");
    }
    snap("compare_other_shape", &a);
    a.handle_key(Key::Esc);
    let screen = text(&a, 120, 40);
    assert!(screen.contains("≠ different circuit shapes"), "{screen}");
}

/// One meaning of wall: the log line, the Live status line, the phase table's wall row and the History
/// column all say the median proving wall of the repeats, setup apart.
#[test]
fn one_wall_across_views() {
    let mut a = app(Vec::new());
    a.apply(Msg::Started { label: String::new(), toggles: Toggles::default(), repeats: 3 });
    let rec = record("20260101-000000-aaaa", Toggles::default(), 1.0, 3);
    let median = rec.wall_median_us();
    assert_eq!(median, rec.repeats[1].wall_us, "three repeats: the middle one");
    a.apply(Msg::Finished { record: Box::new(rec), saved: Ok("x".into()) });
    let secs = format!("{:.2} s", median as f64 / 1e6);
    let log = a.log.iter().find(|l| l.text.starts_with("run #1 finished")).expect("log line");
    assert!(log.text.contains(&format!("wall {secs} (median of 3)")), "{}", log.text);
    let screen = text(&a, 160, 48);
    let ms = format!("{:.1}", median as f64 / 1e3);
    let wall_row = screen.lines().find(|l| l.contains("│wall ")).expect("wall row");
    assert!(wall_row.contains(&ms), "{wall_row} vs {ms}");
    assert!(screen.contains(&format!("wall {secs} (median of 3)")), "status line:\n{screen}");
    a.handle_key(Key::F(2));
    let screen = text(&a, 160, 48);
    let hist = screen.lines().find(|l| l.contains("20260101-000000-aaaa")).expect("history row");
    assert!(hist.contains(&format!("{:.2}", median as f64 / 1e6)), "{hist}");
}

#[test]
fn ablation() {
    let mut a = app(Vec::new());
    let base = record("20260101-000000-aaaa", Toggles::default(), 1.0, 3);
    let entries: Vec<AblationEntry> = ["a1", "a2", "a4", "d4", "pipeline"]
        .iter()
        .enumerate()
        .map(|(i, id)| {
            let r = record(&format!("20260101-00010{i}-cccc"), Toggles::default(), 0.8 + 0.1 * i as f64, 3);
            AblationEntry { toggle: id.to_string(), record_id: r.id.clone(), rows: compare(&base, &r) }
        })
        .collect();
    a.apply(Msg::AblationProgress {
        baseline: base.id.clone(),
        entries: entries[..2].to_vec(),
        done: (7, 18),
    });
    assert_eq!(a.view, View::Live, "progress does not steal the view");
    a.handle_key(Key::F(4));
    assert!(text(&a, 120, 40).contains("running 7/18"), "the matrix updates while it runs");
    a.apply(Msg::AblationDone { baseline: base.id.clone(), entries });
    assert_eq!(a.view, View::Ablation);
    snap("ablation", &a);
}

#[test]
fn help() {
    let mut a = app(Vec::new());
    a.handle_key(Key::Char('?'));
    snap("help", &a);
    // Wrapped, never cut mid-word: every word on screen is a whole word of the help texts.
    let words: std::collections::BTreeSet<&str> =
        cuzk::tui::keys::HELP.iter().flat_map(|(_, what)| what.split(' ')).collect();
    let screen = text(&a, 80, 24);
    for line in screen.lines().skip(3).take(18) {
        let body: String = line.chars().skip(16).collect();
        for w in body.trim_end_matches(['│', ' ']).split_whitespace() {
            assert!(words.contains(w) || w.starts_with('↑') || w.contains('–'), "{w:?} is cut: {line}");
        }
    }
}

/// The block cursor: → steps to the first block of the selected lane, the details panel shows it, Enter
/// opens the popup, z zooms to it.
#[test]
fn cursor_and_details() {
    let mut a = app(vec![record("20260101-000000-aaaa", Toggles::default(), 1.0, 1)]);
    for _ in 0..4 {
        a.handle_key(Key::Down);
    }
    assert_eq!(a.selected_lane().as_deref(), Some("cpu"));
    a.handle_key(Key::Right);
    let e = a.cursor_event().expect("a block under the cursor").clone();
    assert_eq!((e.phase.as_str(), e.circuit), ("ntt_msm_h", Some(0)));
    a.handle_key(Key::Right);
    assert_eq!(a.cursor_event().map(|e| e.circuit), Some(Some(1)), "next block");
    a.handle_key(Key::Up);
    assert_eq!(a.selected_lane().as_deref(), Some("prep_msm"));
    assert_eq!(a.cursor_event().map(|e| e.phase.as_str()), Some("prep_msm"), "nearest block above");
    a.handle_key(Key::Down);
    a.handle_key(Key::Char('z'));
    let (_, total) = a.timeline_events();
    let (t0, t1) = a.viewport.window(total);
    let c = a.cursor_event().expect("cursor kept");
    assert!(t0 <= c.start_us && c.start_us + c.dur_us <= t1 && a.viewport.zoom > 2.0, "({t0}, {t1})");
    // The time readout at the cursor: the block's start and duration in the timeline's title.
    let readout = format!("cursor {} +{}", view::dur(c.start_us), view::dur(c.dur_us));
    assert!(text(&a, 160, 48).contains(&readout), "{readout}");
    snap("cursor_details", &a);
    a.handle_key(Key::Enter);
    assert_eq!(a.details.as_ref().map(|d| d.phase.as_str()), Some("ntt_msm_h"));
    snap("details", &a);
}

/// 200×60: the log and the phase table get the room the timeline does not need.
#[test]
fn wide_layout() {
    let mut a = app(two_runs());
    for i in 0..30 {
        a.push_log(Level::Info, format!("line {i}"));
    }
    let term = draw(&a, 200, 60);
    insta::assert_snapshot!("live_200x60", term.backend());
    let screen = text(&a, 200, 60);
    assert!(screen.contains("line 0") && screen.contains("line 29"), "the log shows all 30 lines");
}

/// Mouse: a click on a tab switches views, on a History row selects it, on a timeline block puts the cursor
/// there; the wheel over the timeline zooms; a drag pans.
#[test]
fn mouse() {
    let mut a = app(two_runs());
    draw(&a, 120, 40);
    let d = a.drawn.get();
    let (x0, _) = d.tabs[1];
    a.handle_mouse(Mouse::Down(x0 + 1, d.tab_y));
    assert_eq!(a.view, View::History);
    draw(&a, 120, 40);
    let d = a.drawn.get();
    a.handle_mouse(Mouse::Down(10, d.history_y));
    assert_eq!(a.history_sel, 0);
    a.handle_key(Key::Esc);
    draw(&a, 120, 40);
    let d = a.drawn.get();
    let lanes = a.timeline_lanes();
    let cpu = lanes.iter().position(|l| l == "cpu").expect("cpu lane");
    let y = d.lanes.y + (cpu - d.first_lane) as u16;
    a.handle_mouse(Mouse::Down(d.bars_x + 5, y));
    assert_eq!(a.selected_lane().as_deref(), Some("cpu"));
    assert!(a.cursor_event().is_some_and(|e| e.phase == "ntt_msm_h"), "the block under the pointer");
    a.handle_mouse(Mouse::Up);
    a.handle_mouse(Mouse::WheelUp(d.bars_x + 20, y));
    assert_eq!(a.viewport.zoom, 2.0);
    draw(&a, 120, 40);
    let pan = a.viewport.pan_us;
    a.handle_mouse(Mouse::Down(d.bars_x + 30, y));
    a.handle_mouse(Mouse::Drag(d.bars_x + 20, y));
    a.handle_mouse(Mouse::Up);
    assert!(a.viewport.pan_us > pan, "dragging left moves later: {} → {}", pan, a.viewport.pan_us);
    // The wheel over the log scrolls it back and forth; over the phase table (at 80×24, where it does not
    // fit) it scrolls the table.
    for i in 0..60 {
        a.push_log(Level::Info, format!("line {i}"));
    }
    a.cursor = None; // the block details would take the log's place at 120 columns
    draw(&a, 120, 40);
    let log = a.drawn.get().panels[Panel::Log.idx()];
    a.handle_mouse(Mouse::WheelUp(log.x + 2, log.y + 1));
    assert_eq!(a.scroll.log, 3, "one notch back");
    assert!(text(&a, 120, 40).contains("3 newer below"));
    a.handle_mouse(Mouse::WheelDown(log.x + 2, log.y + 1));
    assert_eq!(a.scroll.log, 0, "back to the newest line");
    draw(&a, 80, 24);
    let d = a.drawn.get();
    let phases = d.panels[Panel::Phases.idx()];
    assert!(d.max[Panel::Phases.idx()] > 0, "the phase table fits at 80×24: the test proves nothing");
    a.handle_mouse(Mouse::WheelDown(phases.x + 2, phases.y + 2));
    assert_eq!(a.scroll.phases, 3usize.min(d.max[Panel::Phases.idx()]), "the wheel scrolls the phase table");
}

/// One minimum size: below 80×24 the notice (with how to quit) replaces the layout; at 80×24 it is drawn.
#[test]
fn too_small() {
    let a = app(two_runs());
    for (w, h) in [(79, 24), (80, 23), (60, 16), (50, 12)] {
        let screen = text(&a, w, h);
        assert!(screen.contains("need 80×24") && screen.contains("q quits"), "{w}×{h}:\n{screen}");
    }
    let screen = text(&a, 80, 24);
    assert!(!screen.contains("too small") && screen.contains("q quit"), "{screen}");
    insta::assert_snapshot!("too_small_60x16", draw(&a, 60, 16).backend());
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
            a.maximized = !a.maximized;
            draw(&a, w, h);
        }
    }
    a.handle_key(Key::Enter);
    a.details = a.runs[0].events.first().cloned();
    for (w, h) in [(1, 1), (10, 5), (60, 16), (80, 24)] {
        draw(&a, w, h);
    }
}

/// Memory peaks and the distance from the floor: a 7.5 GB spike of host RSS inside each repeat's batch_add
/// shows as the peak of batch_add and of b_g2_msm (running beside it) and of no phase before or after; with
/// the machine's floors measured, batch_add's row shows its % of floor over the run and its details panel the
/// % of the one instance under the cursor, both from the cost model (10,000 additions of 11 × 78 multiplies
/// at 10^10 multiplies/s: 858 µs each).
#[test]
fn peaks_and_floors_in_the_phase_table_and_details() {
    let mut rec = record("20260101-000000-aaaa", Toggles::default(), 1.0, 3);
    let spikes: Vec<u64> =
        rec.events.iter().filter(|e| e.phase == "batch_add").map(|e| e.start_us + 500).collect();
    let rss = &mut rec.counters[0];
    for &at in &spikes {
        let normal = rss.samples.iter().take_while(|s| s.0 <= at).last().map_or(0, |s| s.1);
        rss.samples.extend([(at, 7_500_000_000), (at + 400, normal)]);
    }
    rss.samples.sort_unstable();
    let mut floor_us = 0.0;
    let mut busy_us = 0.0;
    for e in rec.events.iter_mut().filter(|e| e.phase == "batch_add") {
        e.args.insert("ones".into(), "10000".into());
        floor_us += 10_000.0 * 11.0 * 78.0 / 1e10 * 1e6;
        busy_us += e.dur_us as f64;
    }
    let first_pct =
        100.0 * 858.0 / rec.events.iter().find(|e| e.phase == "batch_add").map_or(1, |e| e.dur_us) as f64;
    let mut a = app(vec![rec]);
    a.floors = Some(Floors {
        host: "test".into(),
        cpu: CpuFloor { mul64_per_s: 1e10, mem_bytes_per_s: 1e10, threads: 2 },
        ..Floors::default()
    });
    let screen = text(&a, 160, 48);
    // The phase table's lines (the timeline above it has lanes of the same names).
    let table: Vec<&str> = screen.lines().skip_while(|l| !l.contains("│phase ")).collect();
    let row = |p: &str| {
        table.iter().find(|l| l.contains(&format!("│{p} "))).unwrap_or_else(|| panic!("{p} row:\n{screen}"))
    };
    let head = table.first().expect("table head");
    assert!(head.contains("peak mem") && head.contains("floor"), "{head}");
    assert!(screen.contains("Phases #1 · median ms"), "the title names the statistic:\n{screen}");
    for p in ["batch_add", "b_g2_msm", "wall"] {
        assert!(row(p).contains("7.5 G"), "{p} peak: {}", row(p));
    }
    for p in ["synthesis", "prep_msm", "tail_msm", "assemble"] {
        assert!(!row(p).contains("7.5 G") && row(p).contains(" M"), "{p} peak: {}", row(p));
    }
    let pct = format!("{:.1}%", 100.0 * floor_us / busy_us);
    assert!(row("batch_add").contains(&pct), "batch_add at {pct} of floor: {}", row("batch_add"));
    assert!(!row("assemble").contains('%'), "no cost model for assemble: {}", row("assemble"));
    for _ in 0..4 {
        a.handle_key(Key::Down);
    }
    for _ in 0..3 {
        a.handle_key(Key::Right);
    }
    assert_eq!(a.cursor_event().map(|e| e.phase.as_str()), Some("batch_add"));
    let screen = text(&a, 160, 48);
    let floor_line = screen.lines().find(|l| l.contains("of floor")).unwrap_or_else(|| panic!("{screen}"));
    assert!(floor_line.contains(&format!("{first_pct:.1}%")), "{floor_line} vs {first_pct:.1}%");
    insta::assert_snapshot!("peaks_floors_160x48", draw(&a, 160, 48).backend());
}

/// At 80×24 every table and the log reach their last row: G (or End) at the bottom, g (or Home) at the top,
/// whatever does not fit.
#[test]
fn every_table_and_the_log_scroll_to_their_last_row_at_80x24() {
    let mut runs = Vec::new();
    for i in 0..30 {
        runs.push(record(&format!("20260101-0001{i:02}-aaaa"), Toggles::default(), 1.0, 1));
    }
    let mut a = app(runs);
    for i in 0..100 {
        a.push_log(Level::Info, format!("log line {i}"));
    }
    // Log: focus it (f f), then top and bottom.
    a.handle_key(Key::Char('f'));
    a.handle_key(Key::Char('f'));
    assert_eq!(a.focus, Panel::Log);
    let shows = |a: &App, s: &str| text(a, 80, 24).lines().any(|l| l.contains(s));
    assert!(shows(&a, "log line 99") && !shows(&a, "log line 0 "), "the log follows the newest line");
    a.handle_key(Key::Char('g'));
    draw(&a, 80, 24);
    a.handle_key(Key::Home);
    assert!(shows(&a, "log line 0") && !shows(&a, "log line 99"), "g reaches the oldest line");
    a.handle_key(Key::End);
    assert!(shows(&a, "log line 99"), "End reaches the newest line");
    // History: the selection moves to the last run and the table follows it.
    a.handle_key(Key::F(2));
    a.handle_key(Key::Char('g'));
    assert!(shows(&a, "│  1 porep-tiny"), "g reaches run 1");
    assert!(!shows(&a, "│ 30 porep-tiny"), "30 runs do not fit at 80×24");
    a.handle_key(Key::Char('G'));
    assert_eq!(a.history_sel, 29);
    assert!(shows(&a, "│ 30 porep-tiny") && !shows(&a, "│  1 porep-tiny"), "G reaches run 30");
    // Help: the last line of its footer.
    a.handle_key(Key::Char('?'));
    draw(&a, 80, 24);
    assert!(!shows(&a, "drag pans it."), "the help does not fit at 80×24");
    a.handle_key(Key::Char('G'));
    assert!(shows(&a, "drag pans it."), "G reaches the end of the help");
    // Ablation: the wall row.
    let base = &a.runs[0];
    let entries: Vec<AblationEntry> = ["a1", "a2", "a4", "d4", "pipeline", "pce"]
        .iter()
        .zip(&a.runs[1..])
        .map(|(t, r)| AblationEntry {
            toggle: t.to_string(),
            record_id: r.id.clone(),
            rows: compare(base, r),
        })
        .collect();
    a.apply(Msg::AblationDone { baseline: base.id.clone(), entries });
    assert_eq!(a.view, View::Ablation);
    draw(&a, 80, 24);
    a.handle_key(Key::Char('G'));
    assert!(text(&a, 80, 24).lines().any(|l| l.starts_with("│wall ")), "G reaches the ablation's wall row");
}

/// A real Filecoin circuit's header names its registered proof and partitions.
#[test]
fn header_names_a_real_circuits_proof() {
    let mut a = app(vec![]);
    a.sample = SampleMeta {
        name: "c2-2kib".into(),
        path: "samples/c2-2kib.toml".into(),
        circuits: 1,
        proof: Some("StackedDrg2KiBV1_1 · 1 partition".into()),
    };
    let screen = text(&a, 120, 40);
    let first = screen.lines().next().unwrap_or_default();
    assert!(first.contains("c2-2kib · StackedDrg2KiBV1_1 · 1 partition (1 circuit)"), "{first}");
}
