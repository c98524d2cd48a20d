//! The text and JSON forms of comparisons and ablations that `cuzk compare` and `cuzk ablate` print.

use serde_json::{json, Map, Value};

use crate::engine::compare::{ablation_rows, delta_text, AblationEntry, PhaseRow};
use crate::engine::stats::Summary;

/// Widest line the text tables aim for (a terminal fits it).
pub const MAX_WIDTH: usize = 100;

/// A millisecond value with one decimal.
fn ms(x: f64) -> String {
    format!("{x:.1}")
}

/// A signed percentage with one decimal (`+12.3%`, `-8.1%`, `>+999%`).
fn pct(d: f64) -> String {
    delta_text(d)
}

/// Words for the verdict column, including the one-sided cases and why a row has no verdict.
fn verdict_text(row: &PhaseRow) -> String {
    match (row.verdict, row.no_verdict, &row.base, &row.cand) {
        (Some(v), _, _, _) => v.to_string(),
        (None, Some(why), _, _) => why.mark(),
        (None, None, Some(_), None) => "base only".to_string(),
        (None, None, None, Some(_)) => "cand only".to_string(),
        (None, None, _, _) => "no data".to_string(),
    }
}

/// Cuts a free-text line (labels, ids) to [`MAX_WIDTH`] characters so tables stay readable.
fn fit(line: String) -> String {
    if line.chars().count() <= MAX_WIDTH {
        return line;
    }
    let mut cut: String = line.chars().take(MAX_WIDTH - 3).collect();
    cut.push_str("...");
    cut
}

/// Lays out cells in columns two spaces apart: the first (and, with `left_last`, the last) left-aligned,
/// the others right-aligned.
fn layout(table: &[Vec<String>], left_last: bool) -> Vec<String> {
    let cols = table.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|i| table.iter().filter_map(|r| r.get(i)).map(|c| c.chars().count()).max().unwrap_or(0))
        .collect();
    table
        .iter()
        .map(|r| {
            let cells: Vec<String> = r
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let w = widths[i];
                    if i == 0 || (left_last && i + 1 == cols) {
                        format!("{c:<w$}")
                    } else {
                        format!("{c:>w$}")
                    }
                })
                .collect();
            cells.join("  ").trim_end().to_string()
        })
        .collect()
}

/// Renders the comparison as an aligned text table (ms, one decimal) that fits 100 columns for
/// ordinary values: phase, base median and min–max, candidate median and min–max, Δ%, ratio, verdict (or why
/// there is none: `n=1` too few repeats, `<floor` too short to judge, `shape` other circuit shapes).
pub fn render_compare(rows: &[PhaseRow], base_label: &str, cand_label: &str) -> String {
    let dash = || "-".to_string();
    let median = |s: &Option<Summary>| s.as_ref().map_or_else(dash, |s| ms(s.median));
    let range =
        |s: &Option<Summary>| s.as_ref().map_or_else(dash, |s| format!("{}-{}", ms(s.min), ms(s.max)));
    let mut table = vec![[
        "phase",
        "base median",
        "base min-max",
        "cand median",
        "cand min-max",
        "delta",
        "ratio",
        "verdict",
    ]
    .map(String::from)
    .to_vec()];
    for r in rows {
        table.push(vec![
            r.phase.clone(),
            median(&r.base),
            range(&r.base),
            median(&r.cand),
            range(&r.cand),
            r.delta_pct.map_or_else(dash, pct),
            r.ratio.map_or_else(dash, |x| format!("{x:.3}")),
            verdict_text(r),
        ]);
    }
    let n = |s: &Option<Summary>| s.as_ref().map_or(0, |s| s.n);
    let (nb, nc) = rows.last().map_or((0, 0), |r| (n(&r.base), n(&r.cand)));
    let mut out = vec![
        fit(format!("base: {base_label} ({nb} repeats)")),
        fit(format!("cand: {cand_label} ({nc} repeats)")),
        "times in ms: median and min-max over repeats; setup (params) is outside the wall".to_string(),
    ];
    out.extend(layout(&table, true));
    out.join("\n") + "\n"
}

/// JSON of one side's statistics (`null` when missing).
fn summary_json(s: &Option<Summary>) -> Value {
    s.as_ref()
        .map_or(Value::Null, |s| json!({ "median_ms": s.median, "min_ms": s.min, "max_ms": s.max, "n": s.n }))
}

/// The comparison as JSON for exports and the console.
///
/// Shape: an array, one object per row in table order:
/// `{ "phase": str, "base": {"median_ms", "min_ms", "max_ms", "n"} | null, "cand": {...} | null,
///    "delta_pct": number | null, "ratio": number | null,
///    "verdict": "faster" | "slower" | "within_noise" | null,
///    "no_verdict": "n=<count>" | "below_floor" | "other_shape" | null }` (`null` where the row's field is
///    `None`).
pub fn compare_json(rows: &[PhaseRow]) -> Value {
    Value::Array(
        rows.iter()
            .map(|r| {
                json!({
                    "phase": r.phase,
                    "base": summary_json(&r.base),
                    "cand": summary_json(&r.cand),
                    "delta_pct": r.delta_pct,
                    "ratio": r.ratio,
                    "verdict": r.verdict,
                    "no_verdict": r.no_verdict.map(|w| w.json()),
                })
            })
            .collect(),
    )
}

/// One cell of the ablation matrix (see [`render_ablation`]).
fn ablation_cell(row: Option<&PhaseRow>) -> String {
    let Some(row) = row else { return "-".to_string() };
    match (row.verdict, row.delta_pct) {
        (Some(v), Some(d)) => format!("{}{}", pct(d), v.mark()),
        (Some(v), None) => format!("n/a{}", v.mark()),
        (None, Some(d)) => format!("{} ", pct(d)),
        (None, None) => match (&row.base, &row.cand) {
            (Some(_), None) => "gone".to_string(),
            (None, Some(_)) => "new".to_string(),
            _ => "-".to_string(),
        },
    }
}

/// Renders the ablation matrix: rows = phases in pipeline order then wall, columns = toggles, cells = Δ% of
/// the median against the baseline with a verdict mark. ASCII only, fits 100 columns for 6 toggles.
///
/// Cells: `+12.3%s` slower, `-8.1%f` faster, `+0.4%~` within noise, `+3.1% ` without a mark when the row gets
/// no verdict (fewer than 3 repeats a side, or below the floor); `n/a` + mark when the baseline median is 0;
/// `new` / `gone` when the phase ran on one side only; `-` when that column has no such row.
pub fn render_ablation(baseline_id: &str, entries: &[AblationEntry]) -> String {
    let names = ablation_rows(entries);
    let mut header = vec!["phase".to_string()];
    header.extend(entries.iter().map(|e| e.toggle.clone()));
    let mut table = vec![header];
    for name in &names {
        let mut line = vec![name.clone()];
        line.extend(entries.iter().map(|e| ablation_cell(e.rows.iter().find(|r| &r.phase == name))));
        table.push(line);
    }
    let mut out = vec![
        fit(format!("ablation against baseline {baseline_id}: median change per phase")),
        "marks: s = slower, f = faster, ~ = within noise (positive delta = slower)".to_string(),
        "no mark: no verdict (fewer than 3 repeats a side, or below the floor)".to_string(),
    ];
    out.extend(layout(&table, false));
    out.extend(entries.iter().map(|e| fit(format!("  {}: {}", e.toggle, e.record_id))));
    out.join("\n") + "\n"
}

/// The ablation as JSON keyed by toggle:
/// `{ "<toggle>": { "record": id, "phases": { "<phase>": { "delta_pct": number | null,
///    "verdict": "faster" | "slower" | "within_noise" | null, "no_verdict": … | null } } } }` (wall
///    included as `"wall"`).
pub fn ablation_json(entries: &[AblationEntry]) -> Value {
    let mut top = Map::new();
    for e in entries {
        let mut ph = Map::new();
        for r in &e.rows {
            let no_verdict = r.no_verdict.map(|w| w.json());
            ph.insert(
                r.phase.clone(),
                json!({ "delta_pct": r.delta_pct, "verdict": r.verdict, "no_verdict": no_verdict }),
            );
        }
        top.insert(e.toggle.clone(), json!({ "record": e.record_id, "phases": ph }));
    }
    Value::Object(top)
}
