//! The History view: every run in the store with its key figures; baseline and candidate marks.

use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::{fit, panel};
use crate::timeline::record::RunRecord;
use crate::tui::state::App;

/// `yes`, `off` or `NO`: whether the run's proofs verified.
pub fn verified_word(r: &RunRecord) -> &'static str {
    if r.all_verified() {
        "yes"
    } else if r.proofs.iter().all(|p| p.verified.is_none()) {
        "off"
    } else {
        "NO"
    }
}

/// Draws the History view into `area`.
pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let t = app.theme();
    let block = panel(t, format!(" History · {} runs ", app.runs.len()));
    let inner = block.inner(area);
    let w = usize::from(inner.width);
    let rows = usize::from(inner.height.saturating_sub(1));
    // Fixed columns and their separators take 57 cells; toggles get the rest.
    let tog_w = w.saturating_sub(57).max(4);
    let head = format!(
        "{:>3} {:<20} {:<12} {:<tog_w$} {:>9} {:<3} {:<4}",
        "#", "id", "sample", "toggles", "wall s", "ok", "mark"
    );
    let mut lines =
        vec![Line::from(Span::styled(fit(&head, w), Style::new().fg(t.dim).add_modifier(Modifier::BOLD)))];
    let sel = app.history_sel.min(app.runs.len().saturating_sub(1));
    let first = if app.runs.len() <= rows { 0 } else { sel.saturating_sub(rows.saturating_sub(1)) };
    for (i, r) in app.runs.iter().enumerate().skip(first).take(rows) {
        let mark = match (app.baseline.as_deref() == Some(&r.id), app.candidate.as_deref() == Some(&r.id)) {
            (true, _) => "base",
            (_, true) => "cand",
            _ => "",
        };
        let text = format!(
            "{:>3} {:<20} {:<12} {:<tog_w$} {:>9.2} {:<3} {:<4}",
            i + 1,
            fit(&r.id, 20),
            fit(&r.sample.name, 12),
            fit(&r.toggles.compact(), tog_w),
            r.wall_us as f64 / 1e6,
            verified_word(r),
            mark
        );
        let style = if i == sel {
            Style::new().fg(t.bg).bg(t.selection)
        } else if verified_word(r) == "NO" {
            Style::new().fg(t.bad)
        } else {
            Style::new().fg(t.fg)
        };
        lines.push(Line::from(Span::styled(format!("{:<w$}", fit(&text, w)), style)));
    }
    if app.runs.is_empty() {
        lines.push(Line::from(Span::styled("no runs stored yet: r runs a proof", Style::new().fg(t.dim))));
    }
    frame.render_widget(Paragraph::new(lines).block(block), area);
}
