//! `cuzk bench msm|ntt|batch_add --backend gpu`: the kernel alone on data already on the device (inputs
//! uploaded once, one untimed warm-up run that also compiles or loads the kernels), each repeat timed from
//! launch to result on the host; the result is checked once against the CPU backend (a G1 MSM against the
//! inner product of its scalars with the discrete logs of its device-made points).

use blstrs::{G1Affine, G1Projective, Scalar};
use ff::Field;
use group::{prime::PrimeCurveAffine, Curve, Group};

use super::bench_data::{
    half_bitmap, random_points, random_points_g2, random_scalars, shaped_scalars, time, BenchOp, ScalarShape,
};
use super::error::CliError;
use crate::backend::api::{Backend, Bases};
use crate::backend::cpu::backend::CpuBackend;
use crate::backend::cpu::ntt::Domain;
use crate::backend::gpu::device::gpus;
use crate::backend::gpu::kernels::batch_add;
use crate::backend::gpu::kernels::fixed_base::fixed_base_g1;
use crate::backend::gpu::kernels::msm::{self, shift as msm_shift, Schedule};
use crate::backend::gpu::kernels::ntt::{self, NttDir};
use crate::backend::gpu::{limbs, limbs_mut, GpuError};

fn e(err: GpuError) -> CliError {
    CliError::Msg(err.to_string())
}

/// How `bench msm` runs on the device.
pub(super) struct MsmOpts {
    /// The scalars' shape.
    pub shape: ScalarShape,
    /// Over precomputed shifted bases (`msm_shift`), built before timing.
    pub shifted: bool,
    /// Window width (`None`: the size's table).
    pub window: Option<usize>,
    /// Passes the windows are split into (`None`: the size's default), overlapped on two streams.
    pub passes: Option<u32>,
    /// In G2 (`g2d`'s kernels, on the device's stream; one buffer set).
    pub g2: bool,
}

/// Times `op` at 2^log_size on GPU0 (`m`: the MSM's options); returns every repeat's milliseconds.
pub(super) fn time_op(op: BenchOp, log_size: u32, reps: usize, m: MsmOpts) -> Result<Vec<f64>, CliError> {
    let gpu = gpus().map_err(e)?.first().ok_or_else(|| CliError::Msg("no GPU".into()))?.clone();
    let n = 1usize << log_size;
    let cpu = CpuBackend::new();
    let mismatch =
        |what: &str| CliError::Msg(format!("{what} 2^{log_size}: GPU result differs from the CPU's"));
    match op {
        BenchOp::Msm if m.g2 => {
            let (points, scalars) = (random_points_g2(n, 1), shaped_scalars(m.shape, n, 2));
            let w = m.window.unwrap_or_else(|| msm::window_for(n));
            gpu.check_mem("bench msm g2", n * (192 + 32) + msm::scratch_bytes_g2(n, w)).map_err(e)?;
            let db = gpu.stream.clone_htod(limbs(&points)).map_err(|x| e(x.into()))?;
            let ds = gpu.stream.clone_htod(limbs(&scalars)).map_err(|x| e(x.into()))?;
            let run = || msm::msm_g2_on(&gpu, &gpu.stream, &db.slice(..), &ds.slice(..), n, m.window, None);
            let got = run().map_err(e)?;
            let want = cpu.msm_g2(&points, &scalars, None).map_err(|x| CliError::Msg(x.to_string()))?;
            if got.to_affine() != want.to_affine() {
                return Err(mismatch("msm g2"));
            }
            let mut err = None;
            let runs = time(reps, || run().map_err(|x| err = Some(x)));
            err.map_or(Ok(runs), |x| Err(e(x)))
        }
        BenchOp::Msm => {
            let (points, scalars, want) = device_points(&gpu, n, m.shape)?;
            let w = m.window.unwrap_or_else(|| {
                if m.shifted {
                    msm_shift::window_for(n)
                } else {
                    msm::window_for(n)
                }
            });
            let scratch = if m.shifted { msm_shift::scratch_bytes(n, w) } else { msm::scratch_bytes(n, w) };
            gpu.check_mem("bench msm", n * (96 + 32) + scratch).map_err(e)?;
            let db = gpu.stream.clone_htod(limbs(&points)).map_err(|x| e(x.into()))?;
            drop(points);
            let ds = gpu.stream.clone_htod(limbs(&scalars)).map_err(|x| e(x.into()))?;
            drop(scalars);
            let shifted = if m.shifted {
                let t = std::time::Instant::now();
                let sb = msm_shift::shift_bases(&gpu, &db.slice(..), n, Some(w)).map_err(e)?;
                eprintln!(
                    "shifted bases: 2^{log_size} points, window {w}, {:.1} GiB, built in {:.0} ms",
                    sb.bytes() as f64 / (1u64 << 30) as f64,
                    t.elapsed().as_secs_f64() * 1e3
                );
                Some(sb)
            } else {
                None
            };
            let run = || match &shifted {
                Some(sb) => msm_shift::msm_g1_shifted(&gpu, sb, &ds.slice(..), n, true),
                None => {
                    let sched = Schedule { passes: m.passes, overlap: true };
                    msm::msm_g1_scheduled(&gpu, &db.slice(..), &ds.slice(..), n, m.window, sched)
                }
            };
            let got = run().map_err(e)?;
            if got.to_affine() != want.to_affine() {
                return Err(mismatch("msm"));
            }
            let mut err = None;
            let runs = time(reps, || run().map_err(|x| err = Some(x)));
            err.map_or(Ok(runs), |x| Err(e(x)))
        }
        BenchOp::Ntt => {
            let v = random_scalars(n, 3);
            let mut d = gpu.stream.clone_htod(limbs(&v)).map_err(|x| e(x.into()))?;
            ntt::ntt(&gpu, &mut d, log_size, NttDir::Forward).map_err(e)?;
            let mut got = vec![<Scalar as ff::Field>::ZERO; n];
            gpu.stream.memcpy_dtoh(&d, limbs_mut(&mut got)).map_err(|x| e(x.into()))?;
            gpu.stream.synchronize().map_err(|x| e(x.into()))?;
            let mut want = v.clone();
            Domain::new(log_size)
                .and_then(|dom| dom.ntt(&mut want))
                .map_err(|x| CliError::Msg(x.to_string()))?;
            if got != want {
                return Err(mismatch("ntt"));
            }
            let mut err = None;
            let runs = time(reps, || {
                let r = ntt::ntt(&gpu, &mut d, log_size, NttDir::Forward)
                    .and_then(|()| gpu.stream.synchronize().map_err(GpuError::from));
                if let Err(x) = r {
                    err = Some(x);
                }
            });
            err.map_or(Ok(runs), |x| Err(e(x)))
        }
        BenchOp::BatchAdd => {
            let (points, bitmap) = (random_points(n, 4), half_bitmap(n));
            let db = gpu.stream.clone_htod(limbs(&points)).map_err(|x| e(x.into()))?;
            let run = || batch_add::batch_add_g1(&gpu, &db.slice(..), n, &bitmap);
            let got = run().map_err(e)?;
            let want =
                cpu.batch_add_g1(Bases::host(&points), &bitmap).map_err(|x| CliError::Msg(x.to_string()))?;
            if got.to_affine() != want.to_affine() {
                return Err(mismatch("batch_add"));
            }
            let mut err = None;
            let runs = time(reps, || run().map_err(|x| err = Some(x)));
            err.map_or(Ok(runs), |x| Err(e(x)))
        }
        _ => Err(CliError::Msg("only msm, ntt and batch_add run on the GPU".into())),
    }
}

/// `n` G1 points kᵢ·G made by the device's fixed-base kernel from random kᵢ (seed 1), the scalars
/// [`shaped_scalars`]`(shape, n, 2)` and the MSM's answer (Σ sᵢ·kᵢ)·G, one inner product in Fr on the host. So a
/// 2^27 benchmark neither makes its points nor checks its result with a CPU MSM (minutes each), and the check
/// stays independent of the MSM kernels.
fn device_points(
    gpu: &crate::backend::gpu::Gpu,
    n: usize,
    shape: ScalarShape,
) -> Result<(Vec<G1Affine>, Vec<Scalar>, G1Projective), CliError> {
    use rayon::prelude::*;
    let ks = random_scalars(n, 1);
    let mut points = vec![G1Affine::identity(); n];
    fixed_base_g1(gpu, &G1Projective::generator(), &ks, &mut points, &|_| true).map_err(e)?;
    let scalars = shaped_scalars(shape, n, 2);
    let dot = ks.par_iter().zip(scalars.par_iter()).map(|(k, s)| k * s).reduce(|| Scalar::ZERO, |a, b| a + b);
    Ok((points, scalars, G1Projective::generator() * dot))
}
