//! The Help view: every key, wrapped to the width (never cut mid-word), scrolling when it does not fit.

use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::Frame;

use super::common::{focus_panel, MIN_H, MIN_W};
use super::table::{scrolled, wrap};
use crate::tui::keys::HELP;
use crate::tui::state::{App, Drawn, Panel};

/// Width of the key column.
const KEY_W: usize = 13;

/// Draws the Help view into `area`.
pub fn draw(frame: &mut Frame, area: Rect, app: &App, d: &mut Drawn) {
    let t = app.theme();
    let block = focus_panel(t, " Help · Esc back ".to_string(), true);
    let w = usize::from(block.inner(area).width);
    let text_w = w.saturating_sub(KEY_W + 2).max(10);
    let mut lines: Vec<Line<'static>> = Vec::new();
    for (k, what) in HELP {
        for (i, piece) in wrap(what, text_w).into_iter().enumerate() {
            let key = if i == 0 { k } else { "" };
            lines.push(Line::from(vec![
                Span::styled(
                    format!("{key:>KEY_W$}  "),
                    Style::new().fg(t.accent).add_modifier(Modifier::BOLD),
                ),
                Span::styled(piece, Style::new().fg(if k.is_empty() { t.dim } else { t.fg })),
            ]));
        }
    }
    let names: Vec<&str> = app.themes.themes.iter().map(|th| th.name.as_str()).collect();
    let footer = format!(
        "themes: {} (t cycles; --theme NAME; extra *.toml in ./themes, <data dir>/themes). Smallest terminal: \
         {MIN_W}×{MIN_H}; e maximizes a panel. Mouse: click tabs, rows, lanes and blocks; wheel scrolls \
         tables and zooms the timeline; drag pans it.",
        names.join(", ")
    );
    lines.push(Line::from(""));
    lines.extend(wrap(&footer, w).into_iter().map(|l| Line::from(Span::styled(l, Style::new().fg(t.dim)))));
    let s = scrolled(frame, area, block, Vec::new(), lines, app.scroll.help, t);
    d.panels[Panel::Help.idx()] = area;
    d.max[Panel::Help.idx()] = s.max;
    d.page = s.page;
}
