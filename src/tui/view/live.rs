//! The Live view: toggles, the timeline of the run in progress (or the run shown), the phase table against
//! the baseline and the log.

use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::timeline::{draw_axis, draw_lanes, Lanes};
use super::{base, dur, fit, panel, secs};
use crate::engine::compare::PhaseRow;
use crate::engine::stats::Verdict;
use crate::tui::state::timeline::lanes_of;
use crate::tui::state::{App, Level, RunState};
use crate::tui::theme::Theme;
use crate::vocab::{is_sub_phase, Toggle};

/// Draws the Live view into `area`.
pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let bottom_h = (area.height / 2).clamp(4, 16).min(area.height);
    let mid = Rect { height: area.height - bottom_h, ..area };
    let bottom = Rect { y: area.y + mid.height, height: bottom_h, ..area };
    let tog_w = 24.min(mid.width);
    draw_toggles(frame, Rect { width: tog_w, ..mid }, app);
    draw_timeline(frame, Rect { x: mid.x + tog_w, width: mid.width - tog_w, ..mid }, app);
    let table_w = if bottom.width >= 120 { 62 } else { bottom.width / 2 };
    draw_phase_table(frame, Rect { width: table_w, ..bottom }, app);
    draw_log(frame, Rect { x: bottom.x + table_w, width: bottom.width - table_w, ..bottom }, app);
}

fn draw_toggles(frame: &mut Frame, area: Rect, app: &App) {
    let t = app.theme();
    let mut lines = Vec::new();
    for (i, &tog) in Toggle::ALL.iter().enumerate() {
        let on = app.toggles.on(tog);
        let label = tog.info().short;
        let line = match tog.not_applicable(app.backend.is_gpu()) {
            Some(why) => Line::from(Span::styled(
                format!("[-] {} {}: {why}", i + 1, label.split(' ').next().unwrap_or(label)),
                Style::new().fg(t.dim),
            )),
            None => Line::from(vec![
                Span::styled(
                    if on { "[x]" } else { "[ ]" },
                    Style::new().fg(if on { t.good } else { t.dim }),
                ),
                Span::styled(format!(" {} ", i + 1), Style::new().fg(t.accent)),
                Span::styled(label.to_string(), Style::new().fg(t.fg)),
            ]),
        };
        lines.push(line);
    }
    lines.push(Line::from(Span::styled(
        format!("batch {} · R ×{}", app.toggles.batch, app.repeats),
        Style::new().fg(t.dim),
    )));
    frame.render_widget(Paragraph::new(lines).block(panel(t, " Toggles ")), area);
}

fn draw_timeline(frame: &mut Frame, area: Rect, app: &App) {
    let t = app.theme();
    let (events, total) = app.timeline_events();
    let window = app.viewport.window(total);
    let title = format!(" Timeline {}–{} ", dur(window.0), dur(window.1));
    let block = panel(t, title);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.height == 0 || inner.width == 0 {
        return;
    }
    let lanes = lanes_of(events.iter().copied());
    let status = status_line(app, t, usize::from(inner.width));
    let status_y = inner.bottom().saturating_sub(1);
    frame.render_widget(Paragraph::new(status).style(base(t)), Rect { y: status_y, height: 1, ..inner });
    if inner.height < 3 {
        return;
    }
    let buf = frame.buffer_mut();
    draw_axis(buf, Rect { height: 1, ..inner }, window, app.viewport.zoom, t);
    let lanes_area = Rect { y: inner.y + 1, height: inner.height - 2, ..inner };
    if lanes.is_empty() {
        let hint = if app.running() {
            "waiting for the first phase…"
        } else {
            "no run yet: press r to run a proof"
        };
        frame.render_widget(
            Paragraph::new(Span::styled(hint, Style::new().fg(t.dim))).style(base(t)),
            lanes_area,
        );
        return;
    }
    let sel = app.viewport.lane.min(lanes.len() - 1);
    let spec = Lanes { lanes: &lanes, events: &events, window, selected: Some(sel), prefix: "" };
    draw_lanes(frame.buffer_mut(), lanes_area, &spec, t);
}

/// The timeline's bottom line: a gauge for setup/compilation, the phases running now, or the shown run.
fn status_line<'a>(app: &App, t: &Theme, w: usize) -> Line<'a> {
    if let Some(l) = &app.live {
        if let Some((stage, done, total)) = l.progress.as_ref().filter(|p| p.1 < p.2) {
            let pct = if *total == 0 { 100.0 } else { 100.0 * *done as f64 / *total as f64 };
            let label = format!(" {stage} {done}/{total} {pct:3.0}% ");
            let bar_w = w.saturating_sub(label.chars().count() + 1);
            let filled = ((bar_w as f64) * pct / 100.0).round() as usize;
            return Line::from(vec![
                Span::styled(label, Style::new().fg(t.accent)),
                Span::styled("█".repeat(filled.min(bar_w)), Style::new().fg(t.accent)),
                Span::styled("░".repeat(bar_w.saturating_sub(filled)), Style::new().fg(t.dim)),
            ]);
        }
        let mut open: Vec<String> = l
            .open
            .iter()
            .filter(|e| !is_sub_phase(&e.phase))
            .map(|e| match e.circuit {
                Some(c) => format!("{} c{c}", e.phase),
                None => e.phase.clone(),
            })
            .collect();
        open.dedup();
        let now = if open.is_empty() { "…".to_string() } else { open.join(", ") };
        let step = if l.label.is_empty() { String::new() } else { format!("{} · ", l.label) };
        let text = format!("● {} · {step}{now}", secs(app.elapsed_us));
        return Line::from(Span::styled(fit(&text, w), Style::new().fg(t.accent)));
    }
    match app.shown_run() {
        Some(r) => {
            let verified = if r.all_verified() {
                "verified ✓"
            } else if r.proofs.iter().all(|p| p.verified.is_none()) {
                "verify off"
            } else {
                "verify FAILED"
            };
            let n = app.shown.map_or(0, |i| i + 1);
            let text = format!("run #{n} · {} · {verified} · {}", dur(r.wall_us), r.toggles.compact());
            Line::from(Span::styled(fit(&text, w), Style::new().fg(t.dim)))
        }
        None if app.state == RunState::Failed => {
            Line::from(Span::styled("last run failed: see the log", Style::new().fg(t.bad)))
        }
        None => Line::from(""),
    }
}

/// Δ% as text and its color.
fn delta_cell(row: &PhaseRow, t: &Theme) -> (String, Style) {
    let style = match row.verdict {
        Some(Verdict::Faster) => Style::new().fg(t.good),
        Some(Verdict::Slower) => Style::new().fg(t.bad),
        _ => Style::new().fg(t.dim),
    };
    (row.delta_pct.map_or("-".to_string(), |d| format!("{d:+.1}%")), style)
}

/// Verdict words: full when there is room, else short.
pub fn verdict_word(v: Option<Verdict>, short: bool) -> &'static str {
    match (v, short) {
        (Some(Verdict::Faster), false) => "faster",
        (Some(Verdict::Slower), false) => "slower",
        (Some(Verdict::WithinNoise), false) => "within noise",
        (Some(Verdict::Faster), true) => "fast",
        (Some(Verdict::Slower), true) => "slow",
        (Some(Verdict::WithinNoise), true) => "~",
        (None, _) => "",
    }
}

fn ms(s: Option<&crate::engine::stats::Summary>) -> String {
    s.map_or("-".to_string(), |s| format!("{:.1}", s.median))
}

fn draw_phase_table(frame: &mut Frame, area: Rect, app: &App) {
    let t = app.theme();
    let (rows, label, base) = app.phase_rows();
    let base_label = base.map_or("-".to_string(), |b| format!("#{b}"));
    let title = if label.is_empty() {
        " Phases ".to_string()
    } else {
        format!(" Phases {label} vs {base_label} (ms) ")
    };
    let block = panel(t, title);
    let inner = block.inner(area);
    let short = inner.width < 50;
    let head = format!(
        "{:<9} {:>7} {:>7} {:>7} {}",
        "phase",
        label,
        base_label,
        "Δ",
        if short { "" } else { "verdict" }
    );
    let mut lines = vec![Line::from(Span::styled(head, Style::new().fg(t.dim).add_modifier(Modifier::BOLD)))];
    for r in fit_rows(&rows, usize::from(inner.height.saturating_sub(1))) {
        let name = if is_sub_phase(&r.phase) { format!(" {}", r.phase) } else { r.phase.clone() };
        let (d, style) = delta_cell(r, t);
        lines.push(Line::from(vec![
            Span::styled(format!("{:<9} ", fit(&name, 9)), Style::new().fg(t.phase(&r.phase))),
            Span::raw(format!("{:>7} {:>7} ", ms(r.cand.as_ref()), ms(r.base.as_ref()))),
            Span::styled(format!("{d:>7} {}", verdict_word(r.verdict, short)), style),
        ]));
    }
    if rows.is_empty() {
        lines.push(Line::from(Span::styled("no run yet", Style::new().fg(t.dim))));
    }
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// The rows that fit `room` lines: sub-phases go first when short of room, and the wall row always stays.
fn fit_rows(rows: &[PhaseRow], room: usize) -> Vec<&PhaseRow> {
    let mut kept: Vec<&PhaseRow> = rows.iter().collect();
    if kept.len() > room {
        kept.retain(|r| !is_sub_phase(&r.phase));
    }
    if kept.len() > room && room > 0 {
        let wall = kept.pop();
        kept.truncate(room - 1);
        kept.extend(wall);
    }
    kept
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

/// The log pane: the newest lines that fit, wrapped; timestamps when there is room.
pub fn draw_log(frame: &mut Frame, area: Rect, app: &App) {
    let t = app.theme();
    let block = panel(t, " Log ");
    let inner = block.inner(area);
    let w = usize::from(inner.width);
    let h = usize::from(inner.height);
    let stamp = w >= 60;
    let mut lines: Vec<Line> = Vec::new();
    for l in app.log.iter().rev() {
        if lines.len() >= h {
            break;
        }
        let style = match l.level {
            Level::Info => Style::new().fg(t.fg),
            Level::Good => Style::new().fg(t.good),
            Level::Warn => Style::new().fg(t.warn),
            Level::Error => Style::new().fg(t.bad),
        };
        let text = if stamp { format!("{} {}", l.at, l.text) } else { l.text.clone() };
        for piece in wrap(&text, w).into_iter().rev() {
            lines.push(Line::from(Span::styled(piece, style)));
        }
    }
    lines.reverse();
    let skip = lines.len().saturating_sub(h);
    frame.render_widget(Paragraph::new(lines.split_off(skip)).block(block), area);
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
