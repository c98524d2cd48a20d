//! Synthesis paths side by side on circuit 0 of a sample: normal synthesis (one thread, A1/A2 off and on),
//! PCE recording, witness-only synthesis, and the SpMV on one thread and on all threads; M constraints/s
//! (rows, as `cuzk bench synth` counts them), the record's bytes per constraint and term classes.
//!
//! ```text
//! cargo run --release --features examples --example pce_bench -- samples/sha256-chain.toml [--repeat 5] [--chunks 256,2048,16384]
//! ```
//! Figures are in docs/PERF.md ("Pre-compiled constraint evaluation").

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use blstrs::Scalar;
use cuzk::circuits::Sample;
use cuzk::cs::{
    Pce, ProvingAssignment, RecordOptions, ShapeCounter, SmallStore, VecStore, Witness, WitnessOnly,
};
use ff::Field;

struct Args {
    sample: String,
    repeat: usize,
    chunks: Vec<usize>,
    /// Also report CPU time per operation (process user + system time), for loaded machines.
    cpu: bool,
}

fn parse() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let mut args = Args { sample: String::new(), repeat: 3, chunks: vec![], cpu: false };
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
            "--cpu" => args.cpu = true,
            _ if args.sample.is_empty() && !a.starts_with('-') => args.sample = a,
            _ => return Err(format!("unexpected argument {a}")),
        }
    }
    if args.sample.is_empty() {
        return Err("usage: pce_bench SAMPLE.toml [--repeat N] [--chunks A,B,..] [--cpu]".into());
    }
    Ok(args)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Seconds of CPU time (user + system, all threads) this process has used, from /proc/self/stat (in
/// USER_HZ = 100 ticks, so only long runs resolve): on a machine shared with other jobs, the time an
/// operation costs rather than the time it waited; `None` off Linux.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may contain spaces) start at ") ".
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    let ticks = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// Wall time of `repeat` runs (median, min, max) and, with `cpu`, CPU seconds per run measured over
/// however many more runs it takes to use 2 s of CPU.
fn time<T>(repeat: usize, cpu: bool, mut f: impl FnMut() -> T) -> (f64, f64, f64, Option<f64>) {
    let c0 = cpu_seconds();
    let t: Vec<f64> = (0..repeat.max(1))
        .map(|_| {
            let s = Instant::now();
            std::hint::black_box(f());
            s.elapsed().as_secs_f64()
        })
        .collect();
    let mut per = None;
    if let (true, Some(c0)) = (cpu, c0) {
        let mut runs = t.len();
        while cpu_seconds().is_some_and(|c| c - c0 < 2.0) && runs < 10_000 {
            std::hint::black_box(f());
            runs += 1;
        }
        per = cpu_seconds().map(|c| (c - c0) / runs as f64);
    }
    let (lo, hi) = t.iter().fold((f64::MAX, 0f64), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    (median(t), lo, hi, per)
}

/// The SpMV kernel alone on `pool` (or the global pool), into buffers allocated and touched once, so page
/// faults of fresh allocations are not in the figure (they are in the `pce` lines).
fn time_spmv(
    pce: &Pce,
    w: &Witness,
    pool: Option<&rayon::ThreadPool>,
    chunk: usize,
    repeat: usize,
    cpu: bool,
) -> (f64, f64, f64, Option<f64>) {
    let mut wv = w.aux.clone();
    wv.extend_from_slice(&w.inputs);
    let n = pce.shape().constraints;
    let (mut a, mut b, mut c) = (vec![Scalar::ZERO; n], vec![Scalar::ZERO; n], vec![Scalar::ZERO; n]);
    let mut f = || pce.evaluate_into(&wv, &mut a, &mut b, &mut c, chunk).is_ok();
    time(repeat, cpu, || match pool {
        Some(p) => p.install(&mut f),
        None => f(),
    })
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
    let shape = ShapeCounter::count(&circuit).map_err(|e| e.to_string())?;
    let rows = shape.rows() as f64;
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().map_err(|e| e.to_string())?;
    let threads = rayon::current_num_threads();
    let r = args.repeat;

    // Both record modes: every row stored (exact for any witness), and c = a·b where a C row costs more
    // than a multiplication (exact for satisfying witnesses).
    let mut records = Vec::new();
    for (mode, c_from_products) in [("exact", false), ("c=a·b", true)] {
        let t = Instant::now();
        let (pce, _) = one
            .install(|| Pce::record_with(&circuit, RecordOptions { c_from_products }))
            .map_err(|e| e.to_string())?;
        let record_s = t.elapsed().as_secs_f64();
        // The PCE path must give what normal synthesis gives (another sector's witness).
        let check = pce.synthesize(&other).map_err(|e| e.to_string())?;
        let full = ProvingAssignment::synthesize::<VecStore, _>(&other, None).map_err(|e| e.to_string())?;
        if check.a != full.a
            || check.b != full.b
            || check.c != full.c
            || check.aux_assignment != full.aux_assignment
        {
            return Err(format!("PCE ({mode}) assignment differs from normal synthesis"));
        }
        records.push((mode, pce, record_s));
    }

    println!(
        "{}: {} rows ({} constraints, {} aux), {threads} threads, median of {r}",
        sample.name,
        shape.rows(),
        shape.constraints,
        shape.aux
    );
    let n = shape.constraints as f64;
    for (mode, pce, record_s) in &records {
        let s = pce.stats();
        println!(
            "record {mode}: {:.0} ms (one thread), {:.1} bytes/constraint, {:.2} terms/constraint: {} adds \
             ({} doublings), {} mul, {} constant, c = a·b on {}; table {}",
            record_s * 1e3,
            pce.bytes_per_constraint(),
            s.terms as f64 / n,
            s.adds,
            s.doublings,
            s.general,
            s.constant,
            s.c_products,
            s.table
        );
        // What other layouts would take (bytes/constraint), from the same counts: one u32 pointer per
        // constraint with u8 A/B lengths instead of three u32 row pointers; codes only on non-±1 terms (a
        // sign bit in the column); columns delta-coded in 2 bytes where they fit (4 more bytes otherwise).
        let per = |b: f64| b / n;
        let (terms, csr_rows) = (s.terms as f64, 3.0 * n);
        println!(
            "  layouts (B/constraint): current {:.1}; u8 row lengths {:.1}; codes only off ±1 {:.1}; i16 column \
             deltas {:.1}; empty rows {}, rows > 255 terms {}, column deltas in i8 {:.0}% / i16 {:.0}%",
            per(4.0 * csr_rows + 6.0 * terms),
            per(6.0 * n + 6.0 * terms),
            per(4.0 * csr_rows + 4.0 * terms + 2.0 * (s.terms - s.unit) as f64),
            per(4.0 * csr_rows + 2.0 * terms + 4.0 * (s.terms - s.delta_i16) as f64 + 2.0 * terms),
            s.empty_rows,
            s.long_rows,
            100.0 * s.delta_i8 as f64 / terms,
            100.0 * s.delta_i16 as f64 / terms,
        );
    }
    let line = |name: &str, (m, lo, hi, cpu): (f64, f64, f64, Option<f64>)| {
        let cpu =
            cpu.map_or(String::new(), |c| format!("  cpu {:.1} ms = {:.2} M/s", c * 1e3, rows / c / 1e6));
        println!(
            "{name:<34} {:>9.1} ms {:>8.2} M/s  [{:.2}–{:.2}]{cpu}",
            m * 1e3,
            rows / m / 1e6,
            rows / hi / 1e6,
            rows / lo / 1e6
        );
    };
    let cpu = args.cpu;
    let hint = Some(shape);
    line(
        "normal, 1 thread, A1 off A2 off",
        time(r, cpu, || ProvingAssignment::synthesize::<VecStore, _>(&other, None)),
    );
    line(
        "normal, 1 thread, A1 on A2 on",
        time(r, cpu, || ProvingAssignment::synthesize::<SmallStore, _>(&other, hint)),
    );
    line("witness-only, 1 thread", time(r, cpu, || WitnessOnly::synthesize(&other, hint)));
    let w = WitnessOnly::synthesize(&other, hint).expect("witness");
    let default_chunk = cuzk::cs::pce::DEFAULT_CHUNK_ROWS;
    for (mode, pce, _) in &records {
        let timed = |pool: Option<&rayon::ThreadPool>, chunk: usize| {
            time_spmv(pce, &w, pool, chunk, r, cpu && pool.is_some())
        };
        line(&format!("spmv kernel {mode}, 1 thread"), timed(Some(&one), default_chunk));
        line(&format!("spmv kernel {mode}, {threads} threads"), timed(None, default_chunk));
        line(
            &format!("pce {mode}, 1 thread"),
            time(r, cpu, || one.install(|| pce.synthesize(&other).map(|a| a.a.len()))),
        );
        line(
            &format!("pce {mode}, spmv on {threads} threads"),
            time(r, false, || pce.synthesize(&other).map(|a| a.a.len())),
        );
        for &chunk in &args.chunks {
            line(&format!("spmv {mode}, 1 thread, chunk {chunk}"), timed(Some(&one), chunk));
            line(&format!("spmv {mode}, {threads} threads, chunk {chunk}"), timed(None, chunk));
        }
    }
    Ok(())
}
