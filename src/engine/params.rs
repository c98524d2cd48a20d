//! Params for a sample: from the engine's memo, else the on-disk cache, else a seeded setup. The memo belongs
//! to an [`Engine`](super::Engine) value, so two engines in one process keep their own.

use std::cell::Cell;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use super::EngineError;
use crate::circuits::{CircuitSpec, Sample};
use crate::cs::{Shape, ShapeCounter};
use crate::groth16::cache::{CacheOutcome, ParamsCache};
use crate::groth16::setup::{self, Progress};
use crate::groth16::Parameters;
use crate::vocab::{Phase, Probe, Site};

/// Where a sample's params came from.
#[derive(Clone, Debug)]
pub struct ParamsInfo {
    /// The params file.
    pub path: PathBuf,
    /// Loaded, built, rebuilt (with a warning) — or `None` when already in memory.
    pub outcome: Option<CacheOutcome>,
    /// The circuit shape (also the A2 capacity hint).
    pub shape: Shape,
    /// Digest of the constraint matrices.
    pub digest: u64,
}

/// Params and shapes an engine has seen: params by cache key, shapes and digests by circuit spec and seed
/// (so later runs of a sample skip the counting synthesis).
#[derive(Default)]
pub(super) struct ParamsMemo {
    params: Mutex<HashMap<String, (Arc<Parameters>, PathBuf)>>,
    shapes: Mutex<HashMap<(CircuitSpec, u64), (Shape, u64)>>,
}

/// The cache key: the circuit's structure digest and the setup seed (params version 1 layout).
pub fn params_key(digest: u64, seed: u64) -> String {
    format!("v1-{digest:016x}-{seed:016x}")
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl ParamsMemo {
    /// Params for `sample` (setup seed = the sample's seed), with the `srs_load` span around reading
    /// the cache and `params_gen` around a generation.
    pub(super) fn load(
        &self,
        sample: &Sample,
        progress: Progress,
        probe: &Probe,
    ) -> Result<(Arc<Parameters>, ParamsInfo), EngineError> {
        let id = (sample.circuit.clone(), sample.seed);
        let circuit = || sample.sector_circuits(0).swap_remove(0);
        let known = lock(&self.shapes).get(&id).copied();
        let (shape, digest) = match known {
            Some(sd) => sd,
            None => {
                let sd = ShapeCounter::count_with_digest(&circuit());
                lock(&self.shapes).insert(id, sd);
                sd
            }
        };
        let key = params_key(digest, sample.seed);
        if let Some((p, path)) = lock(&self.params).get(&key) {
            return Ok((p.clone(), ParamsInfo { path: path.clone(), outcome: None, shape, digest }));
        }
        let cache = ParamsCache::default_location()?;
        // `srs_load` covers looking at the cache and reading it; when the entry must be built it ends there and
        // `params_gen` covers generating and storing, so loading never counts a generation's time.
        let load = Cell::new(Some(probe.open(Site::new(Phase::SrsLoad))));
        let gen = Cell::new(None);
        let built = cache.load_or_build(&key, || {
            drop(load.take());
            gen.set(Some(probe.open(Site::new(Phase::ParamsGen).arg("constraints", shape.rows()))));
            Ok::<_, crate::groth16::Error>(setup::generate(&circuit(), shape, sample.seed, progress))
        });
        drop((load.take(), gen.take()));
        let (params, path, outcome) = built?;
        let params = Arc::new(params);
        lock(&self.params).insert(key, (params.clone(), path.clone()));
        Ok((params, ParamsInfo { path, outcome: Some(outcome), shape, digest }))
    }
}
