//! `cuzk soak`: many proofs in one process with resident bases, watching for leaks. It proves the sample run
//! after run on one engine (params and device copies kept), samples host RSS, the heap in use and each GPU's
//! used memory before the first run and after every run, and fails unless the host's and every device's
//! memory stay flat within a tolerance from the end of the warm-up (the first fifth of the runs, at least
//! one: params loaded, bases uploaded, allocator arenas filled) to the end of the last. Runs are not saved to
//! the run store.
//!
//! The host's check is the heap in use where glibc reports it, as a share of RSS at the warm-up: RSS also
//! holds free memory glibc keeps, which moves in steps of 1.5–2.5 MiB, so a 1% RSS limit failed soaks whose
//! heap grew alike (docs/PERF.md, session m). RSS is printed beside it, and checked where the heap is not
//! known.
//!
//! A device's used memory is read after its stream-ordered pool is trimmed to what is allocated: the pool
//! keeps freed scratch up to its release threshold by design, and how high it has grown depends on how the
//! tails and msm_h happened to overlap, so one 32 MiB chunk more came in run 2, 3 or 5 alike, in builds with
//! and without a change (docs/PERF.md, session ab). A leak holds its memory through the trim. Even trimmed, one
//! chunk came and went between runs (sessions ae and ai), so each quantity's end value is its lowest over
//! the last half of the runs after the warm-up: a leak lifts all of them.

use serde::Serialize;

use super::error::CliError;
use super::job::{EngineOpts, JobArgs};
use super::progress::LineProgress;
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
    /// Largest growth allowed from the end of the warm-up (a fifth of the runs) to the end of the last, in
    /// percent.
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
    /// Used memory per GPU (total − free, the kept pool trimmed first), bytes; empty on the CPU backend.
    pub device_used_bytes: Vec<u64>,
}

/// Each visible GPU's used memory once its kept pool is trimmed (module doc); empty without a usable GPU.
fn device_used() -> Vec<u64> {
    match crate::backend::gpu::device::gpus() {
        Ok(gs) => gs
            .iter()
            .map(|g| {
                // Frees are stream-ordered: one still queued behind a stream holds its memory through the
                // trim. On an H100, 40-proof soaks that trimmed without waiting took a 32 MiB chunk in one
                // of two; waiting first, none of two (docs/PERF.md, session aj).
                let _ = g.ctx.synchronize();
                if let Some(p) = &g.pool {
                    p.trim(&g.ctx);
                }
                g.free_mem().map_or(0, |f| g.mem_total.saturating_sub(f) as u64)
            })
            .collect(),
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
/// fill the allocator's per-thread arenas and caches, and host RSS rises over the first 10–15 runs before
/// it levels off: a tenth (5 of gpu-check's 50 runs) ended inside that rise (docs/PERF.md). Growth after the
/// warm-up is what a leak looks like.
fn warm_up_runs(runs: usize) -> usize {
    (runs / 5).max(1)
}

/// One quantity the soak watches: its value at the warm-up and at the end, what its growth is a share of, and
/// whether that growth can fail the soak.
#[derive(Debug)]
struct Check {
    name: String,
    from: u64,
    to: u64,
    /// The growth's denominator: the value itself, or host RSS at the warm-up for the heap.
    base: u64,
    /// False for RSS where the heap is known: printed, not held flat.
    checked: bool,
}

impl Check {
    fn growth_pct(&self) -> f64 {
        if self.base == 0 {
            0.0
        } else {
            100.0 * (self.to as f64 - self.from as f64) / self.base as f64
        }
    }

    fn span(&self) -> String {
        let of =
            if self.base == self.from { String::new() } else { format!(" of {:.1} MiB RSS", mib(self.base)) };
        format!("{:.1} → {:.1} MiB{of}", mib(self.from), mib(self.to))
    }
}

/// The samples a check ends on: the last half of those after the warm-up (at least the last one). Each
/// quantity's end value is its lowest there, the floor the process keeps coming back to: a leak lifts every
/// one of them, while a 32 MiB chunk the device's pool takes at some runs and not at others (gpu0 1 342.8 →
/// 1 374.8 MiB and back within one soak, sessions ab, ae and ai) lifts only some.
fn tail(samples: &[MemSample], warm_at: usize) -> &[MemSample] {
    let after = samples.len().saturating_sub(warm_at + 1);
    &samples[samples.len() - (after / 2).max(1).min(samples.len())..]
}

/// The lowest of `v` over `tail` (`None` if any sample lacks it).
fn floor(tail: &[MemSample], v: impl Fn(&MemSample) -> Option<u64>) -> Option<u64> {
    tail.iter().map(v).try_fold(u64::MAX, |lo, x| x.map(|x| lo.min(x)))
}

/// The soak's checks from the warm-up sample to the floor of the `tail` samples ([`tail`]): host RSS (held
/// flat only where the heap is not known), the host's heap in use as a share of RSS, then each GPU's used
/// memory.
fn checks(warm: &MemSample, tail: &[MemSample]) -> Vec<Check> {
    let rss = (warm.rss_bytes, floor(tail, |s| Some(s.rss_bytes)).unwrap_or(warm.rss_bytes));
    let heap = warm.heap_bytes.zip(floor(tail, |s| s.heap_bytes));
    let own = |name: String, (from, to): (u64, u64), checked| Check { name, from, to, base: from, checked };
    let mut v = vec![own("host RSS".into(), rss, heap.is_none())];
    if let Some((from, to)) = heap {
        v.push(Check { name: "host heap".into(), from, to, base: rss.0, checked: true });
    }
    let gpus = warm.device_used_bytes.iter().enumerate().map(|(d, &from)| {
        let to = floor(tail, |s| s.device_used_bytes.get(d).copied()).unwrap_or(from);
        own(format!("gpu{d} used"), (from, to), true)
    });
    v.extend(gpus);
    v
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
    let ctl =
        RunCtl { cancel: cancel.clone(), progress: &report, feed: None, timing_log: false, device: None };
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
    let end = tail(&samples, warm_at);
    let checks = checks(&samples[warm_at], end);
    let grown: Vec<String> = checks
        .iter()
        .filter(|c| c.checked && c.growth_pct() > args.tolerance_pct)
        .map(|c| format!("{} grew {:+.2}% ({})", c.name, c.growth_pct(), c.span()))
        .collect();
    if args.json {
        let v = serde_json::json!({
            "sample": sample.name, "backend": backend.name(), "proofs": made, "runs": runs,
            "failed_proofs": failed, "srs_resident": toggles.on(Toggle::SrsResident),
            "tolerance_pct": args.tolerance_pct, "warm_up_runs": warm_at, "end_samples": end.len(), "samples": samples, "flat": grown.is_empty(),
            "checks": checks.iter().map(|c| serde_json::json!({
                "name": c.name, "from_bytes": c.from, "to_bytes": c.to, "base_bytes": c.base, "growth_pct": c.growth_pct(),
                "checked": c.checked,
            })).collect::<Vec<_>>(),
        });
        println!("{}", serde_json::to_string_pretty(&v).map_err(|e| CliError::Msg(e.to_string()))?);
    } else {
        print!(
            "{}",
            table(
                &sample.name,
                backend.name(),
                (runs, warm_at, end.len()),
                made,
                &samples,
                &checks,
                args.tolerance_pct
            )
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

/// The soak's table: memory before, after the warm-up run, at every tenth of the runs and at the end; then
/// one line per quantity with its growth to its floor over the last `tail_len` samples.
fn table(
    name: &str,
    backend: &str,
    (runs, warm_at, tail_len): (usize, usize, usize),
    made: usize,
    samples: &[MemSample],
    checks: &[Check],
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
    s.push_str(&format!("end values: the lowest of the last {tail_len} samples (a leak lifts them all)\n"));
    for c in checks {
        let g = c.growth_pct();
        let verdict = match (c.checked, g > tol) {
            (false, _) => "; not checked: it holds free memory glibc keeps)".to_string(),
            (true, over) => format!(", limit {tol}%) {}", if over { "NOT FLAT" } else { "flat" }),
        };
        s.push_str(&format!("{}: {} ({g:+.2}%{verdict}\n", c.name, c.span()));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(rss_mib: u64, heap_mib: Option<u64>, gpu_mib: &[u64]) -> MemSample {
        MemSample {
            proofs: 0,
            rss_bytes: rss_mib << 20,
            heap_bytes: heap_mib.map(|h| h << 20),
            device_used_bytes: gpu_mib.iter().map(|g| g << 20).collect(),
        }
    }

    #[test]
    fn the_heap_is_checked_against_rss_where_known() {
        // RSS +2% (an allocator step), heap +1 MiB of 200 MiB RSS: 0.5%, flat at 1%.
        let c = checks(&at(200, Some(50), &[600]), &[at(204, Some(51), &[600])]);
        assert_eq!((c[0].name.as_str(), c[0].checked), ("host RSS", false));
        assert!((c[0].growth_pct() - 2.0).abs() < 1e-9);
        assert_eq!((c[1].name.as_str(), c[1].checked), ("host heap", true));
        assert!((c[1].growth_pct() - 0.5).abs() < 1e-9);
        assert_eq!((c[2].name.as_str(), c[2].checked), ("gpu0 used", true));
        assert_eq!(c[2].growth_pct(), 0.0);
        let t = table("s", "gpu", (5, 1, 1), 5, &[at(1, None, &[]), at(200, None, &[])], &c, 1.0);
        assert!(t.contains("host RSS: 200.0 → 204.0 MiB (+2.00%; not checked"), "{t}");
        assert!(t.contains("host heap: 50.0 → 51.0 MiB of 200.0 MiB RSS (+0.50%, limit 1%) flat"), "{t}");
        // A heap that grows 4 MiB (2% of RSS) is a leak whatever RSS does.
        let c = checks(&at(200, Some(50), &[]), &[at(200, Some(54), &[])]);
        assert!((c[1].growth_pct() - 2.0).abs() < 1e-9);
    }

    #[test]
    fn rss_is_checked_where_the_heap_is_not_known() {
        let c = checks(&at(200, None, &[600, 700]), &[at(203, None, &[606, 700])]);
        assert_eq!((c[0].name.as_str(), c[0].checked, c.len()), ("host RSS", true, 3));
        assert!((c[0].growth_pct() - 1.5).abs() < 1e-9);
        assert!((c[1].growth_pct() - 1.0).abs() < 1e-9);
        assert_eq!(c[2].name, "gpu1 used");
        let t = table("s", "gpu", (5, 1, 1), 5, &[at(1, None, &[]), at(200, None, &[])], &c, 1.0);
        assert!(t.contains("host RSS: 200.0 → 203.0 MiB (+1.50%, limit 1%) NOT FLAT"), "{t}");
    }

    /// The device series of session ai's gpu-check soak (a chunk taken at some runs, given back at others)
    /// is flat; a chunk more at every run of the tail, or a steady climb, is a leak; the heap alike.
    #[test]
    fn the_end_value_is_the_floor_of_the_last_half() {
        let series = |gpu: &[u64]| -> Vec<MemSample> {
            gpu.iter()
                .enumerate()
                .map(|(i, &g)| MemSample { proofs: 2 * i, ..at(172, Some(46), &[g]) })
                .collect()
        };
        let grew = |s: &[MemSample]| checks(&s[2], tail(s, 2))[2].growth_pct();
        let seen = series(&[527, 1343, 1343, 1375, 1375, 1375, 1375, 1375, 1343, 1343, 1375]);
        assert_eq!(tail(&seen, 2).len(), 4, "the last half of the 8 samples after the warm-up");
        assert_eq!(grew(&seen), 0.0);
        let stuck = series(&[527, 1343, 1343, 1375, 1375, 1375, 1375, 1375, 1375, 1375, 1375]);
        assert!(grew(&stuck) > 2.0, "a chunk held through the whole tail");
        let climb: Vec<u64> = (0..11).map(|i| 1343 + 8 * i).collect();
        assert!(grew(&series(&climb)) > 2.0, "a steady climb");
        // One sample after the warm-up: it alone is the tail.
        let short = series(&[527, 1343, 1375]);
        assert_eq!(tail(&short, 1).len(), 1);
        assert!(checks(&short[1], tail(&short, 1))[2].growth_pct() > 2.0);
        let heap = |h: &[u64]| -> Vec<MemSample> { h.iter().map(|&h| at(200, Some(h), &[])).collect() };
        let leak = heap(&[4, 46, 46, 47, 48, 49, 50, 51]);
        assert!(checks(&leak[1], tail(&leak, 1))[1].growth_pct() > 1.0, "the heap's floor climbs");
    }
}
