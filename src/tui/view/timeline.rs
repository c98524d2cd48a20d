//! The timeline widget: a time axis with ticks and repeat/call marks (the same separators run through the idle
//! parts of every lane), one row per lane with phase blocks in the theme's phase colors (sub-phases drawn in the
//! lower half of their parent's block, as the SVG nests them; touching blocks of one phase kept apart by a thin
//! gap), the cursor's block highlighted, and memory counter lanes as sparklines. Drawn straight into the
//! buffer; all arithmetic saturates.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};

use super::common::{bytes, dur};
use crate::timeline::record::{CounterSeries, RecordEvent};
use crate::tui::theme::Theme;
use crate::vocab::{is_setup_phase, is_sub_phase, Counter, Phase};

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

/// Where repeats and proof calls begin (µs): the separators drawn across the lanes and on the axis.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Marks {
    /// Start of repeat r (r ≥ 1), with r.
    pub repeats: Vec<(u64, u32)>,
    /// Start of each later proof call (its `prep_msm`): where the next sectors begin.
    pub calls: Vec<u64>,
}

impl Marks {
    /// The marks of a run's events.
    pub fn of(events: &[&RecordEvent]) -> Marks {
        let mut m = Marks::default();
        let last_repeat = events.iter().map(|e| e.repeat).max().unwrap_or(0);
        for r in 1..=last_repeat {
            let start =
                events.iter().filter(|e| e.repeat == r && !is_setup_phase(&e.phase)).map(|e| e.start_us);
            if let Some(s) = start.min() {
                m.repeats.push((s, r));
            }
        }
        for e in events.iter().filter(|e| e.phase == Phase::PrepMsm.name() && e.batch.unwrap_or(0) > 0) {
            m.calls.push(e.start_us);
        }
        m
    }
}

/// Draws the time axis in the first row of `area` (the lane-name column shows the zoom), with `R2`… at repeat
/// starts and `┴` at later calls' starts.
pub fn draw_axis(buf: &mut Buffer, area: Rect, window: (u64, u64), zoom: f64, marks: &Marks, t: &Theme) {
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
    let inside = |s: u64| s >= window.0 && s < window.1;
    for &s in marks.calls.iter().filter(|s| inside(**s)) {
        // Never over a tick or its label (30 calls of a 32 GiB sector run hid them all).
        let x = x0 + col(s, window, w);
        if buf.cell((x, y)).is_some_and(|c| c.symbol() == "─") {
            put(buf, x, y, max_x, "┴", Style::new().fg(t.accent).bg(t.bg));
        }
    }
    for &(s, r) in marks.repeats.iter().filter(|m| inside(m.0)) {
        // The repeat's number only where it does not cover a tick label.
        let x = x0 + col(s, window, w);
        let label = format!("┃R{}", r + 1);
        let free = (x + 1..x + label.chars().count() as u16 + 1)
            .all(|cx| cx >= max_x || buf.cell((cx, y)).is_some_and(|c| c.symbol() == "─"));
        put(buf, x, y, max_x, if free { &label } else { "┃" }, Style::new().fg(t.accent).bg(t.bg));
    }
}

/// Fewest columns per proof call for the lanes to show call separators: a 32 GiB sector run's 30 calls
/// in 120 columns (4 each) striped every lane and hid the blocks between.
pub const MIN_CALL_GAP: u16 = 6;

/// What [`draw_lanes`] draws.
pub struct Lanes<'a> {
    /// Lane names in display order.
    pub lanes: &'a [String],
    /// Events (any lane).
    pub events: &'a [&'a RecordEvent],
    /// Visible window in µs.
    pub window: (u64, u64),
    /// Selected lane index, if any.
    pub selected: Option<usize>,
    /// Start of the block under the cursor on the selected lane.
    pub cursor: Option<u64>,
    /// Prefix of every lane label (`b ` / `c ` when two runs share the axis).
    pub prefix: &'a str,
    /// Separators to draw across the lanes.
    pub marks: &'a Marks,
}

/// Draws one row per lane into `area`, scrolling so the selected lane stays visible; returns the index of
/// the first lane drawn.
pub fn draw_lanes(buf: &mut Buffer, area: Rect, l: &Lanes, t: &Theme) -> usize {
    if area.width <= LABEL_W + 1 || area.height == 0 || l.lanes.is_empty() {
        return 0;
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
            t.selected().add_modifier(Modifier::BOLD)
        } else {
            Style::new().fg(t.fg).bg(t.bg)
        };
        let label: String = format!("{}{lane}", l.prefix).chars().take(usize::from(LABEL_W)).collect();
        put(buf, area.x, y, area.x + LABEL_W, &format!("{label:<w$}", w = usize::from(LABEL_W)), label_style);
        // Separators under the blocks (they show where the lane is idle): `╎` where a later proof call (its
        // sectors) begins, unless calls are denser than one per MIN_CALL_GAP columns (zoom in to see them),
        // `┊` where a repeat begins.
        let calls = l.marks.calls.iter().filter(|&&s| s >= l.window.0 && s < l.window.1).count();
        let sparse = calls * usize::from(MIN_CALL_GAP) <= usize::from(w);
        let seps = l.marks.calls.iter().filter(|_| sparse).map(|&s| (s, "╎"));
        let seps = seps.chain(l.marks.repeats.iter().map(|&(s, _)| (s, "┊")));
        for (s, glyph) in seps {
            if s >= l.window.0 && s < l.window.1 {
                put(buf, x0 + col(s, l.window, w), y, x0 + w, glyph, Style::new().fg(t.dim).bg(t.bg));
            }
        }
        let mut blocks: Vec<&RecordEvent> =
            l.events.iter().copied().filter(|e| &e.lane == lane && !is_sub_phase(&e.phase)).collect();
        blocks.sort_by_key(|e| e.start_us);
        let mut prev: Option<(&str, u16)> = None;
        for e in blocks {
            let cursor = l.selected == Some(row) && l.cursor == Some(e.start_us);
            if let Some(b) = draw_block(buf, x0, y, w, e, l, t, prev, cursor) {
                prev = Some((e.phase.as_str(), b));
            }
        }
        for e in l.events.iter().filter(|e| &e.lane == lane && is_sub_phase(&e.phase)) {
            draw_sub(buf, x0, y, w, e, l.window, t);
        }
    }
    first
}

/// Draws a top-level block; returns its end column. A block that starts where the previous block of the
/// same phase ended begins with a thin gap (`▕` in the background color), so instances stay countable.
#[allow(clippy::too_many_arguments)]
fn draw_block(
    buf: &mut Buffer,
    x0: u16,
    y: u16,
    w: u16,
    e: &RecordEvent,
    l: &Lanes,
    t: &Theme,
    prev: Option<(&str, u16)>,
    cursor: bool,
) -> Option<u16> {
    let window = l.window;
    let end = e.start_us.saturating_add(e.dur_us.max(1));
    if end <= window.0 || e.start_us >= window.1 {
        return None;
    }
    let a = col(e.start_us, window, w);
    let b = col(end, window, w).max(a + 1).min(w);
    if a >= w {
        return None;
    }
    let color = t.phase(&e.phase);
    let running = e.args.contains_key("running");
    let mut fill = if running { Style::new().fg(color).bg(t.bg) } else { t.on_block(color) };
    if cursor {
        fill = fill.add_modifier(Modifier::REVERSED | Modifier::BOLD);
    }
    let symbol = if running { "▒" } else { " " };
    for x in a..b {
        put(buf, x0 + x, y, x0 + w, symbol, fill);
    }
    let touching = prev.is_some_and(|(p, pb)| p == e.phase && pb >= a);
    if touching && !running {
        put(buf, x0 + a, y, x0 + w, "▏", Style::new().fg(t.bg).bg(color));
    }
    let name = e.phase.as_str();
    let len = name.chars().count() as u16;
    let start = a + u16::from(touching);
    if b.saturating_sub(start) > len {
        let style = if running { Style::new().fg(t.fg).bg(t.bg) } else { fill.add_modifier(Modifier::BOLD) };
        put(buf, x0 + start, y, x0 + b, name, style);
    }
    Some(b)
}

/// Draws a sub-phase in the lower half of its parent's cells (`▄` in the sub-phase's color over the
/// parent's), leaving the cells that carry the parent's name untouched.
fn draw_sub(buf: &mut Buffer, x0: u16, y: u16, w: u16, e: &RecordEvent, window: (u64, u64), t: &Theme) {
    let end = e.start_us.saturating_add(e.dur_us.max(1));
    if end <= window.0 || e.start_us >= window.1 {
        return;
    }
    let a = col(e.start_us, window, w);
    let b = col(end, window, w).max(a + 1).min(w);
    let color = t.phase(&e.phase);
    for x in a..b {
        let Some(cell) = buf.cell_mut((x0 + x, y)) else { continue };
        if cell.symbol() == " " {
            let parent = cell.bg;
            cell.set_char('▄').set_style(Style::new().fg(color).bg(parent));
        }
    }
}

/// Sparkline glyphs from empty to full.
const SPARK: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// Draws one counter per row as a sparkline over the window (each column shows the largest value sampled
/// in its time slice, scaled to the series' peak), labelled with the counter and its peak.
pub fn draw_counters(
    buf: &mut Buffer,
    area: Rect,
    counters: &[CounterSeries],
    window: (u64, u64),
    t: &Theme,
) {
    if area.width <= LABEL_W + 1 {
        return;
    }
    let x0 = area.x + LABEL_W + 1;
    let w = area.width - LABEL_W - 1;
    let span = window.1.saturating_sub(window.0).max(1);
    for (row, c) in counters.iter().take(usize::from(area.height)).enumerate() {
        let y = area.y + row as u16;
        let label = Counter::from_name(&c.name).map_or_else(|| c.name.clone(), Counter::label);
        let peak = c.peak();
        let text = format!("{label} {}", bytes(peak));
        put(
            buf,
            area.x,
            y,
            area.x + LABEL_W,
            &format!("{:<w$}", text, w = usize::from(LABEL_W)),
            Style::new().fg(t.dim).bg(t.bg),
        );
        if peak == 0 {
            continue;
        }
        for x in 0..w {
            let s = window.0 + span * u64::from(x) / u64::from(w);
            let e = window.0 + span * (u64::from(x) + 1) / u64::from(w);
            let Some(v) = c.peak_in(s, e) else { continue };
            if c.samples.first().is_some_and(|f| f.0 > e) {
                continue;
            }
            let level = ((v as f64 / peak as f64) * 7.0).round().clamp(0.0, 7.0) as usize;
            put(buf, x0 + x, y, x0 + w, &SPARK[level].to_string(), Style::new().fg(t.accent).bg(t.bg));
        }
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

    fn ev(
        phase: &str,
        lane: &str,
        batch: Option<u64>,
        repeat: u32,
        start_us: u64,
        dur_us: u64,
    ) -> RecordEvent {
        RecordEvent {
            phase: phase.into(),
            lane: lane.into(),
            circuit: None,
            device: None,
            batch,
            repeat,
            start_us,
            dur_us,
            args: Default::default(),
        }
    }

    /// Thirty proof calls over 100 columns (a 32 GiB sector run at zoom 1): the axis keeps its tick labels
    /// (call marks only on bare rule) and the lanes show no call separators; zoomed to a tenth, they do.
    #[test]
    fn dense_calls_keep_the_axis_labels_and_the_lanes_clear() {
        let t = Theme::default_dark();
        let marks = Marks { repeats: Vec::new(), calls: (1..30).map(|k| k * 10_000_000 / 30).collect() };
        let area = Rect { x: 0, y: 0, width: LABEL_W + 1 + 100, height: 1 };
        let mut buf = Buffer::empty(area);
        draw_axis(&mut buf, area, (0, 10_000_000), 1.0, &marks, &t);
        let axis: String = (0..area.width).map(|x| buf.cell((x, 0)).map_or(" ", |c| c.symbol())).collect();
        for label in ["┬2.00 s", "┬4.00 s", "┬6.00 s", "┬8.00 s"] {
            assert!(axis.contains(label), "{label} hidden: {axis}");
        }
        assert!(axis.contains('┴'), "the calls are still marked where the rule is bare: {axis}");
        let lanes = vec!["gpu0".to_string()];
        let ev = [ev("msm_h", "gpu0", Some(0), 0, 0, 1)];
        let refs: Vec<&RecordEvent> = ev.iter().collect();
        let lane = |window: (u64, u64)| {
            let mut buf = Buffer::empty(area);
            let spec = Lanes {
                lanes: &lanes,
                events: &refs,
                window,
                selected: None,
                cursor: None,
                prefix: "",
                marks: &marks,
            };
            draw_lanes(&mut buf, area, &spec, &t);
            (0..area.width).filter(|&x| buf.cell((x, 0)).is_some_and(|c| c.symbol() == "╎")).count()
        };
        assert_eq!(lane((0, 10_000_000)), 0, "30 calls in 100 columns: no separators");
        assert_eq!(lane((0, 1_000_000)), 2, "zoomed: the calls in view are separated");
    }

    /// Drawn over 100 columns at 10 µs each: ntt_h and msm_h in the lower half of their ntt_msm_h block in their
    /// own colors; a thin gap where a second ntt_msm_h touches the first (none before the batch_add touching
    /// it); `╎` where the second proof call begins and `┊` where the second repeat begins, on lanes idle there,
    /// and never over a block.
    #[test]
    fn lanes_nest_sub_phases_separate_calls_and_repeats_and_gap_touching_blocks() {
        let t = Theme::default_dark();
        let events = [
            ev("synthesis", "synthesis c0", Some(0), 0, 0, 100),
            ev("prep_msm", "prep_msm", Some(0), 0, 100, 20),
            ev("ntt_msm_h", "cpu", Some(0), 0, 120, 300),
            ev("ntt_h", "cpu", Some(0), 0, 120, 150),
            ev("msm_h", "cpu", Some(0), 0, 270, 150),
            ev("ntt_msm_h", "cpu", Some(0), 0, 420, 140),
            ev("batch_add", "cpu", Some(0), 0, 560, 20),
            ev("prep_msm", "prep_msm", Some(1), 0, 600, 20),
            ev("synthesis", "synthesis c0", Some(0), 1, 700, 80),
        ];
        let refs: Vec<&RecordEvent> = events.iter().collect();
        let marks = Marks::of(&refs);
        assert_eq!(marks, Marks { repeats: vec![(700, 1)], calls: vec![600] });
        let lanes: Vec<String> = ["synthesis c0", "prep_msm", "cpu"].map(String::from).to_vec();
        let area = Rect { x: 0, y: 0, width: LABEL_W + 1 + 100, height: 3 };
        let mut buf = Buffer::empty(area);
        let spec = Lanes {
            lanes: &lanes,
            events: &refs,
            window: (0, 1000),
            selected: None,
            cursor: None,
            prefix: "",
            marks: &marks,
        };
        assert_eq!(draw_lanes(&mut buf, area, &spec, &t), 0);
        let x0 = LABEL_W + 1;
        let cell = |c: u16, row: u16| buf.cell((x0 + c, row)).cloned().unwrap_or_default();
        let (syn, prep, cpu) = (0, 1, 2);
        let name: String = (12..21).map(|c| cell(c, cpu).symbol().to_string()).collect();
        assert_eq!(name, "ntt_msm_h", "the parent's name stays readable");
        for (c, sub) in [(22, "ntt_h"), (26, "ntt_h"), (28, "msm_h"), (41, "msm_h")] {
            let k = cell(c, cpu);
            assert_eq!((k.symbol(), k.fg, k.bg), ("▄", t.phase(sub), t.phase("ntt_msm_h")), "column {c}");
        }
        let gap = cell(42, cpu);
        assert_eq!(
            (gap.symbol(), gap.fg, gap.bg),
            ("▏", t.bg, t.phase("ntt_msm_h")),
            "gap between touching blocks"
        );
        assert_eq!(cell(43, cpu).bg, t.phase("ntt_msm_h"), "the second block follows the gap");
        let next = cell(56, cpu);
        assert_eq!((next.symbol(), next.bg), (" ", t.phase("batch_add")), "another phase touching: no gap");
        for row in [syn, cpu] {
            assert_eq!(cell(60, row).symbol(), "╎", "call separator on idle lane {row}");
        }
        for row in [prep, cpu] {
            assert_eq!(cell(70, row).symbol(), "┊", "repeat separator on idle lane {row}");
        }
        assert_eq!(
            (cell(60, prep).symbol(), cell(60, prep).bg),
            (" ", t.phase("prep_msm")),
            "not over a block"
        );
        assert_eq!(
            (cell(70, syn).symbol(), cell(70, syn).bg),
            (" ", t.phase("synthesis")),
            "not over a block"
        );
    }
}
