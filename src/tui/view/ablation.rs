//! The Ablation view: the toggle × phase matrix of median changes against the baseline, with verdicts (or
//! none below three rounds), updated after every measurement while the ablation runs.

use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::common::{fit, focus_panel, panel};
use super::table::scrolled;
use crate::engine::compare::{ablation_rows, delta_text, PhaseRow};
use crate::engine::stats::Verdict;
use crate::tui::state::{App, Drawn, Panel};

/// Width of one matrix column.
const CELL_W: usize = 10;

/// Draws the Ablation view into `area`.
pub fn draw(frame: &mut Frame, area: Rect, app: &App, d: &mut Drawn) {
    let t = app.theme();
    let Some(ab) = &app.ablation else {
        let p = Paragraph::new(Span::styled(
            "no ablation yet: a runs the baseline and each toggle flipped alone, in interleaved rounds (R sets them, default 3)",
            Style::new().fg(t.dim),
        ))
        .wrap(ratatui::widgets::Wrap { trim: true })
        .block(panel(t, " Ablation "));
        frame.render_widget(p, area);
        return;
    };
    let state = match ab.progress {
        Some((done, all)) => format!("running {done}/{all} · "),
        None => String::new(),
    };
    let title = format!(
        " Ablation · {state}baseline {} · Δ median, f faster s slower ~ noise, no mark: no verdict ",
        ab.baseline
    );
    let block = focus_panel(t, fit(&title, usize::from(area.width.saturating_sub(6))), true);
    let names = ablation_rows(&ab.entries);
    let mut head =
        vec![Span::styled(format!("{:<11}", "phase"), Style::new().fg(t.dim).add_modifier(Modifier::BOLD))];
    for e in &ab.entries {
        head.push(Span::styled(
            format!("{:>CELL_W$}", e.toggle),
            Style::new().fg(t.accent).add_modifier(Modifier::BOLD),
        ));
    }
    let mut lines: Vec<Line<'static>> = Vec::new();
    for name in &names {
        let mut spans = vec![Span::styled(format!("{:<11}", fit(name, 10)), Style::new().fg(t.phase(name)))];
        for e in &ab.entries {
            let (text, color) = cell(e.rows.iter().find(|r| &r.phase == name));
            let color = match color {
                Some(Verdict::Faster) => t.good,
                Some(Verdict::Slower) => t.bad,
                _ => t.dim,
            };
            spans.push(Span::styled(format!("{text:>CELL_W$}"), Style::new().fg(color)));
        }
        lines.push(Line::from(spans));
    }
    let s = scrolled(frame, area, block, vec![Line::from(head)], lines, app.scroll.ablation, t);
    d.panels[Panel::Ablation.idx()] = area;
    d.max[Panel::Ablation.idx()] = s.max;
    d.page = s.page;
}

/// A matrix cell: `+12.3%s`, `-8.1%f`, `+0.4%~`, `+3.0%` (no verdict), `new`, `gone` or `-`, and its
/// verdict for the color.
fn cell(row: Option<&PhaseRow>) -> (String, Option<Verdict>) {
    let Some(row) = row else { return ("-".into(), None) };
    match (row.verdict, row.delta_pct) {
        (Some(v), Some(d)) => (format!("{}{}", delta_text(d), v.mark()), Some(v)),
        (Some(v), None) => (format!("n/a{}", v.mark()), Some(v)),
        (None, Some(d)) => (format!("{} ", delta_text(d)), None),
        (None, None) => match (&row.base, &row.cand) {
            (Some(_), None) => ("gone".into(), None),
            (None, Some(_)) => ("new".into(), None),
            _ => ("-".into(), None),
        },
    }
}
