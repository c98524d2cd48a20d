//! The Groth16 prover: a batch of same-shape circuits through the phases, one path for every backend.
//!
//! Circuits are split contiguously across the backend's compute lanes (one for the CPU, one per device),
//! one thread per lane. Each lane runs `ntt_msm_h` per circuit and, once `prep_msm` is done, `batch_add` and
//! `tail_msm` (beside H on a device lane); the host runs `prep_msm` then `b_g2_msm`. A device lane runs beside the host with no
//! barrier between the two (each side goes on as soon as its own inputs are ready); a CPU lane shares the
//! host's cores, so there they take turns: H, prep_msm, tails, b_g2_msm. Every phase is a span of the run's
//! probe; lane phases are opened through the lane, which times them on its device. Results do not depend on
//! lanes or overlap, so proofs are byte-identical across backends.

mod assemble;
mod prep;
mod synth;

pub use prep::{AuxBases, Prep, QueryPlan};
pub use synth::{synthesize, synthesize_with, PceSlot};

use std::borrow::Cow;
use std::ops::Range;
use std::sync::{Mutex, OnceLock};

use blstrs::{G1Affine, G1Projective, G2Projective, Scalar};
use group::Group;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use rayon::prelude::*;

use super::keys::Parameters;
use super::proof::Proof;
use crate::backend::api::{
    Backend, BackendError, Bases, BasesId, CallId, CallOpts, G1Group, G1Op, Query, SrsRef,
};
use crate::cs::{Evals, ProvingAssignment, SynthesisError};
use crate::vocab::{Cancelled, Phase, Probe, Site, Toggle, Toggles};
use assemble::Sums;

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
    /// A circuit could not be synthesized from its shape's PCE record (`pce` on).
    #[error("circuit {circuit}: {source}")]
    Pce {
        /// Job-wide index of the circuit.
        circuit: usize,
        /// Its error.
        source: crate::cs::PceError,
    },
    /// A circuit could not synthesize.
    #[error("circuit {circuit}: {source}")]
    Synthesis {
        /// Job-wide index of the circuit.
        circuit: usize,
        /// Its error.
        source: SynthesisError,
    },
    /// A circuit's synthesized public inputs differ from the ones it declares (what a verifier will use).
    #[error("circuit {circuit}: synthesized public input {input} differs from the expected public inputs")]
    InputsDiffer {
        /// Job-wide index of the circuit.
        circuit: usize,
        /// First differing input (0-based, without the constant one).
        input: usize,
    },
}

impl From<Cancelled> for ProveError {
    fn from(_: Cancelled) -> ProveError {
        ProveError::Cancelled
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

/// Checks that each assignment's public inputs (after the constant one) are `expected[i]`, the inputs a
/// verifier will be given: a circuit that computes other inputs than it declares is an error naming it.
pub fn check_inputs(
    asgs: &[ProvingAssignment],
    expected: &[Vec<Scalar>],
    first: usize,
) -> Result<(), ProveError> {
    for (i, (g, want)) in asgs.iter().zip(expected).enumerate() {
        let got = g.input_assignment.get(1..).unwrap_or_default();
        if got != &want[..] {
            let input = got.iter().zip(want).position(|(a, b)| a != b).unwrap_or(got.len().min(want.len()));
            return Err(ProveError::InputsDiffer { circuit: first + i, input });
        }
    }
    Ok(())
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

/// What one proving call proves with.
#[derive(Clone, Copy)]
pub struct CallSpec<'a> {
    /// The params of the circuits' shape.
    pub params: &'a Parameters,
    /// The toggles.
    pub toggles: &'a Toggles,
    /// The job seed (randomizers).
    pub seed: u64,
    /// Job-wide index of the call's first circuit (fixes its randomizers).
    pub first: usize,
}

type G1x3 = [G1Projective; 3];

/// What the per-circuit MSM phases read: the call, its plans and assignments.
struct Ctx<'c, 'p> {
    call: CallSpec<'c>,
    id: CallId,
    srs: SrsRef<'c>,
    prep: &'c Prep<'p>,
    asgs: &'c [ProvingAssignment],
    n_inputs: usize,
    b_inputs: usize,
}

/// A call's [`Ctx`] before `prep_msm` has run.
struct CtxBase<'c> {
    call: CallSpec<'c>,
    id: CallId,
    srs: SrsRef<'c>,
    asgs: &'c [ProvingAssignment],
    n_inputs: usize,
    b_inputs: usize,
}

impl<'c> CtxBase<'c> {
    /// The context once `prep` is known.
    fn with<'a, 'p>(&'a self, prep: &'a Prep<'p>) -> Ctx<'a, 'p>
    where
        'c: 'a,
    {
        let CtxBase { call, id, srs, asgs, n_inputs, b_inputs } = *self;
        Ctx { call, id, srs, prep, asgs, n_inputs, b_inputs }
    }
}

impl Ctx<'_, '_> {
    /// The tail bases of query `q` (aux part from `start`): the SRS itself when not split, else the set
    /// `prep_msm` gathered for this call.
    #[allow(clippy::ptr_arg)] // the Cow variant is the information: borrowed = the SRS, owned = gathered
    fn tail_bases<'b>(&self, q: Query, start: usize, bases: &'b Cow<'_, [G1Affine]>) -> Bases<'b> {
        match bases {
            Cow::Borrowed(host) => Bases { id: BasesId::Srs { params: self.srs.id, query: q, start }, host },
            Cow::Owned(host) => Bases { id: BasesId::Call { call: self.id, query: q }, host },
        }
    }

    /// `batch_add` of circuit `i`: the L, A and B_G1 sums of the bases whose scalar is one (an empty bitmap,
    /// the identity, for a query whose plan is not split).
    fn ones_group<'a>(&'a self, i: usize) -> G1Group<'a> {
        let (prep, srs) = (self.prep, &self.srs);
        let ones = |plan: &'a QueryPlan, bases: Bases<'a>| {
            G1Op::Ones(bases, if plan.split { &plan.ones[i][..] } else { &[] })
        };
        let site = Site::new(Phase::BatchAdd).circuit(self.call.first + i).arg("ones", self.ones_count(i));
        G1Group {
            site,
            ops: vec![
                ones(&prep.l, srs.bases(Query::L, 0)),
                ones(&prep.a, srs.bases(Query::A, self.n_inputs)),
                ones(&prep.b, srs.bases(Query::BG1, self.b_inputs)),
            ],
        }
    }

    /// `tail_msm` of circuit `i`: the input parts of A and B (B's input scalars in `b_in`), then the L, A and
    /// B_G1 MSMs over the tails.
    fn tail_group<'a>(&'a self, i: usize, b_in: &'a [Scalar], window: Option<usize>) -> G1Group<'a> {
        let (prep, g, srs) = (self.prep, &self.asgs[i], &self.srs);
        let site = Site::new(Phase::TailMsm)
            .circuit(self.call.first + i)
            .arg("tail_l", prep.l.tail_len)
            .arg("tail_a", prep.a.tail_len)
            .arg("tail_b", prep.b.tail_len)
            .arg("window", window.unwrap_or(0));
        let msm = |bases: Bases<'a>, scalars: &'a [Scalar]| G1Op::Msm(bases, scalars, window);
        G1Group {
            site,
            ops: vec![
                msm(srs.bases(Query::A, 0).prefix(self.n_inputs), &g.input_assignment),
                msm(srs.bases(Query::BG1, 0).prefix(self.b_inputs), b_in),
                msm(self.tail_bases(Query::L, 0, &prep.l_bases), &prep.l.tail_scalars[i]),
                msm(self.tail_bases(Query::A, self.n_inputs, &prep.a_bases), &prep.a.tail_scalars[i]),
                msm(self.tail_bases(Query::BG1, self.b_inputs, &prep.b_g1_bases), &prep.b.tail_scalars[i]),
            ],
        }
    }

    /// Ones per circuit `i` over the three queries (the `batch_add` span's argument).
    fn ones_count(&self, i: usize) -> usize {
        self.prep.l.ones_count[i] + self.prep.a.ones_count[i] + self.prep.b.ones_count[i]
    }

    /// `batch_add` then `tail_msm` of circuits `range` on `lane`, each circuit's two phases a group (span) of
    /// its own; with `tailseq` a device lane queues all of them before it waits.
    fn lane_tails(
        &self,
        probe: &Probe,
        lane: &dyn Backend,
        range: Range<usize>,
        window: Option<usize>,
    ) -> Result<Vec<(G1x3, G1x3)>, ProveError> {
        let b_in: Vec<Vec<Scalar>> = range
            .clone()
            .map(|i| {
                let g = &self.asgs[i];
                g.b_input_density.iter_set().map(|k| g.input_assignment[k]).collect()
            })
            .collect();
        let groups: Vec<G1Group> = range
            .clone()
            .zip(&b_in)
            .flat_map(|(i, b)| [self.ones_group(i), self.tail_group(i, b, window)])
            .collect();
        let want = groups.len();
        let r = lane.g1_groups(probe, groups)?;
        // Fewer results only after a cancel.
        probe.checkpoint()?;
        let bad = || {
            ProveError::Backend(BackendError {
                backend: lane.name(),
                op: "tail_msm",
                msg: format!("{} of {want} result groups, or a group short of its operations", r.len()),
            })
        };
        if r.len() != want {
            return Err(bad());
        }
        r.chunks(2)
            .map(|g| match g {
                [o, t] if o.len() == 3 && t.len() == 5 => {
                    Ok(([o[0], o[1], o[2]], [t[2], t[0] + t[3], t[1] + t[4]]))
                }
                _ => Err(bad()),
            })
            .collect()
    }

    /// `b_g2_msm` of every circuit (with g2d on a device lane that holds B_G2, else on the host), in parallel
    /// with A4.
    fn b_g2(&self, probe: &Probe, backend: &dyn Backend) -> Result<Vec<G2Projective>, ProveError> {
        let (params, prep, toggles) = (self.call.params, self.prep, self.call.toggles);
        let n = self.asgs.len();
        let a4 = toggles.on(Toggle::A4);
        // g2d: circuit i's batch addition and MSM on lane i mod lanes (which holds B_G2), on its second stream.
        let g2d = toggles.on(Toggle::G2d) && backend.has_device();
        let site = Site::new(Phase::BG2Msm)
            .arg("first", self.call.first)
            .arg("circuits", n)
            .arg("parallel", a4)
            .arg("g2d", g2d);
        let _span = probe.open(site);
        let b_inputs = self.b_inputs;
        let srs = self.srs;
        let b_in = |i: usize| -> Vec<Scalar> {
            let g = &self.asgs[i];
            g.b_input_density.iter_set().map(|k| g.input_assignment[k]).collect()
        };
        let host_msms = |i: usize| -> Result<G2Projective, BackendError> {
            Ok(backend.msm_g2(&params.b_g2[..b_inputs], &b_in(i), None)?
                + backend.msm_g2(prep.b_g2_bases(), &prep.b.tail_scalars[i], None)?)
        };
        let par = |f: &(dyn Fn(usize) -> Result<G2Projective, BackendError> + Sync)| {
            if a4 {
                (0..n).into_par_iter().map(f).collect::<Result<Vec<_>, BackendError>>()
            } else {
                (0..n).map(f).collect()
            }
        };
        let host_ones = |i: usize| -> Result<G2Projective, BackendError> {
            if prep.b.split {
                backend.batch_add_g2(&params.b_g2[b_inputs..], &prep.b.ones[i])
            } else {
                Ok(G2Projective::identity())
            }
        };
        if !g2d {
            return Ok(par(&|i| Ok(host_ones(i)? + host_msms(i)?))?);
        }
        // The MSM's entries in B_G2: the B-dense inputs' bases (the query's first b_inputs), then the aux tail.
        let aux: Box<dyn Iterator<Item = u32>> = match &prep.b.tail_index {
            Some(t) => Box::new(t.iter().map(|&j| j + b_inputs as u32)),
            None => Box::new(b_inputs as u32..(b_inputs + prep.b.bases) as u32),
        };
        let idx: Vec<u32> = (0..b_inputs as u32).chain(aux).collect();
        // Every circuit's device work on a thread of its own (never a rayon worker blocked on a device: a lane
        // that falls back adds on the host's pool, which then must not be waiting for it); the MSMs no lane
        // could run then go to the host.
        let lanes: Vec<(G2Projective, Option<G2Projective>)> = std::thread::scope(|s| {
            let devs: Vec<_> = (0..n)
                .map(|i| {
                    let lane = backend.lane(i % backend.lanes().max(1)).unwrap_or(backend);
                    let (idx, b_in) = (&idx, &b_in);
                    s.spawn(move || -> Result<_, BackendError> {
                        let ones = if prep.b.split {
                            lane.batch_add_b_g2(srs, b_inputs, &prep.b.ones[i])?
                        } else {
                            G2Projective::identity()
                        };
                        let scalars = b_in(i);
                        let msm =
                            lane.msm_b_g2(srs, idx, &[&scalars, &prep.b.tail_scalars[i]]).transpose()?;
                        Ok((ones, msm))
                    })
                })
                .collect();
            devs.into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(BackendError {
                            backend: "gpu",
                            op: "b_g2_msm",
                            msg: "g2d thread panicked".into(),
                        })
                    })
                })
                .collect::<Result<Vec<_>, BackendError>>()
        })?;
        let rest = par(&|i| match lanes[i].1 {
            Some(m) => Ok(m),
            None => host_msms(i),
        })?;
        Ok(lanes.iter().zip(rest).map(|((ones, _), m)| ones + m).collect())
    }
}

/// `prep_msm` (its span included): classifies the aux scalars of every circuit against the aux bases.
fn prep_msm<'p>(
    probe: &Probe,
    call: &CallSpec<'p>,
    asgs: &'p [ProvingAssignment],
    b_inputs: usize,
) -> Prep<'p> {
    let params = call.params;
    let n_inputs = params.vk.ic.len();
    let _span = probe.open(Site::new(Phase::PrepMsm).arg("first", call.first).arg("circuits", asgs.len()));
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
    probe: &Probe,
    call: &CallSpec,
    h: &[G1Projective],
    tails: &[(G1x3, G1x3)],
    b_g2: &[G2Projective],
) -> Vec<Proof> {
    let sums: Vec<Sums> = (0..h.len())
        .map(|i| {
            let (ones, tails) = &tails[i];
            Sums {
                h: h[i],
                l: ones[0] + tails[0],
                a: ones[1] + tails[1],
                b_g1: ones[2] + tails[2],
                b_g2: b_g2[i],
            }
        })
        .collect();
    let _span = probe.open(Site::new(Phase::Assemble).arg("first", call.first).arg("circuits", h.len()));
    sums.iter()
        .enumerate()
        .map(|(i, s)| assemble::proof(&call.params.vk, s, randomizers(call.seed, (call.first + i) as u64)))
        .collect()
}

/// Circuit ranges per lane: contiguous, sizes differing by at most one.
fn split(n: usize, lanes: usize) -> Vec<Range<usize>> {
    let k = lanes.clamp(1, n.max(1));
    (0..k).map(|d| d * n / k..(d + 1) * n / k).collect()
}

/// Ends the backend's call however the proof ends.
struct CallGuard<'b>(&'b dyn Backend);

impl Drop for CallGuard<'_> {
    fn drop(&mut self) {
        self.0.end_call();
    }
}

/// Proves synthesized circuits (consumed: a/b/c are dropped as soon as H is computed).
pub fn prove_assignments(
    probe: &Probe,
    backend: &dyn Backend,
    call: CallSpec<'_>,
    mut asgs: Vec<ProvingAssignment>,
) -> Result<Vec<Proof>, ProveError> {
    let params = call.params;
    check_shape(params, &asgs)?;
    let n = asgs.len();
    let b_inputs = asgs[0].b_input_density.popcount();
    // ntt_msm_h consumes a/b/c; take them out so prep_msm can borrow the assignments meanwhile.
    let mut abc: Vec<[Evals; 3]> = asgs
        .iter_mut()
        .map(|g| [std::mem::take(&mut g.a), std::mem::take(&mut g.b), std::mem::take(&mut g.c)])
        .collect();

    probe.checkpoint()?;
    let t = call.toggles;
    let opts = CallOpts::from(t);
    let srs = params.srs();
    backend.begin_call(probe, opts, srs)?;
    let _call = CallGuard(backend);
    let ranges = split(n, backend.lanes());
    // Each lane takes its circuits' a/b/c out of its slot once.
    let chunks: Vec<Mutex<Vec<[Evals; 3]>>> =
        ranges.iter().map(|r| Mutex::new(abc.drain(..r.len()).collect())).collect();

    let call_id = CallId::fresh();
    let base = CtxBase { call, id: call_id, srs, asgs: &asgs, n_inputs: params.vk.ic.len(), b_inputs };
    let window =
        |prep: &Prep| (!t.on(Toggle::D4)).then(|| prep::shared_window(prep, |m| backend.window_for(m)));
    // Lane d's stage 1: H of its circuits (consumes their a/b/c).
    let lane_h = |d: usize, lane: &dyn Backend| -> Result<Vec<G1Projective>, ProveError> {
        let chunk = std::mem::take(&mut *crate::util::lock(&chunks[d]));
        let want = chunk.len();
        probe.checkpoint()?;
        let out = lane.ntt_msm_h_many(probe, call.first + ranges[d].start, chunk, srs.bases(Query::H, 0))?;
        // Fewer results only after a cancel.
        probe.checkpoint()?;
        if out.len() != want {
            return Err(ProveError::Backend(BackendError {
                backend: lane.name(),
                op: "ntt_msm_h",
                msg: format!("{} of {want} H sums returned", out.len()),
            }));
        }
        Ok(out)
    };
    // Lane d's stage 2: batch_add and tail_msm of its circuits.
    let lane_tails = |d: usize, lane: &dyn Backend, prep: &Prep| -> Result<Vec<(G1x3, G1x3)>, ProveError> {
        probe.checkpoint()?;
        base.with(prep).lane_tails(probe, lane, ranges[d].clone(), window(prep))
    };

    let (h, tails, b_g2) = if backend.overlaps_host() {
        overlapped(
            backend,
            ranges.len(),
            &lane_h,
            &lane_tails,
            || prep_msm(probe, &call, &asgs, b_inputs),
            |p| base.with(p).b_g2(probe, backend),
        )?
    } else {
        // The CPU lane shares the host's cores: each side in turn, a/b/c freed (by H) before prep_msm.
        let h = (0..ranges.len())
            .map(|d| lane_h(d, backend.lane(d).unwrap_or(backend)))
            .collect::<Result<Vec<_>, _>>()?;
        probe.checkpoint()?;
        let prep = prep_msm(probe, &call, &asgs, b_inputs);
        let tails = (0..ranges.len())
            .map(|d| lane_tails(d, backend.lane(d).unwrap_or(backend), &prep))
            .collect::<Result<Vec<_>, _>>()?;
        probe.checkpoint()?;
        (h, tails, base.with(&prep).b_g2(probe, backend)?)
    };
    let h: Vec<G1Projective> = h.into_iter().flatten().collect();
    let tails: Vec<(G1x3, G1x3)> = tails.into_iter().flatten().collect();
    probe.checkpoint()?;
    let proofs = finish(probe, &call, &h, &tails, &b_g2);
    // The witnesses' pages serve the run's next circuits (`util::recycle`).
    for g in asgs {
        crate::util::recycle::give(g.aux_assignment);
    }
    Ok(proofs)
}

/// Per-lane H results, per-lane tail results and the B_G2 sums of one call.
type Stages = (Vec<Vec<G1Projective>>, Vec<Vec<(G1x3, G1x3)>>, Vec<G2Projective>);
/// A lane's stage 1: H of its circuits.
type LaneH<'a> = dyn Fn(usize, &dyn Backend) -> Result<Vec<G1Projective>, ProveError> + Sync + 'a;
/// A lane's stage 2: batch_add and tail_msm of its circuits, given the call's prep.
type LaneTails<'a, 'p> =
    dyn Fn(usize, &dyn Backend, &Prep<'p>) -> Result<Vec<(G1x3, G1x3)>, ProveError> + Sync + 'a;

/// A device backend's call with no barrier between the stages: each lane computes H on its thread while a
/// second thread of the lane waits for `prep_msm` and runs its tails beside H, and the host runs `prep_msm`
/// then `b_g2_msm` at once. Lanes and host each go on as soon as their own inputs are ready (with a stage
/// barrier, the host's b_g2_msm waited for the slowest lane's H; the tails need prep_msm's output, not H's).
fn overlapped<'p>(
    backend: &dyn Backend,
    lanes: usize,
    lane_h: &LaneH<'_>,
    lane_tails: &LaneTails<'_, 'p>,
    prep: impl FnOnce() -> Prep<'p>,
    b_g2: impl FnOnce(&Prep<'p>) -> Result<Vec<G2Projective>, ProveError>,
) -> Result<Stages, ProveError> {
    let lane = |d: usize| backend.lane(d).unwrap_or(backend);
    let failed = |what: &str| {
        ProveError::Backend(BackendError {
            backend: backend.name(),
            op: "lane",
            msg: format!("{what} panicked"),
        })
    };
    // `None` when prep_msm panicked: the lanes stop instead of waiting for ever.
    let cell: OnceLock<Option<Prep<'p>>> = OnceLock::new();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..lanes)
            .map(|d| {
                let cell = &cell;
                s.spawn(move || -> Result<_, ProveError> {
                    // The lane's tails start as soon as prep_msm is done, beside its H (a device lane queues
                    // them on a stream of their own).
                    std::thread::scope(|s2| {
                        let tails = s2.spawn(|| {
                            let prep = cell.wait().as_ref().ok_or_else(|| failed("prep_msm"))?;
                            lane_tails(d, lane(d), prep)
                        });
                        let h = lane_h(d, lane(d));
                        let tails = tails.join().unwrap_or_else(|_| Err(failed("lane tails thread")));
                        Ok((h?, tails?))
                    })
                })
            })
            .collect();
        let prep = cell.get_or_init(|| std::panic::catch_unwind(std::panic::AssertUnwindSafe(prep)).ok());
        let b_g2 = prep.as_ref().ok_or_else(|| failed("prep_msm")).and_then(b_g2);
        let (mut hs, mut tails) = (Vec::with_capacity(lanes), Vec::with_capacity(lanes));
        for h in handles {
            let (h, t) = h.join().unwrap_or_else(|_| Err(failed("lane thread")))?;
            hs.push(h);
            tails.push(t);
        }
        Ok((hs, tails, b_g2?))
    })
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn split_is_contiguous_and_balanced() {
        assert_eq!(split(5, 2), vec![0..2, 2..5]);
        assert_eq!(split(1, 4), vec![0..1]);
        assert_eq!(split(8, 8).len(), 8);
        assert_eq!(split(0, 3), vec![0..0]);
    }
}
