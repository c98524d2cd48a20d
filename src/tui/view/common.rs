//! What every view draws with: the panel blocks in the theme's colors, the focus and maximize rules, and
//! the short forms of durations, bytes and cut text. The views and the frame around them use these; they
//! use nothing of the views.

use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders};

use crate::tui::state::{App, Level, Panel};
use crate::tui::theme::Theme;
pub use crate::util::digits::group;

/// Narrowest terminal the layout is drawn in (the README's smallest size; the notice says the same).
pub const MIN_W: u16 = 80;
/// Shortest terminal the layout is drawn in.
pub const MIN_H: u16 = 24;

/// Default text style of a theme.
pub fn base(t: &Theme) -> Style {
    Style::new().fg(t.fg).bg(t.bg)
}

/// A bordered panel with a title in the theme's colors; the focused panel's border is in the accent color.
pub fn panel<'a>(t: &Theme, title: impl Into<Line<'a>>) -> Block<'a> {
    Block::new()
        .borders(Borders::ALL)
        .border_style(Style::new().fg(t.border))
        .title(title)
        .title_style(Style::new().fg(t.accent).add_modifier(Modifier::BOLD))
        .style(base(t))
}

/// [`panel`] with the focus shown: an accent border and a `▸` before the title.
pub fn focus_panel<'a>(t: &Theme, title: String, focused: bool) -> Block<'a> {
    if focused {
        panel(t, format!("▸{title}")).border_style(Style::new().fg(t.accent))
    } else {
        panel(t, title)
    }
}

/// The area a view's panel gets: everything when it is the maximized one.
pub fn maximized(app: &App, panel: Panel) -> bool {
    app.maximized && app.focused() == panel
}

/// The color of a log line of `level` (plain lines dim where they share a row with other content).
pub fn level_color(t: &Theme, level: Level) -> ratatui::style::Color {
    match level {
        Level::Info => t.dim,
        Level::Good => t.good,
        Level::Warn => t.warn,
        Level::Error => t.bad,
    }
}

/// Bold header style of tables.
pub fn head_style(t: &Theme) -> Style {
    Style::new().fg(t.dim).add_modifier(Modifier::BOLD)
}

/// Cuts `s` to `w` characters, ending in `…` when cut.
pub fn fit(s: &str, w: usize) -> String {
    if s.chars().count() <= w {
        return s.to_string();
    }
    if w == 0 {
        return String::new();
    }
    let mut out: String = s.chars().take(w - 1).collect();
    out.push('…');
    out
}

/// Seconds with one decimal (`3.2 s`).
pub fn secs(us: u64) -> String {
    format!("{:.1} s", us as f64 / 1e6)
}

/// Bytes for a narrow column: `812 M`, `1.4 G`.
pub fn bytes(b: u64) -> String {
    let b = b as f64;
    match b {
        x if x >= 1e12 => format!("{:.1} T", x / 1e12),
        x if x >= 1e9 => format!("{:.1} G", x / 1e9),
        x if x >= 1e6 => format!("{:.0} M", x / 1e6),
        x if x >= 1e3 => format!("{:.0} k", x / 1e3),
        x => format!("{x:.0} B"),
    }
}

/// A duration for axes and popups: µs, ms or s with few digits.
pub fn dur(us: u64) -> String {
    if us == 0 {
        "0".to_string()
    } else if us < 1_000 {
        format!("{us} µs")
    } else if us < 1_000_000 {
        let ms = us as f64 / 1e3;
        if ms < 10.0 {
            format!("{ms:.1} ms")
        } else {
            format!("{ms:.0} ms")
        }
    } else {
        let s = us as f64 / 1e6;
        if s < 10.0 {
            format!("{s:.2} s")
        } else {
            format!("{s:.1} s")
        }
    }
}
