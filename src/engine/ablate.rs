//! `ablate`: the baseline, then each ablation toggle flipped alone, each repeated and compared with the
//! baseline. The loop lives here so the CLI and the console run the same one.

use std::path::PathBuf;

use super::compare::{compare, AblationEntry};
use super::store::{RunStore, StoreError};
use super::{Engine, EngineError, RunCtl, RunResult, RunSpec};
use crate::timeline::record::RunRecord;
use crate::vocab::{Toggle, Toggles};

/// One configuration of an ablation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AblateStep {
    /// 1-based position.
    pub index: usize,
    /// Configurations in all (baseline included).
    pub steps: usize,
    /// The toggle flipped (`None` for the baseline).
    pub flipped: Option<Toggle>,
    /// The configuration's toggles.
    pub toggles: Toggles,
}

impl AblateStep {
    /// `ablate 2/7: a1 on`, `ablate 1/7: baseline`.
    pub fn label(&self) -> String {
        let what = match self.flipped {
            None => "baseline".to_string(),
            Some(t) => format!("{t} {}", if self.toggles.on(t) { "on" } else { "off" }),
        };
        format!("ablate {}/{}: {what}", self.index, self.steps)
    }
}

/// What an ablation reports while it runs.
pub enum AblateEvent<'a> {
    /// A configuration starts.
    Started(AblateStep),
    /// A configuration finished; its record and where it was saved (when a store was given).
    Finished(AblateStep, &'a RunResult, Option<&'a Result<PathBuf, StoreError>>),
}

/// The finished matrix.
#[derive(Clone, Debug)]
pub struct Ablation {
    /// The baseline's record.
    pub baseline: RunRecord,
    /// One column per flipped toggle.
    pub entries: Vec<AblationEntry>,
}

impl Engine {
    /// Runs the ablation of `spec` (its toggles are the baseline), saving each run to `store` when given and
    /// telling `observe` as configurations start and finish. The first failing run ends it with its error.
    pub fn ablate(
        &self,
        spec: &RunSpec,
        ctl: &RunCtl,
        store: Option<&RunStore>,
        observe: &mut dyn FnMut(AblateEvent<'_>),
    ) -> Result<Ablation, EngineError> {
        let flips: Vec<Toggle> = Toggle::ablated().collect();
        let steps = flips.len() + 1;
        let configs = std::iter::once(None).chain(flips.into_iter().map(Some));
        let mut baseline: Option<RunRecord> = None;
        let mut entries = Vec::new();
        for (i, flipped) in configs.enumerate() {
            let toggles = flipped.map_or(spec.toggles, |t| spec.toggles.flipped(t));
            let step = AblateStep { index: i + 1, steps, flipped, toggles };
            observe(AblateEvent::Started(step));
            let r = self.run(&RunSpec { toggles, ..*spec }, ctl)?;
            let saved = store.map(|s| s.save(&r.record));
            observe(AblateEvent::Finished(step, &r, saved.as_ref()));
            match (&baseline, flipped) {
                (Some(base), Some(t)) => entries.push(AblationEntry {
                    toggle: t.id().to_string(),
                    record_id: r.record.id.clone(),
                    rows: compare(base, &r.record),
                }),
                _ => baseline = Some(r.record),
            }
        }
        let baseline = baseline.ok_or(EngineError::Prove(crate::groth16::prover::ProveError::Empty))?;
        Ok(Ablation { baseline, entries })
    }
}
