//! `PreloadSRS`: a circuit's SRS loaded into memory before any job needs it, through the sample of its last
//! job, else its production params file, else cuzk's own params in the params cache (found through the
//! circuit index a run of that circuit left), one load of a circuit at a time.

use std::path::PathBuf;
use std::time::Instant;

use super::circuit_id::{parse_circuit_id, CircuitTarget};
use super::inner::{lock, Inner};
use super::srs::SrsError;
use super::types::EventBody;
use crate::circuits::filecoin::setup::cache_file_name;
use crate::engine::sample::DEFAULT_SEED;
use crate::engine::FIL_PARAMS_ENV;
use crate::vocab::CancelToken;

/// The production params file of a circuit in `FIL_PROOFS_PARAMETER_CACHE`, when there.
fn production_file(target: CircuitTarget) -> Option<PathBuf> {
    let CircuitTarget::Real(r) = target;
    let dir = std::env::var_os(FIL_PARAMS_ENV).filter(|d| !d.is_empty())?;
    let path = PathBuf::from(dir).join(cache_file_name(&r.identifier().ok()?, "params"));
    path.is_file().then_some(path)
}

/// `PreloadSRS`: loads `id`'s params (through the last job's sample, else the production file).
pub(super) fn preload(inner: &Inner, id: &str) -> Result<(bool, u64), SrsError> {
    let target = parse_circuit_id(id).map_err(SrsError::Unknown)?;
    let (template, resident) = lock(&inner.state).srs.template(id, &inner.engine);
    if resident {
        return Ok((true, 0));
    }
    let load_lock = inner.load_lock(id);
    let _loading = lock(&load_lock);
    let t0 = Instant::now();
    let cancel = CancelToken::new();
    let loaded: Result<(Option<PathBuf>, u64, bool), SrsError> = match (template, production_file(target)) {
        (Some(t), _) => {
            let fp = inner.engine.footprint(&t);
            let (_, info) = inner
                .engine
                .load_params(&t, &|_, _, _| {}, &cancel)
                .map_err(|e| SrsError::Load(format!("{id}: {e}")))?;
            Ok((Some(info.path), fp.params_bytes(), false))
        }
        (None, Some(file)) => {
            let bytes = std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0);
            inner
                .engine
                .preload_params_file(&file, &cancel)
                .map_err(|e| SrsError::Load(format!("{id}: {e}")))?;
            Ok((Some(file), bytes, true))
        }
        (None, None) => {
            let CircuitTarget::Real(r) = target;
            let identifier = r.identifier().map_err(|e| SrsError::NotSupported(format!("{id}: {e}")))?;
            let seed = inner.cfg.seed.unwrap_or(DEFAULT_SEED);
            match inner.engine.preload_cached_params(&identifier, seed) {
                Ok(Some((file, bytes, _))) => Ok((Some(file), bytes, true)),
                Ok(None) => {
                    let dir = std::env::var(FIL_PARAMS_ENV).unwrap_or_default();
                    Err(SrsError::NoParams(format!(
                        "{id}: no params file {} in {FIL_PARAMS_ENV} ({}), and none of cuzk's own of seed {seed} \
                         in the params cache (made by the first job or `cuzk setup` of this circuit)",
                        cache_file_name(&identifier, "params"),
                        if dir.is_empty() { "unset".to_string() } else { dir }
                    )))
                }
                Err(e) => Err(SrsError::Load(format!("{id}: {e}"))),
            }
        }
    };
    let (file, bytes, by_file) = loaded?;
    let ms = t0.elapsed().as_millis() as u64;
    let mut st = lock(&inner.state);
    st.srs.note_loaded(id, file, bytes, by_file);
    inner.emit(EventBody::Status(Box::new(inner.status_of(&st))));
    Ok((false, ms))
}
