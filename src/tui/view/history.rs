//! The History view: every run in the store (after the `/` filter) with its key figures: the median proving
//! wall, setup apart, and the toggles that differ from the defaults; baseline and candidate marks.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::common::head_style;
use super::common::{fit, focus_panel};
use crate::timeline::record::{RunOutcome, RunRecord};
use crate::tui::state::{App, Drawn, Panel};

/// `yes`, `off` or `NO`: whether the run's proofs verified; `ERR` or `cxl` for a run that failed or was
/// cancelled (its timeline is partial).
pub fn verified_word(r: &RunRecord) -> &'static str {
    if r.outcome == RunOutcome::Failed {
        "ERR"
    } else if r.outcome == RunOutcome::Cancelled {
        "cxl"
    } else if r.all_verified() {
        "yes"
    } else if r.proofs.iter().all(|p| p.verified.is_none()) {
        "off"
    } else {
        "NO"
    }
}

/// Draws the History view into `area`.
pub fn draw(frame: &mut Frame, area: Rect, app: &App, d: &mut Drawn) {
    let t = app.theme();
    let rows_idx = app.history_rows();
    let filter =
        if app.history_filter.is_empty() { String::new() } else { format!(" · /{} ", app.history_filter) };
    let title = format!(" History · {} of {} runs{filter} ", rows_idx.len(), app.runs.len());
    let block = focus_panel(t, title, true);
    let inner = block.inner(area);
    let w = usize::from(inner.width);
    let rows = usize::from(inner.height.saturating_sub(1));
    // The id column shows when there is room (the # addresses a run in the console); the toggles that differ
    // from the defaults get what the fixed columns leave, cut with an ellipsis only when they must be.
    let wide = w >= 110;
    let fixed = if wide { 77 } else { 56 };
    let tog_w = w.saturating_sub(fixed).max(8);
    let id = |s: &str| if wide { format!("{:<20} ", fit(s, 20)) } else { String::new() };
    let head = format!(
        "{:>3} {}{:<12} {:<4} {:>3} {:>10} {:>8} {:<3} {:<4} {:<tog_w$}",
        "#",
        id("id"),
        "sample",
        "be",
        "rep",
        "med wall s",
        "setup s",
        "ok",
        "mark",
        "toggles (changed)"
    );
    let mut lines = vec![Line::from(Span::styled(fit(&head, w), head_style(t)))];
    let at = rows_idx.iter().position(|&i| i >= app.history_sel).unwrap_or(rows_idx.len().saturating_sub(1));
    let first = if rows_idx.len() <= rows { 0 } else { at.saturating_sub(rows.saturating_sub(1)) };
    for &i in rows_idx.iter().skip(first).take(rows) {
        let r = &app.runs[i];
        let mark = match (app.baseline.as_deref() == Some(&r.id), app.candidate.as_deref() == Some(&r.id)) {
            (true, _) => "base",
            (_, true) => "cand",
            _ => "",
        };
        let text = format!(
            "{:>3} {}{:<12} {:<4} {:>3} {:>10.2} {:>8.2} {:<3} {:<4} {}",
            i + 1,
            id(&r.id),
            fit(&r.sample.name, 12),
            fit(&r.backend, 4),
            r.repeats.len(),
            r.wall_median_us() as f64 / 1e6,
            r.setup_us() as f64 / 1e6,
            verified_word(r),
            mark,
            fit(&r.toggles.changed(), tog_w)
        );
        let style = if i == app.history_sel {
            t.selected()
        } else if matches!(verified_word(r), "NO" | "ERR") {
            Style::new().fg(t.bad)
        } else if r.outcome == RunOutcome::Cancelled {
            Style::new().fg(t.dim)
        } else {
            Style::new().fg(t.fg)
        };
        lines.push(Line::from(Span::styled(format!("{:<w$}", fit(&text, w)), style)));
    }
    if rows_idx.is_empty() {
        let hint = if app.runs.is_empty() {
            "no runs stored yet: r runs a proof"
        } else {
            "no run matches the filter (Esc clears it)"
        };
        lines.push(Line::from(Span::styled(hint, Style::new().fg(t.dim))));
    }
    frame.render_widget(Paragraph::new(lines).block(block), area);
    d.panels[Panel::History.idx()] = area;
    d.history_y = inner.y + 1;
    d.history_first = first;
    d.page = rows.max(1);
}
