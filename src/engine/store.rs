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

    /// Saves a record atomically (temp file in the same folder, fsync, rename); returns its path.
    pub fn save(&self, record: &RunRecord) -> Result<PathBuf, StoreError> {
        let dir = self.runs_dir();
        let io = |path: &Path, action: &'static str| {
            let path = path.display().to_string();
            move |source| StoreError::Io { path, action, source }
        };
        std::fs::create_dir_all(&dir).map_err(io(&dir, "cannot create folder"))?;
        let path = dir.join(format!("{}.json", record.id));
        let json = serde_json::to_vec_pretty(record)
            .map_err(|e| StoreError::Corrupt { path: path.display().to_string(), why: e.to_string() })?;
        crate::util::write_atomic(&path, &json).map_err(io(&path, "cannot write"))?;
        Ok(path)
    }

    /// Every readable record, oldest first, and one warning line per file that could not be read.
    pub fn list(&self) -> (Vec<RunRecord>, Vec<String>) {
        let mut runs = Vec::new();
        let mut warnings = Vec::new();
        let Ok(entries) = std::fs::read_dir(self.runs_dir()) else { return (runs, warnings) };
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
        (runs, warnings)
    }

    /// Finds a run by id, unique prefix, `last`, `last~N`, or the path of a record file.
    pub fn resolve(&self, spec: &str) -> Result<RunRecord, StoreError> {
        let as_path = Path::new(spec);
        if spec.ends_with(".json") || as_path.components().count() > 1 {
            return load(as_path);
        }
        let (runs, _) = self.list();
        if let Some(rest) = spec.strip_prefix("last") {
            let back: usize = match rest.strip_prefix('~') {
                Some(n) => n.parse().map_err(|_| StoreError::NotFound(spec.into()))?,
                None if rest.is_empty() => 0,
                None => return Err(StoreError::NotFound(spec.into())),
            };
            return runs
                .len()
                .checked_sub(back + 1)
                .map(|i| runs[i].clone())
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
    let r: RunRecord = serde_json::from_slice(&bytes)
        .map_err(|e| StoreError::Corrupt { path: p.clone(), why: e.to_string() })?;
    if r.schema != SCHEMA {
        return Err(StoreError::Corrupt { path: p, why: format!("schema is `{}`", r.schema) });
    }
    Ok(r)
}
