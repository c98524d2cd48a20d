//! Where a params generation stands, for a gauge or a log line that says what is happening: the stage and its
//! position, units done, and an estimate of the time left (from the rate so far over the work left, each stage's
//! size known once it starts and estimated from the circuit's rows before).

use std::time::Instant;

use crate::groth16::setup::SETUP_STAGES;

/// One report of a params generation in progress.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SetupProgress {
    /// Stage name (`evaluate`, `h`, `l`, `a`, `b_g1`, `b_g2`, `vk`, and `write` when streamed to a file).
    pub stage: String,
    /// 1-based position of the stage.
    pub index: usize,
    /// Stages in all.
    pub stages: usize,
    /// Units done in the stage.
    pub done: usize,
    /// Units in the stage.
    pub total: usize,
    /// Estimated seconds left for the whole generation, once there is a rate to go by.
    pub eta_s: Option<f64>,
}

/// Cost of one unit of a stage in G1 fixed-base multiplications (a G2 one costs about three).
fn weight(stage: &str) -> f64 {
    match stage {
        "h" | "l" | "a" | "b_g1" => 1.0,
        "b_g2" => 3.0,
        _ => 0.0,
    }
}

/// Turns the setup's (stage, done, total) callbacks into [`SetupProgress`] reports.
#[derive(Debug, Default)]
pub struct SetupTracker {
    /// Rows of the circuit (the `evaluate` stage's total): the size estimate of stages not yet started.
    rows: Option<usize>,
    /// Each stage's total once it has started.
    totals: Vec<Option<usize>>,
    /// When the first multiplication stage started.
    started: Option<Instant>,
    /// The `write` stage's first report (bytes, when): its estimate is its own rate since.
    write_from: Option<(usize, Instant)>,
}

impl SetupTracker {
    /// A tracker that has seen nothing.
    pub fn new() -> SetupTracker {
        SetupTracker { totals: vec![None; SETUP_STAGES.len()], ..SetupTracker::default() }
    }

    /// The report for one callback at time `now`.
    pub fn update(&mut self, stage: &str, done: usize, total: usize, now: Instant) -> SetupProgress {
        let i = SETUP_STAGES.iter().position(|s| *s == stage).unwrap_or(0);
        if stage == "evaluate" {
            self.rows = Some(total);
        }
        if let Some(t) = self.totals.get_mut(i) {
            *t = Some(total);
        }
        if weight(stage) > 0.0 && self.started.is_none() {
            self.started = Some(now);
        }
        let estimate = |k: usize| -> f64 {
            let name = SETUP_STAGES[k];
            let n = match (self.totals[k], self.rows) {
                (Some(t), _) => t,
                (None, Some(r)) if name == "h" => r.next_power_of_two() - 1,
                (None, Some(r)) => r,
                (None, None) => 0,
            };
            n as f64 * weight(name)
        };
        let before: f64 = (0..i).map(estimate).sum();
        let work_done = before + done as f64 * weight(stage);
        let left = (total.saturating_sub(done)) as f64 * weight(stage)
            + (i + 1..SETUP_STAGES.len()).map(estimate).sum::<f64>();
        let eta_s = self.started.and_then(|s| {
            let secs = now.saturating_duration_since(s).as_secs_f64();
            (secs > 0.5 && work_done > 0.0).then(|| left / (work_done / secs))
        });
        let eta_s = if stage == "write" {
            let (from, t0) = *self.write_from.get_or_insert((done, now));
            let secs = now.saturating_duration_since(t0).as_secs_f64();
            let rate = done.saturating_sub(from) as f64 / secs;
            (done >= total)
                .then_some(0.0)
                .or((secs > 0.5 && rate > 0.0).then(|| (total - done) as f64 / rate))
        } else {
            eta_s
        };
        SetupProgress {
            stage: stage.to_string(),
            index: i + 1,
            stages: SETUP_STAGES.len(),
            done,
            total,
            eta_s,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn positions_and_estimates() {
        let mut t = SetupTracker::new();
        let t0 = Instant::now();
        let p = t.update("evaluate", 0, 1000, t0);
        assert_eq!((p.index, p.stages, p.eta_s), (1, 8, None));
        t.update("h", 0, 1023, t0);
        // 1023 of h done in 1 s: 1 unit/ms; left: l, a, b_g1 ≈ 1000 each, b_g2 ≈ 3000 → ~6 s.
        let p = t.update("h", 1023, 1023, t0 + Duration::from_secs(1));
        assert_eq!((p.index, p.stage.as_str()), (2, "h"));
        let eta = p.eta_s.expect("a rate by now");
        assert!((eta - 6000.0 / 1023.0).abs() < 0.01, "{eta}");
        let p = t.update("vk", 1, 1, t0 + Duration::from_secs(7));
        assert_eq!(p.index, 7);
        assert!(p.eta_s.is_some_and(|e| e < 0.01));
        // The write's estimate is its own rate: 600 of 1000 bytes in at its first report, 200 more in 2 s.
        let p = t.update("write", 600, 1000, t0 + Duration::from_secs(8));
        assert_eq!((p.index, p.eta_s), (8, None));
        let p = t.update("write", 800, 1000, t0 + Duration::from_secs(10));
        assert!(p.eta_s.is_some_and(|e| (e - 2.0).abs() < 0.01), "{:?}", p.eta_s);
    }
}
