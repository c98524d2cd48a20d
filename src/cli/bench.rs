//! `cuzk bench`: time one building block on random data (seeded), median of repeats; MSM also times blst's
//! Pippenger (`G1Projective::multi_exp`, with `--group g2` `G2Projective::multi_exp`) on the same points and
//! scalars and reports the ratio.

use blstrs::{G1Projective, G2Projective, Scalar};
use group::prime::PrimeCurveAffine;
use group::Group;
use serde::Serialize;

pub use super::bench_data::BenchOp;
use super::bench_data::{
    half_bitmap, median, random_points, random_points_g2, random_scalars, shaped_scalars, time, MsmGroup,
    ScalarShape,
};
use super::error::CliError;
use crate::backend::api::{Backend, Bases};
use crate::backend::cpu::ntt::Domain;
use crate::backend::select::select;
use crate::cs::{Circuit, ConstraintSystem, ShapeCounter, SynthesisError};
use crate::engine::budget;
use crate::groth16::setup;
use crate::vocab::BackendKind;

/// Arguments of `cuzk bench`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// What to time.
    #[arg(value_enum)]
    pub op: BenchOp,
    /// Backend.
    #[arg(long, default_value_t = BackendKind::Cpu)]
    pub backend: BackendKind,
    /// log2 of the size, 1..=27.
    #[arg(long, default_value = "16", value_parser = log_size_arg)]
    pub log_size: u32,
    /// Timed repeats, 1..=1000 (the median is reported).
    #[arg(long, default_value = "3", value_parser = super::job::repeat_arg)]
    pub repeat: usize,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Scalar shape (`msm` only): uniform, or one that stresses bucket methods.
    #[arg(long, value_enum, default_value_t = ScalarShape::Random)]
    pub scalars: ScalarShape,
    /// `msm` on the GPU only: run over precomputed shifted bases (each base stored ⌈255/c⌉ times as
    /// 2^(c·j)·P, built once before timing; 96 bytes per copy), as a resident SRS could.
    #[arg(long)]
    pub shifted: bool,
    /// `msm` only: the group (g2: the B_G2 MSM, on the GPU `g2d`'s kernels; no --shifted, no --passes).
    #[arg(long, value_enum, default_value_t = MsmGroup::G1)]
    pub group: MsmGroup,
    /// `msm` only: window width (default: the size's table; 1..=22).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=22))]
    pub window: Option<u32>,
    /// `msm` on the GPU only: split the windows into this many passes, overlapped on two streams (default:
    /// two from 2^22 points, else one; 1..=8).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=8))]
    pub passes: Option<u32>,
    /// Sample file (`synth` only).
    #[arg(long, default_value = super::job::DEFAULT_SAMPLE)]
    pub sample: std::path::PathBuf,
    /// `synth` only: the paths to time, comma-separated (default: all; normal synthesis with A1/A2 off always
    /// runs, as every ratio's reference).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub paths: Vec<super::bench_synth::SynthPath>,
}

/// One benchmark result (also the `--json` form).
#[derive(Debug, Serialize)]
pub struct BenchResult {
    /// What was timed.
    pub op: BenchOp,
    /// Backend name.
    pub backend: String,
    /// Device description.
    pub device: String,
    /// log2 of the size.
    pub log_size: u32,
    /// Median time in milliseconds.
    pub ms: f64,
    /// Every repeat's time in milliseconds.
    pub runs_ms: Vec<f64>,
    /// blst's median on the same data (MSM only).
    pub blst_ms: Option<f64>,
    /// The scalars' shape (MSM only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scalars: Option<ScalarShape>,
    /// Over precomputed shifted bases (MSM on the GPU only).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub shifted: bool,
    /// The group (MSM only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<MsmGroup>,
    /// The window width asked for (MSM only; none: the size's table).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<u32>,
    /// The passes asked for (MSM on the GPU only; none: the size's default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub passes: Option<u32>,
    /// ms / blst_ms (MSM only; below 1.0 means faster than blst).
    pub ratio_vs_blst: Option<f64>,
    /// Setup only: each stage's time in the last repeat, in order (`evaluate`, `h`, `l`, `a`, `b_g1`,
    /// `b_g2`; the query stages run on the device with `--backend gpu`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stages_ms: Vec<(String, f64)>,
}

/// Stage times of one setup from its progress callbacks: a stage runs from its first report to its last.
#[derive(Default)]
struct StageClock(std::sync::Mutex<Vec<(String, std::time::Instant, std::time::Instant)>>);

impl StageClock {
    fn report(&self, stage: &str) {
        let now = std::time::Instant::now();
        let mut v = crate::util::lock(&self.0);
        match v.last_mut() {
            Some((s, _, end)) if s == stage => *end = now,
            _ => v.push((stage.to_string(), now, now)),
        }
    }

    fn take(&self) -> Vec<(String, f64)> {
        let v = std::mem::take(&mut *crate::util::lock(&self.0));
        v.into_iter().map(|(s, a, b)| (s, (b - a).as_secs_f64() * 1e3)).collect()
    }
}

/// A chain of multiplications x·y = z: the simplest circuit of a chosen size, for setup timing.
struct MulChain(usize);

impl Circuit for MulChain {
    fn synthesize<CS: ConstraintSystem>(&self, cs: &mut CS) -> Result<(), SynthesisError> {
        let mut x = cs.alloc(Scalar::from(3u64));
        let mut xv = Scalar::from(3u64);
        for i in 0..self.0 {
            let yv = Scalar::from(i as u64 + 5);
            let y = cs.alloc(yv);
            xv *= yv;
            let z = if i + 1 == self.0 { cs.alloc_input(xv) } else { cs.alloc(xv) };
            cs.enforce(|lc| lc + x, |lc| lc + y, |lc| lc + z);
            x = z;
        }
        Ok(())
    }
}

/// `--log-size`: 1..=27 (2^27, a 32 GiB sector's domain: 12 GiB of G1 bases; the memory check refuses what
/// the host cannot hold).
fn log_size_arg(s: &str) -> Result<u32, String> {
    crate::vocab::limits::LOG_SIZE.parse(s).map(|k| k as u32).map_err(|e| e.reason())
}

/// The footprint of `MulChain(c)`: one aux x, then per link an aux y and an aux z (the last z an input).
fn mul_chain_footprint(c: u64) -> budget::Footprint {
    let c = usize::try_from(c).unwrap_or(usize::MAX);
    budget::Footprint {
        shape: crate::cs::Shape { constraints: c, inputs: 2, aux: c.saturating_mul(2) },
        a_aux: c,
        b_input: 0,
        b_aux: c,
    }
}

/// What a benchmark of 2^log_size holds on the host: its data, the copies it compares against, setup's work.
fn memory_estimate(args: &BenchArgs, on_gpu: bool) -> Option<budget::Estimate> {
    use budget::{fixed_base_table_bytes, FR, G1, G1P, G2, G2P};
    let n = 1u64 << args.log_size;
    let knob = format!("lower --log-size (now {})", args.log_size);
    let (g, gp) = match (args.op, args.group) {
        (BenchOp::Msm, MsmGroup::G2) => (G2, G2P),
        _ => (G1, G1P),
    };
    // Random points come from a fixed-base table (up to 133 MB in G1) and the scalars they were made from.
    let points = vec![("points".into(), n * (g + FR)), ("table".into(), fixed_base_table_bytes(n, gp + g))];
    let parts: Vec<(String, u64)> = match args.op {
        // G1 on the device: the points come from the device's fixed-base kernel (no table on the host).
        BenchOp::Msm if on_gpu && args.group == MsmGroup::G1 => {
            vec![("points".into(), n * (g + FR)), ("scalars".into(), n * FR)]
        }
        // Measured at 2^18 on the CPU: 129 MB peak; this model says 146 MB.
        BenchOp::Msm if on_gpu => [points, vec![("scalars".into(), n * FR)]].concat(),
        BenchOp::Msm => {
            [points, vec![("scalars".into(), n * FR), ("blst copies".into(), n * (gp + g + FR))]].concat()
        }
        BenchOp::Ntt => vec![("scalars and twiddles".into(), n * 3 * FR)],
        BenchOp::BatchAdd => points,
        BenchOp::Setup => {
            let fp = mul_chain_footprint(n.saturating_sub(2).max(1));
            vec![("params".into(), fp.params_bytes()), ("setup work".into(), fp.setup_extra_bytes())]
        }
        // Synth checks its own estimate; floor holds a fixed few hundred MB.
        BenchOp::Synth | BenchOp::Floor => return None,
    };
    Some(budget::Estimate {
        what: format!("bench {:?} 2^{}", args.op, args.log_size).to_lowercase(),
        parts,
        knob,
    })
}

/// `cuzk bench floor`: measures the machine's floors, caches them (the console reads them), prints them.
fn bench_floor(json: bool) -> Result<(), CliError> {
    use crate::engine::floor::{measure, si};
    let f = measure(&mut |line| eprintln!("floor: {line}"));
    let path = f.save().map_err(|e| CliError::Msg(format!("floor cache: {e}")))?;
    if json {
        println!("{}", serde_json::to_string_pretty(&f).map_err(|e| CliError::Msg(e.to_string()))?);
    } else {
        println!("host {} (measured {})", f.host, f.measured);
        println!("  cpu   {}mul64/s   memory {}B/s", si(f.cpu.mul64_per_s), si(f.cpu.mem_bytes_per_s));
        for g in &f.gpus {
            println!(
                "  gpu{}  {}mul64/s   memory {}B/s   h2d pinned {}B/s   pageable {}B/s   ({})",
                g.device,
                si(g.mul64_per_s),
                si(g.mem_bytes_per_s),
                si(g.h2d_pinned_bytes_per_s),
                si(g.h2d_pageable_bytes_per_s),
                g.name
            );
        }
        if let Some(why) = &f.gpu_skipped {
            println!("  gpu   skipped: {why}");
        }
    }
    eprintln!("cached in {}", path.display());
    Ok(())
}

/// Runs a benchmark and prints it.
pub fn run(args: BenchArgs) -> Result<(), CliError> {
    let refuse = |e: Box<budget::MemoryError>| CliError::Engine(e.into());
    let gpu_op = matches!(args.op, BenchOp::Msm | BenchOp::Ntt | BenchOp::BatchAdd);
    if let Some(est) = memory_estimate(&args, args.backend == BackendKind::Gpu && gpu_op) {
        est.check(&budget::mem_limit()).map_err(refuse)?;
    }
    let selected = select(args.backend)?;
    let backend: &dyn Backend = selected.backend.as_ref();
    let n = 1usize << args.log_size;
    let reps = args.repeat;
    let on_gpu =
        backend.name() == "gpu" && matches!(args.op, BenchOp::Msm | BenchOp::Ntt | BenchOp::BatchAdd);
    if args.shifted && !(on_gpu && args.op == BenchOp::Msm) {
        return Err(CliError::Msg(format!(
            "--shifted: only `msm` with `--backend gpu` runs over shifted bases (backend here: {})",
            backend.name()
        )));
    }
    if args.passes.is_some() && !(on_gpu && args.op == BenchOp::Msm && !args.shifted) {
        return Err(CliError::Msg(format!(
            "--passes: only `msm` with `--backend gpu` over plain bases splits its windows (backend here: {})",
            backend.name()
        )));
    }
    let g2 = args.op == BenchOp::Msm && args.group == MsmGroup::G2;
    if args.group == MsmGroup::G2 && (args.op != BenchOp::Msm || args.shifted || args.passes.is_some()) {
        return Err(CliError::Msg(
            "--group g2: only `msm`, without --shifted or --passes (G2 runs in one buffer set)".into(),
        ));
    }
    let window = args.window.map(|w| w as usize);
    let clock = StageClock::default();
    let (runs, blst) = if on_gpu {
        let msm = super::bench_gpu::MsmOpts {
            shape: args.scalars,
            shifted: args.shifted,
            window,
            passes: args.passes,
            g2,
        };
        (super::bench_gpu::time_op(args.op, args.log_size, reps, msm)?, None)
    } else {
        match args.op {
            BenchOp::Msm if g2 => {
                let points = random_points_g2(n, 1);
                let scalars = shaped_scalars(args.scalars, n, 2);
                let mut ours = None;
                let runs = time(reps, || ours = Some(backend.msm_g2(&points, &scalars, window)));
                let proj: Vec<G2Projective> = points.iter().map(|p| p.to_curve()).collect();
                let mut theirs = G2Projective::identity();
                let blst = time(reps, || theirs = G2Projective::multi_exp(&proj, &scalars));
                match ours {
                    Some(Ok(r)) if r == theirs => {}
                    Some(Err(e)) => return Err(CliError::Msg(e.to_string())),
                    _ => return Err(CliError::Msg("msm g2 result differs from blst's".into())),
                }
                (runs, Some(blst))
            }
            BenchOp::Msm => {
                let points = random_points(n, 1);
                let scalars = shaped_scalars(args.scalars, n, 2);
                let mut ours = None;
                let runs = time(reps, || ours = Some(backend.msm_g1(Bases::host(&points), &scalars, window)));
                let proj: Vec<G1Projective> = points.iter().map(|p| p.to_curve()).collect();
                let mut theirs = G1Projective::identity();
                let blst = time(reps, || theirs = G1Projective::multi_exp(&proj, &scalars));
                match ours {
                    Some(Ok(r)) if r == theirs => {}
                    Some(Err(e)) => return Err(CliError::Msg(e.to_string())),
                    _ => return Err(CliError::Msg("msm result differs from blst's".into())),
                }
                (runs, Some(blst))
            }
            BenchOp::Ntt => {
                let domain = Domain::new(args.log_size).map_err(|e| CliError::Msg(e.to_string()))?;
                let mut v = random_scalars(n, 3);
                (time(reps, || domain.ntt(&mut v)), None)
            }
            BenchOp::BatchAdd => {
                let points = random_points(n, 4);
                let bitmap = half_bitmap(n);
                (time(reps, || backend.batch_add_g1(Bases::host(&points), &bitmap)), None)
            }
            BenchOp::Synth => {
                return super::bench_synth::bench_synth(&args.sample, args.repeat, &args.paths, args.json)
            }
            BenchOp::Floor => return bench_floor(args.json),
            BenchOp::Setup => {
                let c = MulChain(n.saturating_sub(2).max(1));
                let shape = ShapeCounter::count(&c).map_err(|e| CliError::Msg(e.to_string()))?;
                let cancel = crate::vocab::CancelToken::new();
                let progress = |stage: &str, _: usize, _: usize| clock.report(stage);
                let mut out = Ok(());
                let runs = time(reps, || {
                    drop(clock.take());
                    if let Err(e) = setup::generate_on(&c, shape, 7, &progress, &cancel, Some(backend)) {
                        out = Err(e);
                    }
                });
                out.map_err(|e| match e {
                    setup::SetupStop::Device(e) => CliError::Msg(e.to_string()),
                    _ => CliError::Msg("setup failed".into()),
                })?;
                (runs, None)
            }
        }
    };
    let ms = median(runs.clone());
    let blst_ms = blst.map(median);
    let r = BenchResult {
        op: args.op,
        backend: backend.name().into(),
        device: backend.device(),
        log_size: args.log_size,
        ms,
        runs_ms: runs,
        blst_ms,
        ratio_vs_blst: blst_ms.map(|b| ms / b),
        stages_ms: clock.take(),
        scalars: (args.op == BenchOp::Msm).then_some(args.scalars),
        shifted: args.shifted,
        group: (args.op == BenchOp::Msm).then_some(args.group),
        window: args.window.filter(|_| args.op == BenchOp::Msm),
        passes: args.passes,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&r).map_err(|e| CliError::Msg(e.to_string()))?);
    } else {
        let op =
            serde_json::to_value(r.op).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default();
        let op = if r.group == Some(MsmGroup::G2) { format!("{op} g2") } else { op };
        let shape = match r.scalars {
            Some(sh) if sh != ScalarShape::Random => format!(" ({sh:?} scalars)"),
            _ => String::new(),
        };
        let shape = match (r.shifted, r.window) {
            (true, Some(w)) => format!("{shape} (shifted bases, window {w})"),
            (true, None) => format!("{shape} (shifted bases)"),
            (false, Some(w)) => format!("{shape} (window {w})"),
            (false, None) => shape,
        };
        let shape = match r.passes {
            Some(p) => format!("{shape} ({p} passes)"),
            None => shape,
        };
        print!(
            "{op}{shape} 2^{} on {} ({}): {:.2} ms (median of {})",
            r.log_size,
            r.backend,
            r.device,
            r.ms,
            reps.max(1)
        );
        if let (Some(b), Some(q)) = (r.blst_ms, r.ratio_vs_blst) {
            print!("; blst {b:.2} ms; ratio {q:.3}");
        }
        println!();
        if !r.stages_ms.is_empty() {
            let st: Vec<String> = r.stages_ms.iter().map(|(s, ms)| format!("{s} {ms:.1} ms")).collect();
            println!("  stages: {}", st.join(", "));
        }
    }
    Ok(())
}
