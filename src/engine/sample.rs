//! A sample as a run uses it: the file, then the command line's overrides (seed, sectors, toggles).

use std::path::Path;

use crate::circuits::{FilecoinError, Sample, SampleError};
use crate::vocab::limits::{LimitError, SECTORS};
use crate::vocab::{ToggleError, Toggles};

/// Why a sample with overrides could not be had.
#[derive(Debug, thiserror::Error)]
pub enum SampleLoadError {
    /// The sample file.
    #[error(transparent)]
    Sample(#[from] SampleError),
    /// A bad `--set`.
    #[error("--set: {0}")]
    Toggle(#[from] ToggleError),
    /// A C1 or PoSt request file.
    #[error(transparent)]
    Request(#[from] FilecoinError),
    /// A count override out of its range.
    #[error("--{0}")]
    Count(#[from] LimitError),
}

/// What may override a sample file.
#[derive(Clone, Debug, Default)]
pub struct Overrides<'a> {
    /// Seed for witness, params and randomizers.
    pub seed: Option<u64>,
    /// Sectors to prove.
    pub sectors: Option<usize>,
    /// A `--set` list over the sample's toggles.
    pub set: Option<&'a str>,
}

/// Loads `path` and applies the overrides; returns the sample and its toggles.
pub fn load(path: &Path, o: &Overrides) -> Result<(Sample, Toggles), SampleLoadError> {
    apply(Sample::load(path)?, o)
}

/// A sample proving a Filecoin request file (C1 output or PoSt request), with the overrides applied.
pub fn load_request(file: &Path, o: &Overrides) -> Result<(Sample, Toggles), SampleLoadError> {
    apply(Sample::from_request(file, DEFAULT_SEED)?, o)
}

/// The seed of request files' runs when none is given (their witness is in the file; the seed draws the
/// proof randomizers and any locally generated params).
pub const DEFAULT_SEED: u64 = 42;

fn apply(mut sample: Sample, o: &Overrides) -> Result<(Sample, Toggles), SampleLoadError> {
    if let Some(seed) = o.seed {
        sample.seed = seed;
    }
    if let Some(n) = o.sectors {
        sample.sectors = SECTORS.check_usize(n)?;
    }
    let mut toggles = sample.toggles;
    if let Some(spec) = o.set {
        toggles.apply_set(spec)?;
    }
    Ok((sample, toggles))
}
