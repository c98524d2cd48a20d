//! Mapping a fresh buffer's pages: in huge pages where the kernel allows, and in one call.
//!
//! Why: a fresh vector's pages are faulted in one at a time as it is first written (about 2.5 µs per 4 KiB
//! page on dev-2c, docs/PERF.md); witness-only synthesis of the real 2 KiB C2 writes 86 MB that way, a
//! third of its time. `madvise(MADV_POPULATE_WRITE)` (Linux ≥ 5.14) maps the whole range in one kernel entry;
//! `MADV_HUGEPAGE` first makes those pages 2 MiB ones where transparent huge pages are `madvise` or `always`:
//! the kernel's share of that witness-only pass then fell from ~35% to the zeroing alone (~22%), 94 → 48 ms
//! on dev-2c (docs/PERF.md, session z).

/// Bytes from which a buffer is worth huge pages (one 2 MiB page; smaller ones stay in 4 KiB pages).
const HUGE_MIN: usize = 2 << 20;

/// The whole pages of `v`'s spare capacity: (first, last) addresses, page-aligned (madvise needs that).
#[cfg(target_os = "linux")]
fn spare_pages<T>(v: &mut Vec<T>) -> (usize, usize) {
    const PAGE: usize = 4096;
    let start = v.as_mut_ptr() as usize + v.len() * std::mem::size_of::<T>();
    let end = v.as_ptr() as usize + v.capacity() * std::mem::size_of::<T>();
    (start.div_ceil(PAGE) * PAGE, end / PAGE * PAGE)
}

/// Asks for `v`'s spare capacity in transparent huge pages (from `HUGE_MIN` bytes; Linux only). Advice
/// only: with huge pages off, or where the kernel refuses, the pages stay 4 KiB and nothing else changes.
pub fn advise_huge<T>(v: &mut Vec<T>) {
    #[cfg(target_os = "linux")]
    {
        let (first, last) = spare_pages(v);
        if last >= first + HUGE_MIN {
            // SAFETY: [first, last) lies inside `v`'s allocation, which `v` owns, past its initialized
            // elements; MADV_HUGEPAGE only sets how the range's pages are backed and changes no byte. An error
            // (huge pages unsupported) is ignored: the advice is optional.
            unsafe {
                libc::madvise(first as *mut libc::c_void, last - first, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = v;
}

/// Maps the pages of `v`'s spare capacity now (huge pages advised first, [`advise_huge`]) and says whether it
/// did (Linux ≥ 5.14); elsewhere, or on an older kernel, nothing happens (false) and the pages fault in as
/// they are written.
pub fn populate<T>(v: &mut Vec<T>) -> bool {
    advise_huge(v);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The advice and the mapping change no byte: values written before stay, values written after land,
    /// and the capacity is the one asked for (8 MiB: past [`HUGE_MIN`], so the huge-page advice is given).
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
}
