//! The engine's PCE records (toggle `pce`): one [`PceSlot`] per circuit shape, keyed by the shape and the
//! structure digest the params memo computes (`ShapeCounter::count_with_digest`), never by an address; each
//! slot stores its record beside the params cache, under `<cache root>/pce/`, file named by the digest.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::cs::pce::FORMAT_VERSION;
use crate::cs::Shape;
use crate::groth16::prover::PceSlot;

/// The slots an engine holds, and the folder their records are stored in (`None`: memory only).
#[derive(Default)]
pub(super) struct PceMemo {
    dir: Option<PathBuf>,
    slots: Mutex<HashMap<(Shape, u64), Arc<PceSlot>>>,
}

/// The file of the record of a circuit with structure digest `digest` in `dir` (format version in the name,
/// so a build that reads another format never opens it).
pub fn pce_file(dir: &Path, digest: u64) -> PathBuf {
    file_of_version(dir, FORMAT_VERSION, digest)
}

/// The file a build writing format `version` gives the record of `digest` in `dir`.
fn file_of_version(dir: &Path, version: u32, digest: u64) -> PathBuf {
    dir.join(format!("pce-v{version}-{digest:016x}.bin"))
}

impl PceMemo {
    /// A memo storing its records in `dir` (`None`: memory only).
    pub(super) fn new(dir: Option<PathBuf>) -> PceMemo {
        PceMemo { dir, slots: Mutex::default() }
    }

    /// The slot of circuits of `shape` and `digest` (made empty on first ask). Records of this digest in
    /// older formats are removed then: this build never reads them (6.5 GB at porep-32g).
    pub(super) fn slot(&self, shape: Shape, digest: u64) -> Arc<PceSlot> {
        let mut slots = crate::util::lock(&self.slots);
        slots
            .entry((shape, digest))
            .or_insert_with(|| {
                Arc::new(match &self.dir {
                    Some(d) => {
                        for v in 1..FORMAT_VERSION {
                            let _ = std::fs::remove_file(file_of_version(d, v, digest));
                        }
                        PceSlot::with_file(shape, digest, pce_file(d, digest))
                    }
                    None => PceSlot::new(shape, digest),
                })
            })
            .clone()
    }
}
