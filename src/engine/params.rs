//! Params for a sample: from the in-process cache, else the on-disk cache, else a seeded setup.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use tracing::info_span;

use super::EngineError;
use crate::circuits::{CircuitSpec, Sample};
use crate::cs::{Shape, ShapeCounter};
use crate::groth16::cache::{CacheOutcome, ParamsCache};
use crate::groth16::setup::{self, Progress};
use crate::groth16::{phases, Parameters};

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

type Memo = HashMap<String, (Arc<Parameters>, PathBuf)>;
static MEMO: Mutex<Option<Memo>> = Mutex::new(None);
/// Shapes and digests per circuit spec and seed, so later runs of a sample skip the counting synthesis.
type Shapes = HashMap<(CircuitSpec, u64), (Shape, u64)>;
static SHAPES: Mutex<Option<Shapes>> = Mutex::new(None);

/// The cache key: the circuit's structure digest and the setup seed (params version 1 layout).
pub fn params_key(digest: u64, seed: u64) -> String {
    format!("v1-{digest:016x}-{seed:016x}")
}

/// Params for `sample` (setup seed = the sample's seed), with the `srs_load` span around disk work. Params
/// stay in memory for the rest of the process, so later runs skip `srs_load`.
pub fn load_params(
    sample: &Sample,
    progress: Progress,
) -> Result<(Arc<Parameters>, ParamsInfo), EngineError> {
    let id = (sample.circuit.clone(), sample.seed);
    let known =
        SHAPES.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert_with(HashMap::new).get(&id).copied();
    let circuit = || sample.sector_circuits(0).swap_remove(0);
    let (shape, digest) = match known {
        Some(sd) => sd,
        None => {
            let sd = ShapeCounter::count_with_digest(&circuit());
            SHAPES.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert_with(HashMap::new).insert(id, sd);
            sd
        }
    };
    let key = params_key(digest, sample.seed);
    if let Some((p, path)) =
        MEMO.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert_with(HashMap::new).get(&key)
    {
        return Ok((p.clone(), ParamsInfo { path: path.clone(), outcome: None, shape, digest }));
    }
    let cache = ParamsCache::default_location()?;
    let (params, path, outcome) = {
        let _span = info_span!(phases::SRS_LOAD).entered();
        cache.load_or_build(&key, || {
            Ok::<_, crate::groth16::Error>(setup::generate(&circuit(), shape, sample.seed, progress))
        })?
    };
    let params = Arc::new(params);
    MEMO.lock()
        .unwrap_or_else(|p| p.into_inner())
        .get_or_insert_with(HashMap::new)
        .insert(key, (params.clone(), path.clone()));
    Ok((params, ParamsInfo { path, outcome: Some(outcome), shape, digest }))
}
