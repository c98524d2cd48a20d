//! The Groth16 prover: a batch of same-shape circuits through the phases of DESIGN.md §3, each a traced span.

mod assemble;
mod device;
mod prep;

pub use prep::{AuxBases, Prep, QueryPlan};

use std::sync::atomic::{AtomicBool, Ordering};

use blstrs::{G1Projective, G2Projective, Scalar};
use group::Group;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use rayon::prelude::*;
use tracing::info_span;

use super::keys::Parameters;
use super::phases;
use super::proof::Proof;
use crate::backend::api::{Backend, BackendError};
use crate::cs::{Circuit, ProvingAssignment, Shape, SmallStore, VecStore};
use crate::toggles::Toggles;

/// Why a batch could not be proved.
#[derive(Debug, thiserror::Error)]
pub enum ProveError {
    /// A circuit does not match the params it is proved with.
    #[error(
        "circuit {circuit} does not match the params: {what}: circuit has {got}, params expect {expected}"
    )]
    ShapeMismatch {
        /// Index of the circuit in the batch.
        circuit: usize,
        /// Which quantity differs.
        what: &'static str,
        /// The circuit's value.
        got: usize,
        /// The params' value.
        expected: usize,
    },
    /// An empty batch.
    #[error("nothing to prove: the batch has no circuits")]
    Empty,
    /// The backend failed.
    #[error(transparent)]
    Backend(#[from] BackendError),
    /// A cancel was requested; the batch stopped after its current phase.
    #[error("cancelled")]
    Cancelled,
}

static CANCEL: AtomicBool = AtomicBool::new(false);

/// Asks running provers to stop after their current phase (Ctrl-C, the console's quit).
pub fn request_cancel() {
    CANCEL.store(true, Ordering::SeqCst);
}

/// Clears a cancel request before a new job.
pub fn clear_cancel() {
    CANCEL.store(false, Ordering::SeqCst);
}

/// Whether a cancel was requested.
pub fn cancel_requested() -> bool {
    CANCEL.load(Ordering::SeqCst)
}

fn checkpoint() -> Result<(), ProveError> {
    if cancel_requested() {
        Err(ProveError::Cancelled)
    } else {
        Ok(())
    }
}

/// The per-circuit Groth16 randomizers r and s: derived from the job seed and the circuit's index in the job,
/// so every toggle combination and backend draws the same ones.
pub fn randomizers(seed: u64, circuit: u64) -> (Scalar, Scalar) {
    use ff::Field;
    let mut rng =
        ChaCha20Rng::seed_from_u64(seed ^ circuit.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17));
    (Scalar::random(&mut rng), Scalar::random(&mut rng))
}

/// `synthesis`: every circuit into a `ProvingAssignment`, in parallel, one span per circuit. A1 picks the
/// term store once here; A2 passes the shape as a capacity hint. `first` is the job-wide index of circuit 0.
pub fn synthesize<C: Circuit>(
    circuits: &[C],
    toggles: &Toggles,
    hint: Option<Shape>,
    first: usize,
) -> Vec<ProvingAssignment> {
    let hint = if toggles.a2 { hint } else { None };
    circuits
        .par_iter()
        .enumerate()
        .map(|(i, c)| {
            let _span = info_span!(phases::SYNTHESIS, circuit = first + i, slot = i).entered();
            if toggles.a1 {
                ProvingAssignment::synthesize::<SmallStore, _>(c, hint)
            } else {
                ProvingAssignment::synthesize::<VecStore, _>(c, hint)
            }
        })
        .collect()
}

fn check_shape(params: &Parameters, asgs: &[ProvingAssignment]) -> Result<(), ProveError> {
    let first = asgs.first().ok_or(ProveError::Empty)?;
    let b_inputs = first.b_input_density.popcount();
    for (i, g) in asgs.iter().enumerate() {
        let checks = [
            ("public inputs", g.input_assignment.len(), params.vk.ic.len()),
            ("aux variables", g.aux_assignment.len(), params.l.len()),
            ("domain size − 1", g.a.len().next_power_of_two() - 1, params.h.len()),
            ("A query size", g.input_assignment.len() + g.a_aux_density.popcount(), params.a.len()),
            ("B query size", b_inputs + g.b_aux_density.popcount(), params.b_g1.len()),
            ("B_G2 query size", b_inputs + g.b_aux_density.popcount(), params.b_g2.len()),
            ("A density", g.a_aux_density.popcount(), first.a_aux_density.popcount()),
        ];
        for (what, got, expected) in checks {
            if got != expected {
                return Err(ProveError::ShapeMismatch { circuit: i, what, got, expected });
            }
        }
    }
    Ok(())
}

/// Per-circuit MSM results before assembly.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sums {
    h: G1Projective,
    l: G1Projective,
    a: G1Projective,
    b_g1: G1Projective,
    b_g2: G2Projective,
}

/// What the per-circuit MSM phases read: the params, the batch's plans and assignments, the shared window.
pub(crate) struct Ctx<'c, 'p> {
    params: &'c Parameters,
    prep: &'c Prep<'p>,
    asgs: &'c [ProvingAssignment],
    n_inputs: usize,
    b_inputs: usize,
}

impl Ctx<'_, '_> {
    /// `batch_add` of circuit `i`: the L, A and B_G1 sums of the bases whose scalar is one.
    fn ones(&self, backend: &dyn Backend, i: usize) -> Result<[G1Projective; 3], BackendError> {
        let (params, prep) = (self.params, self.prep);
        let add = |plan: &QueryPlan, bases: &[blstrs::G1Affine]| {
            if plan.split {
                backend.batch_add_g1(bases, &plan.ones[i])
            } else {
                Ok(G1Projective::identity())
            }
        };
        Ok([
            add(&prep.l, &params.l)?,
            add(&prep.a, &params.a[self.n_inputs..])?,
            add(&prep.b, &params.b_g1[self.b_inputs..])?,
        ])
    }

    /// `tail_msm` of circuit `i`: the L, A and B_G1 MSMs over the tail (and the input parts of A and B).
    fn tail(
        &self,
        backend: &dyn Backend,
        i: usize,
        window: Option<usize>,
    ) -> Result<[G1Projective; 3], BackendError> {
        let (params, prep, g) = (self.params, self.prep, &self.asgs[i]);
        let a_inputs = backend.msm_g1(&params.a[..self.n_inputs], &g.input_assignment, window)?;
        let b_in_scalars: Vec<Scalar> = g.b_input_density.iter_set().map(|k| g.input_assignment[k]).collect();
        let b_inputs_sum = backend.msm_g1(&params.b_g1[..self.b_inputs], &b_in_scalars, window)?;
        Ok([
            backend.msm_g1(&prep.l_bases, &prep.l.tail_scalars[i], window)?,
            a_inputs + backend.msm_g1(&prep.a_bases, &prep.a.tail_scalars[i], window)?,
            b_inputs_sum + backend.msm_g1(&prep.b_g1_bases, &prep.b.tail_scalars[i], window)?,
        ])
    }

    /// The span arguments of circuit `i`'s `tail_msm`.
    fn tail_args(&self, window: Option<usize>) -> [(&'static str, usize); 4] {
        let p = self.prep;
        [
            ("tail_l", p.l.tail_len),
            ("tail_a", p.a.tail_len),
            ("tail_b", p.b.tail_len),
            ("window", window.unwrap_or(0)),
        ]
    }

    /// Ones per circuit `i` over the three queries (the `batch_add` span's argument).
    fn ones_count(&self, i: usize) -> usize {
        self.prep.l.ones_count[i] + self.prep.a.ones_count[i] + self.prep.b.ones_count[i]
    }

    /// `b_g2_msm` of every circuit (on the CPU on every backend), in parallel with A4.
    fn b_g2(&self, backend: &dyn Backend, toggles: &Toggles) -> Result<Vec<G2Projective>, BackendError> {
        let (params, prep) = (self.params, self.prep);
        let b_inputs = self.b_inputs;
        let one = |i: usize| {
            let g = &self.asgs[i];
            let b_in_scalars: Vec<Scalar> =
                g.b_input_density.iter_set().map(|k| g.input_assignment[k]).collect();
            let ones = if prep.b.split {
                backend.batch_add_g2(&params.b_g2[b_inputs..], &prep.b.ones[i])?
            } else {
                G2Projective::identity()
            };
            Ok(ones
                + backend.msm_g2(&params.b_g2[..b_inputs], &b_in_scalars, None)?
                + backend.msm_g2(&prep.b_g2_bases, &prep.b.tail_scalars[i], None)?)
        };
        let n = self.asgs.len();
        if toggles.a4 {
            (0..n).into_par_iter().map(one).collect()
        } else {
            (0..n).map(one).collect()
        }
    }
}

/// `prep_msm` (its span included): classifies the aux scalars of every circuit against the aux bases.
fn prep_msm<'p>(
    params: &'p Parameters,
    asgs: &'p [ProvingAssignment],
    n_inputs: usize,
    b_inputs: usize,
    first: usize,
) -> Prep<'p> {
    let _span = info_span!(phases::PREP_MSM, first = first, circuits = asgs.len()).entered();
    Prep::new(
        asgs,
        AuxBases {
            l: &params.l,
            a: &params.a[n_inputs..],
            b_g1: &params.b_g1[b_inputs..],
            b_g2: &params.b_g2[b_inputs..],
        },
    )
}

/// Sums the per-circuit results and assembles the proofs (span `assemble`).
fn finish(
    params: &Parameters,
    h: &[G1Projective],
    ones: &[[G1Projective; 3]],
    tails: &[[G1Projective; 3]],
    b_g2: &[G2Projective],
    seed: u64,
    first: usize,
) -> Vec<Proof> {
    let sums: Vec<Sums> = (0..h.len())
        .map(|i| Sums {
            h: h[i],
            l: ones[i][0] + tails[i][0],
            a: ones[i][1] + tails[i][1],
            b_g1: ones[i][2] + tails[i][2],
            b_g2: b_g2[i],
        })
        .collect();
    let _span = info_span!(phases::ASSEMBLE, first = first, circuits = h.len()).entered();
    sums.iter()
        .enumerate()
        .map(|(i, s)| assemble::proof(&params.vk, s, randomizers(seed, (first + i) as u64)))
        .collect()
}

/// Proves synthesized circuits (consumed: a/b/c are dropped as soon as H is computed). `first` is the
/// job-wide index of the first circuit, which fixes its randomizers. A device-timed backend takes the
/// concurrent path of `device::prove` (same results, overlapped phases).
pub fn prove_assignments(
    backend: &dyn Backend,
    params: &Parameters,
    mut asgs: Vec<ProvingAssignment>,
    toggles: &Toggles,
    seed: u64,
    first: usize,
) -> Result<Vec<Proof>, ProveError> {
    check_shape(params, &asgs)?;
    let n = asgs.len();
    let n_inputs = params.vk.ic.len();
    let b_inputs = asgs[0].b_input_density.popcount();

    // ntt_msm_h consumes a/b/c; take them out so prep_msm can borrow the assignments meanwhile.
    let abc: Vec<_> = asgs
        .iter_mut()
        .map(|g| (std::mem::take(&mut g.a), std::mem::take(&mut g.b), std::mem::take(&mut g.c)))
        .collect();

    if backend.device_timed() {
        return device::prove(backend, params, &asgs, abc, toggles, seed, first);
    }

    let prep = prep_msm(params, &asgs, n_inputs, b_inputs, first);
    let ctx = Ctx { params, prep: &prep, asgs: &asgs, n_inputs, b_inputs };

    checkpoint()?;
    let mut h = Vec::with_capacity(n);
    for (i, (a, b, c)) in abc.into_iter().enumerate() {
        let _span = info_span!(phases::NTT_MSM_H, circuit = first + i, n = a.len()).entered();
        h.push(backend.ntt_msm_h(a, b, c, &params.h)?);
        checkpoint()?;
    }

    let ones: Vec<[G1Projective; 3]> = (0..n)
        .map(|i| {
            let _span =
                info_span!(phases::BATCH_ADD, circuit = first + i, ones = ctx.ones_count(i)).entered();
            ctx.ones(backend, i)
        })
        .collect::<Result<_, BackendError>>()?;

    checkpoint()?;
    let window = (!toggles.d4).then(|| prep::shared_window(&prep, |m| backend.window_for(m)));
    let tails: Vec<[G1Projective; 3]> = (0..n)
        .map(|i| {
            let _span = info_span!(
                phases::TAIL_MSM,
                circuit = first + i,
                tail_l = prep.l.tail_len,
                tail_a = prep.a.tail_len,
                tail_b = prep.b.tail_len,
                window = window.unwrap_or(0)
            )
            .entered();
            ctx.tail(backend, i, window)
        })
        .collect::<Result<_, BackendError>>()?;

    checkpoint()?;
    let b_g2: Vec<G2Projective> = {
        let _span =
            info_span!(phases::B_G2_MSM, first = first, circuits = n, parallel = toggles.a4).entered();
        ctx.b_g2(backend, toggles)?
    };

    Ok(finish(params, &h, &ones, &tails, &b_g2, seed, first))
}
