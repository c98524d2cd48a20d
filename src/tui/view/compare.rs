//! The Compare view: per-phase bars of baseline and candidate with Δ, ratio and verdict, and both timelines
//! stacked on one time scale.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::Span;
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::live::verdict_word;
use super::timeline::{draw_axis, draw_lanes, Lanes};
use super::{fit, panel};
use crate::engine::compare::{compare, PhaseRow};
use crate::engine::stats::Verdict;
use crate::timeline::record::{RecordEvent, RunRecord};
use crate::tui::state::timeline::lanes_of;
use crate::tui::state::App;
use crate::tui::theme::Theme;
use crate::vocab::is_sub_phase;

/// Width of the numbers after the bars: base ms, cand ms, Δ, ratio, verdict.
const NUMS_W: u16 = 46;
/// Width of the phase-name column.
const NAME_W: u16 = 10;

/// Draws the Compare view into `area`.
pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let t = app.theme();
    let Some((bi, ci)) = app.compare_pair() else {
        let p = Paragraph::new(Span::styled(
            "compare needs two runs: r runs a proof; b marks a baseline; History (F2) picks a candidate",
            Style::new().fg(t.dim),
        ))
        .block(panel(t, " Compare "));
        frame.render_widget(p, area);
        return;
    };
    let (base, cand) = (&app.runs[bi], &app.runs[ci]);
    let rows = compare(base, cand);
    let top_h = (rows.len() as u16 + 3).min(area.height.saturating_mul(3) / 5).min(area.height);
    let top = Rect { height: top_h, ..area };
    let bottom = Rect { y: area.y + top_h, height: area.height - top_h, ..area };
    let title = format!(
        " Compare · base #{} {} · cand #{} {} ",
        bi + 1,
        base.toggles.compact(),
        ci + 1,
        cand.toggles.compact()
    );
    let block = panel(t, fit(&title, usize::from(area.width.saturating_sub(4))));
    let inner = block.inner(top);
    frame.render_widget(block, top);
    draw_bars(frame.buffer_mut(), inner, &rows, t, (bi + 1, ci + 1));
    draw_stacked(frame, bottom, base, cand, t);
}

fn draw_bars(buf: &mut Buffer, area: Rect, rows: &[PhaseRow], t: &Theme, nums: (usize, usize)) {
    if area.height == 0 || area.width <= NAME_W + NUMS_W {
        return;
    }
    let bar_w = area.width - NAME_W - NUMS_W;
    let dim = Style::new().fg(t.dim).bg(t.bg);
    let head = format!(
        "{:<nw$}{:<bw$}{:>8} {:>8} {:>7} {:>6} verdict",
        "phase",
        format!("▀ base #{} ▄ cand #{}", nums.0, nums.1),
        "base ms",
        "cand ms",
        "Δ",
        "ratio",
        nw = usize::from(NAME_W),
        bw = usize::from(bar_w) + 1
    );
    buf.set_string(area.x, area.y, fit(&head, usize::from(area.width)), dim.add_modifier(Modifier::BOLD));
    let max = rows
        .iter()
        .filter(|r| r.phase != crate::engine::compare::WALL)
        .flat_map(|r| [r.base.map_or(0.0, |s| s.median), r.cand.map_or(0.0, |s| s.median)])
        .fold(0.0f64, f64::max)
        .max(1e-9);
    for (i, r) in rows.iter().enumerate().take(usize::from(area.height - 1)) {
        let y = area.y + 1 + i as u16;
        let name = if is_sub_phase(&r.phase) { format!(" {}", r.phase) } else { r.phase.clone() };
        buf.set_string(
            area.x,
            y,
            fit(&name, usize::from(NAME_W - 1)),
            Style::new().fg(t.phase(&r.phase)).bg(t.bg),
        );
        let wall = r.phase == crate::engine::compare::WALL;
        let scale = if wall { rows_wall_max(r) } else { max };
        let len = |v: Option<f64>| {
            ((v.unwrap_or(0.0) / scale) * f64::from(bar_w)).round().clamp(0.0, f64::from(bar_w)) as u16
        };
        let (lb, lc) = (len(r.base.map(|s| s.median)), len(r.cand.map(|s| s.median)));
        let color = t.phase(&r.phase);
        for x in 0..bar_w {
            let (top, bottom) = (x < lb, x < lc);
            let (sym, style) = match (top, bottom) {
                (true, true) => ("▀", Style::new().fg(t.dim).bg(color)),
                (true, false) => ("▀", Style::new().fg(t.dim).bg(t.bg)),
                (false, true) => ("▄", Style::new().fg(color).bg(t.bg)),
                (false, false) => (" ", Style::new().bg(t.bg)),
            };
            buf.set_string(area.x + NAME_W + x, y, sym, style);
        }
        let ms = |s: Option<f64>| s.map_or("-".to_string(), |v| format!("{v:.1}"));
        let style = match r.verdict {
            Some(Verdict::Faster) => Style::new().fg(t.good),
            Some(Verdict::Slower) => Style::new().fg(t.bad),
            _ => Style::new().fg(t.dim),
        }
        .bg(t.bg);
        let nums = format!(
            " {:>8} {:>8} {:>7} {:>6} {}",
            ms(r.base.map(|s| s.median)),
            ms(r.cand.map(|s| s.median)),
            r.delta_pct.map_or("-".to_string(), |d| format!("{d:+.1}%")),
            r.ratio.map_or("-".to_string(), |x| format!("{x:.3}")),
            verdict_word(r.verdict, false)
        );
        buf.set_string(area.x + NAME_W + bar_w, y, fit(&nums, usize::from(NUMS_W)), style);
    }
}

fn rows_wall_max(r: &PhaseRow) -> f64 {
    r.base.map_or(0.0, |s| s.median).max(r.cand.map_or(0.0, |s| s.median)).max(1e-9)
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
    let buf = frame.buffer_mut();
    draw_axis(buf, Rect { height: 1, ..inner }, window, 1.0, t);
    let be: Vec<&RecordEvent> = base.events.iter().collect();
    let ce: Vec<&RecordEvent> = cand.events.iter().collect();
    let (bl, cl) = (lanes_of(be.iter().copied()), lanes_of(ce.iter().copied()));
    let rest = inner.height - 1;
    let bh = (bl.len() as u16).min(rest / 2).max(rest.saturating_sub(cl.len() as u16)).min(bl.len() as u16);
    let barea = Rect { y: inner.y + 1, height: bh, ..inner };
    let carea = Rect { y: inner.y + 1 + bh, height: rest - bh, ..inner };
    draw_lanes(buf, barea, &Lanes { lanes: &bl, events: &be, window, selected: None, prefix: "b " }, t);
    draw_lanes(buf, carea, &Lanes { lanes: &cl, events: &ce, window, selected: None, prefix: "c " }, t);
}
