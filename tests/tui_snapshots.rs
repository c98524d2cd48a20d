//! Snapshots of every console view (ratatui `TestBackend` + insta) from deterministic, in-code run records,
//! at 80×24 and 160×48; the fixed defects as assertions on the drawn screen (sample mismatch banner, one wall
//! across views, no verdict at n=1, Δ only for finished phases mid-run, the setup gauge), the block cursor and
//! details, peaks and the distance from the floor. Sizes, scrolling and the mouse: `tui_layout.rs`.

#[path = "support/tui_fixture.rs"]
mod fixture;

use cuzk::engine::compare::{compare, AblationEntry};
use cuzk::engine::floor::{CpuFloor, Floors};
use cuzk::timeline::record::SampleInfo;
use cuzk::tui::keys::Key;
use cuzk::tui::state::Msg;
use cuzk::tui::state::{App, BackendMeta, SampleMeta, SetupProgress, View};
use cuzk::tui::theme::{Theme, ThemeSet};
use cuzk::tui::view;
use cuzk::vocab::Toggles;
use fixture::{app, draw, live_msgs, record, text, two_runs};

/// Snapshots `app` at 80×24 and 160×48.
fn snap(name: &str, app: &App) {
    for (w, h) in [(80, 24), (160, 48)] {
        let term = draw(app, w, h);
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), term.backend());
    }
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
        stages: 8,
        done: 196_608,
        total: 262_143,
        eta_s: Some(8.2),
    };
    a.apply(Msg::Progress(p));
    a.elapsed_us = 1_200_000;
    let screen = text(&a, 160, 48);
    assert!(
        screen.contains(
            "generating params for porep-tiny: stage 2 of 8, h 196 608/262 143, ~8 s left; cached afterwards"
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
    assert!(screen.contains("Phases #1 · ms/repeat"), "the title names the statistic:\n{screen}");
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
