//! The bounds of every count a user can give (sample files, command-line flags, the console's prompts), in
//! one table so each place that accepts a count checks the same range and says it the same way. A count
//! outside its range is an error naming the key, the value and the range — never silently clamped.

use std::ops::RangeInclusive;

/// One bounded count: the key users write and its inclusive range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limit {
    /// The key or flag as users write it, e.g. `sectors` or `--repeat` (named in errors).
    pub key: &'static str,
    /// The accepted values.
    pub range: RangeInclusive<u64>,
}

/// Sectors a job proves (the sample file's `sectors`, `--sectors`).
pub const SECTORS: Limit = Limit { key: "sectors", range: 1..=1024 };
/// Sectors per proof call (`batch` in a toggles table or `--set`).
pub const BATCH: Limit = Limit { key: "batch", range: 1..=1024 };
/// Circuits per sector (the sample file's `partitions`).
pub const PARTITIONS: Limit = Limit { key: "partitions", range: 1..=64 };
/// Repeats of a run, an ablation step or a benchmark (`--repeat`, the console's `R`).
pub const REPEATS: Limit = Limit { key: "repeat", range: 1..=1000 };
/// Proofs of a soak (`cuzk soak --proofs`).
pub const SOAK_PROOFS: Limit = Limit { key: "proofs", range: 1..=100_000 };
/// log2 of a benchmark's size (`cuzk bench --log-size`): up to a 32 GiB sector's domain, 2^27 (12 GiB of G1 points).
pub const LOG_SIZE: Limit = Limit { key: "log-size", range: 1..=27 };

/// Why a count was refused: one line naming the key, the value as written and the range.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{key}: `{value}` {why} (expected an integer in {lo}..={hi})")]
pub struct LimitError {
    /// The key or flag.
    pub key: &'static str,
    /// The value as written.
    pub value: String,
    /// What is wrong with it: `is out of range` or `is not an integer`.
    pub why: &'static str,
    /// Smallest accepted value.
    pub lo: u64,
    /// Largest accepted value.
    pub hi: u64,
}

impl LimitError {
    /// The message without the key, for callers that name the key themselves (clap's `invalid value … for
    /// '--sectors <N>': …`).
    pub fn reason(&self) -> String {
        format!("`{}` {} (expected an integer in {}..={})", self.value, self.why, self.lo, self.hi)
    }
}

impl Limit {
    /// `value` when it lies in the range.
    pub fn check(&self, value: u64) -> Result<u64, LimitError> {
        if self.range.contains(&value) {
            Ok(value)
        } else {
            Err(self.error(value.to_string(), "is out of range"))
        }
    }

    /// `value` as a `usize` when it lies in the range (every range here fits a `usize`).
    pub fn check_usize(&self, value: usize) -> Result<usize, LimitError> {
        self.check(value as u64).map(|v| v as usize)
    }

    /// Parses decimal text (surrounding spaces allowed) and checks the range; `0x`, signs, units and
    /// numbers past `u64` are errors, never wrapped or clamped.
    pub fn parse(&self, text: &str) -> Result<usize, LimitError> {
        let t = text.trim();
        if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
            return Err(self.error(text.to_string(), "is not an integer"));
        }
        match t.parse::<u64>() {
            Ok(v) => self.check(v).map(|v| v as usize),
            Err(_) => Err(self.error(text.to_string(), "is out of range")),
        }
    }

    fn error(&self, value: String, why: &'static str) -> LimitError {
        LimitError { key: self.key, value, why, lo: *self.range.start(), hi: *self.range.end() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_checked_never_clamped() {
        assert_eq!(SECTORS.parse("1024"), Ok(1024));
        assert_eq!(SECTORS.parse(" 3 "), Ok(3));
        for bad in ["0", "1025", "18446744073709551615", "18446744073709551616", "-1", "1e3", "", "0x10"] {
            let e = SECTORS.parse(bad).expect_err(bad);
            assert!(e.to_string().starts_with("sectors: `"), "{e}");
            assert!(e.to_string().ends_with("(expected an integer in 1..=1024)"), "{e}");
        }
        assert!(REPEATS.check(0).is_err() && REPEATS.check(1000).is_ok());
    }
}
