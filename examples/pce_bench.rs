//! Synthesis paths side by side on circuit 0 of a sample: normal synthesis (one thread, A1/A2 off and on),
//! PCE recording, witness-only synthesis, and the SpMV on one thread and on all threads; M constraints/s
//! (rows, as `cuzk bench synth` counts them), the record's bytes per constraint and term classes.
//!
//! ```text
//! cargo run --release --example pce_bench -- samples/sha256-chain.toml [--repeat 5] [--chunks 256,2048,16384]
//! ```
//! Figures are in docs/PERF.md ("Pre-compiled constraint evaluation").

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use blstrs::Scalar;
use cuzk::circuits::Sample;
use cuzk::cs::{Pce, ProvingAssignment, ShapeCounter, SmallStore, VecStore, Witness, WitnessOnly};
use ff::Field;

struct Args {
    sample: String,
    repeat: usize,
    chunks: Vec<usize>,
}

fn parse() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let mut args = Args { sample: String::new(), repeat: 3, chunks: vec![] };
    while let Some(a) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value"));
        match a.as_str() {
            "--repeat" => args.repeat = value("--repeat")?.parse().map_err(|e| format!("--repeat: {e}"))?,
            "--chunks" => {
                args.chunks = value("--chunks")?
                    .split(',')
                    .map(|s| s.parse::<usize>().map_err(|e| format!("--chunks: {e}")))
                    .collect::<Result<_, _>>()?
            }
            _ if args.sample.is_empty() && !a.starts_with('-') => args.sample = a,
            _ => return Err(format!("unexpected argument {a}")),
        }
    }
    if args.sample.is_empty() {
        return Err("usage: pce_bench SAMPLE.toml [--repeat N] [--chunks A,B,..]".into());
    }
    Ok(args)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Times `f` `repeat` times; returns the median seconds and min–max.
fn time<T>(repeat: usize, mut f: impl FnMut() -> T) -> (f64, f64, f64) {
    let t: Vec<f64> = (0..repeat.max(1))
        .map(|_| {
            let s = Instant::now();
            std::hint::black_box(f());
            s.elapsed().as_secs_f64()
        })
        .collect();
    let (lo, hi) = t.iter().fold((f64::MAX, 0f64), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    (median(t), lo, hi)
}

/// The SpMV kernel alone on `pool` (or the global pool), into buffers allocated and touched once, so page
/// faults of fresh allocations are not in the figure (they are in the `pce` lines).
fn time_spmv(
    pce: &Pce,
    w: &Witness,
    pool: Option<&rayon::ThreadPool>,
    chunk: usize,
    repeat: usize,
) -> (f64, f64, f64) {
    let mut wv = w.aux.clone();
    wv.extend_from_slice(&w.inputs);
    let n = pce.shape().constraints;
    let (mut a, mut b, mut c) = (vec![Scalar::ZERO; n], vec![Scalar::ZERO; n], vec![Scalar::ZERO; n]);
    let mut f = || {
        let t = Instant::now();
        let r = pce.evaluate_into(&wv, &mut a, &mut b, &mut c, chunk);
        let s = t.elapsed().as_secs_f64();
        std::hint::black_box(r.is_ok());
        s
    };
    let t: Vec<f64> = (0..repeat.max(1))
        .map(|_| match pool {
            Some(p) => p.install(&mut f),
            None => f(),
        })
        .collect();
    let (lo, hi) = t.iter().fold((f64::MAX, 0f64), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    (median(t), lo, hi)
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("pce_bench: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let args = parse()?;
    let sample = Sample::load(Path::new(&args.sample)).map_err(|e| e.to_string())?;
    let circuit = sample.sector_circuits(0).swap_remove(0);
    let other = sample.sector_circuits(1).swap_remove(0);
    let shape = ShapeCounter::count(&circuit);
    let rows = shape.rows() as f64;
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().map_err(|e| e.to_string())?;
    let threads = rayon::current_num_threads();
    let r = args.repeat;

    let t = Instant::now();
    let (pce, _) = one.install(|| Pce::record(&circuit)).map_err(|e| e.to_string())?;
    let record_s = t.elapsed().as_secs_f64();
    let s = pce.stats();
    // The PCE path must give what normal synthesis gives (another sector's witness).
    let check = pce.synthesize(&other).map_err(|e| e.to_string())?;
    let full = ProvingAssignment::synthesize::<VecStore, _>(&other, None);
    if check.a != full.a
        || check.b != full.b
        || check.c != full.c
        || check.aux_assignment != full.aux_assignment
    {
        return Err("PCE assignment differs from normal synthesis".into());
    }

    println!(
        "{}: {} rows ({} constraints, {} aux), {threads} threads, median of {r}",
        sample.name,
        shape.rows(),
        shape.constraints,
        shape.aux
    );
    println!(
        "record: {:.0} ms (one thread), {:.1} bytes/constraint, {:.2} terms/constraint: {} adds ({} doublings), {} mul, {} constant; table {}",
        record_s * 1e3,
        pce.bytes_per_constraint(),
        s.terms as f64 / shape.constraints as f64,
        s.adds,
        s.doublings,
        s.general,
        s.constant,
        s.table
    );
    let line = |name: &str, (m, lo, hi): (f64, f64, f64)| {
        println!(
            "{name:<34} {:>9.1} ms {:>8.2} M/s  [{:.2}–{:.2}]",
            m * 1e3,
            rows / m / 1e6,
            rows / hi / 1e6,
            rows / lo / 1e6
        );
    };
    let hint = Some(shape);
    line(
        "normal, 1 thread, A1 off A2 off",
        time(r, || ProvingAssignment::synthesize::<VecStore, _>(&other, None)),
    );
    line(
        "normal, 1 thread, A1 on A2 on",
        time(r, || ProvingAssignment::synthesize::<SmallStore, _>(&other, hint)),
    );
    line("witness-only, 1 thread", time(r, || WitnessOnly::synthesize(&other, hint)));
    let w = WitnessOnly::synthesize(&other, hint);
    let timed = |pool: Option<&rayon::ThreadPool>, chunk: usize| time_spmv(&pce, &w, pool, chunk, r);
    let spmv1 = timed(Some(&one), cuzk::cs::pce::DEFAULT_CHUNK_ROWS);
    line("spmv kernel, 1 thread", spmv1);
    line(&format!("spmv kernel, {threads} threads"), timed(None, cuzk::cs::pce::DEFAULT_CHUNK_ROWS));
    line(
        "pce = witness-only + spmv, 1 thread",
        time(r, || one.install(|| pce.synthesize(&other).map(|a| a.a.len()))),
    );
    line(&format!("pce, spmv on {threads} threads"), time(r, || pce.synthesize(&other).map(|a| a.a.len())));
    for &chunk in &args.chunks {
        line(&format!("spmv, 1 thread, chunk {chunk}"), timed(Some(&one), chunk));
        line(&format!("spmv, {threads} threads, chunk {chunk}"), timed(None, chunk));
    }
    Ok(())
}
