//! SVG Gantt chart: a title line, a time axis with round ticks, one row per lane (taller when work overlaps
//! without nesting), one bar per event colored by phase (sub-phases as thinner bars inside their parent's row),
//! a tooltip per bar and a legend of the phases present. Fixed width; height follows the lanes.

use std::fmt::Write as _;

use super::layout::{args_compact, end_us, fmt_us, layout};
use crate::timeline::record::RunRecord;
use crate::vocab::{is_sub_phase, phase_order, Phase};

/// Picture width in px: wide enough for detail, narrow enough for an issue comment.
const WIDTH: f64 = 1200.0;
/// Height of one track of a lane.
const ROW_H: f64 = 24.0;
/// Baseline of the title line.
const TITLE_Y: f64 = 22.0;
/// Y of the time axis line (tick labels sit above it).
const AXIS_Y: f64 = 54.0;
/// Space right of the plot, so the last tick label fits.
const RIGHT: f64 = 28.0;
/// Approximate width of one character of 12 px sans-serif, for label and legend layout.
const CHAR_W: f64 = 7.0;

/// Colors for phase names outside the palette (records from other versions), picked by a name hash.
const FALLBACK: [&str; 6] = ["#7f7f7f", "#bab0ac", "#5f6b8a", "#8a5f6b", "#6b8a5f", "#a08a5f"];

/// Renders the chart.
pub(super) fn render(record: &RunRecord) -> String {
    let lay = layout(record);
    let longest = lay.lanes.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let label_w = (longest as f64 * CHAR_W + 24.0).clamp(90.0, 260.0);
    let plot_w = WIDTH - label_w - RIGHT;
    let t_max = record.events.iter().map(end_us).max().unwrap_or(0).max(record.wall_us).max(1);
    let x_of = |t: u64| label_w + t as f64 / t_max as f64 * plot_w;

    // Lane tops: each lane is as tall as its track count.
    let rows_top = AXIS_Y + 4.0;
    let mut tops = Vec::with_capacity(lay.lanes.len());
    let mut y = rows_top;
    for &n in &lay.tracks {
        tops.push(y);
        y += n as f64 * ROW_H;
    }
    let rows_bottom = if lay.lanes.is_empty() { rows_top + ROW_H } else { y };

    let legend = legend_items(record);
    let (legend_svg, legend_h) = draw_legend(&legend, rows_bottom + 22.0);
    let height = (rows_bottom + 22.0 + legend_h + 8.0).ceil();

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r##"<rect class="bg" width="100%" height="100%" fill="#ffffff"/>"##);
    let setup = match record.setup_us() {
        0 => String::new(),
        us => format!(" · setup {}", fmt_us(us)),
    };
    // A run that did not complete shows its elapsed time and how it ended.
    let end = if record.completed() { String::new() } else { format!(" · {}", record.outcome.name()) };
    let title = format!(
        "cuzk · {} · {} · {} · wall {}{}{setup}{end}",
        record.sample.name,
        record.id,
        record.backend,
        fmt_us(record.wall_median_us()),
        if record.repeats.len() > 1 { " (median)" } else { "" },
    );
    let _ =
        writeln!(s, r#"<text class="title" x="12" y="{TITLE_Y}" font-weight="bold">{}</text>"#, esc(&title));
    let _ = writeln!(
        s,
        r##"<text class="toggles" x="{:.1}" y="{TITLE_Y}" text-anchor="end" fill="#666666">{}</text>"##,
        WIDTH - 12.0,
        esc(&record.toggles.compact())
    );

    // Lane stripes and labels.
    for (i, lane) in lay.lanes.iter().enumerate() {
        let (top, h) = (tops[i], lay.tracks[i] as f64 * ROW_H);
        let fill = if i % 2 == 0 { "#f4f4f4" } else { "#ffffff" };
        let _ = writeln!(s, r#"<rect x="0" y="{top:.1}" width="{WIDTH}" height="{h:.1}" fill="{fill}"/>"#);
        let max_chars = ((label_w - 16.0) / CHAR_W) as usize;
        let shown = truncate(lane, max_chars);
        let full = if shown == *lane { String::new() } else { format!("<title>{}</title>", esc(lane)) };
        let _ = writeln!(
            s,
            r#"<text class="lane" x="{:.1}" y="{:.1}" text-anchor="end">{}{full}</text>"#,
            label_w - 8.0,
            top + ROW_H / 2.0 + 4.0,
            esc(&shown)
        );
    }
    if lay.lanes.is_empty() {
        let _ = writeln!(
            s,
            r##"<text x="{:.1}" y="{:.1}" fill="#666666">no events</text>"##,
            label_w,
            rows_top + 16.0
        );
    }

    // Time axis: grid line and label per tick.
    let (step, unit, div) = tick_step(t_max);
    let _ = writeln!(
        s,
        r##"<line x1="{label_w:.1}" y1="{AXIS_Y}" x2="{:.1}" y2="{AXIS_Y}" stroke="#444444"/>"##,
        label_w + plot_w
    );
    let mut t = 0u64;
    while t <= t_max {
        let x = x_of(t);
        let _ = writeln!(
            s,
            r##"<line class="tick" x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{rows_bottom:.1}" stroke="#d0d0d0"/>"##,
            AXIS_Y - 4.0
        );
        let _ = writeln!(
            s,
            r##"<text class="tick-label" x="{x:.1}" y="{:.1}" text-anchor="middle" fill="#444444">{}</text>"##,
            AXIS_Y - 7.0,
            esc(&tick_label(t, unit, div, step))
        );
        match t.checked_add(step) {
            Some(n) => t = n,
            None => break,
        }
    }

    // Bars: parents before children so sub-phases are drawn on top.
    let mut order: Vec<usize> = (0..record.events.len()).collect();
    order.sort_by_key(|&i| (lay.slots[i].depth, i));
    for i in order {
        let (e, slot) = (&record.events[i], lay.slots[i]);
        let Some(&lane_top) = tops.get(slot.lane) else { continue };
        let top = lane_top + slot.track as f64 * ROW_H;
        let thin = slot.depth > 0 || is_sub_phase(&e.phase);
        let (y, h) = if thin {
            let h = (10.0 - 2.0 * slot.depth.saturating_sub(1) as f64).max(4.0);
            (top + (ROW_H - h) / 2.0, h)
        } else {
            (top + 3.0, ROW_H - 6.0)
        };
        let x = x_of(e.start_us);
        let w = (x_of(e.start_us.saturating_add(e.dur_us)) - x).max(1.0);
        let mut tip = format!("{} · {}", e.phase, e.lane);
        if let Some(c) = e.circuit {
            let _ = write!(tip, " · circuit {c}");
        }
        let _ = write!(tip, " · start {} · dur {}", fmt_us(e.start_us), fmt_us(e.dur_us));
        let args = args_compact(e);
        if !args.is_empty() {
            let _ = write!(tip, " · {args}");
        }
        let _ = writeln!(
            s,
            r##"<rect class="ev" data-phase="{}" data-lane="{}" x="{x:.2}" y="{y:.1}" width="{w:.2}" height="{h:.1}" rx="2" fill="{}" stroke="#ffffff" stroke-width="0.5"><title>{}</title></rect>"##,
            esc(&e.phase),
            esc(&e.lane),
            color(&e.phase),
            esc(&tip)
        );
    }

    s.push_str(&legend_svg);
    s.push_str("</svg>\n");
    s
}

/// The phases present, in pipeline order; unknown names after, alphabetically.
fn legend_items(record: &RunRecord) -> Vec<&str> {
    let mut names: Vec<&str> = record.events.iter().map(|e| e.phase.as_str()).collect();
    names.sort_by_key(|n| phase_order(n));
    names.dedup();
    names
}

/// The legend as flowing swatch + name items; returns its markup and height.
fn draw_legend(names: &[&str], top: f64) -> (String, f64) {
    let mut s = String::new();
    let (mut x, mut y) = (12.0, top);
    for name in names {
        let w = 14.0 + 6.0 + name.chars().count() as f64 * CHAR_W + 18.0;
        if x + w > WIDTH - 12.0 && x > 12.0 {
            x = 12.0;
            y += 20.0;
        }
        let _ = writeln!(
            s,
            r#"<g class="legend-item"><rect class="swatch" x="{x:.1}" y="{:.1}" width="14" height="12" rx="2" fill="{}"/><text class="legend" x="{:.1}" y="{y:.1}">{}</text></g>"#,
            y - 10.0,
            color(name),
            x + 20.0,
            esc(name)
        );
        x += w;
    }
    let h = if names.is_empty() { 0.0 } else { y - top + 14.0 };
    (s, h)
}

/// A phase's color: its table color, or a stable fallback for names it lacks.
fn color(phase: &str) -> &'static str {
    if let Some(p) = Phase::from_name(phase) {
        return p.info().color;
    }
    let hash =
        phase.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
    FALLBACK[(hash % FALLBACK.len() as u64) as usize]
}

/// Tick spacing in µs (1, 2 or 5 × 10^k, about eight ticks), with the label unit and its size in µs.
fn tick_step(span: u64) -> (u64, &'static str, u64) {
    let raw = span.div_ceil(8).max(1);
    let mut step = raw;
    let mut p = 1u64;
    'search: loop {
        for m in [1, 2, 5] {
            match p.checked_mul(m) {
                Some(c) if c >= raw => {
                    step = c;
                    break 'search;
                }
                Some(_) => {}
                None => break 'search,
            }
        }
        match p.checked_mul(10) {
            Some(n) => p = n,
            None => break,
        }
    }
    if step >= 1_000_000 {
        (step, "s", 1_000_000)
    } else {
        (step, "ms", 1_000)
    }
}

/// A tick's label, with as many decimals as the step needs (none for whole ms or s).
fn tick_label(t: u64, unit: &str, div: u64, step: u64) -> String {
    if t == 0 {
        return "0".to_string();
    }
    let mut decimals = 0;
    let mut d = div;
    while d > 1 && !step.is_multiple_of(d) {
        d /= 10;
        decimals += 1;
    }
    format!("{:.*} {unit}", decimals, t as f64 / div as f64)
}

/// At most `max` characters, with an ellipsis when cut.
fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Text safe in XML content and attribute values; drops control characters XML 1.0 forbids.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(' '),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => {}
            c => out.push(c),
        }
    }
    out
}
