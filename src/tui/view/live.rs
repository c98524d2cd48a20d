//! The Live view: toggles, the timeline of the run in progress (or the run shown) with its memory lanes, the
//! phase table against the baseline, the block details and the log. Space goes to what has content: the
//! timeline gets the rows its lanes need, the phase table the columns its numbers need, the log the rest;
//! `e` gives the focused panel everything.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::common::{base, dur, fit, focus_panel, level_color, maximized, panel, secs};
use super::phases::{draw_phase_table, table_width};
use super::popup::detail_lines;
use super::table::{scrolled, wrap};
use super::timeline::{draw_axis, draw_counters, draw_lanes, Lanes, Marks};
use crate::timeline::record::RecordEvent;
use crate::tui::state::{App, Drawn, Level, Panel, RunState, SetupProgress};
use crate::tui::theme::Theme;
use crate::vocab::{is_sub_phase, Toggle};

/// Rows the toggle panel needs: one per toggle and the borders (the batch and repeat count sit on the bottom
/// border). On short screens it gives up rows to the phase table (at least two of its data rows stay) and its
/// last line names the toggles that did not fit (their keys still flip them).
const TOGGLES_H: u16 = Toggle::ALL.len() as u16 + 2;
/// Width of the toggle panel.
const TOGGLES_W: u16 = 24;
/// Width of the block details panel.
const DETAILS_W: u16 = 36;

/// Draws the Live view into `area`.
pub fn draw(frame: &mut Frame, area: Rect, app: &App, d: &mut Drawn) {
    for p in [Panel::Timeline, Panel::Phases, Panel::Log] {
        if maximized(app, p) {
            match p {
                Panel::Timeline => draw_timeline(frame, area, app, d),
                Panel::Phases => draw_phase_table(frame, area, app, d),
                _ => draw_log(frame, area, app, d),
            }
            d.panels[p.idx()] = area;
            return;
        }
    }
    let lanes = app.timeline_lanes().len() + app.timeline_counters().len();
    let want_top = (lanes as u16 + 4).max(TOGGLES_H);
    let top_h = want_top.min(area.height.saturating_sub(7)).max(TOGGLES_H.min(area.height.saturating_sub(5)));
    let mid = Rect { height: top_h.min(area.height), ..area };
    let bottom = Rect { y: area.y + mid.height, height: area.height - mid.height, ..area };
    let tog = Rect { width: TOGGLES_W.min(mid.width), ..mid };
    let tl = Rect { x: mid.x + tog.width, width: mid.width - tog.width, ..mid };
    draw_toggles(frame, tog, app);
    draw_timeline(frame, tl, app, d);
    let table_w =
        if bottom.width >= 120 { table_width(app).min(bottom.width * 3 / 5) } else { bottom.width / 2 };
    let phases = Rect { width: table_w, ..bottom };
    let mut rest = Rect { x: bottom.x + table_w, width: bottom.width - table_w, ..bottom };
    draw_phase_table(frame, phases, app, d);
    if let Some(e) = app.cursor_event() {
        let w = if rest.width >= DETAILS_W + 30 { DETAILS_W } else { rest.width };
        let details = Rect { x: rest.right() - w, width: w, ..rest };
        draw_details(frame, details, app, e);
        rest.width -= w;
    }
    if rest.width > 0 {
        draw_log(frame, rest, app, d);
    }
    d.panels[Panel::Toggles.idx()] = tog;
    d.panels[Panel::Timeline.idx()] = tl;
    d.panels[Panel::Phases.idx()] = phases;
    d.panels[Panel::Log.idx()] = rest;
}

/// The console key of toggle `i` (`TOGGLE_KEYS`).
fn key(i: usize) -> char {
    crate::vocab::TOGGLE_KEYS.get(i).copied().unwrap_or(' ')
}

fn draw_toggles(frame: &mut Frame, area: Rect, app: &App) {
    let t = app.theme();
    let mut lines = Vec::new();
    for (i, &tog) in Toggle::ALL.iter().enumerate() {
        let on = app.toggles.on(tog);
        let label = tog.info().short;
        let line = match tog.not_applicable(app.backend.is_gpu()) {
            Some(why) => Line::from(Span::styled(
                format!("[-] {} {}: {why}", key(i), label.split(' ').next().unwrap_or(label)),
                Style::new().fg(t.dim),
            )),
            None => Line::from(vec![
                Span::styled(
                    if on { "[x]" } else { "[ ]" },
                    Style::new().fg(if on { t.good } else { t.dim }),
                ),
                Span::styled(format!(" {} ", key(i)), Style::new().fg(t.accent)),
                Span::styled(label.to_string(), Style::new().fg(t.fg)),
            ]),
        };
        lines.push(line);
    }
    let rows = area.height.saturating_sub(2) as usize;
    if lines.len() > rows && rows > 0 {
        let hidden: Vec<String> = Toggle::ALL
            .iter()
            .enumerate()
            .skip(rows - 1)
            .map(|(i, tog)| format!("{} {}", key(i), tog.id()))
            .collect();
        lines.truncate(rows - 1);
        lines.push(Line::from(Span::styled(format!("+ {}", hidden.join(", ")), Style::new().fg(t.dim))));
    }
    let batch = Line::from(Span::styled(
        format!(" batch {} · R ×{} ", app.toggles.batch, app.repeats),
        Style::new().fg(t.dim),
    ));
    frame.render_widget(Paragraph::new(lines).block(panel(t, " Toggles ").title_bottom(batch)), area);
}

fn draw_timeline(frame: &mut Frame, area: Rect, app: &App, d: &mut Drawn) {
    let t = app.theme();
    let (events, total) = app.timeline_events();
    let window = app.viewport.window(total);
    let cursor = app.cursor_event().map(|e| format!(" · cursor {} +{}", dur(e.start_us), dur(e.dur_us)));
    let filter = if app.lane_filter.is_empty() { String::new() } else { format!(" · /{}", app.lane_filter) };
    let title = if events.is_empty() {
        format!(" Timeline{filter} ")
    } else {
        format!(" Timeline {}–{}{}{filter} ", dur(window.0), dur(window.1), cursor.unwrap_or_default())
    };
    let block = focus_panel(t, title, app.focus == Panel::Timeline);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.height == 0 || inner.width == 0 {
        return;
    }
    let lanes = app.timeline_lanes();
    let status = status_line(app, t, usize::from(inner.width));
    let status_y = inner.bottom().saturating_sub(1);
    frame.render_widget(Paragraph::new(status).style(base(t)), Rect { y: status_y, height: 1, ..inner });
    if inner.height < 3 {
        return;
    }
    let marks = Marks::of(&events);
    draw_axis(frame.buffer_mut(), Rect { height: 1, ..inner }, window, app.viewport.zoom, &marks, t);
    let rows = inner.height - 2;
    let counters = app.timeline_counters();
    let counter_h = (counters.len() as u16).min(rows.saturating_sub(2));
    let lanes_area = Rect { y: inner.y + 1, height: rows - counter_h, ..inner };
    d.lanes = lanes_area;
    d.bars_x = lanes_area.x + super::timeline::LABEL_W + 1;
    d.window = window;
    if let Some(p) = setup_progress(app) {
        // During params generation the lanes area says what is happening in full; the status line is the bar.
        let text = setup_text(app, p);
        let lines: Vec<Line> = wrap(&text, usize::from(lanes_area.width))
            .into_iter()
            .map(|l| Line::from(Span::styled(l, Style::new().fg(t.accent))))
            .collect();
        frame.render_widget(Paragraph::new(lines).style(base(t)), lanes_area);
    } else if lanes.is_empty() {
        let hint = if app.running() {
            "waiting for the first phase…"
        } else if !app.lane_filter.is_empty() {
            "no lane matches the filter (Esc clears it)"
        } else if app.shown_run().is_some() {
            "this run has no timeline events"
        } else {
            "no run of this sample yet: press r to run a proof"
        };
        let p = Paragraph::new(Span::styled(hint, Style::new().fg(t.dim))).style(base(t));
        frame.render_widget(p, lanes_area);
    } else {
        let sel = app.viewport.lane.min(lanes.len() - 1);
        let spec = Lanes {
            lanes: &lanes,
            events: &events,
            window,
            selected: Some(sel),
            cursor: app.cursor,
            prefix: "",
            marks: &marks,
        };
        d.first_lane = draw_lanes(frame.buffer_mut(), lanes_area, &spec, t);
    }
    let counters_area = Rect { y: lanes_area.bottom(), height: counter_h, ..inner };
    draw_counters(frame.buffer_mut(), counters_area, counters, window, t);
}

/// The timeline's bottom line: a gauge for setup, the phases running now, or the shown run.
fn status_line<'a>(app: &App, t: &Theme, w: usize) -> Line<'a> {
    if let Some(l) = &app.live {
        if let Some(p) = setup_progress(app) {
            let pct = if p.total == 0 { 100.0 } else { 100.0 * p.done as f64 / p.total as f64 };
            let eta = p.eta_s.map_or(String::new(), |s| format!(" · ~{s:.0} s left"));
            let label = format!(" params {}/{} {} {pct:3.0}%{eta} ", p.index, p.stages, p.stage);
            let label = fit(&label, w.saturating_sub(6));
            let bar_w = w.saturating_sub(label.chars().count());
            let filled = ((bar_w as f64) * pct / 100.0).round() as usize;
            return Line::from(vec![
                Span::styled(label, Style::new().fg(t.accent)),
                Span::styled("█".repeat(filled.min(bar_w)), Style::new().fg(t.accent)),
                Span::styled("░".repeat(bar_w.saturating_sub(filled)), Style::new().fg(t.dim)),
            ]);
        }
        let mut open: Vec<String> = l
            .open
            .iter()
            .filter(|e| !is_sub_phase(&e.phase))
            .map(|e| match e.circuit {
                Some(c) => format!("{} c{c}", e.phase),
                None => e.phase.clone(),
            })
            .collect();
        open.dedup();
        let now = if open.is_empty() { "…".to_string() } else { open.join(", ") };
        let step = if l.label.is_empty() { String::new() } else { format!("{} · ", l.label) };
        let text = format!("● {} · {step}{now}", secs(app.elapsed_us));
        return Line::from(Span::styled(fit(&text, w), Style::new().fg(t.accent)));
    }
    match app.shown_run() {
        Some(r) => {
            let verified = if !r.completed() {
                r.outcome.name()
            } else if r.all_verified() {
                "verified ✓"
            } else if r.proofs.iter().all(|p| p.verified.is_none()) {
                "verify off"
            } else {
                "verify FAILED"
            };
            let n = app.shown.map_or(0, |i| i + 1);
            let text = format!(
                "run #{n} · {} · {verified} · {}",
                crate::tui::state::wall_text(r),
                r.toggles.changed()
            );
            Line::from(Span::styled(fit(&text, w), Style::new().fg(t.dim)))
        }
        None if app.state == RunState::Failed => {
            Line::from(Span::styled("last run failed: see the log", Style::new().fg(t.bad)))
        }
        None => Line::from(""),
    }
}

/// The params generation in progress, while one is.
fn setup_progress(app: &App) -> Option<&SetupProgress> {
    app.live.as_ref()?.progress.as_ref().filter(|p| p.done < p.total || p.index < p.stages)
}

/// What the setup gauge says: `generating params for porep-mini: stage 3 of 8, h 196 608/262 143, ~8 s
/// left; cached afterwards`.
fn setup_text(app: &App, p: &SetupProgress) -> String {
    let eta = p.eta_s.map_or(String::new(), |s| format!(", ~{s:.0} s left"));
    format!(
        "generating params for {}: stage {} of {}, {} {}/{}{eta}; cached afterwards",
        app.sample.name,
        p.index,
        p.stages,
        p.stage,
        super::common::group(p.done as u64),
        super::common::group(p.total as u64)
    )
}

/// The block under the cursor, beside the log.
fn draw_details(frame: &mut Frame, area: Rect, app: &App, e: &RecordEvent) {
    let t = app.theme();
    let lines = detail_lines(app, e, usize::from(area.width.saturating_sub(2)));
    scrolled(frame, area, panel(t, " Block · ←→ step · z zoom "), Vec::new(), lines, 0, t);
}

/// The log pane: wrapped lines, the newest at the bottom unless scrolled up; timestamps when there is room.
pub fn draw_log(frame: &mut Frame, area: Rect, app: &App, d: &mut Drawn) {
    let t = app.theme();
    let inner_w = usize::from(area.width.saturating_sub(2));
    let stamp = inner_w >= 60;
    let mut lines: Vec<Line<'static>> = Vec::new();
    for l in &app.log {
        let color = if l.level == Level::Info { t.fg } else { level_color(t, l.level) };
        let text = if stamp { format!("{} {}", l.at, l.text) } else { l.text.clone() };
        for piece in wrap(&text, inner_w) {
            lines.push(Line::from(Span::styled(piece, Style::new().fg(color))));
        }
    }
    let page = usize::from(area.height.saturating_sub(2)).max(1);
    let max = lines.len().saturating_sub(page);
    let from_bottom = app.scroll.log.min(max);
    let title =
        if from_bottom > 0 { format!(" Log · {from_bottom} newer below ") } else { " Log ".to_string() };
    let block = focus_panel(t, title, app.focus == Panel::Log);
    let s = scrolled(frame, area, block, Vec::new(), lines, max - from_bottom, t);
    d.max[Panel::Log.idx()] = s.max;
    if app.focus == Panel::Log {
        d.page = s.page;
    }
}
