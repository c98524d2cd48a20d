//! Leftovers of killed processes: every temp file or folder cuzk writes is named `.NAME.tmp-PID-SEQ`
//! ([`super::atomic::TEMP_MARK`]), so a later start can tell whose it was and remove it once that process is
//! gone. A `kill -9` during a params write leaves a temp file as large as the params; the next command that
//! touches the folder removes it.

use std::path::{Path, PathBuf};

use super::atomic::TEMP_MARK;

/// The pid a temp name carries: `.NAME.tmp-PID-SEQ` (or `.NAME.tmp-PID`) → PID.
pub fn temp_owner(name: &str) -> Option<u32> {
    if !name.starts_with('.') {
        return None;
    }
    let (_, tail) = name.rsplit_once(TEMP_MARK)?;
    let pid = tail.split('-').next()?;
    if pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pid.parse().ok()
}

/// Whether process `pid` still runs. Where this cannot be known (no `/proc`), every pid counts as alive, so
/// nothing is removed that might be in use.
pub fn pid_alive(pid: u32) -> bool {
    if pid == std::process::id() {
        return true;
    }
    let proc = Path::new("/proc");
    if !proc.join("self").exists() {
        return true;
    }
    proc.join(pid.to_string()).exists()
}

/// Removes the temp files and folders in `dir` left by processes that no longer run; with `only`, just
/// those of the target named `only` (`.only.tmp-…`), for folders that are not cuzk's own (an `--out`
/// parent). Returns what it removed; a missing or unreadable folder removes nothing.
pub fn sweep(dir: &Path, only: Option<&str>) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut removed = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if let Some(target) = only {
            if !name.starts_with(&format!(".{target}{TEMP_MARK}")) {
                continue;
            }
        }
        let Some(pid) = temp_owner(&name) else { continue };
        if pid_alive(pid) {
            continue;
        }
        let path = e.path();
        let gone = match e.file_type() {
            Ok(t) if t.is_dir() => std::fs::remove_dir_all(&path),
            _ => std::fs::remove_file(&path),
        };
        if gone.is_ok() {
            removed.push(path);
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners_of_temp_names() {
        assert_eq!(temp_owner(".abc.params.tmp-1234-0"), Some(1234));
        assert_eq!(temp_owner(".20260101-000000-ab.json.tmp-77"), Some(77));
        assert_eq!(temp_owner("abc.params.tmp-1234-0"), None, "not hidden: not ours");
        assert_eq!(temp_owner(".x.tmp--1"), None);
        assert_eq!(temp_owner(".x.tmp-12a-1"), None);
        assert_eq!(temp_owner(".x.json"), None);
    }
}
