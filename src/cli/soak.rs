//! `cuzk soak`: many proofs in one process with resident bases, watching for leaks. It proves the sample run
//! after run on one engine (params and device copies kept), samples host RSS and each GPU's used memory
//! (and the heap in use) before the first run and after every run, and fails unless RSS and device memory stay
//! flat within a tolerance from the end of the warm-up (the first fifth of the runs, at least one: params
//! loaded, bases uploaded, allocator arenas filled) to the end of the last. Runs are not
//! saved to the run store.

use serde::Serialize;

use super::job::{EngineOpts, JobArgs};
use super::progress::LineProgress;
use super::CliError;
use crate::engine::{host, Engine, RunCtl, RunSpec};
use crate::vocab::{CancelToken, Toggle};

/// Options of `cuzk soak`.
#[derive(clap::Args, Debug)]
pub struct SoakArgs {
    /// What to prove.
    #[command(flatten)]
    pub job: JobArgs,
    /// Proofs to make in all, 1..=100000 (whole runs of the sample's sectors × partitions).
    #[arg(long, default_value = "100", value_parser = proofs_arg)]
    pub proofs: usize,
    /// Largest growth allowed from the end of the warm-up (a fifth of the runs) to the end of the last, in percent.
    #[arg(long, default_value_t = 1.0)]
    pub tolerance_pct: f64,
    /// Print JSON instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Engine options.
    #[command(flatten)]
    pub engine: EngineOpts,
}

fn proofs_arg(s: &str) -> Result<usize, String> {
    crate::vocab::limits::SOAK_PROOFS.parse(s).map_err(|e| e.reason())
}

/// One sample of memory: after how many proofs, host RSS, each device's used bytes.
#[derive(Clone, Debug, Serialize)]
pub struct MemSample {
    /// Proofs made so far (0: before the first run).
    pub proofs: usize,
    /// Host resident set, bytes.
    pub rss_bytes: u64,
    /// Heap bytes allocated and not freed (glibc only): grows with a leak, stays put when only RSS grows.
    pub heap_bytes: Option<u64>,
    /// Used memory per GPU (total − free), bytes; empty on the CPU backend.
    pub device_used_bytes: Vec<u64>,
}

/// Each visible GPU's used memory (empty without a usable GPU).
fn device_used() -> Vec<u64> {
    match crate::backend::gpu::device::gpus() {
        Ok(gs) => {
            gs.iter().map(|g| g.free_mem().map_or(0, |f| g.mem_total.saturating_sub(f) as u64)).collect()
        }
        Err(_) => Vec::new(),
    }
}

fn sample_now(proofs: usize) -> MemSample {
    MemSample {
        proofs,
        rss_bytes: host::rss_bytes(),
        heap_bytes: host::heap_in_use_bytes(),
        device_used_bytes: device_used(),
    }
}

/// Runs before the baseline: a fifth of them, at least one. The first runs load params, upload bases and
/// fill the allocator's per-thread arenas and caches (on h200-16c host RSS rose 172 → 194 MiB over the first
/// 15 porep-tiny runs, then 194 → 196 MiB over the next 135, heap in use levelling off likewise; with `g2d`
/// on, 235.9 → 238.3 MiB from run 5 to run 10, then 238.3 → 239.2 over the next 40, docs/PERF.md): a tenth
/// (5 of gpu-check's 50 runs) ended inside that rise. Growth after the warm-up is what a leak looks like.
fn warm_up_runs(runs: usize) -> usize {
    (runs / 5).max(1)
}

fn growth_pct(from: u64, to: u64) -> f64 {
    if from == 0 {
        0.0
    } else {
        100.0 * (to as f64 - from as f64) / from as f64
    }
}

fn mib(b: u64) -> f64 {
    b as f64 / (1u64 << 20) as f64
}

/// `cuzk soak`.
pub fn soak(args: SoakArgs) -> Result<(), CliError> {
    let (sample, toggles, selected) = args.job.resolve()?;
    let cancel = CancelToken::new();
    super::interrupt::install(cancel.clone());
    let engine = Engine::new();
    let backend = selected.backend.as_ref();
    let per_run = sample.sectors * sample.circuits_per_sector();
    let runs = args.proofs.div_ceil(per_run.max(1));
    let mem_budget = args.engine.mem_budget.unwrap_or_else(crate::engine::default_mem_budget);
    let spec = RunSpec { sample: &sample, toggles, backend, repeats: 1, mem_budget };
    engine.plan(&spec)?;
    let mut samples = vec![sample_now(0)];
    let progress = LineProgress::new(format!("setup {}:", sample.name));
    let report = |stage: &str, done: usize, total: usize| progress.update(stage, done, total);
    let ctl = RunCtl { cancel: cancel.clone(), progress: &report, feed: None, timing_log: false };
    let (mut made, mut failed) = (0usize, 0usize);
    for r in 0..runs {
        let result = engine.run(&spec, &ctl);
        if r == 0 {
            progress.finish();
        }
        let result = result?;
        made += result.last.proofs.len();
        failed += result.last.verified.as_ref().map_or(0, |v| v.iter().filter(|ok| !**ok).count());
        samples.push(sample_now(made));
    }
    let warm_at = warm_up_runs(runs).min(samples.len() - 1);
    let warm = &samples[warm_at];
    let last = &samples[samples.len() - 1];
    let mut checks = vec![("host RSS".to_string(), warm.rss_bytes, last.rss_bytes)];
    for (d, (&a, &b)) in warm.device_used_bytes.iter().zip(&last.device_used_bytes).enumerate() {
        checks.push((format!("gpu{d} used"), a, b));
    }
    let grown: Vec<String> = checks
        .iter()
        .filter(|(_, a, b)| growth_pct(*a, *b) > args.tolerance_pct)
        .map(|(n, a, b)| {
            format!("{n} grew {:+.2}% ({:.1} → {:.1} MiB)", growth_pct(*a, *b), mib(*a), mib(*b))
        })
        .collect();
    if args.json {
        let v = serde_json::json!({
            "sample": sample.name, "backend": backend.name(), "proofs": made, "runs": runs,
            "failed_proofs": failed, "srs_resident": toggles.on(Toggle::SrsResident),
            "tolerance_pct": args.tolerance_pct, "warm_up_runs": warm_at, "samples": samples, "flat": grown.is_empty(),
        });
        println!("{}", serde_json::to_string_pretty(&v).map_err(|e| CliError::Msg(e.to_string()))?);
    } else {
        print!(
            "{}",
            table(&sample.name, backend.name(), (runs, warm_at), made, &samples, &checks, args.tolerance_pct)
        );
    }
    if failed > 0 {
        return Err(CliError::Msg(format!("soak: {failed} of {made} proofs did not verify")));
    }
    if !grown.is_empty() {
        return Err(CliError::Msg(format!(
            "soak: not flat within {}%: {}",
            args.tolerance_pct,
            grown.join("; ")
        )));
    }
    Ok(())
}

/// The soak's table: memory before, after the warm-up run, at every tenth of the runs and at the end; then one
/// line per quantity with its growth.
fn table(
    name: &str,
    backend: &str,
    (runs, warm_at): (usize, usize),
    made: usize,
    samples: &[MemSample],
    checks: &[(String, u64, u64)],
    tol: f64,
) -> String {
    let gpus = samples.iter().map(|s| s.device_used_bytes.len()).max().unwrap_or(0);
    let mut s = format!("soak {name} · backend {backend} · {made} proofs in {runs} runs\n");
    s.push_str(&format!("{:>8} {:>14} {:>14}", "proofs", "host RSS MiB", "heap used MiB"));
    for d in 0..gpus {
        s.push_str(&format!(" {:>14}", format!("gpu{d} used MiB")));
    }
    s.push('\n');
    let step = (samples.len() / 10).max(1);
    for (i, m) in samples.iter().enumerate() {
        if !(i <= 1 || i == warm_at || i % step == 0 || i + 1 == samples.len()) {
            continue;
        }
        let note = match i {
            0 => "  before",
            i if i == warm_at => "  after warm-up (baseline)",
            _ => "",
        };
        let heap = m.heap_bytes.map_or("-".to_string(), |h| format!("{:.3}", mib(h)));
        s.push_str(&format!("{:>8} {:>14.1} {heap:>14}", m.proofs, mib(m.rss_bytes)));
        for d in 0..gpus {
            s.push_str(&format!(" {:>14.1}", mib(m.device_used_bytes.get(d).copied().unwrap_or(0))));
        }
        s.push_str(note);
        s.push('\n');
    }
    for (n, a, b) in checks {
        let g = growth_pct(*a, *b);
        let verdict = if g > tol { "NOT FLAT" } else { "flat" };
        s.push_str(&format!("{n}: {:.1} → {:.1} MiB ({g:+.2}%, limit {tol}%) {verdict}\n", mib(*a), mib(*b)));
    }
    s
}
