//! Faulting in a fresh buffer's pages in one call.
//!
//! Why: a fresh vector's pages are faulted in one at a time as it is first written (about 2.5 µs per 4 KiB
//! page on dev-2c, docs/PERF.md); witness-only synthesis of the real 2 KiB C2 writes 86 MB that way, a
//! third of its time. `madvise(MADV_POPULATE_WRITE)` (Linux ≥ 5.14) maps the whole range in one kernel entry.

/// Maps the pages of `v`'s spare capacity now and says whether it did (Linux ≥ 5.14); elsewhere, or on an
/// older kernel, nothing happens (false) and the pages fault in as they are written.
pub fn populate<T>(v: &mut Vec<T>) -> bool {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let start = v.as_mut_ptr() as usize + v.len() * std::mem::size_of::<T>();
        let end = v.as_ptr() as usize + v.capacity() * std::mem::size_of::<T>();
        // Whole pages inside the allocation only: madvise needs a page-aligned start.
        let (first, last) = (start.div_ceil(PAGE) * PAGE, end / PAGE * PAGE);
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
    {
        let _ = v;
        false
    }
}
