//! The process's memory allocator: the C library's malloc (glibc, its arenas capped), or mimalloc with
//! `CUZK_ALLOC=mimalloc`. The binary installs [`CuzkAlloc`] as its global allocator; the library (tests,
//! other programs) keeps whatever its host chose, and [`active`] says which one serves the process.
//!
//! Why a choice: synthesis allocates millions of small blocks on every core at once. On h200-16c the real
//! 2 KiB C2's synthesis with `pce` off on 16 threads took 350.7–557.5 ms under glibc with 4 arenas and
//! 176.7–178.3 under mimalloc, witness-only synthesis on one thread 58.7–69.9 against 46.0–46.7 ms; but a
//! 32 GiB sector's steady state did not move (30.6–33.8 s against 32.0–37.3), and in the GPU soak mimalloc's
//! committed memory grew ~1.7 MiB per proof (+23% over 40) where glibc's heap stayed flat. So glibc stays the
//! default (docs/PERF.md, "Results read back after the wait; the allocator").

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU8, Ordering};

/// The variable that picks the allocator (`system`, the default, or `mimalloc`).
pub const ENV: &str = "CUZK_ALLOC";

/// glibc malloc arenas when glibc serves the process (unless `MALLOC_ARENA_MAX` says otherwise). glibc's
/// default is 8 per core, each keeping its own free pages: with 4 a 100-proof GPU soak's host RSS grew +0.5%
/// after its warm-up instead of +4.2% (docs/PERF.md, "glibc arenas"); 16-thread synthesis then contends for
/// them.
pub const MALLOC_ARENAS: i32 = 4;

/// Which allocator serves the process's Rust allocations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Allocator {
    /// mimalloc (`CUZK_ALLOC=mimalloc` in the binary).
    Mimalloc,
    /// The C library's malloc (the binary's default, and any process that did not install [`CuzkAlloc`]).
    System,
}

impl Allocator {
    /// The name `CUZK_ALLOC` takes and run records show.
    pub fn name(self) -> &'static str {
        match self {
            Allocator::Mimalloc => "mimalloc",
            Allocator::System => "system",
        }
    }
}

const UNDECIDED: u8 = 0;
const MIMALLOC: u8 = 1;
const SYSTEM: u8 = 2;

/// What [`CuzkAlloc`] decided at the process's first allocation; [`UNDECIDED`] while it was never asked
/// (another global allocator serves the process).
static CHOSEN: AtomicU8 = AtomicU8::new(UNDECIDED);

/// The binary's global allocator: the C library's malloc unless `CUZK_ALLOC=mimalloc`, decided once, at the
/// first allocation, and never changed (every block is freed by the allocator that made it).
pub struct CuzkAlloc;

impl CuzkAlloc {
    #[inline(always)]
    fn mimalloc() -> bool {
        match CHOSEN.load(Ordering::Relaxed) {
            MIMALLOC => true,
            SYSTEM => false,
            _ => decide() == MIMALLOC,
        }
    }
}

/// Reads `CUZK_ALLOC` without allocating (this runs inside the first allocation). Threads racing here
/// read the same environment and store the same value. An unknown value means the default here;
/// [`check_env`] turns it into the binary's one-line error.
#[cold]
fn decide() -> u8 {
    let c = if env_says_mimalloc() { MIMALLOC } else { SYSTEM };
    CHOSEN.store(c, Ordering::Relaxed);
    c
}

fn env_says_mimalloc() -> bool {
    // SAFETY: getenv with a NUL-terminated name; the value is read at once, before anything could set it
    // (the binary sets no environment variables).
    unsafe {
        let v = libc::getenv(c"CUZK_ALLOC".as_ptr());
        !v.is_null() && std::ffi::CStr::from_ptr(v).to_bytes() == b"mimalloc"
    }
}

// SAFETY: every call goes to one allocator for the whole process (CHOSEN never changes once set), so each
// block is freed, resized and zero-allocated by the allocator that made it; both uphold GlobalAlloc's
// contract themselves.
unsafe impl GlobalAlloc for CuzkAlloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if Self::mimalloc() {
            mimalloc::MiMalloc.alloc(layout)
        } else {
            System.alloc(layout)
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if Self::mimalloc() {
            mimalloc::MiMalloc.dealloc(ptr, layout)
        } else {
            System.dealloc(ptr, layout)
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if Self::mimalloc() {
            mimalloc::MiMalloc.alloc_zeroed(layout)
        } else {
            System.alloc_zeroed(layout)
        }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if Self::mimalloc() {
            mimalloc::MiMalloc.realloc(ptr, layout, new_size)
        } else {
            System.realloc(ptr, layout, new_size)
        }
    }
}

/// The allocator serving this process.
pub fn active() -> Allocator {
    if CHOSEN.load(Ordering::Relaxed) == MIMALLOC {
        Allocator::Mimalloc
    } else {
        Allocator::System
    }
}

/// `CUZK_ALLOC`'s value checked: unset, `system` or `mimalloc`; else the one-line error the binary exits
/// with.
pub fn check_env() -> Result<(), String> {
    match std::env::var(ENV) {
        Err(std::env::VarError::NotPresent) => Ok(()),
        Ok(v) if v == "system" || v == "mimalloc" => Ok(()),
        Ok(v) => Err(format!("{ENV}={v:?}: expected system or mimalloc")),
        Err(std::env::VarError::NotUnicode(v)) => Err(format!("{ENV}={v:?}: expected system or mimalloc")),
    }
}

/// Caps glibc's malloc arenas at [`MALLOC_ARENAS`] when glibc serves the process (a no-op under mimalloc,
/// elsewhere, or when `MALLOC_ARENA_MAX` is set). Called first thing by the binary, before threads exist.
pub fn cap_malloc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if active() == Allocator::System && std::env::var_os("MALLOC_ARENA_MAX").is_none() {
        // SAFETY: mallopt only sets an allocator parameter; no preconditions.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, MALLOC_ARENAS);
        }
    }
}

/// The variable that keeps glibc's own malloc thresholds (`off`; unset or `on`: [`tune_malloc`]'s).
pub const MALLOC_TUNE_ENV: &str = "CUZK_MALLOC_TUNE";

/// Blocks from which glibc maps each one on its own: 32 MiB, glibc's own ceiling for its moving threshold,
/// fixed from the start. Below it blocks come from the arenas and their freed pages serve the next ones,
/// instead of being mapped, faulted and unmapped one by one while the device's context starts beside them
/// (each map, unmap and heap growth takes the address space's lock the driver's start needs; a fresh
/// process's one-shot at 2 KiB ran 18–28 ms sooner by the median, docs/PERF.md, session aq).
pub const MALLOC_MMAP_THRESHOLD: i32 = 32 << 20;

/// The main heap's growth per step: 64 MiB, so it grows in a few steps rather than hundreds.
pub const MALLOC_TOP_PAD: i32 = 64 << 20;

/// Free bytes at a heap's top before glibc hands them back on its own: 1 GiB, so a run's freed buffers are
/// reused rather than returned and faulted in again; long-lived processes still hand free pages back after
/// each run ([`release_free_memory`]).
pub const MALLOC_TRIM_THRESHOLD: i32 = 1 << 30;

/// Sets glibc's thresholds above ([`MALLOC_MMAP_THRESHOLD`], [`MALLOC_TOP_PAD`], [`MALLOC_TRIM_THRESHOLD`])
/// when glibc serves the process, unless `CUZK_MALLOC_TUNE=off` or `GLIBC_TUNABLES` sets malloc's own. Called
/// first thing by the binary, before threads exist.
pub fn tune_malloc() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if active() == Allocator::System && malloc_tune_wanted() {
        // SAFETY: mallopt only sets an allocator parameter; no preconditions.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, MALLOC_MMAP_THRESHOLD);
            libc::mallopt(libc::M_TOP_PAD, MALLOC_TOP_PAD);
            libc::mallopt(libc::M_TRIM_THRESHOLD, MALLOC_TRIM_THRESHOLD);
        }
    }
}

/// Whether [`tune_malloc`] applies: not with `CUZK_MALLOC_TUNE=off`, nor where `GLIBC_TUNABLES` names malloc.
fn malloc_tune_wanted() -> bool {
    let tune = std::env::var(MALLOC_TUNE_ENV).ok();
    let tunables = std::env::var("GLIBC_TUNABLES").ok();
    tune_applies(tune.as_deref(), tunables.as_deref())
}

/// [`malloc_tune_wanted`] for the two variables' values (a bad switch, refused at start, counts as on).
fn tune_applies(tune: Option<&str>, tunables: Option<&str>) -> bool {
    crate::util::switch::on_off(tune).unwrap_or(true)
        && !tunables.is_some_and(|v| v.contains("glibc.malloc."))
}

/// `CUZK_MALLOC_TUNE`'s value checked: unset, `on` or `off`; else the one-line error the binary exits with.
pub fn check_malloc_tune_env() -> Result<(), String> {
    match std::env::var(MALLOC_TUNE_ENV) {
        Err(std::env::VarError::NotPresent) => Ok(()),
        Ok(v) => check_malloc_tune(&v),
        Err(std::env::VarError::NotUnicode(v)) => Err(format!("{MALLOC_TUNE_ENV}={v:?}: expected on or off")),
    }
}

/// [`check_malloc_tune_env`] for a value.
fn check_malloc_tune(v: &str) -> Result<(), String> {
    let bad = |_| format!("{MALLOC_TUNE_ENV}={v:?}: expected on or off");
    crate::util::switch::on_off(Some(v)).map(|_| ()).map_err(bad)
}

/// Hands the allocator's free pages back to the system once a run's buffers are freed, for long-lived
/// processes (the console, the daemon, `cuzk soak`): mimalloc's `mi_collect`, glibc's `malloc_trim`.
pub fn release_free_memory() {
    match active() {
        // SAFETY: mi_collect only walks mimalloc's own heaps; it has no preconditions.
        Allocator::Mimalloc => unsafe { libmimalloc_sys::mi_collect(true) },
        Allocator::System => {
            #[cfg(all(target_os = "linux", target_env = "gnu"))]
            // SAFETY: malloc_trim only walks the allocator's own free lists; it has no preconditions.
            unsafe {
                libc::malloc_trim(0);
            }
        }
    }
}

/// Bytes the allocator holds for the process's blocks (`None` where unknown): beside RSS it tells a leak
/// (this grows) from other memory. mimalloc: its committed memory, read after [`release_free_memory`] has
/// returned free pages; glibc: `mallinfo2`'s allocated bytes (small and mmapped blocks).
pub fn heap_in_use_bytes() -> Option<u64> {
    match active() {
        Allocator::Mimalloc => {
            let mut commit = 0usize;
            let null = std::ptr::null_mut();
            // SAFETY: mi_process_info writes each non-null out-pointer once; the others are null.
            unsafe {
                libmimalloc_sys::mi_process_info(null, null, null, null, null, &mut commit, null, null)
            };
            Some(commit as u64)
        }
        Allocator::System => {
            #[cfg(all(target_os = "linux", target_env = "gnu"))]
            {
                // SAFETY: mallinfo2 reads the allocator's statistics; no preconditions.
                let m = unsafe { libc::mallinfo2() };
                Some((m.uordblks + m.hblkhd) as u64)
            }
            #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The thresholds apply by default and with `on`, not with `off`, nor where `GLIBC_TUNABLES` sets
    /// malloc's own (another tunable leaves them on); only `on` and `off` are accepted.
    #[test]
    fn malloc_tuning_follows_its_switch_and_the_tunables() {
        assert!(tune_applies(None, None));
        assert!(tune_applies(Some("on"), None));
        assert!(!tune_applies(Some(" OFF "), None));
        assert!(!tune_applies(None, Some("glibc.malloc.mmap_threshold=4096")));
        assert!(tune_applies(None, Some("glibc.rtld.optional_static_tls=512")));
        assert!(check_malloc_tune("off").is_ok() && check_malloc_tune("On").is_ok());
        assert_eq!(check_malloc_tune("yes"), Err("CUZK_MALLOC_TUNE=\"yes\": expected on or off".into()));
    }
}
