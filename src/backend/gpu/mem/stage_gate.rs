//! The sections of an SRS set still on their way to a lane's device after the set was handed to the prover
//! (`Backend::stage_set`): the call's `begin_call` leaves them to the stager, and an operation on one waits
//! for it here, outside the bases' own locks, so the stager never waits on a running MSM to put the next
//! section in place. A one-shot's proof starts once synthesis and H are ready, not after all five sections
//! (docs/PERF.md, session al).

use std::collections::HashSet;
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use crate::backend::api::{BasesId, ParamsId, Query};
use crate::util::sync::lock;

/// One section of a set: a G1 query, or B_G2 (`None`).
pub type Section = (ParamsId, Option<Query>);

/// The five sections of params `id` in the order they are staged: H first (msm_h, the longest operation,
/// needs it), then B_G2 (its MSM is the longest after it), then the tails' L, A and B_G1, whose MSMs are
/// short. Staged in file order, B_G2 last ended a one-shot's proof ~25 ms after the tails (session al).
pub fn sections(id: ParamsId) -> [Section; 5] {
    [(id, Some(Query::H)), (id, None), (id, Some(Query::L)), (id, Some(Query::A)), (id, Some(Query::BG1))]
}

/// Longest an operation waits for one section before it goes on without it (uploading its own copy): a
/// stager stuck in the driver must not hang the proof. 2^27's H (12.9 GB) took ~1.1 s to stage.
const WAIT_MAX: Duration = Duration::from_secs(60);

/// The sections being staged on one lane.
#[derive(Default)]
pub struct StageGate {
    pending: Mutex<HashSet<Section>>,
    settled: Condvar,
}

impl StageGate {
    /// Marks `sections` as on their way; the returned [`Staging`] settles each as it is put in place, and
    /// every one left when it is dropped (a failed or panicked stager), so no operation waits for it.
    pub fn expect(&self, sections: impl IntoIterator<Item = Section>) -> Staging<'_> {
        let mine: Vec<Section> = sections.into_iter().collect();
        lock(&self.pending).extend(mine.iter().copied());
        Staging { gate: self, left: mine }
    }

    /// Whether `section` is on its way (the call's `begin_call` leaves it to the stager).
    pub fn pending(&self, section: Section) -> bool {
        lock(&self.pending).contains(&section)
    }

    /// Returns once `section` is no longer on its way (at once when it never was), or after a minute (a stager stuck in the driver).
    pub fn wait(&self, section: Section) {
        let mut p = lock(&self.pending);
        let deadline = std::time::Instant::now() + WAIT_MAX;
        while p.contains(&section) {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                tracing::warn!(
                    "a staged SRS section did not arrive in {WAIT_MAX:?}; the operation uploads its own"
                );
                return;
            }
            p = match self.settled.wait_timeout(p, left) {
                Ok((g, _)) => g,
                Err(e) => e.into_inner().0,
            };
        }
    }

    /// [`StageGate::wait`] for the SRS query `bases` names, if it names one.
    pub fn wait_bases(&self, bases: BasesId) {
        if let BasesId::Srs { params, query, .. } = bases {
            self.wait((params, Some(query)));
        }
    }

    fn settle(&self, section: Section) {
        lock(&self.pending).remove(&section);
        self.settled.notify_all();
    }
}

/// Sections a stager has promised; each settled with [`Staging::settle`] or when this is dropped.
pub struct Staging<'a> {
    gate: &'a StageGate,
    left: Vec<Section>,
}

impl Staging<'_> {
    /// The sections still to stage, in order.
    pub fn left(&self) -> &[Section] {
        &self.left
    }

    /// `section` is in place (or will not come): operations waiting for it go on.
    pub fn settle(&mut self, section: Section) {
        self.left.retain(|s| *s != section);
        self.gate.settle(section);
    }
}

impl Drop for Staging<'_> {
    fn drop(&mut self) {
        for s in std::mem::take(&mut self.left) {
            self.gate.settle(s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waiters_go_on_when_their_section_settles_or_the_stager_drops() {
        let gate = StageGate::default();
        let id = ParamsId::fresh();
        let [h, _, l, ..] = sections(id);
        let mut st = gate.expect(sections(id));
        assert!(gate.pending(h) && gate.pending(l) && !gate.pending(sections(ParamsId::fresh())[0]));
        let order = Mutex::new(Vec::new());
        std::thread::scope(|s| {
            s.spawn(|| {
                gate.wait(l);
                lock(&order).push("l waited");
            });
            s.spawn(|| {
                gate.wait(h);
                lock(&order).push("h waited");
            });
            std::thread::sleep(Duration::from_millis(50));
            assert!(lock(&order).is_empty(), "a waiter went on before its section settled");
            lock(&order).push("h settled");
            st.settle(h);
            std::thread::sleep(Duration::from_millis(50));
            assert_eq!(*lock(&order), ["h settled", "h waited"], "only H's waiter goes on");
            lock(&order).push("dropped");
            drop(st);
        });
        assert_eq!(*lock(&order), ["h settled", "h waited", "dropped", "l waited"]);
        assert!(sections(id).iter().all(|s| !gate.pending(*s)), "a dropped stager leaves nothing pending");
        gate.wait(h); // settled: returns at once
    }
}
