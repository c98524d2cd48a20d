//! How much of a file the kernel holds in its page cache (mincore over a read-only mapping): the difference
//! between an SRS that loads at memory speed and one that loads at disk speed.

use std::path::Path;

/// The share of `path`'s pages resident in the page cache, 0.0–1.0; `None` when it cannot be read or
/// mapped (an empty file is fully resident).
pub fn resident_fraction(path: &Path) -> Option<f64> {
    let file = std::fs::File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    if len == 0 {
        return Some(1.0);
    }
    // SAFETY: a read-only private mapping; its bytes are never read here, only its pages' residency.
    let map = unsafe { memmap2::MmapOptions::new().map(&file) }.ok()?;
    // SAFETY: sysconf has no preconditions.
    let page = match unsafe { libc::sysconf(libc::_SC_PAGESIZE) } {
        p if p > 0 => p as usize,
        _ => 4096,
    };
    let pages = map.len().div_ceil(page);
    let mut vec = vec![0u8; pages];
    // SAFETY: the mapping is page aligned and `map.len()` long; `vec` holds one byte per page of it.
    let rc = unsafe { libc::mincore(map.as_ptr() as *mut libc::c_void, map.len(), vec.as_mut_ptr()) };
    if rc != 0 {
        return None;
    }
    Some(vec.iter().filter(|b| **b & 1 == 1).count() as f64 / pages as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file just written is in the page cache; a missing one has no answer.
    #[test]
    fn fresh_file_is_resident() {
        let dir = std::env::temp_dir().join(format!("cuzk-pagecache-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join("f");
        let bytes: Vec<u8> = (0..64 * 1024u32).map(|i| ((i * 2_654_435_761u32) >> 24) as u8).collect();
        std::fs::write(&path, &bytes).expect("write");
        let f = resident_fraction(&path).expect("mapped");
        assert!(f > 0.9, "{f}");
        assert_eq!(resident_fraction(&dir.join("missing")), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
