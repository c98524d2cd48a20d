//! Per-phase comparison of two runs and the columns of an ablation: each row carries a noise-aware verdict
//! rather than bare numbers, or says why it has none (too few repeats, below the floor, other shapes). The front-ends lay them out (CLI tables and JSON, console views).
//!
//! Statistics here are in milliseconds: each repeat's per-phase `sum_us` (and `wall_us` for the wall row)
//! divided by 1000.

use std::collections::{BTreeMap, BTreeSet};

use super::stats::{relative_change, summarize, verdict, Summary, Verdict};
use crate::timeline::record::RunRecord;
use crate::vocab::{is_setup_phase, phase_order};

/// Name of the row that compares whole-repeat wall times; always the last row.
pub const WALL: &str = "wall";

/// Fewest repeats per side for a faster/slower verdict: below it a row shows Δ marked `n=<count>`, since one
/// or two samples cannot show how noisy the measurement is (two identical single-repeat runs differed by up to
/// 50% on sub-millisecond rows).
pub const MIN_REPEATS: usize = 3;

/// Rows whose larger median is below this many ms get no verdict: their times are timer and scheduling noise.
pub const FLOOR_MS: f64 = 1.0;

/// Rows whose larger median is below this share of the larger wall get no verdict either.
pub const FLOOR_WALL_SHARE: f64 = 0.01;

/// Why a row with both sides measured carries no faster/slower verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoVerdict {
    /// A side has fewer than [`MIN_REPEATS`] repeats (the smaller count).
    FewRepeats(usize),
    /// Both medians lie below the floor ([`FLOOR_MS`], [`FLOOR_WALL_SHARE`] of the wall).
    BelowFloor,
    /// The runs proved different circuit shapes: their times are not comparable.
    OtherShape,
}

impl NoVerdict {
    /// Short mark for tables: `n=1`, `<floor`, `shape`.
    pub fn mark(self) -> String {
        match self {
            NoVerdict::FewRepeats(n) => format!("n={n}"),
            NoVerdict::BelowFloor => "<floor".to_string(),
            NoVerdict::OtherShape => "shape".to_string(),
        }
    }

    /// The JSON form: `n=1`, `below_floor`, `other_shape`.
    pub fn json(self) -> String {
        match self {
            NoVerdict::FewRepeats(n) => format!("n={n}"),
            NoVerdict::BelowFloor => "below_floor".to_string(),
            NoVerdict::OtherShape => "other_shape".to_string(),
        }
    }
}

/// One phase of a comparison: both sides' statistics and the verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct PhaseRow {
    /// Phase name, or [`WALL`].
    pub phase: String,
    /// Baseline statistics in ms; `None` when the phase never ran in the baseline.
    pub base: Option<Summary>,
    /// Candidate statistics in ms; `None` when the phase never ran in the candidate.
    pub cand: Option<Summary>,
    /// Change of medians in percent, positive = slower; `None` when a side is missing, the base is 0 or the
    /// shapes differ.
    pub delta_pct: Option<f64>,
    /// Candidate median / baseline median; `None` when `delta_pct` is.
    pub ratio: Option<f64>,
    /// Noise-aware verdict; `None` when a side is missing or [`PhaseRow::no_verdict`] says why not.
    pub verdict: Option<Verdict>,
    /// Why both sides are measured yet there is no verdict.
    pub no_verdict: Option<NoVerdict>,
}

impl PhaseRow {
    /// Builds a row from both sides' per-repeat samples (ms); an empty side counts as missing. `floor_ms`: the
    /// larger median must reach it for a verdict; `same_shape`: whether the two runs may be compared at all.
    fn new(phase: &str, base: &[f64], cand: &[f64], floor_ms: f64, same_shape: bool) -> PhaseRow {
        let (b, c) = (summarize(base), summarize(cand));
        let mut row = PhaseRow {
            phase: phase.to_string(),
            base: b,
            cand: c,
            delta_pct: None,
            ratio: None,
            verdict: None,
            no_verdict: None,
        };
        let (Some(b), Some(c)) = (&b, &c) else { return row };
        if !same_shape {
            row.no_verdict = Some(NoVerdict::OtherShape);
            return row;
        }
        let rel = relative_change(b.median, c.median);
        if rel.is_finite() && b.median != 0.0 {
            row.delta_pct = Some(rel * 100.0);
            row.ratio = Some(c.median / b.median);
        }
        row.no_verdict = if b.median.max(c.median) < floor_ms {
            Some(NoVerdict::BelowFloor)
        } else if b.n.min(c.n) < MIN_REPEATS {
            Some(NoVerdict::FewRepeats(b.n.min(c.n)))
        } else {
            None
        };
        if row.no_verdict.is_none() {
            row.verdict = Some(verdict(base, cand));
        }
        row
    }

    /// Whether the row is the wall row.
    pub fn is_wall(&self) -> bool {
        self.phase == WALL
    }
}

/// Δ% for a table cell: one decimal, and `>+999%` beyond, so a column never breaks.
pub fn delta_text(d: f64) -> String {
    if d > 999.0 {
        ">+999%".to_string()
    } else {
        format!("{d:+.1}%")
    }
}

/// One line saying why two runs' times are not comparable, when their circuit shapes differ.
pub fn shape_mismatch(base: &RunRecord, cand: &RunRecord) -> Option<String> {
    let shape = |r: &RunRecord| format!("{} ({}×{})", r.sample.name, r.sample.circuits, r.sample.constraints);
    (!base.same_shape(cand)).then(|| {
        format!("different circuit shapes: {} vs {}; numbers only, no verdicts", shape(base), shape(cand))
    })
}

/// Phase names any repeat of the record measured, setup phases left out (they lie outside the wall, and
/// records before `params_gen` existed counted `srs_load` into their first repeat).
fn phase_names(rec: &RunRecord) -> BTreeSet<String> {
    rec.repeats.iter().flat_map(|r| r.phases.keys().filter(|p| !is_setup_phase(p)).cloned()).collect()
}

/// Per-repeat time of `phase` in ms; a repeat that did not run it contributes 0 (its cost to that repeat),
/// and a record that never ran it gives no samples.
fn phase_samples(rec: &RunRecord, phase: &str) -> Vec<f64> {
    if !rec.repeats.iter().any(|r| r.phases.contains_key(phase)) {
        return Vec::new();
    }
    rec.repeats.iter().map(|r| r.phases.get(phase).map_or(0.0, |t| t.sum_us as f64 / 1000.0)).collect()
}

/// Per-repeat wall times in ms.
fn wall_samples(rec: &RunRecord) -> Vec<f64> {
    rec.repeats.iter().map(|r| r.wall_us as f64 / 1000.0).collect()
}

/// Compares every phase present in either record, in pipeline order, then each device lane's busy and idle
/// time, then the wall row. Rows get verdicts only with [`MIN_REPEATS`] repeats a side, above the floor, and
/// between runs of the same circuit shape.
pub fn compare(base: &RunRecord, cand: &RunRecord) -> Vec<PhaseRow> {
    let mut names: Vec<String> = phase_names(base).union(&phase_names(cand)).cloned().collect();
    names.sort_by_key(|n| phase_order(n));
    let (bw, cw) = (wall_samples(base), wall_samples(cand));
    let wall_ms = |w: &[f64]| summarize(w).map_or(0.0, |s| s.median);
    let floor = FLOOR_MS.max(FLOOR_WALL_SHARE * wall_ms(&bw).max(wall_ms(&cw)));
    let same = base.same_shape(cand);
    let mut rows: Vec<PhaseRow> = names
        .iter()
        .map(|n| PhaseRow::new(n, &phase_samples(base, n), &phase_samples(cand, n), floor, same))
        .collect();
    let (bl, cl) = (lane_samples(base), lane_samples(cand));
    for name in bl.keys().chain(cl.keys()).collect::<BTreeSet<_>>() {
        let none = Vec::new();
        let (b, c) = (bl.get(name).unwrap_or(&none), cl.get(name).unwrap_or(&none));
        rows.push(PhaseRow::new(name, b, c, floor, same));
    }
    rows.push(PhaseRow::new(WALL, &bw, &cw, 0.0, same));
    rows
}

/// Per device lane, per-repeat ms of its busy and its idle time ([`RunRecord::device_lanes_ms`]), keyed by
/// the row names `gpu<d> busy` and `gpu<d> idle`: whether a change kept the device busier, not only faster.
fn lane_samples(rec: &RunRecord) -> BTreeMap<String, Vec<f64>> {
    rec.device_lanes_ms()
        .into_iter()
        .flat_map(|(lane, busy, idle)| [(format!("{lane} busy"), busy), (format!("{lane} idle"), idle)])
        .collect()
}

/// One column of an ablation: a toggle flipped alone against the baseline, and the comparison rows.
#[derive(Clone, Debug, PartialEq)]
pub struct AblationEntry {
    /// Toggle id (`a1`, `pipeline`, …) or another column label.
    pub toggle: String,
    /// Id of the run record measured with the toggle flipped.
    pub record_id: String,
    /// `compare(baseline, flipped)`.
    pub rows: Vec<PhaseRow>,
}

/// The rows of an ablation matrix, shared by the CLI table and the console: every phase any column measured,
/// in pipeline order, then the wall.
pub fn ablation_rows(entries: &[AblationEntry]) -> Vec<String> {
    let mut names: Vec<String> = entries
        .iter()
        .flat_map(|e| e.rows.iter().map(|r| r.phase.clone()))
        .filter(|p| p != WALL)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    names.sort_by_key(|n| phase_order(n));
    names.push(WALL.to_string());
    names
}
