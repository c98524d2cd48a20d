//! Drawing the console: one function per view over the `state::App` model. Every size down to 1×1 draws
//! without panicking; below [`MIN_W`]×[`MIN_H`] a notice replaces the layout. Each frame records what it drew
//! where in `App::drawn`, so keys scroll no further than the last row and clicks find their target.

mod ablation;
mod compare;
mod help;
mod history;
mod live;
mod phases;
mod popup;
pub mod table;
pub mod timeline;

use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};

pub use crate::util::digits::group;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use ratatui::Frame;

use super::state::{App, Drawn, Level, Panel, Prompt, RunState, View};
use super::theme::Theme;

/// Narrowest terminal the layout is drawn in (the README's smallest size; the notice says the same).
pub const MIN_W: u16 = 80;
/// Shortest terminal the layout is drawn in.
pub const MIN_H: u16 = 24;

/// Draws the whole console for the current state and records the layout in `app.drawn`.
pub fn render(frame: &mut Frame, app: &App) {
    let area = frame.area();
    let t = app.theme();
    frame.render_widget(Block::new().style(base(t)), area);
    let mut d = Drawn { page: 10, ..Drawn::default() };
    if area.width < MIN_W || area.height < MIN_H {
        too_small(frame, area, t);
        app.drawn.set(d);
        return;
    }
    let header = Rect { height: 2, ..area };
    let body = Rect { y: area.y + 2, height: area.height.saturating_sub(3), ..area };
    let controls = Rect { y: area.bottom().saturating_sub(1), height: 1, ..area };
    draw_header(frame, header, app, &mut d);
    // Views without the log pane show its newest line, so what a key did (export, baseline) is visible.
    let body = match app.view {
        View::History | View::Compare | View::Ablation if body.height > 4 => {
            let last = Rect { y: body.bottom() - 1, height: 1, ..body };
            draw_last_log(frame, last, app);
            Rect { height: body.height - 1, ..body }
        }
        _ => body,
    };
    match app.view {
        View::Live => live::draw(frame, body, app, &mut d),
        View::History => history::draw(frame, body, app, &mut d),
        View::Compare => compare::draw(frame, body, app, &mut d),
        View::Ablation => ablation::draw(frame, body, app, &mut d),
        View::Help => help::draw(frame, body, app, &mut d),
    }
    draw_controls(frame, controls, app);
    if let Some(ev) = &app.details {
        popup::details(frame, area, app, ev);
    }
    app.drawn.set(d);
}

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

fn too_small(frame: &mut Frame, area: Rect, t: &Theme) {
    let lines = vec![
        Line::from(Span::styled(
            format!("terminal too small: need {MIN_W}×{MIN_H}"),
            Style::new().fg(t.warn),
        )),
        Line::from(format!("now {}×{}", area.width, area.height)),
        Line::from("q quits"),
    ];
    let top = area.height.saturating_sub(3) / 2;
    let r = Rect { y: area.y + top, height: area.height.saturating_sub(top), ..area };
    frame.render_widget(Paragraph::new(lines).centered().style(base(t)), r);
}

fn draw_header(frame: &mut Frame, area: Rect, app: &App, d: &mut Drawn) {
    let t = app.theme();
    let shape = match app.constraints() {
        Some(c) => format!("{}×{} constraints", app.sample.circuits, group(c)),
        None => format!("{} circuit{}", app.sample.circuits, if app.sample.circuits == 1 { "" } else { "s" }),
    };
    let (num, state, color) = match (&app.live, app.state) {
        (Some(l), _) => (l.number, format!("● running {}", secs(app.elapsed_us)), t.accent),
        (None, RunState::Failed) => (app.runs.len() + 1, "● failed".to_string(), t.bad),
        (None, _) => (app.shown.map_or(0, |i| i + 1), "● idle".to_string(), t.dim),
    };
    let run = if num == 0 { String::new() } else { format!("run #{num} ") };
    let right = format!(" {run}{state} ");
    let proof = app.sample.proof.as_ref().map_or(String::new(), |p| format!(" · {p}"));
    let left = format!(
        " cuzk · {}{proof} ({shape}) · {} · {}",
        app.sample.name, app.backend.name, app.backend.device
    );
    let w = usize::from(area.width);
    let right_w = right.chars().count();
    let left = fit(&left, w.saturating_sub(right_w));
    let pad = w.saturating_sub(left.chars().count() + right_w);
    let top = Line::from(vec![
        Span::styled(left, Style::new().fg(t.fg).add_modifier(Modifier::BOLD)),
        Span::raw(" ".repeat(pad)),
        Span::styled(right, Style::new().fg(color).add_modifier(Modifier::BOLD)),
    ]);
    let mut tabs: Vec<Span> = vec![Span::raw(" ")];
    let mut x = area.x + 1;
    d.tab_y = area.y + 1;
    for (i, v) in View::ALL.iter().enumerate() {
        let style = if *v == app.view { t.tab_active() } else { Style::new().fg(t.dim) };
        let label = format!(" F{} {} ", i + 1, v.title());
        let len = label.chars().count() as u16;
        d.tabs[i] = (x, x + len);
        x += len;
        tabs.push(Span::styled(label, style));
    }
    let used: usize = tabs.iter().map(|s| s.content.chars().count()).sum();
    let reason = format!("  backend: {}", app.backend.reason);
    tabs.push(Span::styled(fit(&reason, w.saturating_sub(used)), Style::new().fg(t.dim)));
    frame.render_widget(Paragraph::new(vec![top, Line::from(tabs)]).style(base(t)), area);
}

fn draw_last_log(frame: &mut Frame, area: Rect, app: &App) {
    let t = app.theme();
    let Some(l) = app.log.last() else { return };
    let text = fit(&format!(" {} {}", l.at, l.text), usize::from(area.width));
    let style = Style::new().fg(level_color(t, l.level));
    frame.render_widget(Paragraph::new(Span::styled(text, style)).style(base(t)), area);
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

fn draw_controls(frame: &mut Frame, area: Rect, app: &App) {
    let t = app.theme();
    let key = Style::new().fg(t.accent).add_modifier(Modifier::BOLD);
    if let Some(p) = &app.prompt {
        let (label, buf, hint) = match p {
            Prompt::Repeats(b) => (" repeats: ", format!("{b}█"), "  Enter run · Esc cancel".to_string()),
            Prompt::Filter(b) => {
                let what = if app.view == View::History { "runs" } else { "lanes" };
                (
                    " filter: ",
                    format!("{b}█"),
                    format!("  {what} matching every word · Enter keep · Esc close"),
                )
            }
            Prompt::Delete(id) => {
                (" delete ", format!("run {id} from the store?"), "  y delete · any key keeps".into())
            }
        };
        let line = Line::from(vec![
            Span::styled(label, key),
            Span::styled(buf, Style::new().fg(t.fg)),
            Span::styled(hint, Style::new().fg(t.dim)),
        ]);
        frame.render_widget(Paragraph::new(line).style(base(t)), area);
        return;
    }
    let wide = area.width >= 110;
    let keys: &[(&str, &str)] = match (app.view, wide) {
        (View::History, _) => &[
            ("↑↓", "select"),
            ("/", "filter"),
            ("b", "baseline"),
            ("Enter", "compare"),
            ("d", "delete"),
            ("E", "export"),
        ],
        (View::Live, true) => &[
            ("r", "run"),
            ("R", "repeat"),
            ("a", "ablate"),
            ("0-9!@#$%^&", "toggles"),
            ("b", "baseline"),
            ("c", "compare"),
            ("f", "focus"),
            ("e", "maximize"),
            ("E", "export"),
            ("←→", "blocks"),
        ],
        (View::Live, false) => &[
            ("r", "run"),
            ("a", "abl"),
            ("0-9!@#$%^&", "tog"),
            ("c", "cmp"),
            ("f", "focus"),
            ("e", "max"),
            ("E", "exp"),
        ],
        (_, _) => {
            &[("j/k", "scroll"), ("e", "maximize"), ("b", "baseline"), ("E", "export"), ("Tab", "views")]
        }
    };
    // As many keys as fit, then always `? help` and `q quit`.
    let sep = if wide { " · " } else { "  " };
    let tail: [(&str, &str); 2] = [("?", "help"), ("q", "quit")];
    let len = |(k, what): &(&str, &str)| k.chars().count() + what.chars().count() + 1 + sep.chars().count();
    let mut room = usize::from(area.width).saturating_sub(1 + tail.iter().map(len).sum::<usize>());
    let mut shown: Vec<(&str, &str)> = Vec::new();
    for k in keys {
        if len(k) > room {
            break;
        }
        room -= len(k);
        shown.push(*k);
    }
    shown.extend(tail);
    let mut spans = vec![Span::raw(" ")];
    for (i, (k, what)) in shown.iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled(sep, Style::new().fg(t.dim)));
        }
        spans.push(Span::styled(*k, key));
        spans.push(Span::styled(format!(" {what}"), Style::new().fg(t.fg)));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)).style(base(t)), area);
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
