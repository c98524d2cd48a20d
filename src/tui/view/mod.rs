//! Drawing the console: one function per view over the `state::App` model. Every size down to 1×1 draws
//! without panicking; below [`MIN_W`]×[`MIN_H`] a notice replaces the layout. Each frame records what it drew
//! where in `App::drawn`, so keys scroll no further than the last row and clicks find their target.

mod ablation;
pub mod common;
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
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};
use ratatui::Frame;

use super::state::daemon::{Attached, Link};
use super::state::{App, Drawn, Prompt, RunState, View};
use super::theme::Theme;
pub use common::dur;
use common::{base, bytes, fit, group, level_color, secs, MIN_H, MIN_W};

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
    let (state, color) = match app.attached.as_ref().map(|a| &a.link) {
        Some(Link::Lost(_)) => ("● daemon gone".to_string(), t.bad),
        Some(Link::Connecting) => ("● dialing".to_string(), t.warn),
        _ => (state, color),
    };
    let right = format!(" {run}{state} ");
    let proof = app.sample.proof.as_ref().map_or(String::new(), |p| format!(" · {p}"));
    let left = match &app.attached {
        Some(a) => {
            let job = match &a.following {
                Some(_) => format!("{}{proof} ({})", app.sample.name, app.sample.path),
                None => "no job running".to_string(),
            };
            format!(" cuzk · attached {} · {job} · {} · {}", a.addr, app.backend.name, app.backend.device)
        }
        None => format!(
            " cuzk · {}{proof} ({shape}) · {} · {}",
            app.sample.name, app.backend.name, app.backend.device
        ),
    };
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
    let reason = match &app.attached {
        Some(a) => format!("  {}", daemon_line(a)),
        None => format!("  backend: {}", app.backend.reason),
    };
    tabs.push(Span::styled(fit(&reason, w.saturating_sub(used)), Style::new().fg(t.dim)));
    frame.render_widget(Paragraph::new(vec![top, Line::from(tabs)]).style(base(t)), area);
}

/// The daemon's queues, proofs, devices and memory in one line: `queue 1 waiting, 2 running · 5 done, 1
/// failed · gpu0 job …abc 41/80 G free · budget 12 G/400 G · porep 1+2`.
pub fn daemon_line(a: &Attached) -> String {
    let Some(i) = &a.info else { return format!("daemon {}: no status yet", a.addr) };
    let (pending, running) = a.totals();
    let mut parts = vec![
        format!("queue {pending} waiting, {running} running"),
        format!("{} done, {} failed", i.completed, i.failed),
    ];
    for g in &i.gpus {
        let job = if g.job.is_empty() { "idle".to_string() } else { format!("job …{}", tail(&g.job, 6)) };
        let mem = if g.mem_total > 0 {
            format!(" {}/{} free", bytes(g.mem_free), bytes(g.mem_total))
        } else {
            String::new()
        };
        parts.push(format!("gpu{} {job}{mem}", g.ordinal));
    }
    parts.push(format!("budget {}/{}", bytes(i.mem_in_use), bytes(i.mem_budget)));
    if i.draining {
        parts.push("DRAINING".into());
    }
    // Per kind last: the first to be cut on a narrow terminal.
    for q in i.queues.iter().filter(|q| q.pending + q.running > 0) {
        parts.push(format!("{} {}+{}", q.kind, q.pending, q.running));
    }
    parts.join(" · ")
}

/// The last `n` characters of `s`.
fn tail(s: &str, n: usize) -> String {
    let skip = s.chars().count().saturating_sub(n);
    s.chars().skip(skip).collect()
}

/// The console drawn once at `w`×`h` as plain text, a line per row (`cuzk tui --attach ADDR --once`).
pub fn text(app: &App, w: u16, h: u16) -> String {
    let mut term = match ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)) {
        Ok(t) => t,
        Err(e) => return format!("cannot draw: {e}\n"),
    };
    if let Err(e) = term.draw(|f| render(f, app)) {
        return format!("cannot draw: {e}\n");
    }
    let buf = term.backend().buffer();
    let mut out = String::new();
    for y in 0..h {
        let row: String = (0..w).map(|x| buf.cell((x, y)).map_or(" ", |c| c.symbol())).collect();
        out.push_str(row.trim_end());
        out.push('\n');
    }
    out
}

fn draw_last_log(frame: &mut Frame, area: Rect, app: &App) {
    let t = app.theme();
    let Some(l) = app.log.last() else { return };
    let text = fit(&format!(" {} {}", l.at, l.text), usize::from(area.width));
    let style = Style::new().fg(level_color(t, l.level));
    frame.render_widget(Paragraph::new(Span::styled(text, style)).style(base(t)), area);
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
    if let Some(Link::Lost(why)) = app.attached.as_ref().map(|a| &a.link) {
        let addr = app.attached.as_ref().map_or("", |a| a.addr.as_str());
        let text = fit(
            &format!(" daemon at {addr} gone: {why} · dialing again every 2 s · last state kept · q quits"),
            usize::from(area.width),
        );
        let line = Span::styled(text, Style::new().fg(t.bad).add_modifier(Modifier::BOLD));
        frame.render_widget(Paragraph::new(line).style(base(t)), area);
        return;
    }
    let wide = area.width >= 110;
    let attached = app.is_attached();
    let keys: &[(&str, &str)] = match (app.view, wide) {
        (View::History, _) => &[
            ("↑↓", "select"),
            ("/", "filter"),
            ("b", "baseline"),
            ("Enter", "compare"),
            ("d", "delete"),
            ("E", "export"),
        ],
        (View::Live, _) if attached => &[
            ("r", "submit"),
            ("x", "cancel job"),
            ("b", "baseline"),
            ("c", "compare"),
            ("f", "focus"),
            ("e", "maximize"),
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
