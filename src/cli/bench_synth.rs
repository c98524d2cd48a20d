//! `cuzk bench synth`: synthesis throughput of a sample's first circuit, normal synthesis (A1 × A2 on one
//! thread) beside the `pce` path (witness-only synthesis alone, into a fresh vector and into one kept from
//! the repeat before as a run's later circuits are, then witness-only + SpMV on one thread and on every
//! thread), each with its ratio to `pce` off; for Filecoin's real circuits also bellperson's own
//! synthesis (its `ProvingAssignment`, through the vendored crate's `synthesize_only`) in the same process.
//!
//! Why: the bars are "with `pce` on, one thread, ≥ 3× the constraints/s of `pce` off" and "`pce` off at least
//! as fast as bellperson's synthesis"; this prints both figures for any sample, real circuits included.

use std::time::Instant;

use serde::Serialize;

use super::bench_data::median;
use super::error::CliError;
use crate::circuits::filecoin::FilecoinCircuit;
use crate::circuits::SampleCircuit;
use crate::cs::{Circuit, Pce, ProvingAssignment, RecordOptions, Shape, ShapeCounter, SmallStore, VecStore};
use crate::cs::{SynthesisError, WitnessOnly};
use crate::engine::{budget, footprint};

/// Which synthesis path a configuration times.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum SynthPath {
    /// `pce` off: `ProvingAssignment::synthesize`, linear combinations built and evaluated.
    Normal,
    /// Witness-only synthesis alone (the sequential part of the `pce` path; no a/b/c).
    #[value(name = "witness_only")]
    WitnessOnly,
    /// Witness-only synthesis into the vector of the repeat before (`util::recycle`), as a run's circuits
    /// after its first are made: its pages already mapped. Witnesses under the pool's 16 MiB are not kept:
    /// the row then times what `witness_only` does.
    #[value(name = "witness_kept")]
    WitnessKept,
    /// `pce` on: witness-only synthesis followed by the SpMV against the shape's record (`Pce::synthesize`).
    Pce,
    /// Recording the shape's PCE (`Pce::record_with`, one thread): what the first circuit of a shape pays
    /// instead of normal synthesis.
    #[value(name = "pce_record")]
    PceRecord,
    /// bellperson 0.27's own synthesis of the same circuit (Filecoin's real circuits only): the reference.
    Bellperson,
}

/// One configuration of `cuzk bench synth` (also its `--json` form).
#[derive(Debug, Serialize)]
pub struct SynthResult {
    /// The path timed.
    pub path: SynthPath,
    /// A1 on (normal synthesis only; null otherwise).
    pub a1: Option<bool>,
    /// A2 on (normal synthesis only; null otherwise).
    pub a2: Option<bool>,
    /// Threads it ran on: 1, or every thread (the `pce` SpMV in parallel; normal and bellperson synthesis as one
    /// copy of the circuit per thread at once, the rate then being throughput).
    pub threads: usize,
    /// Median constraints per second.
    pub constraints_per_sec: f64,
    /// Slowest repeat's rate.
    pub min_per_sec: f64,
    /// Fastest repeat's rate.
    pub max_per_sec: f64,
    /// Median milliseconds per circuit.
    pub ms: f64,
    /// Median rate over the median rate of `pce` off with default toggles (normal, A1 off, A2 off); null
    /// when that reference did not run (`--paths witness_only` alone).
    pub vs_pce_off: Option<f64>,
}

/// One configuration before it is timed.
#[derive(Clone, Copy)]
struct Config {
    path: SynthPath,
    a1: bool,
    a2: bool,
    /// Run on a one-thread pool (else on the global pool).
    one_thread: bool,
}

impl Config {
    const fn normal(a1: bool, a2: bool) -> Self {
        Config { path: SynthPath::Normal, a1, a2, one_thread: true }
    }

    const fn on_all_threads(self) -> Self {
        Config { one_thread: false, ..self }
    }
}

/// Normal synthesis for A1 × A2 (the first being `pce` off with default toggles, the ratios' reference), then
/// the `pce` path: witness-only alone (fresh, then kept vector), witness-only + SpMV on one thread, and on
/// every thread; then the recording pass.
const CONFIGS: [Config; 9] = [
    Config::normal(false, false),
    Config::normal(true, false),
    Config::normal(false, true),
    Config::normal(true, true),
    Config { path: SynthPath::WitnessOnly, a1: false, a2: false, one_thread: true },
    Config { path: SynthPath::WitnessKept, a1: false, a2: false, one_thread: true },
    Config { path: SynthPath::Pce, a1: false, a2: false, one_thread: true },
    Config { path: SynthPath::Pce, a1: false, a2: false, one_thread: false },
    Config { path: SynthPath::PceRecord, a1: false, a2: false, one_thread: true },
];

/// Times one synthesis of `circuit` in configuration `c` (the result is dropped outside the timing).
/// `kept`: the witness vector `witness_kept` hands back to the pool before its repeat and takes back after
/// (held here between repeats, so no other configuration takes it).
fn time_one<C: Circuit>(
    c: Config,
    circuit: &C,
    shape: Shape,
    pce: &Pce,
    kept: &mut Option<Vec<blstrs::Scalar>>,
) -> Result<f64, CliError> {
    let err = |e: String| CliError::Msg(format!("bench synth: {e}"));
    if c.path == SynthPath::WitnessKept {
        if let Some(v) = kept.take() {
            crate::util::recycle::give(v);
        }
    }
    let t = Instant::now();
    let out: Box<dyn std::any::Any> = match c.path {
        SynthPath::Normal => {
            let hint = c.a2.then_some(shape);
            let asg = if c.a1 {
                ProvingAssignment::synthesize::<SmallStore, _>(circuit, hint)
            } else {
                ProvingAssignment::synthesize::<VecStore, _>(circuit, hint)
            };
            Box::new(asg.map_err(|e| err(e.to_string()))?)
        }
        SynthPath::WitnessOnly => {
            Box::new(WitnessOnly::synthesize(circuit, Some(shape)).map_err(|e| err(e.to_string()))?)
        }
        SynthPath::WitnessKept => {
            let w = WitnessOnly::synthesize(circuit, Some(shape)).map_err(|e| err(e.to_string()))?;
            let s = t.elapsed().as_secs_f64();
            *kept = Some(w.aux);
            return Ok(s);
        }
        SynthPath::Pce => Box::new(pce.synthesize(circuit).map_err(|e| err(e.to_string()))?),
        SynthPath::PceRecord => {
            Box::new(Pce::record_with(circuit, RecordOptions::default()).map_err(|e| err(e.to_string()))?)
        }
        SynthPath::Bellperson => {
            return Err(err("bellperson's synthesis is timed by time_bellperson".into()))
        }
    };
    let s = t.elapsed().as_secs_f64();
    drop(std::hint::black_box(out));
    Ok(s)
}

/// Times bellperson's own synthesis of a real circuit (its assignment is dropped inside the crate).
fn time_bellperson(c: &FilecoinCircuit) -> Result<f64, CliError> {
    let t = Instant::now();
    std::hint::black_box(c.bellperson_synthesis().map_err(|e| CliError::Msg(format!("bench synth: {e}")))?);
    Ok(t.elapsed().as_secs_f64())
}

/// Every core at once: `n` syntheses of `c` in parallel (as a sector's partitions are), normal synthesis
/// (`pce` off, A1/A2 off) or bellperson's; the wall over `n`, so rates are throughput.
fn time_parallel(
    c: &SampleCircuit,
    fc: &FilecoinCircuit,
    bellperson: bool,
    n: usize,
) -> Result<f64, CliError> {
    use rayon::prelude::*;
    let err = |e: String| CliError::Msg(format!("bench synth: {e}"));
    let t = Instant::now();
    if bellperson {
        let done: Result<Vec<_>, String> =
            (0..n).into_par_iter().map(|_| fc.bellperson_synthesis()).collect();
        std::hint::black_box(done.map_err(err)?);
    } else {
        // Each assignment is dropped on the thread that made it, as bellperson's is inside its crate.
        let done: Result<Vec<usize>, SynthesisError> = (0..n)
            .into_par_iter()
            .map(|_| ProvingAssignment::synthesize::<VecStore, _>(c, None).map(|a| a.num_constraints()))
            .collect();
        std::hint::black_box(done.map_err(|e| err(e.to_string()))?);
    }
    Ok(t.elapsed().as_secs_f64() / n as f64)
}

/// `cuzk bench synth`: circuit 0 of the sample at `path`, each configuration `repeat` times, configurations
/// interleaved so drift hits all alike. The record is made once, untimed, as the engine's `pce` toggle
/// makes it (`RecordOptions::default()`), and checked to reproduce normal synthesis's assignment. `only`
/// keeps the configurations of those paths (all when empty), and the reference always, except for
/// `witness_only` alone ([`witness_alone`]).
pub(super) fn bench_synth(
    path: &std::path::Path,
    repeat: usize,
    only: &[SynthPath],
    json: bool,
) -> Result<(), CliError> {
    let sample = crate::circuits::Sample::load(path)?;
    let fp = footprint::footprint(&sample);
    if !only.is_empty() && only.iter().all(|p| *p == SynthPath::WitnessOnly) {
        return witness_alone(&sample, fp.shape, repeat, json);
    }
    // Normal synthesis holds its combinations and assignment; the pce path holds the record beside a
    // witness and a/b/c (≤ the assignment).
    let normal = fp.assignment_bytes().saturating_mul(2).max(fp.count_bytes());
    let est = budget::Estimate {
        what: format!("{}: bench synth", sample.name),
        parts: vec![("synthesis".into(), normal), ("pce record".into(), fp.pce_bytes())],
        knob: budget::knob_advice(&sample),
    };
    est.check(&budget::mem_limit()).map_err(|e| CliError::Engine(e.into()))?;
    let Some(circuit) = sample.sector_circuits(0).into_iter().next() else {
        return Err(CliError::Msg(format!("{}: the sample has no circuit", sample.path.display())));
    };
    let synth_err = |e: SynthesisError| CliError::Msg(format!("{}: {e}", path.display()));
    let shape = ShapeCounter::count(&circuit).map_err(synth_err)?;
    let rows = shape.rows() as f64;
    let (pce, recorded) = Pce::record_with(&circuit, RecordOptions::default())
        .map_err(|e| CliError::Msg(format!("{}: {e}", path.display())))?;
    let reference = ProvingAssignment::synthesize::<VecStore, _>(&circuit, None).map_err(synth_err)?;
    if (&recorded.a, &recorded.b, &recorded.c) != (&reference.a, &reference.b, &reference.c) {
        return Err(CliError::Msg("bench synth: the pce assignment differs from normal synthesis".into()));
    }
    drop((recorded, reference));
    // The reference's shape must be ours: the same rows and aux (bellperson counts the input constraints).
    let foreign = match &circuit {
        SampleCircuit::Filecoin(c, _) => {
            let got = c.bellperson_synthesis().map_err(|e| CliError::Msg(format!("bench synth: {e}")))?;
            if got != (shape.rows(), shape.aux) {
                return Err(CliError::Msg(format!(
                    "bench synth: bellperson synthesizes {} rows and {} aux, cuzk {} and {}",
                    got.0,
                    got.1,
                    shape.rows(),
                    shape.aux
                )));
            }
            Some(c)
        }
        _ => None,
    };
    // Real circuits add bellperson on one thread, then normal synthesis and bellperson on every thread.
    let extra = [
        Config { path: SynthPath::Bellperson, a1: false, a2: false, one_thread: true },
        Config::normal(false, false).on_all_threads(),
        Config { path: SynthPath::Bellperson, a1: false, a2: false, one_thread: false },
    ];
    let wanted = |c: &Config| only.is_empty() || only.contains(&c.path);
    let configs: Vec<Config> = CONFIGS[..1]
        .iter()
        .copied()
        .chain(CONFIGS[1..].iter().copied().filter(wanted))
        .chain(extra.into_iter().filter(|c| foreign.is_some() && wanted(c)))
        .collect();
    let all = rayon::current_num_threads();
    if foreign.is_some() {
        // The parallel configurations hold one assignment per thread.
        let est = budget::Estimate {
            what: format!("{}: bench synth on {all} threads", sample.name),
            parts: vec![("synthesis".into(), normal.saturating_mul(all as u64))],
            knob: budget::knob_advice(&sample),
        };
        est.check(&budget::mem_limit()).map_err(|e| CliError::Engine(e.into()))?;
    }
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .map_err(|e| CliError::Msg(format!("bench synth: one-thread pool: {e}")))?;
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); configs.len()];
    // `witness_kept`'s vector, made once untimed so its first repeat has one too.
    let mut kept = None;
    if configs.iter().any(|c| c.path == SynthPath::WitnessKept) {
        let warm = Config { path: SynthPath::WitnessKept, ..CONFIGS[0] };
        one.install(|| time_one(warm, &circuit, shape, &pce, &mut kept))?;
    }
    for _ in 0..repeat.max(1) {
        for (i, &c) in configs.iter().enumerate() {
            let bellperson = c.path == SynthPath::Bellperson;
            let s = match foreign {
                Some(fc) if bellperson && c.one_thread => one.install(|| time_bellperson(fc))?,
                Some(fc) if (bellperson || c.path == SynthPath::Normal) && !c.one_thread => {
                    time_parallel(&circuit, fc, bellperson, all)?
                }
                _ if c.one_thread => one.install(|| time_one(c, &circuit, shape, &pce, &mut kept))?,
                _ => time_one(c, &circuit, shape, &pce, &mut kept)?,
            };
            times[i].push(s);
        }
    }
    let rate = |t: &[f64]| rows / (median(t.iter().map(|s| s * 1e3).collect()) / 1e3);
    let off = rate(&times[0]);
    let results: Vec<SynthResult> = configs
        .iter()
        .zip(&times)
        .map(|(c, t)| {
            let ms = median(t.iter().map(|s| s * 1e3).collect());
            let (lo, hi) = t.iter().fold((f64::MAX, 0f64), |(lo, hi), &x| (lo.min(x), hi.max(x)));
            let normal = c.path == SynthPath::Normal;
            SynthResult {
                path: c.path,
                a1: normal.then_some(c.a1),
                a2: normal.then_some(c.a2),
                threads: if c.one_thread { 1 } else { all },
                constraints_per_sec: rows / (ms / 1e3),
                min_per_sec: rows / hi,
                max_per_sec: rows / lo,
                ms,
                vs_pce_off: Some(rate(t) / off),
            }
        })
        .collect();
    if json {
        let v = serde_json::json!({"op": "synth", "sample": sample.name, "constraints": shape.rows(),
            "repeats": repeat.max(1), "pce_bytes_per_constraint": pce.bytes_per_constraint(),
            "configs": results});
        println!("{}", serde_json::to_string_pretty(&v).map_err(|e| CliError::Msg(e.to_string()))?);
        return Ok(());
    }
    print_table(&sample.name, shape.rows(), repeat.max(1), &results);
    Ok(())
}

/// `--paths witness_only` alone: witness-only synthesis of circuit 0 on one thread, nothing else (no record,
/// no normal synthesis as reference), so a shape too large for normal synthesis (porep-32g: ~17 GB of
/// assignment, a 26 GiB record) is timed with only its witness in memory. `hint` (the footprint's shape,
/// extrapolated for large circuits) sizes the witness; the rate uses the rows the witness really has.
fn witness_alone(
    sample: &crate::circuits::Sample,
    hint: Shape,
    repeat: usize,
    json: bool,
) -> Result<(), CliError> {
    let witness_bytes = (hint.aux as u64).saturating_add(hint.inputs as u64).saturating_mul(2 * 32);
    let est = budget::Estimate {
        what: format!("{}: bench synth --paths witness_only", sample.name),
        parts: vec![("witness".into(), witness_bytes)],
        knob: budget::knob_advice(sample),
    };
    est.check(&budget::mem_limit()).map_err(|e| CliError::Engine(e.into()))?;
    let Some(circuit) = sample.sector_circuits(0).into_iter().next() else {
        return Err(CliError::Msg(format!("{}: the sample has no circuit", sample.path.display())));
    };
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .map_err(|e| CliError::Msg(format!("bench synth: one-thread pool: {e}")))?;
    let mut times = Vec::new();
    let mut rows = 0;
    for _ in 0..repeat.max(1) {
        let t = Instant::now();
        let w = one
            .install(|| WitnessOnly::synthesize(&circuit, Some(hint)))
            .map_err(|e| CliError::Msg(format!("{}: {e}", sample.path.display())))?;
        times.push(t.elapsed().as_secs_f64());
        rows = w.shape.rows();
        drop(w);
    }
    let ms = median(times.iter().map(|s| s * 1e3).collect());
    let (lo, hi) = times.iter().fold((f64::MAX, 0f64), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    let r = SynthResult {
        path: SynthPath::WitnessOnly,
        a1: None,
        a2: None,
        threads: 1,
        constraints_per_sec: rows as f64 / (ms / 1e3),
        min_per_sec: rows as f64 / hi,
        max_per_sec: rows as f64 / lo,
        ms,
        vs_pce_off: None,
    };
    if json {
        let v = serde_json::json!({"op": "synth", "sample": sample.name, "constraints": rows,
            "repeats": repeat.max(1), "configs": [r]});
        println!("{}", serde_json::to_string_pretty(&v).map_err(|e| CliError::Msg(e.to_string()))?);
        return Ok(());
    }
    print_table(&sample.name, rows, repeat.max(1), &[r]);
    Ok(())
}

/// The human table of [`bench_synth`].
fn print_table(name: &str, rows: usize, repeats: usize, results: &[SynthResult]) {
    println!("synth {name} ({rows} constraints, {repeats} repeats; vs off = rate over pce off, A1/A2 off)");
    println!(
        "{:<13} {:<4} {:<4} {:>7} {:>10} {:>12} {:>20} {:>7}",
        "path", "a1", "a2", "threads", "ms", "M constr/s", "min–max M/s", "vs off"
    );
    let on = |b: Option<bool>| match b {
        Some(true) => "on",
        Some(false) => "off",
        None => "-",
    };
    for r in results {
        let path = match r.path {
            SynthPath::Normal => "normal",
            SynthPath::WitnessOnly => "witness-only",
            SynthPath::WitnessKept => "witness-kept",
            SynthPath::Pce => "pce",
            SynthPath::PceRecord => "pce_record",
            SynthPath::Bellperson => "bellperson",
        };
        println!(
            "{:<13} {:<4} {:<4} {:>7} {:>10.1} {:>12.3} {:>20} {:>7}",
            path,
            on(r.a1),
            on(r.a2),
            r.threads,
            r.ms,
            r.constraints_per_sec / 1e6,
            format!("{:.3}–{:.3}", r.min_per_sec / 1e6, r.max_per_sec / 1e6),
            r.vs_pce_off.map_or("-".to_string(), |v| format!("{v:.2}×"))
        );
    }
}
