//! Which structure digest each Filecoin circuit has, remembered beside the params cache once a run counted
//! it: so the daemon's `PreloadSRS` finds cuzk's own params of a circuit (keyed by digest and seed) before
//! any job of it ran in this process. One small file per circuit identifier, written atomically; a missing,
//! unreadable or malformed one reads as unknown (the preload then says why, and a job counts the shape).

use std::path::{Path, PathBuf};

/// Folder of the index inside the params cache folder.
const DIR: &str = "circuits";

/// The index file of `identifier` (filecoin-proofs' circuit identifier, e.g.
/// `stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-…`), or `None` when the
/// identifier is not a plain file name.
fn path_of(params_dir: &Path, identifier: &str) -> Option<PathBuf> {
    let plain = !identifier.is_empty()
        && identifier.len() <= 200
        && !identifier.starts_with('.')
        && identifier.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
    plain.then(|| params_dir.join(DIR).join(format!("{identifier}.digest")))
}

/// Remembers that `identifier`'s circuit has structure digest `digest` (nothing is written when the file
/// already says so). A failure to write is returned for the caller to warn about; it costs only the
/// preload's shortcut.
pub fn record(params_dir: &Path, identifier: &str, digest: u64) -> std::io::Result<()> {
    let Some(path) = path_of(params_dir, identifier) else { return Ok(()) };
    if lookup(params_dir, identifier) == Some(digest) {
        return Ok(());
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    crate::util::atomic::write_atomic(&path, format!("{digest:016x}\n").as_bytes())
}

/// The digest remembered for `identifier`, if a well-formed entry is there.
pub fn lookup(params_dir: &Path, identifier: &str) -> Option<u64> {
    let text = std::fs::read_to_string(path_of(params_dir, identifier)?).ok()?;
    let hex = text.strip_suffix('\n')?;
    (hex.len() == 16).then(|| u64::from_str_radix(hex, 16).ok()).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What is recorded reads back; a rewrite replaces it; a torn, malformed or foreign entry reads as
    /// unknown; identifiers that are not file names are neither written nor read.
    #[test]
    fn records_read_back_and_bad_entries_are_unknown() {
        let dir = tempfile::tempdir().expect("tempdir");
        let id = "stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-abc";
        assert_eq!(lookup(dir.path(), id), None);
        record(dir.path(), id, 0x0123_4567_89ab_cdef).expect("record");
        assert_eq!(lookup(dir.path(), id), Some(0x0123_4567_89ab_cdef));
        record(dir.path(), id, 7).expect("record");
        assert_eq!(lookup(dir.path(), id), Some(7));
        let file = path_of(dir.path(), id).expect("path");
        for bad in ["", "0000000000000007", "000000000000007\n", "zz00000000000007\n", "0000000000000007\n\n"]
        {
            std::fs::write(&file, bad).expect("write");
            assert_eq!(lookup(dir.path(), id), None, "{bad:?}");
        }
        for bad in ["", "../x", "a/b", ".hidden"] {
            record(dir.path(), bad, 1).expect("no-op");
            assert_eq!(lookup(dir.path(), bad), None, "{bad:?}");
        }
        let names: Vec<_> = std::fs::read_dir(dir.path().join(DIR)).expect("dir").flatten().collect();
        assert_eq!(names.len(), 1, "only the one entry, no temp files left");
    }
}
