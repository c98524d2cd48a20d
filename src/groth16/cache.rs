//! The params cache: generated params are stored once per circuit shape and reused by later runs.
//!
//! Location: `$CUZK_CACHE/params/` when the environment variable `CUZK_CACHE` is set and non-empty (it names the
//! cuzk cache root, shared with other caches such as compiled kernels), otherwise `<user cache dir>/cuzk/params/`
//! (e.g. `~/.cache/cuzk/params/` on Linux). Each entry is `<key>.params` (bellperson layout) plus the sidecar
//! `<key>.params.sha256` in `sha256sum` format over the whole params file. Both are written atomically, params
//! first, so an interrupted write leaves a mismatching pair that the next load detects and rebuilds.
//! The caller supplies the key (a hash of the circuit shape and the setup seed); setups are deterministic, so
//! two processes building the same key concurrently write identical bytes.

use std::path::{Path, PathBuf};

use super::error::{Error, Result};
use super::keys::{Parameters, PointCheck};
use super::params_file::{hex, read_params_hashed, write_atomic, write_params};

/// The environment variable that overrides the cuzk cache root (params go under its `params/` folder).
pub use crate::util::dirs::CACHE_ENV;

/// Extension of a cached params file.
pub const PARAMS_EXT: &str = "params";

/// Extension appended to a params file's name for its checksum sidecar.
pub const CHECKSUM_EXT: &str = "sha256";

/// What `load_or_build` did, so callers can show it (and surface a rebuilt file's problem to the user).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CacheOutcome {
    /// A cached file was present, its checksum matched and it validated.
    Loaded,
    /// No cached file existed: the params were built and stored.
    Built,
    /// A cached file existed but was invalid; it was rebuilt and replaced. The warning says what was wrong.
    Rebuilt {
        /// One line naming the file and the problem.
        warning: String,
    },
}

impl CacheOutcome {
    /// The warning to show the user, if the cache had to rebuild a bad file.
    pub fn warning(&self) -> Option<&str> {
        match self {
            CacheOutcome::Rebuilt { warning } => Some(warning),
            _ => None,
        }
    }
}

/// The outcome of looking at one cache entry.
enum Entry {
    Missing,
    Valid(Box<Parameters>),
    Invalid(String),
}

/// A params cache rooted at one folder; `default_location()` gives the user's.
#[derive(Clone, Debug)]
pub struct ParamsCache {
    dir: PathBuf,
    check: PointCheck,
}

/// The default params folder: `$CUZK_CACHE/params` or `<user cache dir>/cuzk/params`.
pub fn default_cache_dir() -> Result<PathBuf> {
    Ok(crate::util::dirs::cache_root().ok_or(Error::NoCacheDir)?.join("params"))
}

/// Checks that a key is usable as a file name on every platform (no separators, no hidden names).
fn check_key(key: &str) -> Result<()> {
    let ok = !key.is_empty()
        && key.len() <= 128
        && !key.starts_with('.')
        && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'-');
    if ok {
        Ok(())
    } else {
        Err(Error::BadCacheKey { key: key.to_string() })
    }
}

/// The sidecar checksum path of a params file: `<file>.sha256`.
pub fn checksum_path(params_path: &Path) -> PathBuf {
    let mut name = params_path.file_name().unwrap_or_default().to_os_string();
    name.push(".");
    name.push(CHECKSUM_EXT);
    params_path.with_file_name(name)
}

impl ParamsCache {
    /// A cache in `dir` (created on first store), validating large sections with the default `PointCheck`.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        ParamsCache { dir: dir.into(), check: PointCheck::default() }
    }

    /// The user's cache (see the module doc for `CUZK_CACHE`).
    pub fn default_location() -> Result<Self> {
        Ok(Self::new(default_cache_dir()?))
    }

    /// Uses `check` for the large sections when loading (the checksum is verified either way).
    pub fn with_check(mut self, check: PointCheck) -> Self {
        self.check = check;
        self
    }

    /// The folder holding the cache entries.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The params file path for `key` (whether or not it exists yet).
    pub fn path_for(&self, key: &str) -> Result<PathBuf> {
        check_key(key)?;
        Ok(self.dir.join(format!("{key}.{PARAMS_EXT}")))
    }

    /// Loads the entry for `key` if it is present and valid; `Ok(None)` when missing or invalid.
    pub fn load(&self, key: &str) -> Result<Option<Parameters>> {
        match self.inspect(&self.path_for(key)?) {
            Entry::Valid(p) => Ok(Some(*p)),
            Entry::Missing | Entry::Invalid(_) => Ok(None),
        }
    }

    /// Stores `params` under `key` (params file, then checksum sidecar, both atomic); returns the params path.
    pub fn store(&self, key: &str, params: &Parameters) -> Result<PathBuf> {
        let path = self.path_for(key)?;
        std::fs::create_dir_all(&self.dir)
            .map_err(|e| Error::io(format!("params cache {}", self.dir.display()), "create folder", e))?;
        let digest = write_params(&path, params)?;
        let sidecar = checksum_path(&path);
        let name = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
        let line = format!("{}  {name}\n", hex(&digest));
        write_atomic(&sidecar, &format!("checksum file {}", sidecar.display()), |w| {
            w.write_all(line.as_bytes())
        })?;
        Ok(path)
    }

    /// Loads the params for `key`, or builds and stores them when missing or invalid (returning a warning then).
    /// The builder's error type only needs to wrap this module's [`Error`].
    pub fn load_or_build<E: From<Error>>(
        &self,
        key: &str,
        build: impl FnOnce() -> Result<Parameters, E>,
    ) -> Result<(Parameters, PathBuf, CacheOutcome), E> {
        let path = self.path_for(key)?;
        let outcome = match self.inspect(&path) {
            Entry::Valid(p) => return Ok((*p, path, CacheOutcome::Loaded)),
            Entry::Missing => CacheOutcome::Built,
            Entry::Invalid(problem) => CacheOutcome::Rebuilt {
                warning: format!("cached params were invalid, rebuilt them: {problem}"),
            },
        };
        let params = build()?;
        self.store(key, &params)?;
        Ok((params, path, outcome))
    }

    /// Looks at the entry at `path`: missing, valid (checksum and validation pass) or invalid (with why).
    fn inspect(&self, path: &Path) -> Entry {
        match std::fs::metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Entry::Missing,
            Err(e) => return Entry::Invalid(format!("params file {}: cannot stat: {e}", path.display())),
            Ok(_) => {}
        }
        let sidecar = checksum_path(path);
        let expected = match std::fs::read_to_string(&sidecar) {
            Ok(s) => s,
            Err(e) => {
                return Entry::Invalid(format!("checksum file {}: cannot read: {e}", sidecar.display()))
            }
        };
        let expected = expected.split_whitespace().next().unwrap_or("");
        if expected.len() != 64 || !expected.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Entry::Invalid(format!(
                "checksum file {}: expected 64 hex digits of SHA-256 at the start, found {:?}",
                sidecar.display(),
                expected.chars().take(80).collect::<String>()
            ));
        }
        let (parsed, digest) = match read_params_hashed(path, self.check) {
            Ok(r) => r,
            Err(e) => return Entry::Invalid(e.to_string()),
        };
        let found = hex(&digest);
        if !found.eq_ignore_ascii_case(expected) {
            return Entry::Invalid(format!(
                "params file {}: SHA-256 is {found}, checksum file {} says {expected}",
                path.display(),
                sidecar.display()
            ));
        }
        match parsed {
            Ok(p) => Entry::Valid(Box::new(p)),
            Err(e) => Entry::Invalid(e.to_string()),
        }
    }
}

/// The params path for `key` in the user's cache (see the module doc).
pub fn params_path(key: &str) -> Result<PathBuf> {
    ParamsCache::default_location()?.path_for(key)
}

/// `ParamsCache::load_or_build` on the user's cache.
pub fn load_or_build<E: From<Error>>(
    key: &str,
    build: impl FnOnce() -> Result<Parameters, E>,
) -> Result<(Parameters, PathBuf, CacheOutcome), E> {
    ParamsCache::default_location()?.load_or_build(key, build)
}
