//! A circuit's footprint (shape, query densities, structure digest) before it is proved: counted, surveyed
//! in parallel passes (`cs::survey`), or extrapolated from the scale knob; worked out once per engine
//! (`FootprintMemo`) and once per build on this machine (the survey cache beside the params cache,
//! `circuit_index`: Filecoin's circuits by identifier, cuzk's own by a hash of their knobs).

use std::collections::HashMap;
use std::sync::Mutex;

use blstrs::Scalar;

use super::budget::{scale_knob, with_scale, Footprint};
use crate::circuits::{CircuitSpec, Sample};
use crate::cs::{
    Book, Circuit, ConstraintSystem, Densities, Lc, LinearCombination, Shape, SynthesisError, Variable,
    VecStore,
};

/// Counts a circuit's shape and densities in the constraint system's own book (values kept only because
/// gadgets read them back).
struct Counter(Book<Densities>);

impl ConstraintSystem for Counter {
    type Store = VecStore;

    fn alloc(&mut self, value: Scalar) -> Variable {
        self.0.alloc(value)
    }

    fn alloc_input(&mut self, value: Scalar) -> Variable {
        self.0.alloc_input(value)
    }

    fn enforce<A, B, C>(&mut self, a: A, b: B, c: C)
    where
        A: FnOnce(Lc<Self>) -> Lc<Self>,
        B: FnOnce(Lc<Self>) -> Lc<Self>,
        C: FnOnce(Lc<Self>) -> Lc<Self>,
    {
        self.0.enforced();
        self.0.mark_a(a(LinearCombination::zero()).terms());
        self.0.mark_b(b(LinearCombination::zero()).terms());
        drop(c(LinearCombination::zero()));
    }

    fn value(&self, var: Variable) -> Scalar {
        self.0.value(var)
    }
}

/// The exact footprint of `circuit` by counting it (memory: its witness values).
pub fn count<C: Circuit + ?Sized>(circuit: &C) -> Result<Footprint, SynthesisError> {
    let mut cs = Counter(Book::new(None, 0));
    circuit.synthesize(&mut cs)?;
    let Counter(book) = cs;
    Ok(Footprint {
        shape: book.shape(),
        a_aux: book.track.a_aux.popcount(),
        b_input: book.track.b_input.popcount(),
        b_aux: book.track.b_aux.popcount(),
    })
}

/// Passes of a survey (`cs::survey`) of `sample`'s circuit of about `rows` rows. Filecoin's circuits (through
/// bellperson's gadgets, which build their sums whatever the system reads, and allocate for each): 2, the
/// best measured on h200-16c (real 2 KiB C2 1.3 s at 2 passes, 1.2 at 4, 5.6 at 16; 8 MiB 1.6 at 2, 2.3 at
/// 4, 9.2 at 16: the passes contend, docs/PERF.md). cuzk's own circuits: one per host thread from 2^20 rows
/// (each pass costs about a witness-only synthesis; ~40 s on one thread at 2^27), else one.
pub fn survey_threads(sample: &Sample, rows: usize) -> usize {
    let all = rayon::current_num_threads();
    if sample.filecoin.is_some() {
        all.min(2)
    } else if rows >= 1 << 20 {
        all
    } else {
        1
    }
}

/// The variable that sets [`record_passes`] for every circuit.
pub const RECORD_PASSES_ENV: &str = "CUZK_RECORD_PASSES";

/// Passes a PCE recording of `sample`'s circuit of `rows` rows runs at once (`Pce::record_striped`): as
/// the survey's for cuzk's own circuits; one for Filecoin's, whose striped passes did not pay (the real 2 KiB
/// C2 on dev-2c: one pass 1.35 s, two 1.28 s before the first circuit's SpMV; porep-1m 309–335 ms against
/// 268–273 with it, docs/PERF.md). `CUZK_RECORD_PASSES=N` sets it for every circuit (1: one pass).
pub fn record_passes(sample: &Sample, rows: usize) -> usize {
    if let Some(n) = std::env::var(RECORD_PASSES_ENV).ok().and_then(|v| v.trim().parse::<usize>().ok()) {
        n.max(1)
    } else if sample.filecoin.is_some() {
        1
    } else {
        survey_threads(sample, rows)
    }
}

/// [`count`]'s footprint by a survey (`cs::survey`: the same counts and densities), with the structure
/// digest it found.
fn survey_footprint<C: Circuit + ?Sized>(
    circuit: &C,
    threads: usize,
) -> Result<(Footprint, u64), SynthesisError> {
    let s = crate::cs::Survey::of(circuit, threads)?;
    Ok((of_survey(&s), s.digest))
}

/// The footprint of `sample`'s circuit at `n` of its knob, and the circuit's structure digest. A circuit that
/// fails to synthesize counts as empty here: the run's own synthesis reports the error.
fn count_scaled(sample: &Sample, n: usize) -> (Footprint, Option<u64>) {
    let s = Sample { circuit: with_scale(&sample.circuit, n), partitions: 1, sectors: 1, ..sample.clone() };
    // The row count is what the survey finds: every host thread unless the circuit is Filecoin's.
    let threads = survey_threads(&s, usize::MAX);
    match s.sector_circuits(0).first().map(|c| survey_footprint(c, threads)) {
        Some(Ok((fp, digest))) => (fp, Some(digest)),
        _ => (Footprint::default(), None),
    }
}

/// `f(1) + (n − 1)·(f(2) − f(1))`, saturating.
fn extrapolate(one: usize, two: usize, n: usize) -> usize {
    let step = two.saturating_sub(one);
    one.saturating_add(step.saturating_mul(n.saturating_sub(1)))
}

/// The footprint of one of `sample`'s circuits without building it: counted at 1 and 2 of its scale knob and
/// extrapolated (counted directly when the knob is 1 or 2).
pub fn footprint(sample: &Sample) -> Footprint {
    footprint_with_counts(sample).0
}

/// [`footprint`] and the two counts it was extrapolated from (at 1 and 2 of the knob; `None` when the circuit
/// was counted directly), so a report can say how its figures were reached.
pub fn footprint_with_counts(sample: &Sample) -> (Footprint, Option<[Footprint; 2]>) {
    let (fp, counts, _) = footprint_and_digest(sample);
    (fp, counts)
}

/// [`footprint_with_counts`], with the circuit's structure digest when it was counted directly (its knob at 1
/// or 2): the params memo then needs no pass of its own.
fn footprint_and_digest(sample: &Sample) -> (Footprint, Option<[Footprint; 2]>, Option<u64>) {
    let (_, n) = scale_knob(&sample.circuit);
    if n <= 2 {
        let (fp, digest) = count_scaled(sample, n.max(1));
        let same = with_scale(&sample.circuit, n.max(1)) == sample.circuit;
        return (fp, None, digest.filter(|_| same));
    }
    let (f1, f2) = (count_scaled(sample, 1).0, count_scaled(sample, 2).0);
    (extrapolated(&f1, &f2, n), Some([f1, f2]), None)
}

fn extrapolated(f1: &Footprint, f2: &Footprint, n: usize) -> Footprint {
    let x = |a: usize, b: usize| extrapolate(a, b, n);
    Footprint {
        shape: Shape {
            constraints: x(f1.shape.constraints, f2.shape.constraints),
            inputs: x(f1.shape.inputs, f2.shape.inputs),
            aux: x(f1.shape.aux, f2.shape.aux),
        },
        a_aux: x(f1.a_aux, f2.a_aux),
        b_input: x(f1.b_input, f2.b_input),
        b_aux: x(f1.b_aux, f2.b_aux),
    }
}

/// Footprints an engine has worked out, by circuit (the witness seed does not change a shape), with the
/// structure digest where the count found it.
#[derive(Default)]
pub(super) struct FootprintMemo(Mutex<HashMap<CircuitSpec, (Footprint, Option<u64>)>>);

impl FootprintMemo {
    fn guard(&self) -> std::sync::MutexGuard<'_, HashMap<CircuitSpec, (Footprint, Option<u64>)>> {
        crate::util::lock(&self.0)
    }

    /// The footprint of `sample`'s circuit, worked out once per engine.
    pub(super) fn get(&self, sample: &Sample) -> Footprint {
        self.get_with_digest(sample).0
    }

    /// [`FootprintMemo::get`] and the circuit's structure digest when its count found it.
    pub(super) fn get_with_digest(&self, sample: &Sample) -> (Footprint, Option<u64>) {
        if let Some(f) = self.guard().get(&sample.circuit).copied() {
            return f;
        }
        let (fp, digest) = match remembered(sample) {
            Some((fp, digest)) => (fp, Some(digest)),
            None => {
                let (fp, _, digest) = footprint_and_digest(sample);
                if let Some(d) = digest {
                    remember(sample, &fp, d);
                }
                (fp, digest)
            }
        };
        self.guard().insert(sample.circuit.clone(), (fp, digest));
        (fp, digest)
    }
}

/// The params cache folder and circuit identifier under which a sample's survey is remembered: a Filecoin
/// circuit's own identifier, or for cuzk's circuits (whose structure follows from their knobs alone)
/// `cuzk-` and the first 16 hex digits of the SHA-256 of the knobs as this build prints them. The survey of
/// porep-32g takes ~9 s of 16 cores before a process's first partition (docs/PERF.md, session y).
fn survey_home(sample: &Sample) -> Option<(std::path::PathBuf, String)> {
    let id = match (&sample.filecoin, &sample.circuit) {
        (Some(job), _) => job.registered.identifier().ok()?,
        (None, CircuitSpec::Filecoin { .. }) => return None,
        (None, spec) => native_identifier(spec),
    };
    let cache = crate::groth16::cache::ParamsCache::default_location().ok()?;
    Some((cache.dir().to_path_buf(), id))
}

/// The name under which `sample`'s survey is remembered (see `survey_home`), for reports and tests.
pub fn survey_identifier(sample: &Sample) -> Option<String> {
    survey_home(sample).map(|(_, id)| id)
}

/// The survey cache's name for one of cuzk's own circuits (see `survey_home`).
fn native_identifier(spec: &CircuitSpec) -> String {
    use sha2::{Digest, Sha256};
    let sum = Sha256::digest(format!("{spec:?}").as_bytes());
    format!("cuzk-{}", sum.iter().take(8).map(|b| format!("{b:02x}")).collect::<String>())
}

/// This build's remembered survey of a sample's circuit.
fn remembered(sample: &Sample) -> Option<(Footprint, u64)> {
    let (dir, id) = survey_home(sample)?;
    super::circuit_index::lookup_survey(&dir, &id, crate::util::build::id())
}

/// Remembers a survey made for the params (`ParamsMemo::shape_of`: the whole circuit, when the footprint
/// was extrapolated), so this build's later processes skip both.
pub(super) fn remember_survey(sample: &Sample, s: &crate::cs::Survey) {
    remember(sample, &of_survey(s), s.digest);
}

/// A survey's footprint.
fn of_survey(s: &crate::cs::Survey) -> Footprint {
    Footprint {
        shape: s.shape,
        a_aux: s.densities.a_aux.popcount(),
        b_input: s.densities.b_input.popcount(),
        b_aux: s.densities.b_aux.popcount(),
    }
}

/// Remembers a sample's survey for this build's later processes (a failed write costs only their survey,
/// so it is logged, not returned).
fn remember(sample: &Sample, fp: &Footprint, digest: u64) {
    let Some((dir, id)) = survey_home(sample) else { return };
    if let Err(e) = super::circuit_index::record_survey(&dir, &id, crate::util::build::id(), fp, digest) {
        tracing::warn!("cannot remember the survey of {id} in {}: {e}", dir.display());
    }
}

/// Forgets the remembered survey of `sample`'s circuit (a run found it does not fit the circuit); the
/// identifier whose entry was removed.
pub(super) fn forget_remembered(sample: &Sample) -> Option<String> {
    let (dir, id) = survey_home(sample)?;
    super::circuit_index::forget_survey(&dir, &id).then_some(id)
}
