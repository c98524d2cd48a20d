//! Params for a sample: from the engine's memo, else the on-disk cache, else a seeded setup. The memo belongs
//! to an [`Engine`](super::Engine) value, so two engines in one process keep their own.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use super::budget::Footprint;
use super::EngineError;
use crate::circuits::{CircuitSpec, Sample};
use crate::cs::{Shape, ShapeCounter};
use crate::groth16::cache::{CacheOutcome, Expect, ParamsCache};
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
    /// Whether the params of `sample` are already in this memo (so a run needs no setup memory).
    pub(super) fn holds(&self, sample: &Sample) -> bool {
        let known = lock(&self.shapes).get(&(sample.circuit.clone(), sample.seed)).copied();
        known.is_some_and(|(_, digest)| lock(&self.params).contains_key(&params_key(digest, sample.seed)))
    }

    /// Params for `sample` (setup seed = the sample's seed), with the `srs_load` span around disk work. A
    /// cache entry is used only if its counts fit `fp` (the circuit's footprint) and its vk is the seed's;
    /// otherwise it is rebuilt with a warning naming the file. Setup and the wait for another process's build
    /// stop on the probe's cancel.
    pub(super) fn load(
        &self,
        sample: &Sample,
        fp: &Footprint,
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
        let seed = sample.seed;
        let b = fp.b_input + fp.b_aux;
        let check = |p: &Parameters| -> Option<String> {
            let counts = [
                ("IC points (public inputs)", p.vk.ic.len(), shape.inputs),
                ("H points (domain − 1)", p.h.len(), shape.domain() - 1),
                ("L points (aux variables)", p.l.len(), shape.aux),
                ("A points", p.a.len(), shape.inputs + fp.a_aux),
                ("B_G1 points", p.b_g1.len(), b),
                ("B_G2 points", p.b_g2.len(), b),
            ];
            if let Some((what, got, want)) = counts.iter().find(|(_, got, want)| got != want) {
                return Some(format!(
                    "{what}: {got}, but {} needs {want} (params of another circuit)",
                    sample.name
                ));
            }
            (!setup::vk_matches_seed(&p.vk, seed))
                .then(|| format!("its vk was not made with seed {seed} (params of another seed)"))
        };
        let cancel = probe.cancel_token().clone();
        let expect = Expect { check: &check, cancel: &cancel, progress };
        let (params, path, outcome) = {
            let _span = probe.open(Site::new(Phase::SrsLoad));
            cache.load_or_build_checked(&key, &expect, || {
                setup::generate_with(&circuit(), shape, seed, progress, &cancel)
                    .map_err(|_| crate::groth16::Error::Cancelled)
            })?
        };
        let params = Arc::new(params);
        lock(&self.params).insert(key, (params.clone(), path.clone()));
        Ok((params, ParamsInfo { path, outcome: Some(outcome), shape, digest }))
    }
}
