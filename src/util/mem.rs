//! Mapping a fresh buffer's pages: in huge pages where the kernel allows, and in one call.
//!
//! Why: a fresh vector's pages are faulted in one at a time as it is first written (about 2.5 µs per 4 KiB
//! page on dev-2c, docs/PERF.md); witness-only synthesis of the real 2 KiB C2 writes 86 MB that way, a
//! third of its time. `madvise(MADV_POPULATE_WRITE)` (Linux ≥ 5.14) maps the whole range in one kernel entry;
//! `MADV_HUGEPAGE` first makes those pages 2 MiB ones where transparent huge pages are `madvise` or `always`:
//! the kernel's share of that witness-only pass then fell from ~35% to the zeroing alone (~22%), 94 → 48 ms
//! on dev-2c (docs/PERF.md, session z). A buffer that gets huge pages is left to fault in as it is written
//! ([`prepare`]): a populate holds the address space's lock for the whole range, and a fresh process's device
//! start waits on that lock (docs/PERF.md, session aq).

/// Bytes from which a buffer is worth huge pages (one 2 MiB page; smaller ones stay in 4 KiB pages).
const HUGE_MIN: usize = 2 << 20;

/// The environment variable that turns the huge-page advice off (`off`; `on`, the default, keeps it).
pub const HUGE_PAGES_ENV: &str = "CUZK_HUGE_PAGES";

/// Whether fresh large buffers are advised into huge pages: on unless `CUZK_HUGE_PAGES=off` (read once). Off
/// is there to test a host where huge pages may cost a long compaction: a 32 GiB run whose a/b/c fell to the
/// heap on a nearly full host stalled ~3 minutes, not yet pinned on the advice (docs/PERF.md, session ai).
fn huge_pages() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| {
        let v = std::env::var(HUGE_PAGES_ENV).ok();
        crate::util::switch::on_off(v.as_deref()).unwrap_or_else(|bad| {
            tracing::warn!("{HUGE_PAGES_ENV}={bad}: expected on or off; huge pages stay on");
            true
        })
    })
}

/// Free memory a huge-page buffer must leave ([`huge_for`]).
const HUGE_SLACK: u64 = 1 << 30;

/// Whether a fresh buffer of `bytes` gets the huge-page advice: [`huge_pages`] on, and the kernel has that
/// much memory free already (`MemFree`, with [`HUGE_SLACK`] to spare). Where it must first reclaim page cache,
/// 2 MiB pages also need compaction: a 32 GiB run's recording circuit waited 14.2 s for its three 4.2 GB pool
/// blocks in huge pages while the page cache held the params, against 0.7–1.2 s each earlier in the same
/// run and 1.4–1.8 s in 4 KiB pages at the same point of another (docs/PERF.md, session ak).
fn huge_for(bytes: usize) -> bool {
    huge_pages() && huge_fits(bytes as u64, crate::util::meminfo::free_bytes())
}

/// [`huge_for`]'s test of free memory (`free` 0: unknown, so the advice stays).
fn huge_fits(bytes: u64, free: u64) -> bool {
    free == 0 || free >= bytes.saturating_add(HUGE_SLACK)
}

/// The whole pages of `v`'s spare capacity: (first, last) addresses, page-aligned (madvise needs that).
#[cfg(target_os = "linux")]
fn spare_pages<T>(v: &mut Vec<T>) -> (usize, usize) {
    const PAGE: usize = 4096;
    let start = v.as_mut_ptr() as usize + v.len() * std::mem::size_of::<T>();
    let end = v.as_ptr() as usize + v.capacity() * std::mem::size_of::<T>();
    (start.div_ceil(PAGE) * PAGE, end / PAGE * PAGE)
}

/// Asks for `v`'s spare capacity in transparent huge pages (from `HUGE_MIN` bytes; Linux; not with
/// `CUZK_HUGE_PAGES=off`, nor where that much memory is not free already, `MemFree`). Advice only: with huge
/// pages off, or where the kernel refuses, the pages stay 4 KiB and nothing else changes. Says whether the
/// kernel took the advice and transparent huge pages are not off (`never`) on this host.
pub fn advise_huge<T>(v: &mut Vec<T>) -> bool {
    #[cfg(target_os = "linux")]
    {
        let (first, last) = spare_pages(v);
        if last >= first + HUGE_MIN && huge_for(last - first) {
            // SAFETY: [first, last) lies inside `v`'s allocation, which `v` owns, past its initialized
            // elements; MADV_HUGEPAGE only sets how the range's pages are backed and changes no byte. An error
            // (huge pages unsupported) is ignored: the advice is optional.
            let r = unsafe { libc::madvise(first as *mut libc::c_void, last - first, libc::MADV_HUGEPAGE) };
            return r == 0 && thp_enabled();
        }
        false
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = v;
        false
    }
}

/// Whether this host's transparent huge pages are on for advised ranges (`always` or `madvise` in
/// `/sys/kernel/mm/transparent_hugepage/enabled`; read once; unreadable: off).
#[cfg(target_os = "linux")]
fn thp_enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| {
        std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").is_ok_and(|s| thp_mode_on(&s))
    })
}

/// The THP mode file's text says `always` or `madvise` is the selected mode (the one in brackets).
#[cfg(any(target_os = "linux", test))]
fn thp_mode_on(s: &str) -> bool {
    s.contains("[always]") || s.contains("[madvise]")
}

/// Readies a fresh buffer that this thread will write: in huge pages where the kernel gives them, left to
/// fault in 2 MiB at a time as it is written (512× fewer faults than 4 KiB pages, and no `populate` holding
/// the address space's lock for the whole range: beside a fresh process's device start that populate of the
/// witness delayed the context ~13 ms, docs/PERF.md, session aq), else mapped in one call ([`populate`]).
pub fn prepare<T>(v: &mut Vec<T>) {
    if !advise_huge(v) {
        populate_pages(v);
    }
}

/// Maps the pages of `v`'s spare capacity now (huge pages advised first, [`advise_huge`]) and says whether it
/// did (Linux ≥ 5.14); elsewhere, or on an older kernel, nothing happens (false) and the pages fault in as
/// they are written.
pub fn populate<T>(v: &mut Vec<T>) -> bool {
    advise_huge(v);
    populate_pages(v)
}

/// [`populate`] without the huge-page advice.
fn populate_pages<T>(v: &mut Vec<T>) -> bool {
    #[cfg(target_os = "linux")]
    {
        let (first, last) = spare_pages(v);
        if last > first {
            // SAFETY: [first, last) lies inside `v`'s allocation, which `v` owns, past its initialized
            // elements; MADV_POPULATE_WRITE only maps the pages (as a first write would) and changes no byte.
            // An error (an older kernel: EINVAL) leaves the pages to fault in as they are written.
            return unsafe {
                libc::madvise(first as *mut libc::c_void, last - first, libc::MADV_POPULATE_WRITE)
            } == 0;
        }
        true
    }
    #[cfg(not(target_os = "linux"))]
    false
}

/// [`populate`] for a fresh anonymous mapping (the pinned pool's blocks): huge pages advised, then every page
/// mapped in one call; says whether it did (advice only, as there: a refusal leaves the pages to fault in as
/// they are written, or as the driver registers them).
pub fn populate_map(map: &mut memmap2::MmapMut) -> bool {
    #[cfg(target_os = "linux")]
    {
        if map.len() >= HUGE_MIN {
            if huge_for(map.len()) {
                let _ = map.advise(memmap2::Advice::HugePage);
            } else {
                crate::util::marks::mark_with(|| format!("huge_pages_skipped bytes={}", map.len()));
            }
        }
        map.advise(memmap2::Advice::PopulateWrite).is_ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = map;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Huge pages only where the memory is free already (or unknown), with the slack to spare.
    #[test]
    fn huge_pages_need_the_memory_free_already() {
        let gib = 1u64 << 30;
        assert!(huge_fits(4 * gib, 0), "unknown free memory keeps the advice");
        assert!(huge_fits(4 * gib, 5 * gib));
        assert!(!huge_fits(4 * gib, 5 * gib - 1), "the slack is kept");
        assert!(!huge_fits(4 * gib, 2 * gib));
        assert!(!huge_fits(u64::MAX, u64::MAX - 1));
    }

    /// Only the bracketed mode counts: `never` selected is off even though the file names the others.
    #[test]
    fn thp_mode_is_the_bracketed_one() {
        assert!(thp_mode_on("always [madvise] never\n"));
        assert!(thp_mode_on("[always] madvise never\n"));
        assert!(!thp_mode_on("always madvise [never]\n"));
        assert!(!thp_mode_on(""));
    }

    /// `prepare` keeps every value and the capacity, whether it advised huge pages or mapped the pages.
    #[test]
    fn prepare_keeps_every_value() {
        let n = 3 << 20;
        let mut v: Vec<u64> = Vec::with_capacity(n);
        v.extend((0..777u64).map(|i| i ^ 0x5555));
        prepare(&mut v);
        assert_eq!(v.capacity(), n);
        v.extend((777..n as u64).map(|i| i ^ 0x5555));
        assert!(v.iter().enumerate().all(|(i, &x)| x == i as u64 ^ 0x5555));
        let mut small: Vec<u32> = Vec::with_capacity(10);
        prepare(&mut small);
        small.push(9);
        assert_eq!(small, [9]);
    }

    /// The advice and the mapping change no byte: values written before stay, values written after land,
    /// and the capacity is the one asked for (8 MiB: past [`HUGE_MIN`], advised where
    /// memory is free, as on CI).
    #[test]
    fn advice_and_mapping_keep_every_value() {
        let n = 1 << 20;
        let mut v: Vec<u64> = Vec::with_capacity(n);
        v.extend((0..1000u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)));
        advise_huge(&mut v);
        populate(&mut v);
        assert_eq!(v.capacity(), n);
        v.extend((1000..n as u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)));
        assert!(v.iter().enumerate().all(|(i, &x)| x == (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)));
        // A small vector (below one huge page) is left to 4 KiB pages and still mapped.
        let mut small: Vec<u8> = Vec::with_capacity(100);
        small.push(7);
        advise_huge(&mut small);
        populate(&mut small);
        assert_eq!(small, [7]);
    }

    /// A populated mapping (the pinned pool's block) is resident before its first write (where the kernel
    /// populates), still all zeros, keeps its length, and holds what is written to it afterwards, at both
    /// ends and between (6 MiB: huge pages advised where memory is free).
    #[test]
    fn a_populated_mapping_reads_zero_and_keeps_writes() {
        let len = 6 << 20;
        let mut map = memmap2::MmapMut::map_anon(len).expect("an anonymous mapping");
        if populate_map(&mut map) {
            // Every page is resident before anything touched it.
            let pages = len.div_ceil(4096);
            let mut resident = vec![0u8; pages];
            // SAFETY: `map` is a live mapping of `len` bytes starting at a page boundary; `resident` has one
            // byte per page of it, as mincore requires.
            let r = unsafe { libc::mincore(map.as_mut_ptr().cast(), len, resident.as_mut_ptr()) };
            assert_eq!(r, 0);
            assert!(resident.iter().all(|&b| b & 1 == 1), "a page of the populated mapping is not resident");
        } else {
            eprintln!("SKIPPED residency check: this kernel refused MADV_POPULATE_WRITE (needs Linux 5.14)");
        }
        assert_eq!(map.len(), len);
        assert!(map.iter().all(|&b| b == 0));
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let picks: Vec<(usize, u8)> = (0..64)
            .map(|i| {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let at = if i == 0 {
                    0
                } else if i == 1 {
                    len - 1
                } else {
                    (rng as usize) % len
                };
                (at, (rng >> 56) as u8 | 1)
            })
            .collect();
        for &(at, v) in &picks {
            map[at] = v;
        }
        let mut want = vec![0u8; len];
        for &(at, v) in &picks {
            want[at] = v;
        }
        assert!(map[..] == want[..]);
    }
}
