//! Where cuzk keeps caches: one root every cache (params, kernels) lives under.

use std::path::PathBuf;

/// The environment variable that overrides the cache root.
pub const CACHE_ENV: &str = "CUZK_CACHE";

/// The cache root: `$CUZK_CACHE`, else `<user cache dir>/cuzk`; `None` when neither is known.
pub fn cache_root() -> Option<PathBuf> {
    match std::env::var_os(CACHE_ENV) {
        Some(root) if !root.is_empty() => Some(PathBuf::from(root)),
        _ => dirs::cache_dir().map(|d| d.join("cuzk")),
    }
}

/// Bytes free to an unprivileged writer on the filesystem holding `path` (or its nearest existing ancestor),
/// for the checks before a large cache write; `None` where the system does not say.
pub fn free_bytes(path: &std::path::Path) -> Option<u64> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let at = path.ancestors().find(|p| p.exists())?;
        let c = std::ffi::CString::new(at.as_os_str().as_bytes()).ok()?;
        let mut st = std::mem::MaybeUninit::<libc::statvfs>::uninit();
        // SAFETY: `c` is a NUL-terminated path; `st` is written by statvfs before it is read, and only on
        // success.
        if unsafe { libc::statvfs(c.as_ptr(), st.as_mut_ptr()) } != 0 {
            return None;
        }
        // SAFETY: statvfs returned 0, so it filled `st`.
        let st = unsafe { st.assume_init() };
        // The fields' types differ between platforms (u64 here, u32 on some): the casts are for those.
        #[allow(clippy::unnecessary_cast)]
        Some((st.f_bavail as u64).saturating_mul(st.f_frsize as u64))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}
