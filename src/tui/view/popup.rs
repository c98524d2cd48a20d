//! A block's details (phase, lane, start, duration, repeat, circuit, device, call, its sub-phases, span
//! arguments, distance from the floor): the rows the Live details panel and the Enter popup both show.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use ratatui::Frame;

use super::common::{dur, fit, panel};
use crate::engine::floor::{headroom, si};
use crate::timeline::record::RecordEvent;
use crate::tui::state::App;

/// The (label, value) rows of a block.
pub fn detail_rows(app: &App, e: &RecordEvent) -> Vec<(String, String)> {
    let mut rows: Vec<(String, String)> = vec![
        ("phase".into(), e.phase.clone()),
        ("lane".into(), e.lane.clone()),
        ("start".into(), dur(e.start_us)),
        ("duration".into(), dur(e.dur_us)),
        ("repeat".into(), (e.repeat + 1).to_string()),
    ];
    let opt = [("circuit", e.circuit), ("device", e.device), ("call", e.batch)];
    rows.extend(opt.iter().filter_map(|(k, v)| v.map(|v| (k.to_string(), v.to_string()))));
    for k in app.children_of(e) {
        rows.push((k.phase.clone(), format!("{} at +{}", dur(k.dur_us), dur(k.start_us - e.start_us))));
    }
    rows.extend(e.args.iter().map(|(k, v)| (k.clone(), v.clone())));
    if let Some(h) = app.floors.as_ref().and_then(|f| headroom(&e.phase, [e], f)) {
        rows.push(("rate".into(), format!("{}{}/s", si(h.rate), h.unit)));
        rows.push(("of floor".into(), format!("{:.1}%", h.pct_of_floor)));
    }
    rows
}

/// The rows as lines `w` cells wide.
pub fn detail_lines(app: &App, e: &RecordEvent, w: usize) -> Vec<Line<'static>> {
    let t = app.theme();
    detail_rows(app, e)
        .into_iter()
        .map(|(k, v)| {
            Line::from(vec![
                Span::styled(format!("{:>9} ", fit(&k, 9)), Style::new().fg(t.dim)),
                Span::styled(fit(&v, w.saturating_sub(10)), Style::new().fg(t.fg)),
            ])
        })
        .collect()
}

/// Draws the popup centred over `area`.
pub fn details(frame: &mut Frame, area: Rect, app: &App, e: &RecordEvent) {
    let t = app.theme();
    let w = area.width.saturating_sub(4).min(64);
    let lines = detail_lines(app, e, usize::from(w.saturating_sub(2)));
    let h = (lines.len() as u16 + 2).min(area.height.saturating_sub(2));
    let r = Rect {
        x: area.x + (area.width.saturating_sub(w)) / 2,
        y: area.y + (area.height.saturating_sub(h)) / 2,
        width: w,
        height: h,
    };
    frame.render_widget(Clear, r);
    frame.render_widget(Paragraph::new(lines).block(panel(t, " Details · Esc close ")), r);
}
