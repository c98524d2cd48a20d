//! Facts about the machine and the process for run records: CPU model, threads, memory, peak RSS, clock.

use std::time::{SystemTime, UNIX_EPOCH};

use crate::timeline::record::HostInfo;

pub use crate::util::meminfo::{available_bytes, memory_bytes};
use crate::util::meminfo::{proc_kb, read};

/// Resident set of this process now, in bytes (0 where unknown): the memory sampler's host counter.
pub fn rss_bytes() -> u64 {
    proc_kb(&read("/proc/self/status"), "VmRSS:")
}

pub use crate::util::alloc::{heap_in_use_bytes, release_free_memory};

/// Peak resident set of this process in bytes (0 where unknown).
pub fn peak_rss_bytes() -> u64 {
    proc_kb(&read("/proc/self/status"), "VmHWM:")
}

/// The host's description.
pub fn host_info() -> HostInfo {
    let cpu = read("/proc/cpuinfo")
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    HostInfo {
        cpu,
        threads: rayon::current_num_threads() as u64,
        memory_bytes: memory_bytes(),
        settings: settings(),
    }
}

/// The environment variables that change how fast a run is (never what it computes), recorded with every run
/// so `cuzk compare` can tell two runs apart by them (README, "Settings").
pub const SPEED_SETTINGS: &[&str] = &[
    "CUZK_ALLOC",
    "CUZK_DEVICE_POOL_KEEP",
    "CUZK_HUGE_PAGES",
    "CUZK_MALLOC_TUNE",
    "CUZK_MEM_LIMIT",
    "CUZK_NATIVE_PARAMS",
    "CUZK_NVRTC_LIB",
    "CUZK_PINNED_POOL_MAX",
    "CUZK_RECORD_PASSES",
    "CUZK_SYNTH_WORKERS",
    "GLIBC_TUNABLES",
    "MALLOC_ARENA_MAX",
    "RAYON_NUM_THREADS",
];

/// The [`SPEED_SETTINGS`] set in this process's environment.
/// `CUZK_ALLOC` is there exactly when a non-default allocator served the run (a record without it, older ones
/// included, ran on the C library's).
pub fn settings() -> std::collections::BTreeMap<String, String> {
    use crate::util::alloc::{active, Allocator, ENV};
    let mut set: std::collections::BTreeMap<String, String> =
        SPEED_SETTINGS.iter().filter_map(|k| std::env::var(k).ok().map(|v| (k.to_string(), v))).collect();
    match active() {
        Allocator::System => set.remove(ENV),
        a => set.insert(ENV.into(), a.name().into()),
    };
    set
}

/// (year, month, day) of days since 1970-01-01 (proleptic Gregorian).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// UTC broken down: (y, mo, d, h, mi, s, nanos).
fn utc(t: SystemTime) -> (i64, u32, u32, u64, u64, u64, u32) {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs();
    let (y, mo, day) = civil((secs / 86_400) as i64);
    let rem = secs % 86_400;
    (y, mo, day, rem / 3600, rem % 3600 / 60, rem % 60, d.subsec_nanos())
}

/// RFC 3339 UTC timestamp with milliseconds.
pub fn rfc3339(t: SystemTime) -> String {
    let (y, mo, d, h, mi, s, ns) = utc(t);
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{:03}Z", ns / 1_000_000)
}

/// 48 random bits: from the OS (`/dev/urandom`), else from std's per-process random hash keys mixed with the
/// clock, the pid and a counter.
fn random48() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    use std::io::Read;
    let mut b = [0u8; 8];
    if std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut b)).is_ok() {
        return u64::from_le_bytes(b) >> 16;
    }
    static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_nanos());
    h.write_u32(std::process::id());
    h.write_u64(SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
    h.finish() >> 16
}

/// A sortable, unique run id: `YYYYMMDD-HHMMSS-xxxxxxxxxxxx` (UTC, then 48 random bits in hex: two runs
/// started in the same second collide with odds of about 2^-48; the store refuses to overwrite anyway).
pub fn run_id(t: SystemTime) -> String {
    let (y, mo, d, h, mi, s, _) = utc(t);
    format!("{y:04}{mo:02}{d:02}-{h:02}{mi:02}{s:02}-{:012x}", random48())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn civil_dates() {
        assert_eq!(civil(0), (1970, 1, 1));
        assert_eq!(civil(11_016), (2000, 2, 29));
        assert_eq!(civil(20_786), (2026, 11, 29));
        let t = UNIX_EPOCH + Duration::from_millis(1_796_000_000_123);
        assert_eq!(rfc3339(t), "2026-11-30T00:53:20.123Z");
        let (a, b) = (run_id(t), run_id(t));
        assert!(a.starts_with("20261130-005320-") && a.len() == 28, "{a}");
        assert_ne!(a, b, "48 random bits per id");
        assert!(super::super::store::is_run_id(&a), "{a}");
    }
}
