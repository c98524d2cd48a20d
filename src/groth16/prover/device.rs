//! The prover on a device-timed backend (the GPU): circuits split contiguously across the backend's lanes
//! (one thread per device) and the CPU phases overlapped with them, as supraseal does — lanes run
//! `ntt_msm_h` while this thread runs `prep_msm`, then lanes run `batch_add` and `tail_msm` while this thread
//! runs `b_g2_msm`. Lane phases are bracketed with `phase_begin`/`phase_end`, which report device-side
//! times; results are the same group elements as on the CPU path, so the proofs are byte-identical.

use std::ops::Range;

use blstrs::{G1Projective, G2Projective, Scalar};
use tracing::info_span;

use super::{checkpoint, finish, phases, prep, prep_msm, Ctx, ProveError};
use crate::backend::api::{Backend, BackendError, CallOpts, Srs};
use crate::cs::ProvingAssignment;
use crate::groth16::keys::Parameters;
use crate::groth16::proof::Proof;
use crate::toggles::Toggles;

type Abc = (Vec<Scalar>, Vec<Scalar>, Vec<Scalar>);

/// Circuit ranges per lane: contiguous, sizes differing by at most one.
fn split(n: usize, lanes: usize) -> Vec<Range<usize>> {
    let k = lanes.clamp(1, n.max(1));
    (0..k).map(|d| d * n / k..(d + 1) * n / k).collect()
}

fn lane(backend: &dyn Backend, d: usize) -> &dyn Backend {
    backend.lane(d).unwrap_or(backend)
}

/// Runs `f` as one device phase of job circuit `circuit` on `lane`; the bracket is closed even on error.
fn bracketed<T>(
    lane: &dyn Backend,
    phase: &'static str,
    circuit: usize,
    args: Vec<(&'static str, String)>,
    f: impl FnOnce() -> Result<T, BackendError>,
) -> Result<T, BackendError> {
    lane.phase_begin(phase, circuit as u64, args)?;
    let r = f();
    let closed = lane.phase_end();
    let r = r?;
    closed?;
    Ok(r)
}

fn joined<T>(h: std::thread::ScopedJoinHandle<'_, Result<T, ProveError>>) -> Result<T, ProveError> {
    h.join().unwrap_or_else(|_| {
        Err(ProveError::Backend(BackendError {
            backend: "gpu",
            op: "lane",
            msg: "lane thread panicked".into(),
        }))
    })
}

/// `prove_assignments` on a device-timed backend.
pub(super) fn prove(
    backend: &dyn Backend,
    params: &Parameters,
    asgs: &[ProvingAssignment],
    abc: Vec<Abc>,
    toggles: &Toggles,
    seed: u64,
    first: usize,
) -> Result<Vec<Proof>, ProveError> {
    let opts = CallOpts { pin_abc: toggles.b1, srs_resident: toggles.srs_resident };
    let srs = Srs { h: &params.h, l: &params.l, a: &params.a, b_g1: &params.b_g1 };
    backend.begin_call(opts, srs)?;
    let r = prove_in_call(backend, params, asgs, abc, toggles, seed, first);
    backend.end_call();
    r
}

fn prove_in_call(
    backend: &dyn Backend,
    params: &Parameters,
    asgs: &[ProvingAssignment],
    abc: Vec<Abc>,
    toggles: &Toggles,
    seed: u64,
    first: usize,
) -> Result<Vec<Proof>, ProveError> {
    let n = asgs.len();
    let n_inputs = params.vk.ic.len();
    let b_inputs = asgs[0].b_input_density.popcount();
    let ranges = split(n, backend.lanes());
    let mut abc = abc.into_iter();
    let chunks: Vec<Vec<Abc>> = ranges.iter().map(|r| abc.by_ref().take(r.len()).collect()).collect();

    checkpoint()?;
    // Stage 1: lanes compute H while this thread classifies the scalars.
    let (prep, h) = std::thread::scope(|s| {
        let handles: Vec<_> = ranges
            .iter()
            .zip(chunks)
            .enumerate()
            .map(|(d, (r, chunk))| {
                let start = r.start;
                s.spawn(move || -> Result<Vec<G1Projective>, ProveError> {
                    let lane = lane(backend, d);
                    let mut out = Vec::with_capacity(chunk.len());
                    for (j, (a, b, c)) in chunk.into_iter().enumerate() {
                        checkpoint()?;
                        let args = vec![("n", a.len().to_string())];
                        out.push(bracketed(lane, phases::NTT_MSM_H, first + start + j, args, || {
                            lane.ntt_msm_h(a, b, c, &params.h)
                        })?);
                    }
                    Ok(out)
                })
            })
            .collect();
        let prep = prep_msm(params, asgs, n_inputs, b_inputs, first);
        let mut h = Vec::with_capacity(n);
        for hd in handles {
            h.extend(joined(hd)?);
        }
        Ok::<_, ProveError>((prep, h))
    })?;
    checkpoint()?;

    // Stage 2: lanes run batch_add and tail_msm while this thread runs b_g2_msm.
    let ctx = Ctx { params, prep: &prep, asgs, n_inputs, b_inputs };
    let window = (!toggles.d4).then(|| prep::shared_window(&prep, |m| backend.window_for(m)));
    type G1x3 = [G1Projective; 3];
    let (lanes_out, b_g2) = std::thread::scope(|s| {
        let ctx = &ctx;
        let handles: Vec<_> = ranges
            .iter()
            .enumerate()
            .map(|(d, r)| {
                let r = r.clone();
                s.spawn(move || -> Result<Vec<(G1x3, G1x3)>, ProveError> {
                    let lane = lane(backend, d);
                    let mut out = Vec::with_capacity(r.len());
                    for i in r {
                        checkpoint()?;
                        let args = vec![("ones", ctx.ones_count(i).to_string())];
                        let ones = bracketed(lane, phases::BATCH_ADD, first + i, args, || ctx.ones(lane, i))?;
                        let args = ctx.tail_args(window).iter().map(|&(k, v)| (k, v.to_string())).collect();
                        let tail =
                            bracketed(lane, phases::TAIL_MSM, first + i, args, || ctx.tail(lane, i, window))?;
                        out.push((ones, tail));
                    }
                    Ok(out)
                })
            })
            .collect();
        let b_g2: Result<Vec<G2Projective>, ProveError> = {
            let _span =
                info_span!(phases::B_G2_MSM, first = first, circuits = n, parallel = toggles.a4).entered();
            ctx.b_g2(backend, toggles).map_err(ProveError::from)
        };
        let mut all = Vec::with_capacity(n);
        for hd in handles {
            all.extend(joined(hd)?);
        }
        Ok::<_, ProveError>((all, b_g2?))
    })?;
    checkpoint()?;
    let (ones, tails): (Vec<G1x3>, Vec<G1x3>) = lanes_out.into_iter().unzip();
    Ok(finish(params, &h, &ones, &tails, &b_g2, seed, first))
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
