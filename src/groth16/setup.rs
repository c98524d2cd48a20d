//! Params generation from a seed: toxic waste from a seeded RNG, the QAP evaluated at τ in one synthesis
//! pass, then fixed-base multiplications on all cores, or on a device backend's device ([`generate_on`]:
//! the same points, so the same file bytes). For tests, benchmarks and samples — never for production keys
//! (the toxic waste is reproducible by design).

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use ff::{BatchInvert, Field, PrimeField};
use group::{Curve, Group};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

use super::error::Section;
use super::keys::{Parameters, VerifyingKey};
use super::params_stream::ParamsStream;
use super::qap;
use crate::backend::api::{BResult, Backend, BackendError, Tick};
use crate::backend::cpu::curve::MsmAffine;
use crate::backend::cpu::fixed_base::fixed_base_into;
use crate::cs::{Circuit, Densities, Shape, SynthesisError};
use crate::vocab::{CancelToken, Cancelled};

/// Setup stages, reported to the progress callback in this order.
/// `write` comes only when the params are streamed to a file ([`generate_into`]): the bytes written while
/// the last sections are (it begins where the computing ends; earlier sections were written under it).
pub const SETUP_STAGES: [&str; 8] = ["evaluate", "h", "l", "a", "b_g1", "b_g2", "vk", "write"];

/// Receives (stage, done, total) as setup proceeds; stages are `SETUP_STAGES`.
pub type Progress<'a> = &'a (dyn Fn(&str, usize, usize) + Sync);

/// A query's group on a backend, so one [`multiples`] serves G1 and G2 on either path.
trait OnBackend: MsmAffine {
    fn fixed_base(
        b: &dyn Backend,
        base: &Self::Proj,
        scalars: &[Scalar],
        out: &mut [Self],
        tick: Tick,
    ) -> BResult<()>;
}

impl OnBackend for G1Affine {
    fn fixed_base(
        b: &dyn Backend,
        base: &G1Projective,
        scalars: &[Scalar],
        out: &mut [Self],
        tick: Tick,
    ) -> BResult<()> {
        b.fixed_base_g1(base, scalars, out, tick)
    }
}

impl OnBackend for G2Affine {
    fn fixed_base(
        b: &dyn Backend,
        base: &G2Projective,
        scalars: &[Scalar],
        out: &mut [Self],
        tick: Tick,
    ) -> BResult<()> {
        b.fixed_base_g2(base, scalars, out, tick)
    }
}

/// The secret values of one setup.
struct ToxicWaste {
    tau: Scalar,
    alpha: Scalar,
    beta: Scalar,
    gamma: Scalar,
    delta: Scalar,
}

fn nonzero(rng: &mut ChaCha20Rng) -> Scalar {
    loop {
        let s = Scalar::random(&mut *rng);
        if !bool::from(s.is_zero()) {
            return s;
        }
    }
}

/// Rows per task of [`lagrange_at`] and the H scalars: each starts from its own power (one `pow_vartime`)
/// and batch-inverts its rows.
const POWERS_CHUNK: usize = 1 << 12;

/// Lagrange basis polynomials of the size-`m` domain evaluated at τ: Lᵢ(τ) = (τᵐ − 1)/m · ωⁱ/(τ − ωⁱ).
/// Every chunk of rows on its own core, written once: the powers of ω walked on one thread, and the powers
/// and denominators kept whole beside the result, took 32.7 s and 12.9 GB at 2^27 on dev-2c against
/// 12.1–13.4 s and 4.3 GB this way (docs/PERF.md, session ad).
fn lagrange_at(tau: Scalar, m: usize) -> Vec<Scalar> {
    let log = m.trailing_zeros();
    let mut omega = Scalar::ROOT_OF_UNITY;
    for _ in log..Scalar::S {
        omega = omega.square();
    }
    let z_over_m =
        (tau.pow_vartime([m as u64]) - Scalar::ONE) * Scalar::from(m as u64).invert().unwrap_or(Scalar::ZERO);
    let mut out = crate::util::par::filled(m, Scalar::ZERO);
    out.par_chunks_mut(POWERS_CHUNK).enumerate().for_each_init(
        || Vec::with_capacity(POWERS_CHUNK),
        |powers: &mut Vec<Scalar>, (ci, rows)| {
            powers.clear();
            let mut w = omega.pow_vartime([(ci * POWERS_CHUNK) as u64]);
            for d in rows.iter_mut() {
                powers.push(w);
                *d = tau - w;
                w *= omega;
            }
            rows.iter_mut().batch_invert();
            for (d, w) in rows.iter_mut().zip(powers.iter()) {
                *d = z_over_m * w * *d;
            }
        },
    );
    out
}

/// All multiples kᵢ·base on `device` when given (the backend's chunks, normalized under the device's next
/// chunk), else with the host's window table; progress at the start and per chunk, and `stopped` asked per
/// chunk (milliseconds), so a cancel is heard within one.
fn multiples<A: OnBackend>(
    base: A::Proj,
    scalars: &[Scalar],
    stage: &str,
    progress: Progress,
    stopped: &(dyn Fn() -> bool + Sync),
    device: Option<&dyn Backend>,
) -> Result<Vec<A>, SetupStop> {
    // The stage has begun: a display can say so before its first chunk.
    progress(stage, 0, scalars.len());
    // Filled in parallel: at 2^27 the H query is 12.9 GB, which one thread takes seconds to touch.
    let mut out = crate::util::par::filled(scalars.len(), A::identity());
    let tick = |done: usize| {
        progress(stage, done, scalars.len());
        !stopped()
    };
    match device {
        Some(dev) => A::fixed_base(dev, &base, scalars, &mut out, &tick).map_err(SetupStop::Device)?,
        None => fixed_base_into(&base, scalars, &mut out, &tick),
    }
    if stopped() {
        return Err(SetupStop::Cancelled);
    }
    Ok(out)
}

/// The toxic waste of `seed`: what every setup of that seed uses.
fn toxic_waste(seed: u64) -> ToxicWaste {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    ToxicWaste {
        tau: nonzero(&mut rng),
        alpha: nonzero(&mut rng),
        beta: nonzero(&mut rng),
        gamma: nonzero(&mut rng),
        delta: nonzero(&mut rng),
    }
}

/// Whether `vk` was made by a setup of `seed` (its α, β and δ in G1 are the seed's): a cache entry made
/// with another seed fails this in well under a millisecond, without reading the large sections.
pub fn vk_matches_seed(vk: &VerifyingKey, seed: u64) -> bool {
    let tw = toxic_waste(seed);
    let g1 = G1Projective::generator();
    (g1 * tw.alpha).to_affine() == vk.alpha_g1
        && (g1 * tw.beta).to_affine() == vk.beta_g1
        && (g1 * tw.delta).to_affine() == vk.delta_g1
}

/// Why a setup stopped without params.
#[derive(Debug)]
pub enum SetupStop {
    /// The run's cancel token was cancelled.
    Cancelled,
    /// The circuit failed to synthesize.
    Synthesis(SynthesisError),
    /// The device backend failed a fixed-base multiplication.
    Device(BackendError),
}

impl From<Cancelled> for SetupStop {
    fn from(_: Cancelled) -> Self {
        SetupStop::Cancelled
    }
}

/// Generates params for `circuit` (whose shape is `shape`) from `seed`.
pub fn generate<C: Circuit + ?Sized>(
    circuit: &C,
    shape: Shape,
    seed: u64,
    progress: Progress,
) -> Result<Parameters, SynthesisError> {
    match generate_with(circuit, shape, seed, progress, &CancelToken::new()) {
        Ok(p) => Ok(p),
        Err(SetupStop::Synthesis(e)) => Err(e),
        Err(SetupStop::Cancelled) => unreachable!("a token nobody holds is never cancelled"),
        Err(SetupStop::Device(_)) => unreachable!("no device was given"),
    }
}

/// [`generate`], stopping with `Cancelled` soon after `cancel` is cancelled (within one chunk of fixed-base
/// multiplications, or a few thousand rows of the evaluation pass).
pub fn generate_with<C: Circuit + ?Sized>(
    circuit: &C,
    shape: Shape,
    seed: u64,
    progress: Progress,
    cancel: &CancelToken,
) -> Result<Parameters, SetupStop> {
    generate_on(circuit, shape, seed, progress, cancel, None)
}

/// [`generate_with`] with the fixed-base multiplications of the H, L, A, B_G1 and B_G2 queries on `backend`
/// when it has a device (the host's window table otherwise); the QAP evaluation stays on the host. The points,
/// and so the params file's bytes, are the same either way (`tests/gpu/setup.rs`).
pub fn generate_on<C: Circuit + ?Sized>(
    circuit: &C,
    shape: Shape,
    seed: u64,
    progress: Progress,
    cancel: &CancelToken,
    backend: Option<&dyn Backend>,
) -> Result<Parameters, SetupStop> {
    generate_into(circuit, shape, seed, progress, cancel, backend, None)
}

/// How often the `write` stage reports while the last sections are written.
const WRITE_TICK: std::time::Duration = std::time::Duration::from_millis(250);

/// [`generate_on`], writing each section into `out` the moment it is made, on a thread of its own, while the
/// next one is computed; H (which needs only τ) is made and written beside the QAP evaluation.
/// Returns once every section is written (the `write` stage reports the bytes until then); `out` is then
/// ready for [`ParamsStream::finish`]. A failed write does not stop the setup: `finish` reports it.
pub fn generate_into<C: Circuit + ?Sized>(
    circuit: &C,
    shape: Shape,
    seed: u64,
    progress: Progress,
    cancel: &CancelToken,
    backend: Option<&dyn Backend>,
    out: Option<&ParamsStream>,
) -> Result<Parameters, SetupStop> {
    let device = backend.filter(|b| b.has_device());
    let tw = toxic_waste(seed);
    let m = shape.domain();
    let delta_inv = tw.delta.invert().unwrap_or(Scalar::ZERO);
    let slots: Slots = Default::default();
    // Set when the main thread fails: the H thread beside the evaluation stops at its next chunk.
    let failed = AtomicBool::new(false);
    let stopped = || cancel.is_cancelled();
    let h_stopped = || cancel.is_cancelled() || failed.load(Ordering::Relaxed);
    // H: τⁱ·Z(τ)/δ for i < m − 1.
    let make_h = || -> Result<Vec<G1Affine>, SetupStop> {
        let z_over_delta = (tw.tau.pow_vartime([m as u64]) - Scalar::ONE) * delta_inv;
        let mut h_scalars = crate::util::par::filled(m - 1, Scalar::ZERO);
        h_scalars.par_chunks_mut(POWERS_CHUNK).enumerate().for_each(|(ci, c)| {
            let mut p = tw.tau.pow_vartime([(ci * POWERS_CHUNK) as u64]) * z_over_delta;
            for s in c.iter_mut() {
                *s = p;
                p *= tw.tau;
            }
        });
        multiples::<G1Affine>(G1Projective::generator(), &h_scalars, "h", &|_, _, _| {}, &h_stopped, device)
    };
    let made = std::thread::scope(|s| {
        // H is made (and written) beside the evaluation: it reports nothing until then, so the stages still
        // come in order. On a device the two use different hardware; on the host they share the cores, and
        // H's write still starts under the evaluation.
        let early_h = s.spawn(|| -> Result<_, SetupStop> {
            let h = slots.h.keep(make_h()?);
            Ok(out.filter(|_| !h_stopped()).map(|o| s.spawn(move || o.put_g1(Section::H, h))))
        });
        let made = (|| -> Result<(), SetupStop> {
            let mut writers = Vec::new();
            progress("evaluate", 0, shape.rows());
            let lagrange = lagrange_at(tw.tau, m);
            let threads = qap::threads_for(shape.rows());
            let qap::Qap { polys: [mut at, bt, ct], densities, constraints: rows } =
                qap::evaluate(circuit, shape, &lagrange, cancel, threads)
                    .map_err(SetupStop::Synthesis)?
                    .ok_or(SetupStop::Cancelled)?;
            let Densities { a_aux, b_input, b_aux } = densities;
            // The appended `input_i * 1 = 0` constraints put each input in A.
            for (i, a) in at[0].iter_mut().enumerate() {
                *a += lagrange[rows + i];
            }
            progress("evaluate", shape.rows(), shape.rows());
            // Keep only the QAP evaluations: the Lagrange table (32 bytes per domain point) goes now,
            // unmapped beside the next stage (a 3.8 GB vector's drop took 0.25 s on dev-2c).
            s.spawn(move || drop(lagrange));

            let g1 = G1Projective::generator();
            let g2 = G2Projective::generator();
            let gamma_inv = tw.gamma.invert().unwrap_or(Scalar::ZERO);
            let lin = |side: usize, scale: Scalar| -> Vec<Scalar> {
                (0..at[side].len())
                    .into_par_iter()
                    .map(|i| (tw.beta * at[side][i] + tw.alpha * bt[side][i] + ct[side][i]) * scale)
                    .collect()
            };
            // The vk (IC) first: it heads the file, so the writes that follow stay in file order.
            let ic = multiples::<G1Affine>(g1, &lin(0, gamma_inv), "vk", &|_, _, _| {}, &stopped, None)?;
            let vk = VerifyingKey {
                alpha_g1: (g1 * tw.alpha).to_affine(),
                beta_g1: (g1 * tw.beta).to_affine(),
                beta_g2: (g2 * tw.beta).to_affine(),
                gamma_g2: (g2 * tw.gamma).to_affine(),
                delta_g1: (g1 * tw.delta).to_affine(),
                delta_g2: (g2 * tw.delta).to_affine(),
                ic,
            };
            let vk = slots.vk.get_or_init(|| vk);
            writers.extend(out.map(|o| s.spawn(move || o.put_vk(vk))));
            // A device takes one setup call at a time: H is done before L starts there.
            let joined = early_h.join().map_err(|_| SetupStop::Device(thread_panicked("the H thread")))?;
            writers.extend(joined?);
            progress("h", m - 1, m - 1);
            // Each section is written on a thread of its own once made (they take the file in turns).
            macro_rules! write_g1 {
                ($section:expr, $points:expr) => {{
                    let points: &Vec<G1Affine> = $points;
                    writers.extend(out.map(|o| s.spawn(move || o.put_g1($section, points))));
                }};
            }
            let l = multiples::<G1Affine>(g1, &lin(1, delta_inv), "l", progress, &stopped, device)?;
            write_g1!(Section::L, slots.l.keep(l));
            let a_scalars = a_aux.gather(&at[0], &at[1]);
            let a = multiples::<G1Affine>(g1, &a_scalars, "a", progress, &stopped, device)?;
            write_g1!(Section::A, slots.a.keep(a));
            s.spawn(move || drop(a_scalars));
            let b_scalars = b_aux.gather(&b_input.gather(&[], &bt[0]), &bt[1]);
            s.spawn(move || drop((at, bt, ct)));
            let b_g1 = multiples::<G1Affine>(g1, &b_scalars, "b_g1", progress, &stopped, device)?;
            write_g1!(Section::BG1, slots.b_g1.keep(b_g1));
            let b_g2 = multiples::<G2Affine>(g2, &b_scalars, "b_g2", progress, &stopped, device)?;
            let b_g2 = slots.b_g2.keep(b_g2);
            writers.extend(out.map(|o| s.spawn(move || o.put_g2(b_g2))));
            progress("vk", 1, 1);
            if let Some(o) = out {
                let total = o.counts().file_len() as usize;
                while !writers.iter().all(|w| w.is_finished()) {
                    progress("write", o.written() as usize, total);
                    std::thread::sleep(WRITE_TICK);
                }
                progress("write", total, total);
            }
            Ok(())
        })();
        if made.is_err() {
            failed.store(true, Ordering::Relaxed);
            if let Some(o) = out {
                o.abandon();
            }
        }
        made
    });
    made?;
    let vk = slots.vk.into_inner().ok_or(SetupStop::Cancelled)?;
    let take = |slot: Slot<G1Affine>| slot.0.into_inner().unwrap_or_default();
    Ok(Parameters::new(
        vk,
        take(slots.h),
        take(slots.l),
        take(slots.a),
        take(slots.b_g1),
        slots.b_g2.0.into_inner().unwrap_or_default(),
    ))
}

/// The error of a setup thread that panicked.
fn thread_panicked(what: &str) -> BackendError {
    BackendError { backend: "setup", op: "params", msg: format!("{what} panicked") }
}

/// A section made inside [`generate_into`]'s thread scope and borrowed by its writer there.
struct Slot<T>(std::sync::OnceLock<Vec<T>>);

impl<T> Default for Slot<T> {
    fn default() -> Self {
        Slot(std::sync::OnceLock::new())
    }
}

impl<T> Slot<T> {
    /// Keeps `v` and lends it for the rest of the scope.
    fn keep(&self, v: Vec<T>) -> &Vec<T> {
        self.0.get_or_init(|| v)
    }
}

/// The vk and the five sections of one setup (see [`Slot`]).
#[derive(Default)]
struct Slots {
    vk: std::sync::OnceLock<VerifyingKey>,
    h: Slot<G1Affine>,
    l: Slot<G1Affine>,
    a: Slot<G1Affine>,
    b_g1: Slot<G1Affine>,
    b_g2: Slot<G2Affine>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The chunked basis against its definition: each Lᵢ(τ) from its own inverse at rows in several chunks,
    /// and the basis interpolating 1 and x (Σ Lᵢ(τ) = 1, Σ Lᵢ(τ)·ωⁱ = τ).
    #[test]
    fn lagrange_basis_matches_its_definition_across_chunks() {
        let m = 4 * POWERS_CHUNK;
        let tau = Scalar::from(0xC0FF_EE15_600D_u64).square() + Scalar::from(3);
        let basis = lagrange_at(tau, m);
        let mut omega = Scalar::ROOT_OF_UNITY;
        for _ in m.trailing_zeros()..Scalar::S {
            omega = omega.square();
        }
        let z = tau.pow_vartime([m as u64]) - Scalar::ONE;
        let m_inv = Scalar::from(m as u64).invert().unwrap();
        for i in [0, 1, POWERS_CHUNK - 1, POWERS_CHUNK, 2 * POWERS_CHUNK + 17, m - 1] {
            let w = omega.pow_vartime([i as u64]);
            let want = z * m_inv * w * (tau - w).invert().unwrap();
            assert_eq!(basis[i], want, "row {i}");
        }
        assert_eq!(basis.iter().sum::<Scalar>(), Scalar::ONE);
        let mut w = Scalar::ONE;
        let mut x = Scalar::ZERO;
        for l in &basis {
            x += l * w;
            w *= omega;
        }
        assert_eq!(x, tau);
    }
}
