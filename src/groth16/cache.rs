//! The params cache: generated params are stored once per circuit shape and reused by later runs.
//!
//! Location: `$CUZK_CACHE/params/` when the environment variable `CUZK_CACHE` is set and non-empty (it names
//! the cuzk cache root, shared with other caches such as compiled kernels), otherwise
//! `<user cache dir>/cuzk/params/` (e.g. `~/.cache/cuzk/params/` on Linux). Each entry is `<key>.params`
//! (bellperson layout) plus the sidecar `<key>.params.sha256`: `xxh3-64m:<hex>  <name>`, the chunked
//! XXH3-128 of `groth16::digest` (computed on every core; the sidecar keeps its name from when it held
//! SHA-256, and entries whose sidecar holds `sha256-64m:` or a plain `sha256sum` line, as older builds wrote,
//! are checked that way, then rewritten). Both are written atomically, params first, so an interrupted write
//! leaves a mismatching pair that the next load detects and rebuilds. The caller supplies the key (a hash of
//! the circuit shape and the setup seed) and an identity check of the params against it (counts against
//! the shape, the vk against the seed), so an entry copied in from another circuit or seed is detected,
//! named and rebuilt rather than used. The sidecar also names its params file, so a pair copied under another
//! key is caught before the large read. A per-entry lock file (`<key>.params.lock`, removed when the build
//! ends) makes concurrent processes build an entry once: the others wait (cancellably) and then load it. A
//! build whose store fails (disk full, read-only cache) still returns the params, with a warning. Temp files
//! of killed writers are removed on the next use. An entry up to 8 GiB also gets a native copy,
//! `<key>.params.native` (`params_native`: the sections in memory layout, read into place instead of
//! decoded), written once the params file is checked; loads use it while the params file and its sidecar are
//! as they were when it was made, and read the params file otherwise (`CUZK_NATIVE_PARAMS=off`: never).

use std::path::{Path, PathBuf};

use super::digest::{DigestKind, Sum, SIDECAR_PREFIX};
use super::error::{Error, Result};
use super::keys::{Parameters, PointCheck};
use super::params_file::{hex, read_params_hashed, write_atomic, write_params, OnSection};
use super::params_native as native;
use super::params_stream::{ParamsStream, SectionCounts};
use super::setup::Progress;
use crate::vocab::CancelToken;

/// The environment variable that overrides the cuzk cache root (params go under its `params/` folder).
pub use crate::util::dirs::CACHE_ENV;

/// Extension of a cached params file.
pub const PARAMS_EXT: &str = "params";

/// Extension appended to a params file's name for its checksum sidecar (named when it held SHA-256; its
/// first field's prefix says which checksum it holds, `groth16::digest::DigestKind`).
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
    /// The params were built but could not be stored (disk full, read-only cache): they are used from memory
    /// and the next run builds them again.
    NotStored {
        /// One line naming the file and the failure (and, if so, why the old entry was rebuilt).
        warning: String,
    },
}

impl CacheOutcome {
    /// The warning to show the user, if the cache had to rebuild a bad file or could not store one.
    pub fn warning(&self) -> Option<&str> {
        match self {
            CacheOutcome::Rebuilt { warning } | CacheOutcome::NotStored { warning } => Some(warning),
            _ => None,
        }
    }
}

/// What an entry must be beyond a valid params file, and how a wait for another builder is reported and
/// stopped.
pub struct Expect<'a> {
    /// `Some(why)` when the params do not belong to this key (another circuit's counts, another seed's vk).
    pub check: &'a (dyn Fn(&Parameters) -> Option<String> + Sync),
    /// Stops a wait for another process's build (and is passed on to the builder by the caller).
    pub cancel: &'a CancelToken,
    /// Told `("waiting", 0, 1)` while another process builds the entry, `("waiting", 1, 1)` when it is done.
    pub progress: Progress<'a>,
    /// Told each section of a loaded entry as it is decoded (a device copy made under the decode). An entry
    /// that then fails its checksum or `check` is not used: its copies are of a set that never comes.
    pub stage: Option<OnSection<'a>>,
}

fn no_progress(_: &str, _: usize, _: usize) {}

/// Any params belong to any key (the identity check of callers that have none).
fn any(_: &Parameters) -> Option<String> {
    None
}

/// A held build lock: the lock file is removed, then the lock released, when it drops (built, failed or
/// cancelled), so no lock file outlives a build. A process that was waiting on the removed file then holds a
/// lock nobody else can take, looks at the entry again and finds it built; only after a failed build can two
/// later processes build at once (they write identical bytes, atomically).
struct BuildLock {
    _file: std::fs::File,
    path: PathBuf,
}

impl Drop for BuildLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Where a load-or-build stands after [`ParamsCache::begin`].
enum Begun {
    /// A valid entry, loaded.
    Loaded(Box<(Parameters, PathBuf, CacheOutcome)>),
    /// To be built at `path`, under `lock`, ending as `outcome` if stored.
    Build { path: PathBuf, lock: Option<BuildLock>, outcome: CacheOutcome },
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
    /// Whether entries get native copies and loads use them (`params_native`).
    native: bool,
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
    /// A cache in `dir` (created on first store), decoding large sections with [`PointCheck::Canonical`]: the
    /// whole-file checksum, checked before any point is used, catches what a curve check would.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        ParamsCache { dir: dir.into(), check: PointCheck::Canonical, native: true }
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

    /// Without native copies (`params_native`): loads read and check the params file itself, and no copy is
    /// written (`CUZK_NATIVE_PARAMS=off` does this for every cache of the process).
    pub fn without_native(mut self) -> Self {
        self.native = false;
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
        match self.inspect(&self.path_for(key)?, &any, None) {
            Entry::Valid(p) => Ok(Some(*p)),
            Entry::Missing | Entry::Invalid(_) => Ok(None),
        }
    }

    /// Stores `params` under `key` (params file, then checksum sidecar, both atomic); returns the params
    /// path.
    pub fn store(&self, key: &str, params: &Parameters) -> Result<PathBuf> {
        let path = self.path_for(key)?;
        self.make_dir()?;
        let digest = write_params(&path, params)?;
        write_sidecar(&path, &digest)?;
        self.store_native(&path, params, &digest);
        Ok(path)
    }

    fn make_dir(&self) -> Result<()> {
        std::fs::create_dir_all(&self.dir)
            .map_err(|e| Error::io(format!("params cache {}", self.dir.display()), "create folder", e))
    }

    /// [`ParamsCache::load_or_build_checked`] for a builder that writes the entry itself while it builds
    /// (`build` gets the entry's [`ParamsStream`], of the layout `counts`, or `None` where the cache cannot
    /// hold a file; it returns the params it made, whole): the file is done when the last section is.
    pub fn load_or_build_streamed<E: From<Error>>(
        &self,
        key: &str,
        expect: &Expect,
        counts: SectionCounts,
        build: impl FnOnce(Option<&ParamsStream>) -> Result<Parameters, E>,
    ) -> Result<(Parameters, PathBuf, CacheOutcome), E> {
        let (path, lock, outcome) = match self.begin(key, expect)? {
            Begun::Loaded(found) => return Ok(*found),
            Begun::Build { path, lock, outcome } => (path, lock, outcome),
        };
        // A stale sidecar must never pair with the new file: it goes before the file is replaced. An invalid
        // entry goes too, so a rebuild needs the file's size on the disk once, not twice (48.4 GB at 2^27).
        let _ = std::fs::remove_file(checksum_path(&path));
        let _ = std::fs::remove_file(native::path_of(&path));
        if matches!(outcome, CacheOutcome::Rebuilt { .. }) {
            let _ = std::fs::remove_file(&path);
        }
        let stream =
            self.make_dir().and_then(|()| ParamsStream::create(&path, counts, expect.cancel.clone()));
        let (params, stored) = match stream {
            Ok(st) => {
                let params = build(Some(&st))?;
                let stored = st.finish().and_then(|digest| {
                    write_sidecar(&path, &digest)?;
                    self.store_native(&path, &params, &digest);
                    Ok(())
                });
                (params, stored)
            }
            Err(e) => (build(None)?, Err(e)),
        };
        drop(lock);
        Ok((params, path, not_stored(outcome, stored)))
    }

    /// Loads the params for `key`, or builds and stores them when missing or invalid (returning a warning
    /// then). The builder's error type only needs to wrap this module's [`Error`].
    pub fn load_or_build<E: From<Error>>(
        &self,
        key: &str,
        build: impl FnOnce() -> Result<Parameters, E>,
    ) -> Result<(Parameters, PathBuf, CacheOutcome), E> {
        let never = CancelToken::new();
        self.load_or_build_checked(
            key,
            &Expect { check: &any, cancel: &never, progress: &no_progress, stage: None },
            build,
        )
    }

    /// [`ParamsCache::load_or_build`] with an identity check on every load, a lock so that concurrent
    /// processes build the entry once, and a store failure turned into a warning (the params are returned).
    pub fn load_or_build_checked<E: From<Error>>(
        &self,
        key: &str,
        expect: &Expect,
        build: impl FnOnce() -> Result<Parameters, E>,
    ) -> Result<(Parameters, PathBuf, CacheOutcome), E> {
        let (path, lock, outcome) = match self.begin(key, expect)? {
            Begun::Loaded(found) => return Ok(*found),
            Begun::Build { path, lock, outcome } => (path, lock, outcome),
        };
        let params = build()?;
        let stored = self.store(key, &params).map(|_| ());
        drop(lock);
        Ok((params, path, not_stored(outcome, stored)))
    }

    /// Looks at the entry, and unless it is valid takes its build lock and looks again (another process may
    /// have built it while this one waited): what a build starts from.
    fn begin(&self, key: &str, expect: &Expect) -> Result<Begun> {
        let path = self.path_for(key)?;
        crate::util::stale::sweep(&self.dir, None);
        if let Entry::Valid(p) = self.inspect(&path, expect.check, expect.stage) {
            return Ok(Begun::Loaded(Box::new((*p, path, CacheOutcome::Loaded))));
        }
        let lock = self.lock(key, expect)?;
        let outcome = match self.inspect(&path, expect.check, expect.stage) {
            Entry::Valid(p) => return Ok(Begun::Loaded(Box::new((*p, path, CacheOutcome::Loaded)))),
            Entry::Missing => CacheOutcome::Built,
            Entry::Invalid(problem) => CacheOutcome::Rebuilt {
                warning: format!("cached params were invalid, rebuilt them: {problem}"),
            },
        };
        Ok(Begun::Build { path, lock, outcome })
    }

    /// Takes the entry's build lock, waiting (and reporting the wait) while another process holds it; `None`
    /// where no lock file can be made (a read-only cache: the store will fail and say so).
    fn lock(&self, key: &str, expect: &Expect) -> Result<Option<BuildLock>> {
        if std::fs::create_dir_all(&self.dir).is_err() {
            return Ok(None);
        }
        let lock_path = self.dir.join(format!("{key}.{PARAMS_EXT}.lock"));
        let Ok(file) = std::fs::File::options().create(true).truncate(false).write(true).open(&lock_path)
        else {
            return Ok(None);
        };
        let mut waited = false;
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(std::fs::TryLockError::WouldBlock) => {
                    if !waited {
                        (expect.progress)("waiting", 0, 1);
                        waited = true;
                    }
                    if expect.cancel.is_cancelled() {
                        return Err(Error::Cancelled);
                    }
                    std::thread::sleep(std::time::Duration::from_millis(100));
                }
                // No locking on this filesystem: build without it (identical bytes either way).
                Err(std::fs::TryLockError::Error(_)) => return Ok(None),
            }
        }
        if waited {
            (expect.progress)("waiting", 1, 1);
        }
        Ok(Some(BuildLock { _file: file, path: lock_path }))
    }

    /// Looks at the entry at `path`: missing, valid (checksum, validation and `check` pass) or invalid (why).
    fn inspect(
        &self,
        path: &Path,
        check: &(dyn Fn(&Parameters) -> Option<String> + Sync),
        stage: Option<OnSection<'_>>,
    ) -> Entry {
        match std::fs::metadata(path) {
            Err(e)
                if matches!(e.kind(), std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory) =>
            {
                return Entry::Missing
            }
            Err(e) => return Entry::Invalid(format!("params file {}: cannot stat: {e}", path.display())),
            Ok(_) => {}
        }
        let sidecar = checksum_path(path);
        let expected_line = match std::fs::read_to_string(&sidecar) {
            Ok(s) => s,
            Err(e) => {
                return Entry::Invalid(format!("checksum file {}: cannot read: {e}", sidecar.display()))
            }
        };
        let mut fields = expected_line.split_whitespace();
        let (expected, named) =
            (fields.next().unwrap_or(""), fields.next().map(|n| n.trim_start_matches('*')));
        let own = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if named.is_some_and(|n| n != own) {
            return Entry::Invalid(format!(
                "checksum file {}: names `{}`, expected `{own}` (an entry copied from another key?)",
                sidecar.display(),
                named.unwrap_or_default().chars().take(80).collect::<String>()
            ));
        }
        let (kind, expected) = DigestKind::of_sidecar(expected);
        if expected.len() != kind.hex_len() || !expected.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Entry::Invalid(format!(
                "checksum file {}: expected `{SIDECAR_PREFIX}` and 32 hex digits (or a SHA-256 sidecar of an \
                 older cuzk) at the start, found {:?}",
                sidecar.display(),
                fields_start(&expected_line).chars().take(80).collect::<String>()
            ));
        }
        // The native copy, when it was made from the file the sidecar vouches for: read into place, checked
        // part by part. One that fails is removed and the params file read instead (then copied again).
        let source = if kind == DigestKind::Chunked { sum_of_hex(expected) } else { None };
        let stamp = source.and_then(|d| native::Stamp::of(path, d).ok());
        if let (Some(stamp), true) = (&stamp, self.native) {
            let copy = native::path_of(path);
            match native::load(&copy, stamp) {
                Some(Ok(p)) => {
                    return match check(&p) {
                        None => Entry::Valid(Box::new(p)),
                        Some(why) => Entry::Invalid(format!("params file {}: {why}", path.display())),
                    }
                }
                Some(Err(e)) => {
                    tracing::warn!("{e}; reading the params file instead");
                    let _ = std::fs::remove_file(&copy);
                }
                None => {}
            }
        }
        let (parsed, digest, upgrade) = match read_params_hashed(path, self.check, kind, stage) {
            Ok(r) => r,
            Err(e) => return Entry::Invalid(e.to_string()),
        };
        let found = hex(&digest);
        if !found.eq_ignore_ascii_case(expected) {
            return Entry::Invalid(format!(
                "params file {}: {} is {found}, checksum file {} says {expected}",
                path.display(),
                kind.name(),
                sidecar.display()
            ));
        }
        match parsed {
            Ok(p) => match check(&p) {
                None => {
                    // A sidecar of an older build, checked: rewritten in the current kind, so the next load
                    // hashes at XXH3's pace. A failed rewrite leaves the old sidecar, which still checks.
                    if let Some(sum) = upgrade {
                        let _ = write_sidecar(path, &sum);
                    }
                    if let Some(src) = source.or(upgrade) {
                        self.store_native(path, &p, &src);
                    }
                    Entry::Valid(Box::new(p))
                }
                Some(why) => Entry::Invalid(format!("params file {}: {why}", path.display())),
            },
            Err(e) => Entry::Invalid(e.to_string()),
        }
    }
}

impl ParamsCache {
    /// Writes the native copy of the entry `path` holding `params` (chunked digest `digest`) where one is
    /// wanted ([`native::wanted`]); a failure is one warning, and loads read the params file meanwhile.
    fn store_native(&self, path: &Path, params: &Parameters, digest: &Sum) {
        let len = params.serialized_len() as u64;
        if !self.native || !native::wanted(len, &self.dir) {
            return;
        }
        let stored = native::Stamp::of(path, *digest)
            .map_err(|e| Error::io(super::error::params_origin(path), "stat", e))
            .and_then(|stamp| native::store(&native::path_of(path), params, &stamp));
        if let Err(e) = stored {
            tracing::warn!("{e}; loads read the params file instead");
        }
    }
}

/// A chunked digest from its sidecar hex (32 digits), `None` if it is not one.
fn sum_of_hex(hex: &str) -> Option<Sum> {
    if hex.len() != 32 {
        return None;
    }
    let mut out = [0u8; 16];
    for (o, pair) in out.iter_mut().zip(hex.as_bytes().chunks(2)) {
        *o = u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok()?;
    }
    Some(out)
}

/// The first whitespace-separated field of a sidecar line (what a bad sidecar is quoted by).
fn fields_start(line: &str) -> &str {
    line.split_whitespace().next().unwrap_or("")
}

/// Writes the checksum sidecar of the params file `path`: `xxh3-64m:<hex>  <name>` (atomic).
fn write_sidecar(path: &Path, digest: &Sum) -> Result<()> {
    let sidecar = checksum_path(path);
    let name = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
    let line = format!("{SIDECAR_PREFIX}{}  {name}\n", hex(digest));
    write_atomic(&sidecar, &format!("checksum file {}", sidecar.display()), |w| w.write_all(line.as_bytes()))
}

/// `outcome`, or a `NotStored` warning (carrying `outcome`'s own) when the store failed.
fn not_stored(outcome: CacheOutcome, stored: Result<()>) -> CacheOutcome {
    match stored {
        Ok(()) => outcome,
        Err(e) => {
            let before = outcome.warning().map(|w| format!(" ({w})")).unwrap_or_default();
            CacheOutcome::NotStored {
                warning: format!("params not cached, using them from memory: {e}{before}"),
            }
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
