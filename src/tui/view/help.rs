//! The Help view: every key, the views and the themes.

use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::panel;
use crate::tui::keys::HELP;
use crate::tui::state::App;

/// Draws the Help view into `area` (two columns when wide enough).
pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let t = app.theme();
    let block = panel(t, " Help · Esc back ");
    let inner = block.inner(area);
    let entry = |(k, what): &(&str, &str)| {
        Line::from(vec![
            Span::styled(format!("{k:>9}  "), Style::new().fg(t.accent).add_modifier(Modifier::BOLD)),
            Span::styled(what.to_string(), Style::new().fg(t.fg)),
        ])
    };
    let names: Vec<&str> = app.themes.themes.iter().map(|th| th.name.as_str()).collect();
    let footer = Line::from(Span::styled(
        format!(
            "themes: {} (t cycles; --theme NAME; extra *.toml in ./themes, <data dir>/themes)",
            names.join(", ")
        ),
        Style::new().fg(t.dim),
    ));
    frame.render_widget(block, area);
    let rows = usize::from(inner.height.saturating_sub(1));
    if inner.width >= 150 || HELP.len() > rows {
        let half = HELP.len().div_ceil(2);
        let colw = inner.width / 2;
        let left: Vec<Line> = HELP[..half].iter().map(entry).collect();
        let right: Vec<Line> = HELP[half..].iter().map(entry).collect();
        frame.render_widget(Paragraph::new(left), Rect { width: colw, ..inner });
        frame.render_widget(
            Paragraph::new(right),
            Rect { x: inner.x + colw, width: inner.width - colw, ..inner },
        );
    } else {
        frame.render_widget(Paragraph::new(HELP.iter().map(entry).collect::<Vec<_>>()), inner);
    }
    let fy = inner.bottom().saturating_sub(1);
    if inner.height > 0 {
        frame.render_widget(Paragraph::new(footer), Rect { y: fy, height: 1, ..inner });
    }
}
