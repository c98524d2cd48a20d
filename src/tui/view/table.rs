//! One scrolling table for every panel that lists rows (phases, compare, ablation, help, history): pinned
//! header lines, the rows from the scroll offset, and `rows a–b of n` on the bottom border when not all fit.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};
use ratatui::Frame;

use crate::tui::theme::Theme;

/// What a scrolled table drew: the largest useful offset and the rows a page holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Scrolled {
    /// Largest offset that still fills the page.
    pub max: usize,
    /// Data rows visible at once.
    pub page: usize,
    /// Offset actually drawn (the requested one, clamped).
    pub offset: usize,
}

/// Draws `header` then `rows[offset..]` inside `block` over `area`.
pub fn scrolled(
    frame: &mut Frame,
    area: Rect,
    block: Block<'_>,
    header: Vec<Line<'static>>,
    rows: Vec<Line<'static>>,
    offset: usize,
    t: &Theme,
) -> Scrolled {
    let inner = block.inner(area);
    let page = usize::from(inner.height).saturating_sub(header.len());
    let max = rows.len().saturating_sub(page);
    let offset = offset.min(max);
    let block = if rows.len() > page && page > 0 {
        let last = (offset + page).min(rows.len());
        let marks =
            format!(" {}{}–{last} of {} ", if offset > 0 { "↑ " } else { "" }, offset + 1, rows.len());
        let marks = if last < rows.len() { format!("{marks}↓ ") } else { marks };
        block.title_bottom(Line::from(Span::styled(marks, Style::new().fg(t.accent))).right_aligned())
    } else {
        block
    };
    let mut lines = header;
    lines.extend(rows.into_iter().skip(offset).take(page));
    frame.render_widget(Paragraph::new(lines).block(block), area);
    Scrolled { max, page: page.max(1), offset }
}

/// Wraps `text` at spaces into lines of at most `w` characters (hard-cuts longer words).
pub fn wrap(text: &str, w: usize) -> Vec<String> {
    let w = w.max(1);
    let mut out = Vec::new();
    let mut cur = String::new();
    for word in text.split(' ') {
        let mut word = word.to_string();
        loop {
            let need = if cur.is_empty() { 0 } else { cur.chars().count() + 1 };
            if need + word.chars().count() <= w {
                if !cur.is_empty() {
                    cur.push(' ');
                }
                cur.push_str(&word);
                break;
            }
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            let head: String = word.chars().take(w).collect();
            word = word.chars().skip(w).collect();
            out.push(head);
            if word.is_empty() {
                break;
            }
        }
    }
    if !cur.is_empty() || out.is_empty() {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::wrap;

    #[test]
    fn wrap_keeps_words_and_cuts_long_ones() {
        assert_eq!(wrap("run #2 finished in 1.23 s", 12), vec!["run #2", "finished in", "1.23 s"]);
        assert_eq!(wrap("abcdefghij", 4), vec!["abcd", "efgh", "ij"]);
        assert_eq!(wrap("", 4), vec![""]);
        assert_eq!(wrap("a b", 0), vec!["a", "b"]);
    }
}
