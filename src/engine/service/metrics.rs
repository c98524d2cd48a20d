//! What the service counts for its metrics: proofs per kind, and histograms of job latency, queue wait and
//! every phase's time per job. Rendered as Prometheus text by the daemon.

use std::collections::BTreeMap;

use super::types::JobKind;

/// Upper bounds of the duration buckets, seconds: from a 2 KiB PoSt's phases (milliseconds) to a 64 GiB
/// PoRep's C2 on a CPU (tens of minutes).
pub const BUCKETS_S: [f64; 18] = [
    0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 25.0, 50.0, 100.0, 250.0, 500.0,
    1000.0,
];

/// A cumulative histogram over [`BUCKETS_S`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Histogram {
    /// Observations at or under each bound (cumulative, as Prometheus writes them).
    pub buckets: [u64; BUCKETS_S.len()],
    /// Observations in all.
    pub count: u64,
    /// Their sum, seconds.
    pub sum_s: f64,
}

impl Histogram {
    /// Adds one observation of `s` seconds.
    pub fn observe(&mut self, s: f64) {
        for (b, le) in self.buckets.iter_mut().zip(BUCKETS_S) {
            if s <= le {
                *b += 1;
            }
        }
        self.count += 1;
        self.sum_s += s;
    }
}

/// Everything counted since the service started.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Metrics {
    /// Completed proofs per kind.
    pub completed: BTreeMap<JobKind, u64>,
    /// Failed proofs per kind.
    pub failed: BTreeMap<JobKind, u64>,
    /// Cancelled jobs per kind.
    pub cancelled: BTreeMap<JobKind, u64>,
    /// Submitted → finished, per kind (completed jobs).
    pub latency: BTreeMap<JobKind, Histogram>,
    /// Submitted → admitted, per kind.
    pub queue_wait: BTreeMap<JobKind, Histogram>,
    /// Each phase's summed time per completed job, per phase name.
    pub phases: BTreeMap<String, Histogram>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_cumulative() {
        let mut h = Histogram::default();
        for s in [0.0005, 0.02, 0.02, 3.0, 5000.0] {
            h.observe(s);
        }
        assert_eq!(h.count, 5);
        assert_eq!(h.buckets[0], 1); // ≤ 1 ms
        assert_eq!(h.buckets[3], 3); // ≤ 25 ms
        assert_eq!(h.buckets[10], 4); // ≤ 5 s
        assert_eq!(h.buckets[BUCKETS_S.len() - 1], 4); // 5000 s only in +Inf (= count)
        assert!((h.sum_s - 5003.0405).abs() < 1e-9);
        assert!(h.buckets.windows(2).all(|w| w[0] <= w[1]));
    }
}
