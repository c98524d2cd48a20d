//! What the run-making commands (`prove`, `ablate`) share: the job options, the engine options, and the
//! CLI's session (one engine, the run store, the Ctrl-C token, a progress line for setup).

use std::path::{Path, PathBuf};

use super::error::CliError;
use super::progress::LineProgress;
use crate::backend::api::Backend;
use crate::backend::select::{select_deferred, SelectError, Selected};
use crate::circuits::Sample;
use crate::engine::sample::{self, Overrides};
use crate::engine::store::RunStore;
use crate::engine::{default_mem_budget, Engine, EngineError, RunCtl, RunResult, RunSpec};
use crate::vocab::{limits, BackendKind, CancelToken, Toggles};

/// The default sample the console and bare `cuzk` open.
pub const DEFAULT_SAMPLE: &str = "samples/porep-mini.toml";

/// What to prove: the options `prove` and `ablate` share.
#[derive(clap::Args, Debug, Clone)]
pub struct JobArgs {
    /// The sample file.
    #[arg(long, default_value = DEFAULT_SAMPLE)]
    pub sample: PathBuf,
    /// Prove a sector's C1 output (PoRep C2): the Lotus/Curio `{"SectorNum","Phase1Out","SectorSize"}`
    /// wrapper or the bare SealCommitPhase1Output JSON.
    #[arg(long, conflicts_with_all = ["sample", "post", "snap"])]
    pub c1: Option<PathBuf>,
    /// Prove a WinningPoSt or WindowPoSt request (registered proof, randomness, prover id, vanilla proofs).
    #[arg(long, conflicts_with_all = ["sample", "snap"])]
    pub post: Option<PathBuf>,
    /// Prove a SnapDeals update request (registered update proof, comm_r_old, comm_r_new, comm_d_new,
    /// vanilla partition proofs).
    #[arg(long, conflicts_with = "sample")]
    pub snap: Option<PathBuf>,
    /// A params file (bellperson layout, e.g. Filecoin's production `v28-…params`); default: the one in
    /// FIL_PROOFS_PARAMETER_CACHE for a real circuit, else params generated and cached by cuzk.
    #[arg(long)]
    pub params: Option<PathBuf>,
    /// Backend: auto, cpu or gpu.
    #[arg(long, default_value_t = BackendKind::Auto)]
    pub backend: BackendKind,
    /// Seed for witness, params and randomizers (default: the sample's).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Toggles, e.g. `a1=on,d4=off,batch=2` (for ablate: the baseline).
    #[arg(long)]
    pub set: Option<String>,
    /// Sectors to prove, 1..=1024 (default: the sample's).
    #[arg(long, value_parser = sectors_arg)]
    pub sectors: Option<usize>,
}

impl JobArgs {
    /// The sample (or request file) with the overrides applied, its toggles, and the backend.
    pub fn resolve(&self) -> Result<(Sample, Toggles, Selected), CliError> {
        let o = Overrides { seed: self.seed, sectors: self.sectors, set: self.set.as_deref() };
        // The device is discovered while the request is read and checked; its contexts and kernels start
        // while the run begins (`select_deferred`).
        let (loaded, selected) = std::thread::scope(|s| {
            let dev = s.spawn(|| {
                let r = select_deferred(self.backend);
                crate::util::marks::mark("backend_selected");
                r
            });
            let loaded = match self.c1.as_ref().or(self.post.as_ref()).or(self.snap.as_ref()) {
                Some(file) => sample::load_request(file, &o),
                None => sample::load(&self.sample, &o),
            };
            crate::util::marks::mark("request_loaded");
            let selected = dev.join().unwrap_or_else(|_| Err(SelectError("backend start panicked".into())));
            (loaded, selected)
        });
        let (mut sample, toggles) = loaded?;
        if let Some(p) = &self.params {
            sample.params_file = Some(p.clone());
        }
        Ok((sample, toggles, selected?))
    }
}

/// Options every run-making command shares.
#[derive(clap::Args, Debug, Clone)]
pub struct EngineOpts {
    /// Data dir for runs and exports (default: $CUZK_HOME, else the user data dir).
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// Pipeline memory budget, e.g. 8G or 512M (default: half the machine's memory).
    #[arg(long, value_parser = parse_bytes)]
    pub mem_budget: Option<u64>,
    /// Print one `CUZK_TIMING:` line per finished phase on stderr (also CUZK_TIMING=1).
    #[arg(long)]
    pub timing_log: bool,
}

/// `--sectors`: 1..=1024, as the sample file's `sectors`.
pub fn sectors_arg(s: &str) -> Result<usize, String> {
    limits::SECTORS.parse(s).map_err(|e| e.reason())
}

/// `--repeat`: 1..=1000 everywhere (prove, ablate, bench, the console's prompt).
pub fn repeat_arg(s: &str) -> Result<usize, String> {
    limits::REPEATS.parse(s).map_err(|e| e.reason())
}

/// Parses `123`, `512K`, `64M`, `8G` into bytes; a product past 2^64 − 1 is an error, never wrapped.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    crate::engine::budget::parse_bytes(s)
}

/// The CLI's side of its runs: one engine for the process, the run store, and the cancel token Ctrl-C sets.
pub struct Session {
    /// The engine (its params memo serves every run of the command).
    pub engine: Engine,
    /// Where records go.
    pub store: RunStore,
    /// Set by the first Ctrl-C.
    pub cancel: CancelToken,
    mem_budget: u64,
    timing_log: bool,
}

impl Session {
    /// Opens the store and installs the Ctrl-C handler.
    pub fn open(opts: &EngineOpts) -> Result<Session, CliError> {
        let store = RunStore::open(opts.data_dir.as_deref()).map_err(EngineError::from)?;
        // A data dir where no record can be written fails now, not after the run.
        store.check_writable().map_err(EngineError::from)?;
        let cancel = CancelToken::new();
        super::interrupt::install(cancel.clone());
        Ok(Session {
            engine: Engine::new(),
            store,
            cancel,
            mem_budget: opts.mem_budget.unwrap_or_else(default_mem_budget),
            timing_log: opts.timing_log || crate::util::marks::enabled(),
        })
    }

    /// The run spec of `sample` × `toggles` on `backend`.
    pub fn spec<'a>(
        &self,
        sample: &'a Sample,
        toggles: Toggles,
        backend: &'a dyn Backend,
        repeats: usize,
    ) -> RunSpec<'a> {
        RunSpec { sample, toggles, backend, repeats: repeats.max(1), mem_budget: self.mem_budget }
    }

    /// Runs `f` with a run control whose setup progress draws one line on stderr.
    pub fn with_ctl<T>(&self, label: &str, f: impl FnOnce(&RunCtl) -> T) -> T {
        let progress = LineProgress::new(format!("generating params for {label}:"));
        let report = |stage: &str, done: usize, total: usize| progress.update(stage, done, total);
        let ctl = RunCtl {
            cancel: self.cancel.clone(),
            progress: &report,
            feed: None,
            timing_log: self.timing_log,
            device: None,
        };
        let r = f(&ctl);
        progress.finish();
        r
    }

    /// One run, saved; prints the params cache's warning if any. A run stopped by an error, a cancel or a
    /// panic after its capture began is saved too (outcome failed or cancelled), so `cuzk runs` and `export`
    /// show how far it got; the error is still returned.
    pub fn run_and_save(&self, spec: &RunSpec) -> Result<(RunResult, PathBuf), CliError> {
        crate::util::marks::mark("run_begins");
        let result = match self.with_ctl(&spec.sample.name, |ctl| self.engine.run_recorded(spec, ctl)) {
            Ok(r) => r,
            Err(failure) => {
                if let Some(record) = failure.record {
                    match self.store.save(&record) {
                        Ok(path) => {
                            eprintln!("note: the stopped run {} is saved to {}", record.id, path.display())
                        }
                        Err(e) => eprintln!("warning: the stopped run's record was not saved: {e}"),
                    }
                }
                return Err(failure.error.into());
            }
        };
        warn_params(&result);
        for n in &result.notes {
            eprintln!("note: {n}");
        }
        crate::util::marks::mark("run_ended");
        let path = self.store.save(&result.record).map_err(EngineError::from)?;
        crate::util::marks::mark("record_saved");
        Ok((result, path))
    }
}

/// Prints the params cache's warning (an entry rebuilt) and the run's other warnings (a PCE record rebuilt),
/// one line each.
pub fn warn_params(r: &RunResult) {
    if let Some(w) = r.params_info.outcome.as_ref().and_then(|o| o.warning()) {
        eprintln!("warning: {w}");
    }
    for w in &r.warnings {
        eprintln!("warning: {w}");
    }
}

/// Writes `dir` if missing, with a one-line error naming it.
pub fn create_dir(dir: &Path) -> Result<(), CliError> {
    std::fs::create_dir_all(dir)
        .map_err(|e| CliError::Msg(format!("{}: cannot create folder: {e}", dir.display())))
}
