//! Kernel A/B experiments for the device G1 MSM (`CUZK_MSM_VARIANT`): which level-1 accumulation kernel runs,
//! its block size, and an override of the window width. Every variant computes the same sum (checked by
//! `cuda/hostcheck/check.py` and `tests/gpu/msm_variants.rs`); only speed differs. Default: `flat` (measured
//! 2^24 130 ms against the nested walk's 172, 2^22 36 against 51, H200, docs/PERF.md).
//!
//! `CUZK_MSM_VARIANT` is `+`-separated tokens:
//! - `base` — the nested bucket walk `msm_g1_accum_points` (the default before 2026-12-01);
//! - `flat` — `msm_g1_accum_flat` (default): one loop over the slice's entries (no per-bucket inner loop, so no lane
//!   of a warp waits for another's longer bucket), next base prefetched, 16-byte base loads;
//! - `nopf` — the flat walk without the prefetch of the next base (`msm_g1_accum_flat_np`; implies `flat`,
//!   not with `lb3`), to tell the prefetch's share of `flat`'s gain;
//! - `lb3` — the chosen kernel built for ≤ 168 registers (`__launch_bounds__(128, 3)`: 12 warps per SM
//!   instead of 8; nvcc 13.0 sm_90: points 165 registers, flat 168 with 40 B of spills);
//! - `b32`, `b64` — level-1 blocks of 32 or 64 threads (174 registers: 11 or 10 warps per SM instead of 8);
//! - `wNN` — window width NN (1..=[`MAX_WINDOW`]) where the caller did not force one;
//! - `pN` — the windows split into N passes (1..=8) instead of `msm::split_for(n)`'s;
//! - `seq` — every stage on the one stream (no pass's sort or reduction under another's accumulation).
//!
//! Tokens apply to the default (flat) unless `base` is among them: `lb3` is `flat+lb3`, `base+lb3` the
//! nested walk's.
//! Example: `CUZK_MSM_VARIANT=flat+lb3`, `CUZK_MSM_VARIANT=base+w20`. `scripts/msm-variants.sh` runs them all.

use super::{GResult, GpuError};

/// Smallest accepted window width (1-bit windows are still correct).
pub const MIN_WINDOW: usize = 1;
/// Largest window width: 2^21 buckets per window (384 MiB of XYZZ buckets per window at 192 B each; the
/// default table stops at 19, wider windows are for `CUZK_MSM_VARIANT=wNN` and forced widths).
pub const MAX_WINDOW: usize = 22;
/// Most passes a variant may ask for (`pN`): beyond this each pass is too small to hide the next one's sort.
pub const MAX_SPLIT: usize = 8;

/// One MSM kernel configuration (see the module comment).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MsmVariant {
    /// Level 1 through the flat walk (`msm_g1_accum_flat*`) instead of the nested one.
    pub flat: bool,
    /// The flat walk without prefetch (`msm_g1_accum_flat_np`).
    pub nopf: bool,
    /// The ≤ 168-register build of the level-1 kernel (three 128-thread blocks per SM).
    pub lb3: bool,
    /// Level-1 threads per block (0: the MSM's usual 128).
    pub block: u32,
    /// Window width when the caller passes `None`.
    pub window: Option<usize>,
    /// Passes the windows are split into (`None`: `msm::split_for(n)`).
    pub split: Option<u32>,
    /// Every stage on `gpu.stream`, passes in sequence (no overlap of sort and reduction with accumulation).
    pub seq: bool,
}

/// The flat walk with the usual block and window: the fastest measured (module comment).
impl Default for MsmVariant {
    fn default() -> Self {
        MsmVariant { flat: true, nopf: false, lb3: false, block: 0, window: None, split: None, seq: false }
    }
}

impl MsmVariant {
    /// Parses `+`-separated tokens (`base`, `flat`, `lb3`, `b32`, `b64`, `b128`, `wNN`, `pN`, `seq`); an
    /// unknown token is an error naming it.
    pub fn parse(spec: &str) -> GResult<MsmVariant> {
        let mut v = MsmVariant::default();
        for tok in spec.split(['+', ',']).map(str::trim).filter(|t| !t.is_empty()) {
            match tok {
                "base" => (v.flat, v.nopf) = (false, false),
                "default" => {}
                "flat" => v.flat = true,
                "lb3" => v.lb3 = true,
                "nopf" => (v.flat, v.nopf) = (true, true),
                "b32" => v.block = 32,
                "b64" => v.block = 64,
                "b128" => v.block = 128,
                "seq" => v.seq = true,
                _ => {
                    let num = |p: char| tok.strip_prefix(p).and_then(|w| w.parse::<usize>().ok());
                    match (num('w'), num('p')) {
                        (Some(c), _) if (MIN_WINDOW..=MAX_WINDOW).contains(&c) => v.window = Some(c),
                        (_, Some(k)) if (1..=MAX_SPLIT).contains(&k) => v.split = Some(k as u32),
                        _ => {
                            return Err(GpuError::Invalid(format!(
                                "CUZK_MSM_VARIANT: unknown token {tok:?} (base, flat, nopf, lb3, b32, b64, b128, \
                                 seq, w1..w{MAX_WINDOW}, p1..p{MAX_SPLIT})"
                            )))
                        }
                    }
                }
            }
        }
        if v.nopf && v.lb3 {
            return Err(GpuError::Invalid("CUZK_MSM_VARIANT: nopf has no lb3 build".into()));
        }
        Ok(v)
    }

    /// The variant `CUZK_MSM_VARIANT` names, or the default when it is unset.
    pub fn from_env() -> GResult<MsmVariant> {
        match std::env::var("CUZK_MSM_VARIANT") {
            Ok(s) => MsmVariant::parse(&s),
            Err(_) => Ok(MsmVariant::default()),
        }
    }

    /// Name of the level-1 kernel in `cuda/msm.cu`.
    pub fn points_kernel(&self) -> &'static str {
        if self.nopf {
            return "msm_g1_accum_flat_np";
        }
        match (self.flat, self.lb3) {
            (false, false) => "msm_g1_accum_points",
            (false, true) => "msm_g1_accum_points_lb3",
            (true, false) => "msm_g1_accum_flat",
            (true, true) => "msm_g1_accum_flat_lb3",
        }
    }

    /// The variants `tests/gpu/msm_variants.rs` and `scripts/msm-variants.sh` compare (window tokens aside).
    /// The `pN` and `seq` entries exercise the two-stream schedule (and its one-set fallback) at test sizes.
    pub const ALL: [&'static str; 11] = [
        "base", "base+lb3", "base+b32", "flat", "nopf", "flat+lb3", "flat+b32", "flat+b64", "p3", "p8",
        "seq+p4",
    ];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_variants() {
        assert_eq!(MsmVariant::parse("").ok(), Some(MsmVariant::default()));
        let v = MsmVariant::parse("flat+lb3+b64+w21").unwrap_or_default();
        assert!(v.flat && v.lb3 && v.block == 64 && v.window == Some(21));
        assert_eq!(v.points_kernel(), "msm_g1_accum_flat_lb3");
        assert!(MsmVariant::parse("fast").is_err());
        assert!(MsmVariant::parse("w0").is_err());
        assert!(MsmVariant::parse("nopf+lb3").is_err());
        assert!(MsmVariant::parse("p0").is_err() && MsmVariant::parse("p9").is_err());
        let v = MsmVariant::parse("p3+seq").unwrap_or_default();
        assert!(v.split == Some(3) && v.seq && v.flat);
        assert_eq!(MsmVariant::parse("nopf").unwrap_or_default().points_kernel(), "msm_g1_accum_flat_np");
        assert_eq!(MsmVariant::parse("base").unwrap_or_default().points_kernel(), "msm_g1_accum_points");
        assert_eq!(MsmVariant::default().points_kernel(), "msm_g1_accum_flat");
        for s in MsmVariant::ALL {
            assert!(MsmVariant::parse(s).is_ok(), "{s}");
        }
    }
}
