//! Per-phase comparison of two runs and the columns of an ablation: each row carries a noise-aware verdict
//! rather than bare numbers. The front-ends lay them out (CLI tables and JSON, console views).
//!
//! Statistics here are in milliseconds: each repeat's per-phase `sum_us` (and `wall_us` for the wall row)
//! divided by 1000.

use std::collections::BTreeSet;

use super::stats::{relative_change, summarize, verdict, Summary, Verdict};
use crate::timeline::record::RunRecord;
use crate::vocab::phase_order;

/// Name of the row that compares whole-repeat wall times; always the last row.
pub const WALL: &str = "wall";

/// One phase of a comparison: both sides' statistics and the verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct PhaseRow {
    /// Phase name, or [`WALL`].
    pub phase: String,
    /// Baseline statistics in ms; `None` when the phase never ran in the baseline.
    pub base: Option<Summary>,
    /// Candidate statistics in ms; `None` when the phase never ran in the candidate.
    pub cand: Option<Summary>,
    /// Change of medians in percent, positive = slower; `None` when a side is missing or the base is 0.
    pub delta_pct: Option<f64>,
    /// Candidate median / baseline median; `None` when a side is missing or the base is 0.
    pub ratio: Option<f64>,
    /// Noise-aware verdict; `None` when a side is missing (nothing to compare).
    pub verdict: Option<Verdict>,
}

impl PhaseRow {
    /// Builds a row from both sides' per-repeat samples (ms); an empty side counts as missing.
    fn new(phase: &str, base: &[f64], cand: &[f64]) -> PhaseRow {
        let (b, c) = (summarize(base), summarize(cand));
        let (mut delta_pct, mut ratio, mut v) = (None, None, None);
        if let (Some(b), Some(c)) = (&b, &c) {
            v = Some(verdict(base, cand));
            let rel = relative_change(b.median, c.median);
            if rel.is_finite() && b.median != 0.0 {
                delta_pct = Some(rel * 100.0);
                ratio = Some(c.median / b.median);
            }
        }
        PhaseRow { phase: phase.to_string(), base: b, cand: c, delta_pct, ratio, verdict: v }
    }
}

/// Phase names any repeat of the record measured.
fn phase_names(rec: &RunRecord) -> BTreeSet<String> {
    rec.repeats.iter().flat_map(|r| r.phases.keys().cloned()).collect()
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

/// Compares every phase present in either record, in pipeline order, then the wall row.
pub fn compare(base: &RunRecord, cand: &RunRecord) -> Vec<PhaseRow> {
    let mut names: Vec<String> = phase_names(base).union(&phase_names(cand)).cloned().collect();
    names.sort_by_key(|n| phase_order(n));
    let mut rows: Vec<PhaseRow> =
        names.iter().map(|n| PhaseRow::new(n, &phase_samples(base, n), &phase_samples(cand, n))).collect();
    rows.push(PhaseRow::new(WALL, &wall_samples(base), &wall_samples(cand)));
    rows
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
