//! The timeline widget: a time axis with ticks and one row per lane, phase blocks in the theme's phase
//! colors with their names where they fit. Drawn straight into the buffer; all arithmetic saturates.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};

use super::dur;
use crate::timeline::record::RecordEvent;
use crate::tui::theme::Theme;
use crate::vocab::is_sub_phase;

/// Width of the lane-name column.
pub const LABEL_W: u16 = 15;

/// Writes `text` at (x, y), clipped to `max_x`.
fn put(buf: &mut Buffer, x: u16, y: u16, max_x: u16, text: &str, style: Style) {
    let mut cx = x;
    for ch in text.chars() {
        if cx >= max_x {
            break;
        }
        if let Some(cell) = buf.cell_mut((cx, y)) {
            cell.set_char(ch).set_style(style);
        }
        cx = cx.saturating_add(1);
    }
}

/// Column of time `t` in a bar `w` cells wide showing `window`.
fn col(t: u64, window: (u64, u64), w: u16) -> u16 {
    let span = window.1.saturating_sub(window.0).max(1) as u128;
    let rel = t.saturating_sub(window.0).min(window.1.saturating_sub(window.0)) as u128;
    (rel * u128::from(w) / span) as u16
}

/// A tick step of 1, 2 or 5 × 10^k µs giving about one tick per `cells_per_tick` columns.
fn tick_step(span_us: u64, w: u16, cells_per_tick: u16) -> u64 {
    let ticks = (w / cells_per_tick.max(1)).max(1) as u64;
    let raw = (span_us / ticks).max(1);
    let mut p = 1u64;
    while let Some(next) = p.checked_mul(10).filter(|n| *n <= raw) {
        p = next;
    }
    [1, 2, 5, 10].iter().map(|m| p.saturating_mul(*m)).find(|s| *s >= raw).unwrap_or(p.saturating_mul(10))
}

/// Draws the time axis in the first row of `area` (the lane-name column shows the zoom).
pub fn draw_axis(buf: &mut Buffer, area: Rect, window: (u64, u64), zoom: f64, t: &Theme) {
    if area.width <= LABEL_W + 1 || area.height == 0 {
        return;
    }
    let y = area.y;
    let dim = Style::new().fg(t.dim).bg(t.bg);
    put(buf, area.x, y, area.x + LABEL_W, &format!("zoom {zoom:.0}×"), dim);
    let x0 = area.x + LABEL_W + 1;
    let w = area.width - LABEL_W - 1;
    let max_x = area.right();
    for x in x0..max_x {
        put(buf, x, y, max_x, "─", dim);
    }
    let step = tick_step(window.1.saturating_sub(window.0), w, 12);
    let mut tick = window.0.div_ceil(step).saturating_mul(step);
    let mut free_from = x0;
    while tick <= window.1 {
        let x = x0 + col(tick, window, w);
        if x >= free_from && x < max_x {
            let label = format!("┬{}", dur(tick));
            let len = label.chars().count() as u16;
            if x + len <= max_x {
                put(buf, x, y, max_x, &label, dim);
                free_from = x + len + 1;
            } else {
                put(buf, x, y, max_x, "┬", dim);
            }
        }
        tick = match tick.checked_add(step) {
            Some(n) => n,
            None => break,
        };
    }
}

/// What [`draw_lanes`] draws.
pub struct Lanes<'a> {
    /// Lane names in display order.
    pub lanes: &'a [String],
    /// Events (any lane; sub-phases are left to the table and details).
    pub events: &'a [&'a RecordEvent],
    /// Visible window in µs.
    pub window: (u64, u64),
    /// Selected lane index, if any.
    pub selected: Option<usize>,
    /// Prefix of every lane label (`b ` / `c ` when two runs share the axis).
    pub prefix: &'a str,
}

/// Draws one row per lane into `area` (scrolling so the selected lane stays visible).
pub fn draw_lanes(buf: &mut Buffer, area: Rect, l: &Lanes, t: &Theme) {
    if area.width <= LABEL_W + 1 || area.height == 0 || l.lanes.is_empty() {
        return;
    }
    let rows = usize::from(area.height);
    let sel = l.selected.unwrap_or(0).min(l.lanes.len() - 1);
    let first =
        if l.lanes.len() <= rows { 0 } else { sel.saturating_sub(rows - 1).min(l.lanes.len() - rows) };
    let x0 = area.x + LABEL_W + 1;
    let w = area.width - LABEL_W - 1;
    for (row, lane) in l.lanes.iter().enumerate().skip(first).take(rows) {
        let y = area.y + (row - first) as u16;
        let label_style = if l.selected == Some(row) {
            Style::new().fg(t.bg).bg(t.selection).add_modifier(Modifier::BOLD)
        } else {
            Style::new().fg(t.fg).bg(t.bg)
        };
        let label: String = format!("{}{lane}", l.prefix).chars().take(usize::from(LABEL_W)).collect();
        put(buf, area.x, y, area.x + LABEL_W, &format!("{label:<w$}", w = usize::from(LABEL_W)), label_style);
        for e in l.events.iter().filter(|e| &e.lane == lane && !is_sub_phase(&e.phase)) {
            draw_block(buf, x0, y, w, e, l.window, t);
        }
    }
}

fn draw_block(buf: &mut Buffer, x0: u16, y: u16, w: u16, e: &RecordEvent, window: (u64, u64), t: &Theme) {
    let end = e.start_us.saturating_add(e.dur_us.max(1));
    if end <= window.0 || e.start_us >= window.1 {
        return;
    }
    let a = col(e.start_us, window, w);
    let b = col(end, window, w).max(a + 1).min(w);
    if a >= w {
        return;
    }
    let color = t.phase(&e.phase);
    let running = e.args.contains_key("running");
    let fill = if running { Style::new().fg(color).bg(t.bg) } else { Style::new().fg(t.bg).bg(color) };
    let symbol = if running { "▒" } else { " " };
    for x in a..b {
        put(buf, x0 + x, y, x0 + w, symbol, fill);
    }
    let name = e.phase.as_str();
    let len = name.chars().count() as u16;
    if b - a > len {
        let style = if running { Style::new().fg(t.fg).bg(t.bg) } else { fill.add_modifier(Modifier::BOLD) };
        put(buf, x0 + a, y, x0 + b, name, style);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round() {
        assert_eq!(tick_step(1_000_000, 60, 12), 200_000);
        assert_eq!(tick_step(4_100_000, 60, 12), 1_000_000);
        assert_eq!(tick_step(0, 0, 0), 1);
        assert!(tick_step(u64::MAX, 1, 12) >= 1);
        assert_eq!(col(50, (0, 100), 10), 5);
        assert_eq!(col(500, (0, 100), 10), 10);
        assert_eq!(col(0, (10, 10), 10), 0);
    }
}
