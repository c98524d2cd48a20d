//! A sample as a run uses it: the file, then the command line's overrides (seed, sectors, toggles).

use std::path::Path;

use crate::circuits::{Sample, SampleError};
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
    let mut sample = Sample::load(path)?;
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
