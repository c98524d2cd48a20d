//! The Compare view: per-phase bars of baseline and candidate with Δ, ratio and verdict (or why there is
//! none), scrolling down to the wall row; a banner when the runs proved different circuit shapes; both
//! timelines stacked on one time scale.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::common::head_style;
use super::common::{fit, focus_panel, maximized, panel};
use super::phases::verdict_cell;
use super::table::{scrolled, wrap};
use super::timeline::{draw_axis, draw_lanes, Lanes, Marks};
use crate::engine::compare::{compare, delta_text, shape_mismatch, PhaseRow};
use crate::timeline::record::{RecordEvent, RunRecord};
use crate::tui::state::timeline::lanes_of;
use crate::tui::state::{App, Drawn, Panel};
use crate::tui::theme::Theme;
use crate::vocab::is_sub_phase;

/// Width of the numbers after the bars: base ms, cand ms, Δ, ratio, verdict.
const NUMS_W: u16 = 48;
/// Width of the phase-name column.
const NAME_W: u16 = 10;

/// Draws the Compare view into `area`.
pub fn draw(frame: &mut Frame, area: Rect, app: &App, d: &mut Drawn) {
    let t = app.theme();
    let Some((bi, ci)) = app.compare_pair() else {
        let p = Paragraph::new(Span::styled(
            "compare needs a baseline: an earlier run of the same sample and backend, or b on any run (History, F2)",
            Style::new().fg(t.dim),
        ))
        .wrap(ratatui::widgets::Wrap { trim: true })
        .block(panel(t, " Compare "));
        frame.render_widget(p, area);
        return;
    };
    let (base, cand) = (&app.runs[bi], &app.runs[ci]);
    let rows = compare(base, cand);
    let full = maximized(app, Panel::Compare);
    let want = rows.len() as u16 + 4;
    let top_h = if full { area.height } else { want.min(area.height * 3 / 5).max(area.height.min(8)) };
    let top = Rect { height: top_h.min(area.height), ..area };
    let bottom = Rect { y: area.y + top.height, height: area.height - top.height, ..area };
    let title = format!(
        " Compare · base #{} {} · cand #{} {} ",
        bi + 1,
        base.toggles.changed(),
        ci + 1,
        cand.toggles.changed()
    );
    let block = focus_panel(t, fit(&title, usize::from(area.width.saturating_sub(6))), true);
    let inner_w = block.inner(top).width;
    let mut header: Vec<Line<'static>> = Vec::new();
    if let Some(m) = shape_mismatch(base, cand) {
        for piece in wrap(&format!("≠ {m}"), usize::from(inner_w)) {
            header.push(Line::from(Span::styled(piece, Style::new().fg(t.warn))));
        }
    }
    let (head, lines) = bars(&rows, t, inner_w, (bi + 1, ci + 1));
    header.push(head);
    let s = scrolled(frame, top, block, header, lines, app.scroll.compare, t);
    d.panels[Panel::Compare.idx()] = top;
    d.max[Panel::Compare.idx()] = s.max;
    d.page = s.page;
    if bottom.height > 2 {
        draw_stacked(frame, bottom, base, cand, t);
    }
}

/// The header and one line per row: name, ▀ base / ▄ cand bars, numbers.
fn bars(
    rows: &[PhaseRow],
    t: &Theme,
    width: u16,
    nums: (usize, usize),
) -> (Line<'static>, Vec<Line<'static>>) {
    let bar_w = width.saturating_sub(NAME_W + NUMS_W);
    let head = format!(
        "{:<nw$}{:<bw$}{:>8} {:>8} {:>7} {:>6} verdict",
        "phase",
        if bar_w > 20 { format!("▀ base #{} ▄ cand #{}", nums.0, nums.1) } else { String::new() },
        "base med",
        "cand med",
        "Δ",
        "ratio",
        nw = usize::from(NAME_W),
        bw = usize::from(bar_w)
    );
    let head = Line::from(Span::styled(fit(&head, usize::from(width)), head_style(t)));
    let max = rows
        .iter()
        .filter(|r| !r.is_wall())
        .flat_map(|r| [r.base.map_or(0.0, |s| s.median), r.cand.map_or(0.0, |s| s.median)])
        .fold(0.0f64, f64::max)
        .max(1e-9);
    let lines = rows
        .iter()
        .map(|r| {
            let name = if is_sub_phase(&r.phase) { format!(" {}", r.phase) } else { r.phase.clone() };
            let mut spans = vec![Span::styled(
                format!("{:<w$}", fit(&name, usize::from(NAME_W - 1)), w = usize::from(NAME_W)),
                Style::new().fg(t.phase(&r.phase)),
            )];
            let scale = if r.is_wall() {
                r.base.map_or(0.0, |s| s.median).max(r.cand.map_or(0.0, |s| s.median)).max(1e-9)
            } else {
                max
            };
            let len = |v: Option<f64>| {
                ((v.unwrap_or(0.0) / scale) * f64::from(bar_w)).round().clamp(0.0, f64::from(bar_w)) as u16
            };
            let (lb, lc) = (len(r.base.map(|s| s.median)), len(r.cand.map(|s| s.median)));
            let color = t.phase(&r.phase);
            for x in 0..bar_w {
                let (sym, style) = match (x < lb, x < lc) {
                    (true, true) => ("▀", Style::new().fg(t.dim).bg(color)),
                    (true, false) => ("▀", Style::new().fg(t.dim).bg(t.bg)),
                    (false, true) => ("▄", Style::new().fg(color).bg(t.bg)),
                    (false, false) => (" ", Style::new().bg(t.bg)),
                };
                spans.push(Span::styled(sym, style));
            }
            let ms = |s: Option<f64>| s.map_or("-".to_string(), |v| format!("{v:.1}"));
            let (v, style) = verdict_cell(r, false, t);
            spans.push(Span::styled(
                format!(
                    "{:>8} {:>8} {:>7} {:>6} {v}",
                    ms(r.base.map(|s| s.median)),
                    ms(r.cand.map(|s| s.median)),
                    r.delta_pct.map_or("-".to_string(), delta_text),
                    r.ratio.map_or("-".to_string(), |x| format!("{x:.3}")),
                ),
                style,
            ));
            Line::from(spans)
        })
        .collect();
    (head, lines)
}

fn draw_stacked(frame: &mut Frame, area: Rect, base: &RunRecord, cand: &RunRecord, t: &Theme) {
    let end = |r: &RunRecord| {
        r.events.iter().map(|e| e.start_us.saturating_add(e.dur_us)).max().unwrap_or(0).max(r.wall_us)
    };
    let window = (0, end(base).max(end(cand)).max(1));
    let block = panel(t, " Timelines on one scale · b = base, c = cand ");
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.height < 2 {
        return;
    }
    let be: Vec<&RecordEvent> = base.events.iter().collect();
    let ce: Vec<&RecordEvent> = cand.events.iter().collect();
    let (bl, cl) = (lanes_of(be.iter().copied()), lanes_of(ce.iter().copied()));
    let none = Marks::default();
    let buf = frame.buffer_mut();
    draw_axis(buf, Rect { height: 1, ..inner }, window, 1.0, &none, t);
    let rest = inner.height - 1;
    let bh = (bl.len() as u16).min(rest / 2).max(rest.saturating_sub(cl.len() as u16)).min(bl.len() as u16);
    let barea = Rect { y: inner.y + 1, height: bh, ..inner };
    let carea = Rect { y: inner.y + 1 + bh, height: rest - bh, ..inner };
    let (bm, cm) = (Marks::of(&be), Marks::of(&ce));
    let lanes = |lanes, events, prefix, marks| Lanes {
        lanes,
        events,
        window,
        selected: None,
        cursor: None,
        prefix,
        marks,
    };
    draw_lanes(buf, barea, &lanes(&bl, &be, "b ", &bm), t);
    draw_lanes(buf, carea, &lanes(&cl, &ce, "c ", &cm), t);
}
