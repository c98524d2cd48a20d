//! The console's layout at every size: one minimum size (80×24) with a notice below it, every table and the
//! log scrolling to their last row at 80×24, `e` maximizing a panel, the space going to what has content at
//! 200×60, the mouse (tabs, rows, lanes, wheel, drag), every view drawn at tiny and odd sizes without
//! panicking, and History's marks of runs that did not complete.

#[path = "support/tui_fixture.rs"]
mod fixture;

use cuzk::engine::compare::{compare, AblationEntry};
use cuzk::timeline::record::RunOutcome;
use cuzk::tui::keys::{Key, Mouse};
use cuzk::tui::state::{App, Level, Msg, Panel, View};
use cuzk::vocab::Toggles;
use fixture::{app, draw, live_msgs, record, text, two_runs};

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

/// A daemon job's record that failed or was cancelled: History marks it (`ERR`, `cxl`), it is never the
/// automatic baseline (its phases are partial), and comparing it says so in the log.
#[test]
fn failed_and_cancelled_runs_in_history() {
    let mut runs = two_runs();
    let mut cut = record("20260101-000200-cccc", Toggles::default(), 1.0, 0);
    (cut.outcome, cut.error) = (RunOutcome::Cancelled, "cancelled".into());
    let mut broke = record("20260101-000300-dddd", Toggles::default(), 1.0, 0);
    (broke.outcome, broke.error) = (RunOutcome::Failed, "cpu backend: begin_call: injected".into());
    runs.extend([cut, broke, record("20260101-000400-eeee", Toggles::default(), 1.0, 3)]);
    let mut a = app(runs);
    assert_eq!(a.compare_pair(), Some((1, 4)), "the last completed run is the baseline");
    a.handle_key(Key::F(2));
    let screen = text(&a, 120, 30);
    let row = |n: &str| screen.lines().find(|l| l.starts_with(&format!("│  {n} "))).unwrap_or("").to_string();
    assert!(row("3").contains(" cxl "), "{screen}");
    assert!(row("4").contains(" ERR "), "{screen}");
    assert!(row("5").contains(" yes "), "{screen}");
    a.handle_key(Key::Up);
    a.handle_key(Key::Enter);
    assert_eq!((a.view, a.compare_pair()), (View::Compare, Some((1, 3))));
    let warned =
        a.log.iter().any(|l| l.text.contains("20260101-000300-dddd failed") && l.level == Level::Warn);
    assert!(warned, "{:?}", a.log.iter().map(|l| &l.text).collect::<Vec<_>>());
    draw(&a, 80, 24);
}
