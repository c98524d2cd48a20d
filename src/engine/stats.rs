//! Repeat statistics and the noise verdict: a comparison says "faster", "slower" or
//! "within noise", and a change counts only when it exceeds the spread of the repeats.
//!
//! Samples are plain `f64` durations in whatever unit the caller chose (every function here is
//! unit-agnostic; `engine::compare` feeds milliseconds). Lower is better: these are times.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Relative change of medians that is always noise when both sides have spread (n ≥ 2): ±1%.
pub const BAND: f64 = 0.01;

/// Relative change of medians that is noise when either side has a single sample: ±5%.
///
/// One sample cannot show how noisy the measurement is, so the ±1% band alone would call ordinary
/// run-to-run jitter a change; we demand a change well above typical jitter instead.
pub const SINGLE_SAMPLE_BAND: f64 = 0.05;

/// Descriptive statistics of one set of repeats (same unit as the samples).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Number of samples (≥ 1).
    pub n: usize,
    /// Median (mean of the two middle samples when `n` is even).
    pub median: f64,
    /// Smallest sample.
    pub min: f64,
    /// Largest sample.
    pub max: f64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Sample standard deviation (n − 1 denominator; 0 when n = 1).
    pub stddev: f64,
}

/// Summarizes samples for tables and verdicts; `None` when there are none.
pub fn summarize(samples: &[f64]) -> Option<Summary> {
    if samples.is_empty() {
        return None;
    }
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let median = crate::util::median::median(&sorted)?;
    let mean = sorted.iter().sum::<f64>() / n as f64;
    Some(Summary {
        n,
        median,
        min: sorted[0],
        max: sorted[n - 1],
        mean,
        stddev: sample_variance(&sorted, mean).sqrt(),
    })
}

/// Unbiased sample variance (0 for fewer than two samples).
fn sample_variance(samples: &[f64], mean: f64) -> f64 {
    if samples.len() < 2 {
        return 0.0;
    }
    samples.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (samples.len() - 1) as f64
}

/// What a comparison concluded about one phase (lower times are better).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The candidate is faster beyond the noise.
    Faster,
    /// The candidate is slower beyond the noise.
    Slower,
    /// The difference is not larger than the spread of the repeats.
    WithinNoise,
}

impl Verdict {
    /// One-character mark of the ablation matrix: `s` slower, `f` faster, `~` within noise.
    pub fn mark(self) -> char {
        match self {
            Verdict::Slower => 's',
            Verdict::Faster => 'f',
            Verdict::WithinNoise => '~',
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::WithinNoise => "within noise",
        })
    }
}

/// Relative change of the candidate's median against the baseline's, for verdicts and tables.
///
/// `(cand − base) / base`; positive means slower. A zero baseline gives 0 when the candidate is zero too
/// and ±∞ otherwise, so a phase appearing from nothing still counts as a change.
pub fn relative_change(base_median: f64, cand_median: f64) -> f64 {
    let diff = cand_median - base_median;
    if base_median == 0.0 {
        if diff == 0.0 {
            0.0
        } else {
            diff.signum() * f64::INFINITY
        }
    } else {
        diff / base_median.abs()
    }
}

/// Welch's unequal-variance t-test result, kept public so tests and tools can check the arithmetic.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Welch {
    /// `(mean_cand − mean_base) / sqrt(s²_base/n_base + s²_cand/n_cand)`; ±∞ when both sides have no
    /// variance but different means, 0 when the means are equal too.
    pub t: f64,
    /// Welch–Satterthwaite degrees of freedom; `n_base + n_cand − 2` when both variances are zero.
    pub df: f64,
}

impl Welch {
    /// Whether the test rejects equal means at the 5% two-sided level.
    pub fn rejects(&self) -> bool {
        self.t.abs() > t_critical_975(self.df)
    }
}

/// Runs Welch's t-test on two sample sets; `None` when either side has fewer than two samples.
pub fn welch(base: &[f64], cand: &[f64]) -> Option<Welch> {
    if base.len() < 2 || cand.len() < 2 {
        return None;
    }
    let (nb, nc) = (base.len() as f64, cand.len() as f64);
    let mb = base.iter().sum::<f64>() / nb;
    let mc = cand.iter().sum::<f64>() / nc;
    let qb = sample_variance(base, mb) / nb;
    let qc = sample_variance(cand, mc) / nc;
    let se2 = qb + qc;
    let diff = mc - mb;
    if se2 == 0.0 {
        let t = if diff == 0.0 { 0.0 } else { diff.signum() * f64::INFINITY };
        return Some(Welch { t, df: nb + nc - 2.0 });
    }
    let df = se2 * se2 / (qb * qb / (nb - 1.0) + qc * qc / (nc - 1.0));
    Some(Welch { t: diff / se2.sqrt(), df })
}

/// Two-sided 5% critical values: the t-distribution's 97.5% quantile for df 1..=30, then 40, 60, 120.
const T_TABLE: [(f64, f64); 33] = [
    (1.0, 12.706),
    (2.0, 4.303),
    (3.0, 3.182),
    (4.0, 2.776),
    (5.0, 2.571),
    (6.0, 2.447),
    (7.0, 2.365),
    (8.0, 2.306),
    (9.0, 2.262),
    (10.0, 2.228),
    (11.0, 2.201),
    (12.0, 2.179),
    (13.0, 2.160),
    (14.0, 2.145),
    (15.0, 2.131),
    (16.0, 2.120),
    (17.0, 2.110),
    (18.0, 2.101),
    (19.0, 2.093),
    (20.0, 2.086),
    (21.0, 2.080),
    (22.0, 2.074),
    (23.0, 2.069),
    (24.0, 2.064),
    (25.0, 2.060),
    (26.0, 2.056),
    (27.0, 2.052),
    (28.0, 2.048),
    (29.0, 2.045),
    (30.0, 2.042),
    (40.0, 2.021),
    (60.0, 2.000),
    (120.0, 1.980),
];

/// The normal distribution's 97.5% quantile: the t quantile's limit as df → ∞.
const Z_975: f64 = 1.96;

/// The t-distribution's 97.5% quantile for `df` degrees of freedom (Welch's df is fractional).
///
/// Table values for df 1..=30, 40, 60 and 120, linear interpolation in 1/df between them (the quantile is
/// close to linear in 1/df), and towards 1.96 at 1/df = 0 beyond 120. df below 1 (or NaN) is treated as 1,
/// the most conservative entry.
pub fn t_critical_975(df: f64) -> f64 {
    if df.is_nan() || df <= 1.0 {
        return T_TABLE[0].1;
    }
    if df.is_infinite() {
        return Z_975;
    }
    let x = 1.0 / df;
    let mut upper = T_TABLE[0]; // larger 1/df neighbour
    for &(d, q) in &T_TABLE[1..] {
        if df <= d {
            return lerp(x, 1.0 / upper.0, upper.1, 1.0 / d, q);
        }
        upper = (d, q);
    }
    lerp(x, 1.0 / upper.0, upper.1, 0.0, Z_975)
}

/// Linear interpolation of y at x between (x0, y0) and (x1, y1).
fn lerp(x: f64, x0: f64, y0: f64, x1: f64, y1: f64) -> f64 {
    y0 + (y1 - y0) * (x - x0) / (x1 - x0)
}

/// Decides whether `cand` is faster, slower or within noise of `base` (lower is better).
///
/// A change counts only when every applicable test says it exceeds the spread of the repeats:
/// 1. the relative change of medians lies beyond the band: ±1% ([`BAND`]), or ±5% ([`SINGLE_SAMPLE_BAND`])
///    when either side has a single sample (one sample cannot show noise, so demand a bigger change);
/// 2. the candidate's median lies outside the baseline's min–max range and the baseline's median outside
///    the candidate's (a single-sample side's range is its one value, so this adds nothing against it,
///    while the other side's spread still counts);
/// 3. when both sides have n ≥ 3, Welch's t-test rejects equal means at the 5% two-sided level, with the
///    means moving the same way as the medians.
///
/// An empty side gives `WithinNoise`: there is nothing to compare.
pub fn verdict(base: &[f64], cand: &[f64]) -> Verdict {
    let (Some(b), Some(c)) = (summarize(base), summarize(cand)) else {
        return Verdict::WithinNoise;
    };
    let rel = relative_change(b.median, c.median);
    let beyond_band = if b.n == 1 || c.n == 1 { rel.abs() >= SINGLE_SAMPLE_BAND } else { rel.abs() > BAND };
    if !beyond_band {
        return Verdict::WithinNoise;
    }
    let outside = |x: f64, s: &Summary| x < s.min || x > s.max;
    if !outside(c.median, &b) || !outside(b.median, &c) {
        return Verdict::WithinNoise;
    }
    if b.n >= 3 && c.n >= 3 {
        match welch(base, cand) {
            Some(w) if w.rejects() && w.t.signum() == rel.signum() => {}
            _ => return Verdict::WithinNoise,
        }
    }
    if rel > 0.0 {
        Verdict::Slower
    } else {
        Verdict::Faster
    }
}
