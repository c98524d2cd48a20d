//! The Live phase table: per phase the run shown (or in progress) against its baseline, Δ and the verdict or
//! why there is none, the peak memory while it ran and, with the machine's floors measured, its achieved rate
//! and percentage of the floor. The wall row, then the setup phases outside it; scrolls like every table.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::Frame;

use super::common::head_style;
use super::common::{bytes, fit, focus_panel};
use super::table::{scrolled, wrap};
use crate::engine::compare::{delta_text, NoVerdict, PhaseRow};
use crate::engine::floor::{headroom, si};
use crate::engine::stats::{Summary, Verdict};
use crate::timeline::record::RunRecord;
use crate::tui::state::{App, Drawn, Panel};
use crate::tui::theme::Theme;
use crate::vocab::{is_sub_phase, Counter};

/// Width of the name column.
const NAME_W: usize = 10;
/// Width of each number column.
const NUM_W: usize = 8;
/// Width of the Δ column (`-12.3%`, `>+999%`).
const DELTA_W: usize = 6;

/// Columns the table wants: the base columns, plus peak memory and floor columns when there is data for them.
pub fn table_width(app: &App) -> u16 {
    let t = app.phase_table();
    let mut w = (NAME_W + 2 * (NUM_W + 1) + DELTA_W + 14 + 3) as u16;
    if t.current.as_ref().is_some_and(|c| !c.counters.is_empty()) {
        w += NUM_W as u16 + 1;
    }
    if app.floors.is_some() {
        w += 20;
    }
    w
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

/// The verdict cell: the verdict, or why there is none (`n=1`, `<floor`, `shape`; short: `n=1`, `<fl`, `≠`),
/// and its color.
pub fn verdict_cell(r: &PhaseRow, short: bool, t: &Theme) -> (String, Style) {
    let style = match r.verdict {
        Some(Verdict::Faster) => Style::new().fg(t.good),
        Some(Verdict::Slower) => Style::new().fg(t.bad),
        _ => Style::new().fg(t.dim),
    };
    let text = match (r.verdict, r.no_verdict) {
        (Some(v), _) => verdict_word(Some(v), short).to_string(),
        (None, Some(NoVerdict::BelowFloor)) if short => "<fl".to_string(),
        (None, Some(NoVerdict::OtherShape)) if short => "≠".to_string(),
        (None, Some(why)) => why.mark(),
        (None, None) => String::new(),
    };
    (text, style)
}

fn ms(s: Option<&Summary>) -> String {
    s.map_or("-".to_string(), |s| format!("{:.1}", s.median))
}

/// The peak memory while `phase` ran in `rec`: host RSS, or the device's memory for a device phase.
fn peak_of(rec: &RunRecord, phase: &str) -> Option<u64> {
    let mut peak: Option<u64> = None;
    for e in rec.events.iter().filter(|e| e.phase == phase) {
        let counter = e.device.map_or(Counter::HostRss, Counter::DeviceMem).name();
        let series = rec.counters.iter().find(|c| c.name == counter)?;
        let p = series.peak_in(e.start_us, e.start_us + e.dur_us);
        peak = peak.max(p);
    }
    peak
}

/// Draws the table into `area` and records its scroll limit.
pub fn draw_phase_table(frame: &mut Frame, area: Rect, app: &App, d: &mut Drawn) {
    let t = app.theme();
    let table = app.phase_table();
    let base_label = table.base_label.clone().unwrap_or_else(|| "-".into());
    let title = match (&table.label, &table.base_label) {
        (l, _) if l.is_empty() => " Phases ".to_string(),
        (l, Some(b)) => format!(" Phases {l} vs {b} · ms/repeat "),
        (l, None) => format!(" Phases {l} · ms/repeat · no baseline "),
    };
    let block = focus_panel(t, title, app.focus == Panel::Phases);
    let inner_w = usize::from(block.inner(area).width);
    let short = inner_w < 50;
    let cur = table.current.as_ref();
    let peaks = !short && cur.is_some_and(|c| !c.counters.is_empty());
    let floors = if short { None } else { app.floors.as_ref() };
    let mut header: Vec<Line<'static>> = Vec::new();
    if let Some(m) = &table.mismatch {
        for piece in wrap(&format!("≠ {m}"), inner_w) {
            header.push(Line::from(Span::styled(piece, Style::new().fg(t.warn))));
        }
    }
    let (name_w, num_w) = if short { (NAME_W - 1, NUM_W - 1) } else { (NAME_W, NUM_W) };
    let mut head = format!(
        "{:<name_w$} {:>num_w$} {:>num_w$} {:>DELTA_W$} {}",
        "phase",
        table.label,
        base_label,
        "Δ",
        if short { "" } else { "verdict     " }
    );
    if peaks {
        head.push_str(&format!(" {:>NUM_W$}", "peak mem"));
    }
    if floors.is_some() {
        head.push_str(&format!(" {:>11} {:>6}", "rate", "floor"));
    }
    if !table.rows.is_empty() {
        header.push(Line::from(Span::styled(fit(&head, inner_w), head_style(t))));
    }
    let mut rows: Vec<Line<'static>> = Vec::new();
    for r in &table.rows {
        let name = if is_sub_phase(&r.phase) { format!(" {}", r.phase) } else { r.phase.clone() };
        let (v, vstyle) = verdict_cell(r, short, t);
        let d = r.delta_pct.map_or("-".to_string(), delta_text);
        let mut spans = vec![
            Span::styled(format!("{:<name_w$} ", fit(&name, name_w)), Style::new().fg(t.phase(&r.phase))),
            Span::raw(format!("{:>num_w$} {:>num_w$} ", ms(r.cand.as_ref()), ms(r.base.as_ref()))),
            Span::styled(format!("{d:>DELTA_W$} {v:<w$}", w = if short { 6 } else { 12 }), vstyle),
        ];
        if let (true, Some(c)) = (peaks, cur) {
            let p = if r.is_wall() {
                Some(c.counters.iter().map(|s| s.peak()).max().unwrap_or(0))
            } else {
                peak_of(c, &r.phase)
            };
            spans.push(Span::styled(
                format!(" {:>NUM_W$}", p.map_or("-".into(), bytes)),
                Style::new().fg(t.fg),
            ));
        }
        if let (Some(f), Some(c)) = (floors, cur) {
            let cell = match headroom(&r.phase, &c.events, f) {
                Some(h) => {
                    format!(" {:>11} {:>5.1}%", format!("{}{}/s", si(h.rate), &h.unit[..1]), h.pct_of_floor)
                }
                None => String::new(),
            };
            spans.push(Span::styled(cell, Style::new().fg(t.fg)));
        }
        rows.push(Line::from(spans));
    }
    for (name, us) in &table.setup {
        rows.push(Line::from(vec![
            Span::styled(format!("{:<name_w$} ", fit(name, name_w)), Style::new().fg(t.phase(name))),
            Span::styled(
                format!(
                    "{:>num_w$} {:>num_w$} {:>DELTA_W$}",
                    format!("{:.1}", *us as f64 / 1e3),
                    "",
                    "setup"
                ),
                Style::new().fg(t.dim),
            ),
        ]));
    }
    if table.rows.is_empty() && table.setup.is_empty() {
        rows.push(Line::from(Span::styled("no run of this sample yet", Style::new().fg(t.dim))));
    }
    let s = scrolled(frame, area, block, header, rows, app.scroll.phases, t);
    d.max[Panel::Phases.idx()] = s.max;
    if app.focused() == Panel::Phases {
        d.page = s.page;
    }
}
