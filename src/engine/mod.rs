//! The engine: turns a sample and toggles into proved, verified batches with a captured timeline; runs
//! ablations and comparisons; keeps the run store. The console and the CLI drive it through the same API; it
//! knows nothing of either.

pub mod ablate;
pub mod budget;
mod circuit_index;
pub mod compare;
pub mod error;
pub mod events;
pub mod floor;
pub mod footprint;
pub mod gate;
pub mod host;
mod job;
mod params;
mod pce;
mod run;
pub mod sample;
mod sampler;
pub mod service;
pub mod setup_eta;
pub mod stats;
pub mod store;

use std::sync::Arc;

pub use error::{EngineError, RunFailure};
pub use job::{bytes_per_circuit, run_job, JobOutput, JobParams, JobSpec};
pub use params::{params_file, params_key, ParamsInfo, ParamsOrigin, FIL_PARAMS_ENV};
pub use pce::pce_file;
pub use run::{RunCtl, RunResult, RunSpec};

use crate::circuits::Sample;
use crate::groth16::setup::Progress;
use crate::groth16::Parameters;
use crate::vocab::{CancelToken, Probe};

/// The default pipeline memory budget: half the machine's memory (4 GiB where unknown).
pub fn default_mem_budget() -> u64 {
    match host::memory_bytes() {
        0 => 4 << 30,
        m => m / 2,
    }
}

/// One engine: the params, shapes and PCE records it has loaded, reused by every run it makes. Several
/// engines may run at once in one process; each run carries its own capture and cancel token.
#[derive(Default)]
pub struct Engine {
    params: params::ParamsMemo,
    footprints: footprint::FootprintMemo,
    pce: pce::PceMemo,
}

impl Engine {
    /// An engine that has loaded nothing yet. Removes the temp files that killed processes left in the
    /// caches (params, compiled kernels): a `kill -9` mid-write leaves them for the next start to clear.
    pub fn new() -> Engine {
        if let Some(root) = crate::util::dirs::cache_root() {
            for dir in ["params", "kernels", "pce"] {
                crate::util::stale::sweep(&root.join(dir), None);
            }
        }
        let pce_dir = crate::util::dirs::cache_root().map(|r| r.join("pce"));
        Engine { pce: pce::PceMemo::new(pce_dir), ..Engine::default() }
    }

    /// The same engine storing its PCE records in `dir` instead of `<cache root>/pce` (`None`: in memory
    /// only, recorded again by every process).
    pub fn with_pce_dir(self, dir: Option<std::path::PathBuf>) -> Engine {
        Engine { pce: pce::PceMemo::new(dir), ..self }
    }

    /// Params for `sample` (from memory, the on-disk cache, or a seeded setup reporting to `progress` and
    /// stopping when `cancel` is cancelled); refused up front when setup would need more memory than there is.
    pub fn load_params(
        &self,
        sample: &Sample,
        progress: Progress,
        cancel: &CancelToken,
    ) -> Result<(Arc<Parameters>, ParamsInfo), EngineError> {
        self.load_params_on(sample, None, progress, cancel)
    }

    /// [`Engine::load_params`] with a generation's fixed-base multiplications on `backend` when it has a device
    /// (`cuzk setup --backend gpu`); the params are the same bytes either way.
    pub fn load_params_on(
        &self,
        sample: &Sample,
        backend: Option<&dyn crate::backend::api::Backend>,
        progress: Progress,
        cancel: &CancelToken,
    ) -> Result<(Arc<Parameters>, ParamsInfo), EngineError> {
        let fp = self.footprint_for_params(sample);
        if !self.params.holds(sample) {
            let est = budget::Estimate {
                what: format!("{}: setup", sample.name),
                parts: vec![
                    ("params".into(), fp.params_bytes()),
                    ("setup work".into(), fp.setup_extra_bytes().saturating_add(fp.count_bytes())),
                ],
                knob: budget::knob_advice(sample),
            };
            est.check(&budget::mem_limit())?;
        }
        self.params.load(sample, &fp, progress, &Probe::quiet(cancel.clone()), backend, None)
    }

    /// Whether `sample`'s params are in this engine's memory now.
    pub fn params_held(&self, sample: &Sample) -> bool {
        self.params.holds(sample)
    }

    /// Drops `sample`'s params from this engine's memory (a run using them keeps its copy until it ends);
    /// whether they were held.
    pub fn evict_params(&self, sample: &Sample) -> bool {
        self.params.evict(sample)
    }

    /// Whether the params file `file` is in this engine's memory.
    pub fn params_file_held(&self, file: &std::path::Path) -> bool {
        self.params.holds_file(file)
    }

    /// Drops the params file `file` from this engine's memory; whether it was held.
    pub fn evict_params_file(&self, file: &std::path::Path) -> bool {
        self.params.evict_file(file)
    }

    /// Reads a params file (production `v28-….params`) into memory before any circuit of it is known; a
    /// later run proving with that file uses it. Whether it was already held.
    pub fn preload_params_file(
        &self,
        file: &std::path::Path,
        cancel: &CancelToken,
    ) -> Result<bool, EngineError> {
        self.params.preload_file(file, &Probe::quiet(cancel.clone()))
    }

    /// Reads cuzk's own params of the Filecoin circuit `identifier` (setup seed `seed`) from the params
    /// cache into memory, found through the digest a run of that circuit left beside the cache, before any
    /// job of it ran here; a later run of that circuit and seed uses them. `Ok(None)`: no run recorded the
    /// circuit's digest, or no valid cache entry of that seed is there. Else the file, its size, and whether
    /// it was already held.
    pub fn preload_cached_params(
        &self,
        identifier: &str,
        seed: u64,
    ) -> Result<Option<(std::path::PathBuf, u64, bool)>, EngineError> {
        self.params.preload_cached(identifier, seed)
    }

    /// The circuit footprint of `sample` (worked out once per engine), for estimates before any work.
    pub fn footprint(&self, sample: &Sample) -> budget::Footprint {
        self.footprints.get(sample)
    }

    /// [`Engine::footprint`], its survey's structure digest handed to the params memo (which then loads the
    /// params without a survey of its own).
    fn footprint_for_params(&self, sample: &Sample) -> budget::Footprint {
        let (fp, digest) = self.footprints.get_with_digest(sample);
        if let Some(digest) = digest {
            self.params.know_shape(sample, fp.shape, digest);
        }
        fp
    }

    /// Runs `spec` under one timeline capture and returns its record (not saved). Refused before any work
    /// when it would need more memory than the machine has or than `mem_budget` allows.
    pub fn run(&self, spec: &RunSpec, ctl: &RunCtl) -> Result<RunResult, EngineError> {
        self.run_recorded(spec, ctl).map_err(|f| f.error)
    }

    /// [`Engine::run`], where a run that an error, a cancel or a panic stops once its capture began also
    /// hands back the record of what it captured (outcome failed or cancelled), for the caller to save.
    pub fn run_recorded(&self, spec: &RunSpec, ctl: &RunCtl) -> Result<RunResult, RunFailure> {
        let plan = self.plan(spec)?;
        let fp = self.footprint_for_params(spec.sample);
        crate::util::marks::mark("run_planned");
        let r = run::run(&self.params, &self.pce, spec, ctl, &plan, &fp);
        // Witness vectors kept for the run's next circuits are not held past it (`util::recycle`).
        crate::util::recycle::trim();
        r
    }

    /// How `spec` would run here: its memory estimate and pipeline depth, or why it cannot.
    pub fn plan(&self, spec: &RunSpec) -> Result<budget::Plan, EngineError> {
        crate::vocab::limits::REPEATS.check_usize(spec.repeats)?;
        crate::vocab::limits::BATCH.check_usize(spec.toggles.batch)?;
        crate::vocab::limits::SECTORS.check_usize(spec.sample.sectors)?;
        let shape = budget::RunShape {
            sample: spec.sample,
            fp: self.footprints.get(spec.sample),
            toggles: spec.toggles,
            lanes: spec.backend.lanes(),
            mem_budget: spec.mem_budget,
            params_held: self.params.holds(spec.sample),
        };
        Ok(budget::plan_run(&shape, &budget::mem_limit())?)
    }
}
