//! The details popup: one phase instance with its timing, circuit, device and span arguments.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use ratatui::Frame;

use super::{dur, fit, panel};
use crate::timeline::record::RecordEvent;
use crate::tui::state::App;

/// Draws the popup centred over `area`.
pub fn details(frame: &mut Frame, area: Rect, app: &App, e: &RecordEvent) {
    let t = app.theme();
    let w = area.width.saturating_sub(4).min(64);
    let mut lines = vec![
        row("phase", e.phase.clone()),
        row("lane", e.lane.clone()),
        row("start", dur(e.start_us)),
        row("duration", dur(e.dur_us)),
        row("repeat", e.repeat.to_string()),
    ];
    if let Some(c) = e.circuit {
        lines.push(row("circuit", c.to_string()));
    }
    if let Some(d) = e.device {
        lines.push(row("device", d.to_string()));
    }
    if let Some(b) = e.batch {
        lines.push(row("batch", b.to_string()));
    }
    for (k, v) in &e.args {
        lines.push(row(k, v.clone()));
    }
    let inner_w = usize::from(w.saturating_sub(2));
    let lines: Vec<Line> = lines
        .into_iter()
        .map(|(k, v)| {
            Line::from(vec![
                Span::styled(format!("{k:>10}  "), Style::new().fg(t.dim)),
                Span::styled(fit(&v, inner_w.saturating_sub(12)), Style::new().fg(t.fg)),
            ])
        })
        .collect();
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

fn row(k: &str, v: String) -> (String, String) {
    (k.to_string(), v)
}
