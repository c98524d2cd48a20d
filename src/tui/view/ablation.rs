//! The Ablation view: the toggle × phase matrix of median changes against the baseline, with verdicts.

use std::collections::BTreeSet;

use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::{fit, panel};
use crate::engine::compare::{PhaseRow, WALL};
use crate::engine::stats::Verdict;
use crate::tui::state::App;
use crate::vocab::phase_order;

/// Width of one matrix column.
const CELL_W: usize = 9;

/// Draws the Ablation view into `area`.
pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let t = app.theme();
    let Some(ab) = &app.ablation else {
        let p = Paragraph::new(Span::styled(
            "no ablation yet: a runs the baseline, then each toggle flipped alone (repeats from R)",
            Style::new().fg(t.dim),
        ))
        .block(panel(t, " Ablation "));
        frame.render_widget(p, area);
        return;
    };
    let block = panel(
        t,
        fit(
            &format!(" Ablation · baseline {} · Δ median, f faster s slower ~ noise ", ab.baseline),
            usize::from(area.width.saturating_sub(4)),
        ),
    );
    let mut names: Vec<String> = ab
        .entries
        .iter()
        .flat_map(|e| e.rows.iter().map(|r| r.phase.clone()))
        .filter(|p| p != WALL)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    names.sort_by_key(|n| phase_order(n));
    names.push(WALL.to_string());
    let mut head =
        vec![Span::styled(format!("{:<11}", "phase"), Style::new().fg(t.dim).add_modifier(Modifier::BOLD))];
    for e in &ab.entries {
        head.push(Span::styled(
            format!("{:>CELL_W$}", e.toggle),
            Style::new().fg(t.accent).add_modifier(Modifier::BOLD),
        ));
    }
    let mut lines = vec![Line::from(head)];
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
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// A matrix cell: `+12.3%s`, `-8.1%f`, `+0.4%~`, `new`, `gone` or `-`, and its verdict for the color.
fn cell(row: Option<&PhaseRow>) -> (String, Option<Verdict>) {
    let Some(row) = row else { return ("-".into(), None) };
    let mark = |v: Verdict| v.mark();
    match (row.verdict, row.delta_pct) {
        (Some(v), Some(d)) => (format!("{d:+.1}%{}", mark(v)), Some(v)),
        (Some(v), None) => (format!("n/a{}", mark(v)), Some(v)),
        (None, _) => match (&row.base, &row.cand) {
            (Some(_), None) => ("gone".into(), None),
            (None, Some(_)) => ("new".into(), None),
            _ => ("-".into(), None),
        },
    }
}
