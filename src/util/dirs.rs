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
