//! The one way cuzk writes a file that must never tear (run records, exports, params and kernel caches,
//! proof outputs): a temp file with a unique name in the same folder, fsync, rename over the target, fsync of
//! the folder. Readers see the old file or the new one, never a mix; a failed write leaves no temp file.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Temp-name counter, so concurrent writers in one process never share a temp file.
static SEQ: AtomicU64 = AtomicU64::new(0);

/// Prefix of every temp file name (after the dot that hides it): `.NAME.tmp-PID-SEQ`.
pub const TEMP_MARK: &str = ".tmp-";

/// The temp path for a write of `path`: hidden, in the same folder, unique per process and call.
fn temp_path(path: &Path) -> std::io::Result<PathBuf> {
    let name = path.file_name().ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{} is not a file path", path.display()),
        )
    })?;
    let seq = SEQ.fetch_add(1, Ordering::Relaxed);
    Ok(path.with_file_name(format!(".{}{TEMP_MARK}{}-{seq}", name.to_string_lossy(), std::process::id())))
}

/// A temp name beside `path` for a folder or file being prepared (`.NAME.tmp-PID-SEQ`, which
/// [`super::stale::sweep`] removes once this process is gone).
pub fn temp_sibling(path: &Path) -> std::io::Result<PathBuf> {
    temp_path(path)
}

/// Writes `bytes` to `path` atomically.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic_with(path, |w| w.write_all(bytes))
}

/// Writes `bytes` to `path` atomically, but only if `path` does not exist yet: an existing file is kept and
/// the error is `AlreadyExists` (the temp file is hard-linked into place, which fails rather than replaces).
pub fn write_atomic_new(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = temp_path(path)?;
    let result = (|| {
        let mut file = File::options().write(true).create_new(true).open(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        std::fs::hard_link(&tmp, path)
    })();
    let _ = std::fs::remove_file(&tmp);
    result?;
    sync_dir(path);
    Ok(())
}

/// Puts the folder `prepared` (complete, beside `target`) in place of `target` as one step: a reader sees
/// the old folder or the new one, never a mix. A missing or empty `target` is replaced by a rename; a full
/// one is exchanged with `prepared` (Linux `renameat2(RENAME_EXCHANGE)`) and the old content removed. Where
/// the exchange is not available the old folder is moved aside first (a kill between the two renames then
/// leaves no `target`, and the old content under a temp name that the next start removes).
pub fn publish_dir(prepared: &Path, target: &Path) -> std::io::Result<()> {
    if let Ok(d) = File::open(prepared) {
        let _ = d.sync_all();
    }
    let full = std::fs::read_dir(target).map(|mut d| d.next().is_some()).unwrap_or(false);
    if !full {
        std::fs::rename(prepared, target)?;
        sync_dir(target);
        return Ok(());
    }
    if exchange(prepared, target).is_ok() {
        sync_dir(target);
        // `prepared` now holds the old content.
        return std::fs::remove_dir_all(prepared);
    }
    let aside = temp_path(target)?;
    std::fs::rename(target, &aside)?;
    if let Err(e) = std::fs::rename(prepared, target) {
        let _ = std::fs::rename(&aside, target);
        return Err(e);
    }
    sync_dir(target);
    std::fs::remove_dir_all(&aside)
}

/// Swaps two paths atomically (Linux only; elsewhere `Unsupported`).
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    const RENAME_EXCHANGE: libc::c_uint = 2;
    let c = |p: &Path| {
        CString::new(p.as_os_str().as_bytes())
            .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "path holds a NUL byte"))
    };
    let (ca, cb) = (c(a)?, c(b)?);
    // SAFETY: both pointers are valid NUL-terminated strings for the duration of the call; renameat2 only
    // reads them.
    let r = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            ca.as_ptr(),
            libc::AT_FDCWD,
            cb.as_ptr(),
            RENAME_EXCHANGE,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> std::io::Result<()> {
    Err(std::io::Error::new(std::io::ErrorKind::Unsupported, "no atomic exchange here"))
}

/// Writes `path` atomically with `fill` streaming the content (buffered), for files too large to build in
/// memory first. An existing `path` stays untouched until the new content is complete.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let tmp = temp_path(path)?;
    let file = File::options().write(true).create_new(true).open(&tmp)?;
    let result = (|| {
        let mut w = BufWriter::with_capacity(1 << 20, file);
        fill(&mut w)?;
        let file = w.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
        return result;
    }
    sync_dir(path);
    Ok(())
}

/// Persists a rename into `path`'s folder, for writers that rename a temp file themselves (best effort).
pub fn sync_parent(path: &Path) {
    sync_dir(path)
}

/// Persists the rename itself (best effort: a failure here does not undo a complete, renamed file).
fn sync_dir(path: &Path) {
    #[cfg(unix)]
    if let Some(dir) = path.parent() {
        let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
    }
    #[cfg(not(unix))]
    let _ = path;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_replace_whole_files_and_leave_no_temp() {
        let dir = std::env::temp_dir().join(format!("cuzk-atomic-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_default();
        let p = dir.join("f.json");
        write_atomic(&p, b"first").unwrap_or_default();
        write_atomic(&p, b"second, longer").unwrap_or_default();
        assert_eq!(std::fs::read(&p).unwrap_or_default(), b"second, longer");
        let failed = write_atomic_with(&p, |w| {
            w.write_all(b"partial")?;
            Err(std::io::Error::other("disk full"))
        });
        assert!(failed.is_err());
        assert_eq!(std::fs::read(&p).unwrap_or_default(), b"second, longer", "old content kept");
        let names: Vec<String> = std::fs::read_dir(&dir)
            .map(|rd| rd.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        assert_eq!(names, vec!["f.json".to_string()], "no temp file left");
        assert!(write_atomic(&dir.join("missing/f"), b"x").is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
