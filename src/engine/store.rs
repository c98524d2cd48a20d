//! The run store: one JSON file per run under `<data dir>/runs/`, written atomically; runs addressed by id,
//! unique id prefix, `last`, `last~N` or a path.

use std::path::{Path, PathBuf};

use crate::timeline::record::{RunRecord, SCHEMA};

/// Environment variable that moves the data dir (runs, exports).
pub const HOME_ENV: &str = "CUZK_HOME";

/// Run store problems, one line each.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// No data dir could be found.
    #[error("no data directory: set {HOME_ENV} or pass --data-dir")]
    NoDataDir,
    /// Reading or writing failed.
    #[error("{path}: {action}: {source}")]
    Io {
        /// The file or folder.
        path: String,
        /// What was being done.
        action: &'static str,
        /// The OS error.
        source: std::io::Error,
    },
    /// A record file is not a valid `cuzk.run/1` record.
    #[error("{path}: not a cuzk.run/1 record: {why}")]
    Corrupt {
        /// The file.
        path: String,
        /// What is wrong.
        why: String,
    },
    /// No run matches.
    #[error("no run matches `{0}` (try `cuzk runs`)")]
    NotFound(String),
    /// A run was named by an empty string.
    #[error("empty run name (expected a run id, a unique id prefix, last, last~N or a record file)")]
    Empty,
    /// A record with this id is already stored; records are never overwritten.
    #[error("{path}: a run record with this id already exists; not overwriting it")]
    Exists {
        /// The existing record.
        path: String,
    },
    /// More than one run matches a prefix.
    #[error("`{spec}` is ambiguous: matches {n} runs ({first}, …)")]
    Ambiguous {
        /// The prefix.
        spec: String,
        /// How many matched.
        n: usize,
        /// One of them.
        first: String,
    },
}

/// Whether `id` is a run id as [`super::host::run_id`] makes them: `YYYYMMDD-HHMMSS-` then 4 to 16 lower-case
/// hex digits (older versions wrote 4). Ids name files, so nothing else is accepted from a record.
pub fn is_run_id(id: &str) -> bool {
    let b = id.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    (20..=31).contains(&b.len())
        && digits(0..8)
        && b[8] == b'-'
        && digits(9..15)
        && b[15] == b'-'
        && b[16..].iter().all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(c))
}

/// The store rooted at a data dir.
#[derive(Clone, Debug)]
pub struct RunStore {
    root: PathBuf,
}

impl RunStore {
    /// The store at `data_dir`, else `$CUZK_HOME`, else `<user data dir>/cuzk`.
    pub fn open(data_dir: Option<&Path>) -> Result<Self, StoreError> {
        let root = match data_dir {
            Some(d) => d.to_path_buf(),
            None => match std::env::var_os(HOME_ENV).filter(|v| !v.is_empty()) {
                Some(v) => PathBuf::from(v),
                None => dirs::data_dir().ok_or(StoreError::NoDataDir)?.join("cuzk"),
            },
        };
        Ok(RunStore { root })
    }

    /// The data dir.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Folder of run records.
    pub fn runs_dir(&self) -> PathBuf {
        self.root.join("runs")
    }

    /// Folder of exports.
    pub fn exports_dir(&self) -> PathBuf {
        self.root.join("exports")
    }

    /// Checks, before a run starts, that records can be written here: creates the runs folder and writes and
    /// removes a probe file (so a read-only or missing data dir fails in a second, not after the run). Also
    /// removes temp files that killed processes left in the runs and exports folders.
    pub fn check_writable(&self) -> Result<(), StoreError> {
        let dir = self.runs_dir();
        std::fs::create_dir_all(&dir).map_err(io(&dir, "cannot create folder"))?;
        crate::util::stale::sweep(&dir, None);
        crate::util::stale::sweep(&self.exports_dir(), None);
        let probe =
            crate::util::atomic::temp_sibling(&dir.join("write-check")).map_err(io(&dir, "cannot write"))?;
        std::fs::write(&probe, b"").map_err(io(&dir, "cannot write"))?;
        let _ = std::fs::remove_file(&probe);
        Ok(())
    }

    /// Saves a record atomically (temp file in the same folder, fsync, link into place); returns its path. The
    /// id must be a run id, and an existing record of that id is never replaced.
    pub fn save(&self, record: &RunRecord) -> Result<PathBuf, StoreError> {
        let dir = self.runs_dir();
        if !is_run_id(&record.id) {
            return Err(StoreError::Corrupt {
                path: dir.display().to_string(),
                why: format!("field `id`: {:?} is not a run id (expected YYYYMMDD-HHMMSS-hex)", record.id),
            });
        }
        std::fs::create_dir_all(&dir).map_err(io(&dir, "cannot create folder"))?;
        crate::util::stale::sweep(&dir, None);
        let path = dir.join(format!("{}.json", record.id));
        let json = serde_json::to_vec_pretty(record)
            .map_err(|e| StoreError::Corrupt { path: path.display().to_string(), why: e.to_string() })?;
        match crate::util::write_atomic_new(&path, &json) {
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                Err(StoreError::Exists { path: path.display().to_string() })
            }
            r => r.map_err(io(&path, "cannot write")),
        }?;
        Ok(path)
    }

    /// Every readable record, oldest first, and one warning line per file that could not be read (a runs
    /// folder that cannot be read is one warning too; see [`RunStore::try_list`] to fail on it).
    pub fn list(&self) -> (Vec<RunRecord>, Vec<String>) {
        self.try_list().unwrap_or_else(|e| (Vec::new(), vec![format!("warning: {e}")]))
    }

    /// Every readable record, oldest first, with one warning line per record file that could not be read; an
    /// error when the runs folder exists but cannot be read (a missing folder is an empty store).
    pub fn try_list(&self) -> Result<(Vec<RunRecord>, Vec<String>), StoreError> {
        let mut runs = Vec::new();
        let mut warnings = Vec::new();
        let dir = self.runs_dir();
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((runs, warnings)),
            Err(e) => return Err(io(&dir, "cannot read folder")(e)),
        };
        let mut paths: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        paths.sort();
        for p in paths {
            match load(&p) {
                Ok(r) => runs.push(r),
                Err(e) => warnings.push(format!("warning: skipped {e}")),
            }
        }
        runs.sort_by(|a, b| (&a.started, &a.id).cmp(&(&b.started, &b.id)));
        Ok((runs, warnings))
    }

    /// Finds a run by id, unique prefix, `last`, `last~N`, or the path of a record file.
    pub fn resolve(&self, spec: &str) -> Result<RunRecord, StoreError> {
        if spec.trim().is_empty() {
            return Err(StoreError::Empty);
        }
        let as_path = Path::new(spec);
        if spec.ends_with(".json") || as_path.components().count() > 1 {
            return load(as_path);
        }
        let (runs, _) = self.try_list()?;
        if let Some(rest) = spec.strip_prefix("last") {
            let back: usize = match rest.strip_prefix('~') {
                Some(n) => n.parse().map_err(|_| StoreError::NotFound(spec.into()))?,
                None if rest.is_empty() => 0,
                None => return Err(StoreError::NotFound(spec.into())),
            };
            // `last~N` is the (N+1)-th from the end; any N past the store's size (up to u64::MAX) is no run.
            return back
                .checked_add(1)
                .and_then(|k| runs.len().checked_sub(k))
                .and_then(|i| runs.get(i).cloned())
                .ok_or(StoreError::NotFound(spec.into()));
        }
        if let Some(r) = runs.iter().find(|r| r.id == spec) {
            return Ok(r.clone());
        }
        let hits: Vec<&RunRecord> = runs.iter().filter(|r| r.id.starts_with(spec)).collect();
        match hits.len() {
            0 => Err(StoreError::NotFound(spec.into())),
            1 => Ok(hits[0].clone()),
            n => Err(StoreError::Ambiguous { spec: spec.into(), n, first: hits[0].id.clone() }),
        }
    }
}

impl RunStore {
    /// Removes the record of run `id` (an exact id: a typo never deletes another run).
    pub fn delete(&self, id: &str) -> Result<(), StoreError> {
        let ok = !id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !ok {
            return Err(StoreError::NotFound(id.into()));
        }
        let path = self.runs_dir().join(format!("{id}.json"));
        std::fs::remove_file(&path).map_err(|source| match source.kind() {
            std::io::ErrorKind::NotFound => StoreError::NotFound(id.into()),
            _ => StoreError::Io { path: path.display().to_string(), action: "cannot delete", source },
        })
    }
}

/// Reads and checks one record file.
pub fn load(path: &Path) -> Result<RunRecord, StoreError> {
    let p = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| StoreError::Io {
        path: p.clone(),
        action: "cannot read",
        source,
    })?;
    parse_record(&bytes, &p)
}

/// Parses and checks record bytes (`origin` names them in errors): JSON of the `cuzk.run/1` schema, an id
/// of the run-id grammar (ids become file names), a toggles table within its bounds. Never panics.
pub fn parse_record(bytes: &[u8], origin: &str) -> Result<RunRecord, StoreError> {
    let corrupt = |why: String| StoreError::Corrupt { path: origin.to_string(), why };
    let r: RunRecord = serde_json::from_slice(bytes).map_err(|e| corrupt(e.to_string()))?;
    if r.schema != SCHEMA {
        return Err(corrupt(format!("field `schema`: `{}`, expected `{SCHEMA}`", r.schema)));
    }
    if !is_run_id(&r.id) {
        let shown: String = r.id.chars().take(64).collect();
        return Err(corrupt(format!("field `id`: {shown:?} is not a run id (expected YYYYMMDD-HHMMSS-hex)")));
    }
    crate::vocab::limits::BATCH
        .check_usize(r.toggles.batch)
        .map_err(|e| corrupt(format!("field `toggles.batch`: {}", e.reason())))?;
    Ok(r)
}

/// The error maker for an OS error at `path` while doing `action`.
fn io(path: &Path, action: &'static str) -> impl FnOnce(std::io::Error) -> StoreError {
    let path = path.display().to_string();
    move |source| StoreError::Io { path, action, source }
}
