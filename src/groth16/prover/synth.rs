//! `synthesis`: the one place a call's circuits become proving assignments, by normal synthesis or, with the
//! `pce` toggle, from their shape's pre-compiled constraint evaluation record (`cs::pce`): the first circuit
//! of a shape records it (`pce_record`), every later one is witness-only synthesis plus the SpMV (`spmv`).
//! A call that finds its shape being recorded by another call synthesizes normally instead of waiting for the
//! record (70.6 s at porep-32g, docs/PERF.md). Either way the assignments are identical, so proofs are
//! byte-identical.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::ProveError;
use crate::cs::{
    Circuit, HostPool, Pce, PceError, ProvingAssignment, RecordOptions, Shape, SmallStore, VecStore,
};
use crate::util::lock;
use crate::vocab::{Phase, Probe, Site, Toggle, Toggles};

/// The PCE record of one circuit shape, recorded on first use and shared by every later circuit of that shape
/// (an engine keeps one per structure digest). It only ever holds a record of its own shape and digest, and
/// with a disk path it loads the record from there before recording, and stores it there after.
#[derive(Debug)]
pub struct PceSlot {
    shape: Shape,
    digest: u64,
    file: Option<PathBuf>,
    record: Mutex<Option<Arc<Pce>>>,
    /// Set while a call records the shape (not while it reads the record from disk).
    recording: AtomicBool,
    /// Passes a recording runs at once (`Pce::record_striped`); 1: one pass, which also gives circuit 0's
    /// assignment.
    passes: AtomicUsize,
    warnings: Arc<Mutex<Vec<String>>>,
    /// A fresh record being stored to `file`, on a thread of its own ([`PceSlot::wait_stored`]).
    storing: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl PceSlot {
    /// An empty slot for circuits of `shape` and structure digest `digest` (from
    /// `ShapeCounter::count_with_digest`), kept in memory only.
    pub fn new(shape: Shape, digest: u64) -> PceSlot {
        PceSlot {
            shape,
            digest,
            file: None,
            record: Mutex::new(None),
            recording: AtomicBool::new(false),
            passes: AtomicUsize::new(1),
            warnings: Arc::new(Mutex::new(Vec::new())),
            storing: Mutex::new(None),
        }
    }

    /// An empty slot that reads its record from `file` when it holds one of this shape, and writes it there
    /// (atomically) after recording.
    pub fn with_file(shape: Shape, digest: u64, file: PathBuf) -> PceSlot {
        let mut slot = PceSlot::new(shape, digest);
        slot.file = Some(file);
        slot
    }

    /// The shape this slot is for.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The structure digest this slot is for.
    pub fn digest(&self) -> u64 {
        self.digest
    }

    /// The record, once recorded or loaded.
    pub fn get(&self) -> Option<Arc<Pce>> {
        lock(&self.record).clone()
    }

    /// Whether a call is recording this shape now in one pass: a call that finds it so synthesizes normally
    /// rather than wait for the record (a striped recording is waited for: it ends sooner than a normal
    /// synthesis of the circuit would).
    pub fn is_recording(&self) -> bool {
        self.recording.load(Ordering::Acquire) && self.record_passes() == 1
    }

    /// Records in `passes` passes at once from now on (the engine's choice per circuit kind and size:
    /// `engine::footprint::record_passes`).
    pub fn set_record_passes(&self, passes: usize) {
        self.passes.store(passes.max(1), Ordering::Relaxed);
    }

    /// The passes a recording runs at once.
    pub fn record_passes(&self) -> usize {
        self.passes.load(Ordering::Relaxed)
    }

    /// Puts a record in the slot; refused (and the slot left as it was) when it is of another shape or
    /// digest, so a record of another circuit can never be used.
    pub fn put(&self, pce: Arc<Pce>) -> Result<(), PceError> {
        self.check(&pce)?;
        *lock(&self.record) = Some(pce);
        Ok(())
    }

    /// `WrongCircuit` unless `pce` is of this slot's shape and digest.
    fn check(&self, pce: &Pce) -> Result<(), PceError> {
        if pce.matches(self.shape, self.digest) {
            return Ok(());
        }
        Err(PceError::WrongCircuit {
            expected: self.shape,
            expected_digest: self.digest,
            found: pce.shape(),
            found_digest: pce.digest(),
        })
    }

    /// Whether the slot is empty and its disk file exists (the record will be read, not recorded, unless the
    /// file turns out unusable).
    fn on_disk(&self) -> bool {
        lock(&self.record).is_none() && self.file.as_ref().is_some_and(|f| f.is_file())
    }

    /// One-line warnings since the last call (a disk record that was unusable and rebuilt, or not stored).
    pub fn take_warnings(&self) -> Vec<String> {
        std::mem::take(&mut *lock(&self.warnings))
    }

    /// Waits until a fresh record is stored in its file (or its store has failed, with a warning): the
    /// engine calls it at the end of a run, so the record is on disk when the run returns.
    pub fn wait_stored(&self) {
        let handle = lock(&self.storing).take();
        if let Some(h) = handle {
            if h.join().is_err() {
                self.warn("PCE record: its store panicked; recorded again next process".into());
            }
        }
    }

    fn warn(&self, w: String) {
        lock(&self.warnings).push(w);
    }

    /// The record, from memory, else from the disk file (span `pce_record`, `source=disk`), else recorded
    /// from `circuit` (span `pce_record`, `source=record`, its `passes`), whose assignment then comes back too
    /// when recorded in one pass. Holds the
    /// slot's lock until the record is in it (not while it is stored), so a shape is recorded once even
    /// when two jobs need it at the same time.
    fn get_or_record<C: Circuit>(
        &self,
        circuit: &C,
        probe: &Probe,
        site: impl Fn(Phase) -> Site,
    ) -> Result<(Arc<Pce>, Option<ProvingAssignment>), PceError> {
        let mut held = lock(&self.record);
        if let Some(p) = held.as_ref() {
            return Ok((p.clone(), None));
        }
        if let Some(p) = self.load(probe, &site) {
            *held = Some(p.clone());
            return Ok((p, None));
        }
        let passes = self.record_passes();
        let (pce, asg) = {
            let _span = probe.open(site(Phase::PceRecord).arg("source", "record").arg("passes", passes));
            let _recording = Recording::start(&self.recording);
            if passes > 1 {
                let rows = self.shape.constraints;
                (Pce::record_striped(circuit, RecordOptions::default(), passes, rows)?, None)
            } else {
                let (pce, asg) = Pce::record_with(circuit, RecordOptions::default())?;
                (pce, Some(asg))
            }
        };
        // A circuit other than the one this slot was made for: never keep (or store) its record.
        self.check(&pce)?;
        let pce = Arc::new(pce);
        *held = Some(pce.clone());
        // Every circuit of the shape, this one included, goes on with the record while it is stored on a
        // thread of its own (6.5 GB at porep-32g, ~16 s on the device host's disk, streamed): the recording
        // circuit waited for the store, and a 32 GiB sector's GPU with it, 11.3 s (docs/PERF.md, session ak).
        drop(held);
        if let Some(file) = self.file.clone() {
            self.wait_stored();
            let (record, warnings) = (pce.clone(), self.warnings.clone());
            let store = move || store_record(&file, &record, &warnings);
            match std::thread::Builder::new().name("pce-store".into()).spawn(store) {
                Ok(h) => *lock(&self.storing) = Some(h),
                Err(e) => {
                    self.warn(format!("PCE record: not stored (no thread: {e}); recorded again next process"))
                }
            }
        }
        Ok((pce, asg))
    }

    /// The record from the disk file, if there is one of this shape; an unreadable, corrupt or foreign file
    /// is warned about in one line and removed (the caller records it again).
    fn load(&self, probe: &Probe, site: &impl Fn(Phase) -> Site) -> Option<Arc<Pce>> {
        let file = self.file.as_ref()?;
        let bytes = match read_huge(file) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
            Err(e) => {
                self.warn(format!("PCE record {}: unreadable ({e}); rebuilt", file.display()));
                return None;
            }
        };
        let _span = probe.open(site(Phase::PceRecord).arg("source", "disk"));
        match Pce::from_bytes_expecting(&bytes, self.shape, self.digest) {
            Ok(p) => Some(Arc::new(p)),
            Err(e) => {
                self.warn(format!("PCE record {}: {e}; rebuilt", file.display()));
                let _ = std::fs::remove_file(file);
                None
            }
        }
    }
}

/// Writes `pce` to `file` atomically (its folder made first); a failure becomes one warning line.
fn store_record(file: &std::path::Path, pce: &Pce, warnings: &Mutex<Vec<String>>) {
    let stored = file
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| crate::util::write_atomic_with(file, |w| pce.write_to(w)));
    match stored {
        Ok(()) => crate::util::marks::mark("pce_stored"),
        Err(e) => lock(warnings)
            .push(format!("PCE record {}: not stored ({e}); recorded again next process", file.display())),
    }
}

impl Drop for PceSlot {
    fn drop(&mut self) {
        self.wait_stored();
    }
}

/// [`PceSlot::is_recording`] set for as long as it lives, so an error or a panic in the recording clears it.
struct Recording<'a>(&'a AtomicBool);

impl<'a> Recording<'a> {
    fn start(flag: &'a AtomicBool) -> Recording<'a> {
        flag.store(true, Ordering::Release);
        Recording(flag)
    }
}

impl Drop for Recording<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

/// The whole file, read into a buffer in 2 MiB pages ([`crate::util::mem::advise_huge`]): a 32 GiB sector's
/// record is many GB, faulted in 4 KiB pages as `fs::read` fills it.
fn read_huge(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut f = std::fs::File::open(path)?;
    let len = f.metadata()?.len();
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0).saturating_add(1));
    crate::util::mem::advise_huge(&mut bytes);
    f.read_to_end(&mut bytes)?;
    Ok(bytes)
}

fn pce_error(circuit: usize, e: PceError) -> ProveError {
    match e {
        PceError::Synthesis(source) => ProveError::Synthesis { circuit, source },
        source => ProveError::Pce { circuit, source },
    }
}

/// `synthesis` without a PCE record: [`synthesize_with`] with no slot (the `pce` toggle has no effect).
pub fn synthesize<C: Circuit>(
    probe: &Probe,
    circuits: &[C],
    toggles: &Toggles,
    hint: Option<Shape>,
    first: usize,
) -> Result<Vec<ProvingAssignment>, ProveError> {
    synthesize_with(probe, circuits, toggles, hint, first, None, None)
}

/// `synthesis`: every circuit into a `ProvingAssignment`, in parallel, one span per circuit. `first` is the
/// job-wide index of circuit 0. With `pce` on and a slot: the slot's record (recorded from circuit 0 first
/// when the slot is empty, span `pce_record` inside its `synthesis`), then every other circuit by
/// `Pce::synthesize` (span `spmv` inside its `synthesis`); while another call records the shape, normal
/// synthesis pre-sized to the shape (its `synthesis` spans say `pce=recorded elsewhere`). Otherwise A1 picks
/// the term store and A2 passes the shape as a capacity hint. With `pool`, `pce`'s a/b/c are written into
/// blocks it lends (B2).
pub fn synthesize_with<C: Circuit>(
    probe: &Probe,
    circuits: &[C],
    toggles: &Toggles,
    hint: Option<Shape>,
    first: usize,
    pce: Option<&PceSlot>,
    pool: Option<&dyn HostPool>,
) -> Result<Vec<ProvingAssignment>, ProveError> {
    let site = |p: Phase, i: usize| Site::new(p).circuit(first + i).slot(i);
    let Some(slot) = pce.filter(|_| toggles.on(Toggle::Pce)) else {
        let hint = if toggles.on(Toggle::A2) { hint } else { None };
        return normal(probe, circuits, toggles, hint, first, None);
    };
    let Some(c0) = circuits.first() else { return Ok(Vec::new()) };
    // Witness-only synthesis + SpMV of circuit i, the SpMV in its own `spmv` span (inside `synthesis`).
    let spmv = |record: &Pce, i: usize, c: &C| {
        let mark = || probe.open(site(Phase::Spmv, i).arg("constraints", record.shape().constraints));
        record.synthesize_into(c, mark, pool).map_err(|e| pce_error(first + i, e))
    };
    // Asked before the slot's lock, which the recording call holds. Pre-sized as `pce`'s witness path is, so
    // the call holds what the memory plan gave it.
    if slot.is_recording() {
        return normal(probe, circuits, toggles, Some(slot.shape()), first, Some("recorded elsewhere"));
    }
    let (record, asg0) = match slot.get() {
        Some(record) => (record, None),
        None => {
            // Circuit 0 records the shape (or finds it on disk, or recorded by another job meanwhile).
            let _span = probe.open(site(Phase::Synthesis, 0));
            let mark = || probe.open(site(Phase::Spmv, 0).arg("constraints", slot.shape().constraints));
            let (record, asg) = if slot.on_disk() {
                // Circuit 0's witness needs only the shape, so it is made while the record is read (a fresh
                // process's first proof: 0.2 s each at 2 KiB, docs/PERF.md).
                let (got, pending) = crate::util::long::join(
                    || slot.get_or_record(c0, probe, |p| site(p, 0)),
                    || Pce::witness_of(c0, slot.shape(), pool),
                );
                let (record, asg) = got.map_err(|e| pce_error(first, e))?;
                let asg = match asg {
                    Some(asg) => asg, // the file was unusable: recorded, and this witness is not needed
                    None => record.finish(pending, mark).map_err(|e| pce_error(first, e))?,
                };
                (record, asg)
            } else {
                let (record, asg) =
                    slot.get_or_record(c0, probe, |p| site(p, 0)).map_err(|e| pce_error(first, e))?;
                let asg = match asg {
                    Some(asg) => asg,
                    None => spmv(&record, 0, c0)?,
                };
                (record, asg)
            };
            (record, Some(asg))
        }
    };
    let skip = usize::from(asg0.is_some());
    // Each circuit's synthesis on a thread of its own, not a rayon job (`util::long`).
    let rest = crate::util::long::map(&circuits[skip..], |j, c| {
        let i = j + skip;
        let _span = probe.open(site(Phase::Synthesis, i));
        spmv(&record, i, c)
    });
    let rest: Vec<ProvingAssignment> = rest.into_iter().collect::<Result<_, _>>()?;
    Ok(asg0.into_iter().chain(rest).collect())
}

/// Normal synthesis of every circuit in parallel (A1: term store; `hint`: capacity), each `synthesis` span
/// with `pce=<why>` when the toggle asked for a record this call does not use.
fn normal<C: Circuit>(
    probe: &Probe,
    circuits: &[C],
    toggles: &Toggles,
    hint: Option<Shape>,
    first: usize,
    pce: Option<&str>,
) -> Result<Vec<ProvingAssignment>, ProveError> {
    // Each circuit's synthesis on a thread of its own, not a rayon job (`util::long`).
    let each = crate::util::long::map(circuits, |i, c| {
        let site = Site::new(Phase::Synthesis).circuit(first + i).slot(i);
        let _span = probe.open(match pce {
            Some(why) => site.arg("pce", why),
            None => site,
        });
        let r = if toggles.on(Toggle::A1) {
            ProvingAssignment::synthesize::<SmallStore, _>(c, hint)
        } else {
            ProvingAssignment::synthesize::<VecStore, _>(c, hint)
        };
        r.map_err(|source| ProveError::Synthesis { circuit: first + i, source })
    });
    each.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::cs::test_circuit::Mixed;
    use crate::cs::{ConstraintSystem, SynthesisError};
    use crate::vocab::CancelToken;

    /// A circuit that counts the syntheses of it that ran on a rayon worker.
    struct Spy<'a> {
        inner: Mixed,
        on_worker: &'a AtomicUsize,
    }

    impl Circuit for Spy<'_> {
        fn synthesize<CS: ConstraintSystem>(&self, cs: &mut CS) -> Result<(), SynthesisError> {
            if rayon::current_thread_index().is_some() {
                self.on_worker.fetch_add(1, Ordering::Relaxed);
            }
            self.inner.synthesize(cs)
        }
    }

    /// Called outside a rayon pool (as the engine's synthesis workers call it), no circuit's synthesis runs
    /// as a rayon job, with `pce` (the recording, the record from disk, witness-only synthesis) or without:
    /// a prover's wait inside the pool can never pick one up (`util::long`).
    #[test]
    fn syntheses_never_run_on_rayon_workers() {
        let on_worker = AtomicUsize::new(0);
        let circuits: Vec<Spy> = (0..3).map(|_| Spy { inner: Mixed(300), on_worker: &on_worker }).collect();
        let probe = Probe::quiet(CancelToken::new());
        let (shape, digest) = crate::cs::ShapeCounter::count_with_digest(&circuits[0]).expect("shape");
        let dir = std::env::temp_dir().join(format!("cuzk-synth-spy-{}", std::process::id()));
        let file = dir.join("pce.bin");
        for set in ["pce=off", "pce=on", "pce=on"] {
            let mut t = Toggles::default();
            t.apply_set(set).expect("toggles");
            // A fresh slot each time: the first `pce=on` records and stores, the second reads the file.
            let slot = PceSlot::with_file(shape, digest, file.clone());
            let got = synthesize_with(&probe, &circuits, &t, Some(shape), 0, Some(&slot), None).expect(set);
            assert_eq!(got.len(), 3);
        }
        assert!(file.is_file(), "the recording was not stored");
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(on_worker.load(Ordering::Relaxed), 0, "a synthesis ran as a rayon job");
    }
}
