//! `ablate`: the baseline and each ablation toggle flipped alone, measured in interleaved rounds so that drift
//! (load, heat, caches) hits every configuration alike, and compared with the baseline. The loop lives here so
//! the CLI and the console run the same one.
//!
//! Each round runs every configuration once, in an order shuffled per round (randomized blocks); a
//! configuration's single-repeat runs are merged into one record with a repeat per round. A toggle that does not
//! apply to the backend (B1 on the CPU) is not flipped: it would only measure noise.

use std::path::PathBuf;

use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};

use super::compare::{compare, AblationEntry};
use super::store::{RunStore, StoreError};
use super::{Engine, EngineError, RunCtl, RunResult, RunSpec};
use crate::timeline::record::RunRecord;
use crate::vocab::{Toggle, Toggles};

/// One measurement of an ablation: a configuration in a round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AblateStep {
    /// 1-based position of the configuration (1 = baseline).
    pub index: usize,
    /// Configurations in all (baseline included).
    pub steps: usize,
    /// 1-based round.
    pub round: usize,
    /// Rounds in all (the repeats per configuration).
    pub rounds: usize,
    /// The toggle flipped (`None` for the baseline).
    pub flipped: Option<Toggle>,
    /// The configuration's toggles.
    pub toggles: Toggles,
}

impl AblateStep {
    /// `ablate 2/6: a1 on`, `ablate 1/6: baseline`, with `round 2/3 · ` when there are several rounds.
    pub fn label(&self) -> String {
        let what = match self.flipped {
            None => "baseline".to_string(),
            Some(t) => format!("{t} {}", if self.toggles.on(t) { "on" } else { "off" }),
        };
        let round =
            if self.rounds > 1 { format!("round {}/{} · ", self.round, self.rounds) } else { String::new() };
        format!("ablate {round}{}/{}: {what}", self.index, self.steps)
    }
}

/// What an ablation reports while it runs.
pub enum AblateEvent<'a> {
    /// A measurement starts.
    Started(AblateStep),
    /// A measurement finished (one repeat of one configuration; not saved on its own).
    Measured(AblateStep, &'a RunResult),
    /// The matrix so far (after each measurement once the baseline has one): for a live view.
    Progress(&'a Ablation),
    /// A configuration's merged record (a repeat per round) and where it was saved (when a store was given).
    Finished(AblateStep, &'a RunRecord, Option<&'a Result<PathBuf, StoreError>>),
}

/// The matrix: the baseline and a column per flipped toggle measured so far.
#[derive(Clone, Debug)]
pub struct Ablation {
    /// The baseline's record.
    pub baseline: RunRecord,
    /// One column per flipped toggle.
    pub entries: Vec<AblationEntry>,
    /// Measurements done and planned.
    pub done: (usize, usize),
}

/// The order of an ablation's measurements: `rounds` rounds, each running every one of `configs`
/// configurations once, in an order shuffled per round from `seed`. Returns (round, configuration) pairs.
pub fn schedule(configs: usize, rounds: usize, seed: u64) -> Vec<(usize, usize)> {
    let mut out = Vec::with_capacity(configs * rounds);
    for round in 0..rounds {
        let mut rng = ChaCha20Rng::seed_from_u64(seed ^ (round as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let mut order: Vec<usize> = (0..configs).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
        }
        out.extend(order.into_iter().map(|c| (round, c)));
    }
    out
}

/// The matrix of the configurations measured so far (`None` until the baseline has a measurement).
fn matrix(
    records: &[Option<RunRecord>],
    configs: &[Option<Toggle>],
    done: (usize, usize),
) -> Option<Ablation> {
    let baseline = records.first()?.clone()?;
    let entries = configs
        .iter()
        .zip(records)
        .skip(1)
        .filter_map(|(t, r)| {
            let (t, r) = (t.as_ref()?, r.as_ref()?);
            Some(AblationEntry {
                toggle: t.id().to_string(),
                record_id: r.id.clone(),
                rows: compare(&baseline, r),
            })
        })
        .collect();
    Some(Ablation { baseline, entries, done })
}

impl Engine {
    /// Runs the ablation of `spec` (its toggles are the baseline; `spec.repeats` rounds), saving each
    /// configuration's merged record to `store` when given and telling `observe` as measurements start and
    /// finish. The first failing run ends it with its error.
    pub fn ablate(
        &self,
        spec: &RunSpec,
        ctl: &RunCtl,
        store: Option<&RunStore>,
        observe: &mut dyn FnMut(AblateEvent<'_>),
    ) -> Result<Ablation, EngineError> {
        let configs: Vec<Option<Toggle>> =
            std::iter::once(None).chain(Toggle::ablated_on(spec.backend.has_device()).map(Some)).collect();
        let rounds = spec.repeats.max(1);
        let plan = schedule(configs.len(), rounds, spec.sample.seed);
        let mut records: Vec<Option<RunRecord>> = vec![None; configs.len()];
        let step = |c: usize, round: usize| {
            let flipped = configs[c];
            let toggles = flipped.map_or(spec.toggles, |t| spec.toggles.flipped(t));
            AblateStep { index: c + 1, steps: configs.len(), round: round + 1, rounds, flipped, toggles }
        };
        for (k, &(round, c)) in plan.iter().enumerate() {
            let s = step(c, round);
            observe(AblateEvent::Started(s));
            let r = self.run(&RunSpec { toggles: s.toggles, repeats: 1, ..*spec }, ctl)?;
            observe(AblateEvent::Measured(s, &r));
            match &mut records[c] {
                Some(m) => m.append(r.record),
                slot => *slot = Some(r.record),
            }
            if let Some(a) = matrix(&records, &configs, (k + 1, plan.len())) {
                observe(AblateEvent::Progress(&a));
            }
        }
        for (c, rec) in records.iter().enumerate() {
            if let Some(rec) = rec {
                let saved = store.map(|s| s.save(rec));
                observe(AblateEvent::Finished(step(c, rounds - 1), rec, saved.as_ref()));
            }
        }
        matrix(&records, &configs, (plan.len(), plan.len()))
            .ok_or(EngineError::Prove(crate::groth16::prover::ProveError::Empty))
    }
}

#[cfg(test)]
mod tests {
    use super::schedule;

    /// Every round measures every configuration once before the next round starts, and the order changes
    /// between rounds, so neither a slow start nor a trend lands on one configuration.
    #[test]
    fn rounds_interleave_every_configuration() {
        let plan = schedule(6, 3, 7);
        assert_eq!(plan.len(), 18);
        for round in 0..3 {
            let mut seen: Vec<usize> = plan[round * 6..round * 6 + 6]
                .iter()
                .map(|&(r, c)| {
                    assert_eq!(r, round);
                    c
                })
                .collect();
            seen.sort_unstable();
            assert_eq!(seen, (0..6).collect::<Vec<_>>());
        }
        let orders: Vec<Vec<usize>> = plan.chunks(6).map(|r| r.iter().map(|x| x.1).collect()).collect();
        assert!(orders[0] != orders[1] || orders[1] != orders[2], "the order is shuffled per round");
        assert_eq!(schedule(6, 3, 7), plan, "deterministic for a seed");
    }
}
