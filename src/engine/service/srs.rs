//! The SRS each circuit id proves with: which are resident (HOT), in the page cache (WARM) or on disk only
//! (COLD), how many running jobs hold each, and loading or dropping them on request. The params themselves
//! live in the engine's memo; this book knows which memo entries belong to which circuit id.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use super::circuit_id::parse_circuit_id;
use crate::circuits::Sample;
use crate::engine::{params_file, Engine};

/// Where an SRS is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    /// In the process's memory, ready to prove with.
    Hot,
    /// Its file is (mostly) in the page cache: loading is a copy, not a read.
    Warm,
    /// On disk only (or nowhere yet).
    Cold,
}

impl Tier {
    /// `hot`, `warm`, `cold`.
    pub fn name(self) -> &'static str {
        match self {
            Tier::Hot => "hot",
            Tier::Warm => "warm",
            Tier::Cold => "cold",
        }
    }
}

/// One SRS as `GetStatus` reports it.
#[derive(Clone, Debug, PartialEq)]
pub struct SrsStatus {
    /// Curio's circuit id, or a sample's name.
    pub circuit_id: String,
    /// Where it is.
    pub tier: Tier,
    /// Its size in memory, bytes.
    pub size_bytes: u64,
    /// Running jobs holding it.
    pub refs: u32,
    /// Its file, when known.
    pub file: Option<PathBuf>,
}

/// Why an SRS request failed, one line naming the circuit id.
#[derive(Debug, thiserror::Error)]
pub enum SrsError {
    /// Not a circuit id.
    #[error("{0}")]
    Unknown(String),
    /// A circuit this build cannot prove.
    #[error("{0}")]
    NotSupported(String),
    /// Running jobs hold it.
    #[error("{0}")]
    InUse(String),
    /// No params to load.
    #[error("{0}")]
    NoParams(String),
    /// Loading failed.
    #[error("{0}")]
    Load(String),
}

struct Entry {
    refs: u32,
    /// The last job's sample: how the engine's memo knows this circuit's params.
    template: Option<Sample>,
    /// The params file (production, or the local cache's entry once a job loaded it).
    file: Option<PathBuf>,
    /// Read straight from `file` by a preload, before any job of it (memo key: the file).
    by_file: bool,
    bytes: u64,
    last_used: Instant,
}

/// The SRS of every circuit id the service has seen.
#[derive(Default)]
pub(super) struct SrsBook {
    entries: BTreeMap<String, Entry>,
}

impl Entry {
    fn new() -> Entry {
        Entry { refs: 0, template: None, file: None, by_file: false, bytes: 0, last_used: Instant::now() }
    }

    fn resident(&self, engine: &Engine) -> bool {
        let by_sample = self.template.as_ref().is_some_and(|t| engine.params_held(t));
        let by_file = self.by_file && self.file.as_ref().is_some_and(|f| engine.params_file_held(f));
        by_sample || by_file
    }

    fn tier(&self, engine: &Engine) -> Tier {
        if self.resident(engine) {
            return Tier::Hot;
        }
        match self.file.as_ref().and_then(|f| crate::util::pagecache::resident_fraction(f)) {
            Some(f) if f >= 0.5 => Tier::Warm,
            _ => Tier::Cold,
        }
    }

    /// Drops its params from the engine; whether any were held.
    fn drop_params(&mut self, engine: &Engine) -> bool {
        let a = self.template.as_ref().is_some_and(|t| engine.evict_params(t));
        let b = self.by_file && self.file.as_ref().is_some_and(|f| engine.evict_params_file(f));
        if b {
            self.by_file = false;
        }
        a || b
    }
}

impl SrsBook {
    /// A job of `id` was queued: remember how its params are found.
    pub(super) fn note_job(&mut self, id: &str, sample: &Sample, _engine: &Engine, params_bytes: u64) {
        let e = self.entries.entry(id.to_string()).or_insert_with(Entry::new);
        e.template = Some(sample.clone());
        e.bytes = params_bytes;
        if let Some(f) = params_file(sample) {
            e.file = Some(f);
        }
    }

    /// A job's params came from `file` (the local cache's entry, when no production file is used).
    pub(super) fn note_file(&mut self, id: &str, file: PathBuf) {
        if let Some(e) = self.entries.get_mut(id) {
            e.file = Some(file);
        }
    }

    /// The sample of `id`'s last job (how a preload finds its params), and whether its params are resident.
    pub(super) fn template(&self, id: &str, engine: &Engine) -> (Option<Sample>, bool) {
        let e = self.entries.get(id);
        (e.and_then(|e| e.template.clone()), e.is_some_and(|e| e.resident(engine)))
    }

    /// A preload put `bytes` of `id`'s params in memory from `file`; `by_file`: read straight from it.
    pub(super) fn note_loaded(&mut self, id: &str, file: Option<PathBuf>, bytes: u64, by_file: bool) {
        let e = self.entries.entry(id.to_string()).or_insert_with(Entry::new);
        e.file = file;
        e.bytes = bytes;
        e.by_file |= by_file;
        e.last_used = Instant::now();
    }

    /// A job of `id` starts: it holds the SRS.
    pub(super) fn acquire(&mut self, id: &str) {
        let e = self.entries.entry(id.to_string()).or_insert_with(Entry::new);
        e.refs += 1;
        e.last_used = Instant::now();
    }

    /// A job of `id` ended.
    pub(super) fn release(&mut self, id: &str) {
        if let Some(e) = self.entries.get_mut(id) {
            e.refs = e.refs.saturating_sub(1);
            e.last_used = Instant::now();
        }
    }

    /// Whether `id`'s params are resident.
    pub(super) fn resident(&self, id: &str, engine: &Engine) -> bool {
        self.entries.get(id).is_some_and(|e| e.resident(engine))
    }

    /// Bytes of every resident SRS.
    pub(super) fn resident_bytes(&self, engine: &Engine) -> u64 {
        self.entries.values().filter(|e| e.resident(engine)).map(|e| e.bytes).sum()
    }

    /// Every SRS known, by circuit id.
    pub(super) fn status(&self, engine: &Engine) -> Vec<SrsStatus> {
        self.entries
            .iter()
            .map(|(id, e)| SrsStatus {
                circuit_id: id.clone(),
                tier: e.tier(engine),
                size_bytes: e.bytes,
                refs: e.refs,
                file: e.file.clone(),
            })
            .collect()
    }

    /// Drops `id`'s SRS unless a job holds it: (was loaded, bytes freed).
    pub(super) fn evict(&mut self, id: &str, engine: &Engine) -> Result<(bool, u64), SrsError> {
        parse_circuit_id(id).map_err(SrsError::Unknown)?;
        let Some(e) = self.entries.get_mut(id) else { return Ok((false, 0)) };
        if e.refs > 0 {
            return Err(SrsError::InUse(format!(
                "{id}: {} running job(s) hold this SRS; evict it after they finish",
                e.refs
            )));
        }
        let was = e.drop_params(engine);
        crate::engine::host::release_free_memory();
        Ok((was, if was { e.bytes } else { 0 }))
    }

    /// Drops resident SRS no job holds, least recently used first, except `keep`, until `need` bytes are
    /// freed; the bytes freed.
    pub(super) fn evict_idle(&mut self, keep: &str, need: u64, engine: &Engine) -> u64 {
        let mut idle: Vec<(Instant, String)> = self
            .entries
            .iter()
            .filter(|(id, e)| id.as_str() != keep && e.refs == 0 && e.resident(engine))
            .map(|(id, e)| (e.last_used, id.clone()))
            .collect();
        idle.sort();
        let mut freed = 0;
        for (_, id) in idle {
            if freed >= need {
                break;
            }
            if let Some(e) = self.entries.get_mut(&id) {
                if e.drop_params(engine) {
                    freed += e.bytes;
                }
            }
        }
        if freed > 0 {
            crate::engine::host::release_free_memory();
        }
        freed
    }
}
