//! `cuzk setup`, `cuzk prove` and `cuzk verify`.

use std::path::Path;

use super::error::CliError;
use super::job::{EngineOpts, JobArgs, Session};
use super::outputs;
use super::progress::LineProgress;
use crate::engine::sample::{self, Overrides};
use crate::engine::stats::summarize;
use crate::engine::{Engine, ParamsOrigin};
use crate::groth16::proof::{read_inputs, read_proofs};
use crate::groth16::verify::{verify_batch, PreparedVerifyingKey};
use crate::groth16::VerifyingKey;
use crate::timeline::record::PhaseTotals;
use crate::timeline::record::RunRecord;
use crate::vocab::{is_setup_phase, is_sub_phase, phase_order};

/// `cuzk setup`: prints the params file path as its last line (`request`: a C1 or PoSt file instead of a sample).
pub fn setup(
    sample_path: &Path,
    request: Option<&Path>,
    seed: Option<u64>,
    backend: crate::vocab::BackendKind,
) -> Result<(), CliError> {
    let o = Overrides { seed, ..Overrides::default() };
    let (sample, _) = match request {
        Some(file) => sample::load_request(file, &o)?,
        None => sample::load(sample_path, &o)?,
    };
    let cancel = crate::vocab::CancelToken::new();
    super::interrupt::install(cancel.clone());
    let chosen = crate::backend::select::select(backend)?;
    let progress = LineProgress::new(format!("generating params for {}:", sample.name));
    let r = Engine::new().load_params_on(
        &sample,
        Some(chosen.backend.as_ref()),
        &|stage, done, total| progress.update(stage, done, total),
        &cancel,
    );
    progress.finish();
    let (_, info) = r?;
    use crate::groth16::cache::CacheOutcome;
    if let Some(w) = info.outcome.as_ref().and_then(|o| o.warning()) {
        if let Some(CacheOutcome::NotStored { .. }) = &info.outcome {
            // `setup`'s product is the cached file: without it the command failed.
            return Err(CliError::Msg(w.to_string()));
        }
        eprintln!("warning: {w}");
    }
    let how = match &info.outcome {
        Some(CacheOutcome::Loaded) => "loaded from cache",
        Some(CacheOutcome::Built) => "generated",
        Some(CacheOutcome::Rebuilt { .. }) => "regenerated (cache entry was invalid)",
        None if info.origin == ParamsOrigin::File => "read from the params file (not generated)",
        Some(CacheOutcome::NotStored { .. }) | None => "in memory",
    };
    let on = match &info.outcome {
        Some(CacheOutcome::Built | CacheOutcome::Rebuilt { .. }) if chosen.backend.has_device() => {
            format!(", fixed-base multiplications on {}", chosen.backend.device())
        }
        _ => String::new(),
    };
    eprintln!(
        "{} constraints, {} aux, domain 2^{}: {how}{on}",
        info.shape.rows(),
        info.shape.aux,
        info.shape.domain().trailing_zeros()
    );
    println!("{}", info.path.display());
    Ok(())
}

/// Options of `cuzk prove`.
pub struct ProveArgs {
    /// What to prove.
    pub job: JobArgs,
    /// Repeats.
    pub repeat: usize,
    /// Output folder for vk.bin, proofs.bin, inputs.bin.
    pub out: Option<std::path::PathBuf>,
    /// Export folder (all formats).
    pub export: Option<std::path::PathBuf>,
    /// Print the record summary as JSON.
    pub json: bool,
    /// Common engine options.
    pub engine: EngineOpts,
    /// Write `--out` even when some proofs failed verification.
    pub out_failed: bool,
}

/// `cuzk prove`.
pub fn prove(args: ProveArgs) -> Result<(), CliError> {
    // Where the files go is checked before any work.
    if let Some(dir) = &args.out {
        outputs::check_out_dir(dir)?;
    }
    if let Some(dir) = &args.export {
        outputs::check_export_dir(dir)?;
    }
    let (sample, toggles, selected) = args.job.resolve()?;
    let session = Session::open(&args.engine)?;
    let (result, path) =
        session.run_and_save(&session.spec(&sample, toggles, selected.backend.as_ref(), args.repeat))?;
    let rec = &result.record;
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&summary_json(rec, &path))
                .map_err(|e| CliError::Msg(e.to_string()))?
        );
    } else {
        let what = match &sample.filecoin {
            Some(job) => format!("{} · {} partition(s) ×", job.registered.name(), job.partitions()),
            None => format!("{} circuits ×", rec.sample.circuits),
        };
        println!(
            "{} · {what} {} constraints · backend {} ({}; {}) · seed {}",
            sample.name,
            rec.sample.constraints,
            selected.backend.name(),
            selected.backend.device(),
            selected.reason,
            sample.seed
        );
        println!("toggles: {}", toggles.compact());
        print!("{}", phase_table(rec));
        match &result.last.verified {
            Some(v) if v.iter().all(|&ok| ok) => println!("verified: all {} proofs", v.len()),
            Some(v) => {
                println!("verified: {} of {} proofs FAILED", v.iter().filter(|ok| !**ok).count(), v.len())
            }
            None => println!("verified: skipped (verify=off)"),
        }
        if rec.dropped_events > 0 {
            println!("timeline: {} events dropped", rec.dropped_events);
        }
        println!("run {} saved to {}", rec.id, path.display());
    }
    let failed = result.last.verified.as_ref().is_some_and(|v| v.iter().any(|ok| !ok));
    if let Some(dir) = &args.out {
        if failed && !args.out_failed {
            eprintln!(
                "not writing {}: some proofs failed verification (--out-failed writes them)",
                dir.display()
            );
        } else {
            outputs::write_set(dir, &result.params.vk, &result.last)?;
            eprintln!("wrote {}/{{vk.bin,proofs.bin,inputs.bin}}", dir.display());
        }
    }
    if let (Some(job), ParamsOrigin::Local) = (&sample.filecoin, &result.params_info.origin) {
        eprintln!(
            "note: {} params were generated by cuzk (seed {}, cached at {}): these proofs verify only with that \
             params set's vk (--out writes it as vk.bin), not with Filecoin's production key; prove with \
             --params FILE or {} set to use production params",
            job.registered.name(),
            sample.seed,
            result.params_info.path.display(),
            crate::engine::FIL_PARAMS_ENV
        );
    }
    if let Some(dir) = &args.export {
        for p in super::runs::export_all(rec, dir)? {
            eprintln!("exported {}", p.display());
        }
    }
    if failed {
        return Err(CliError::Msg("some proofs did not verify".into()));
    }
    // Milestone: what follows is the engine's and the backend's teardown (session aj: ~10 ms).
    crate::util::marks::mark("outputs_done");
    Ok(())
}

/// The short JSON `cuzk prove --json` prints (the full record is in the store and `cuzk export --format json`).
fn summary_json(rec: &RunRecord, path: &Path) -> serde_json::Value {
    let after = rec.after_synthesis_us();
    let phases: serde_json::Map<String, serde_json::Value> = phase_medians(rec)
        .into_iter()
        .map(|(name, count, med, min, max)| {
            (name, serde_json::json!({"count": count, "median_ms": med, "min_ms": min, "max_ms": max}))
        })
        .collect();
    serde_json::json!({
        "id": rec.id,
        "record": path.display().to_string(),
        "sample": rec.sample.name,
        "backend": rec.backend,
        "toggles": rec.toggles,
        "repeats": rec.repeats.len(),
        "wall_ms": rec.repeats.iter().map(|r| r.wall_us as f64 / 1e3).collect::<Vec<_>>(),
        "wall_median_ms": rec.wall_median_us() as f64 / 1e3,
        "setup_ms": rec.setup_us() as f64 / 1e3,
        "after_synthesis_ms": after.iter().map(|r| r.iter().map(|&us| us as f64 / 1e3).collect::<Vec<_>>()).collect::<Vec<_>>(),
        "after_synthesis_median_ms": after_median_ms(&after),
        "phases": phases,
        "device_lanes": device_medians(rec)
            .into_iter()
            .map(|(lane, busy, idle)| (lane, serde_json::json!({"busy_median_ms": busy, "idle_median_ms": idle})))
            .collect::<serde_json::Map<String, serde_json::Value>>(),
        "verified": rec.all_verified(),
        "dropped_events": rec.dropped_events,
    })
}

/// The median over every call of every repeat of [`RunRecord::after_synthesis_us`], ms (`None`: no call had
/// both a synthesis and an assemble).
fn after_median_ms(after: &[Vec<u64>]) -> Option<f64> {
    let all: Vec<f64> = after.iter().flatten().map(|&us| us as f64 / 1e3).collect();
    crate::util::median::median(&all)
}

/// Per phase over repeats (setup phases apart): (name, instances per repeat, median, min, max of the summed
/// ms), the same statistic `compare` reports.
pub fn phase_medians(rec: &RunRecord) -> Vec<(String, u64, f64, f64, f64)> {
    let mut names: Vec<&String> =
        rec.repeats.iter().flat_map(|r| r.phases.keys()).filter(|n| !is_setup_phase(n)).collect();
    names.sort_by_key(|n| phase_order(n));
    names.dedup();
    names
        .into_iter()
        .filter_map(|name| {
            let per = |f: &dyn Fn(&PhaseTotals) -> f64| -> Vec<f64> {
                rec.repeats.iter().map(|r| r.phases.get(name).map_or(0.0, f)).collect()
            };
            let s = summarize(&per(&|t| t.sum_us as f64 / 1e3))?;
            let count = summarize(&per(&|t| t.count as f64)).map_or(0, |c| c.median.round() as u64);
            Some((name.clone(), count, s.median, s.min, s.max))
        })
        .collect()
}

/// The per-phase table: phase, count (instances per repeat), the phase's summed ms per repeat (median over
/// repeats, with min–max when repeated), that divided by the count (a 32 GiB sector's 10 `synthesis` spans
/// sum to ~50 s a repeat, each ~5 s), share of the proving wall (above 100% where instances overlap); then
/// the wall (median of the repeats' walls), `after synth`, each device lane's busy and idle time
/// ([`device_medians`]), and the setup phases, which lie outside the wall.
pub fn phase_table(rec: &RunRecord) -> String {
    let walls: Vec<f64> = rec.repeats.iter().map(|r| r.wall_us as f64 / 1e3).collect();
    let w = summarize(&walls);
    // The record's one wall (median in whole µs), so the table prints what the exports and `runs` print: the
    // mean of two repeats in f64 ms (1259.7499…) once rounded to 1259.7 against the record's 1259.8.
    let wall = (rec.wall_median_us() as f64 / 1e3).max(1e-3);
    let many = rec.repeats.len() > 1;
    let mut s = format!(
        "{:<12} {:>6} {:>12} {:>10} {:>8}{}\n",
        "phase",
        "count",
        "ms/repeat",
        "ms each",
        "of wall",
        if many { "   min–max ms/repeat" } else { "" }
    );
    for (name, count, med, min, max) in phase_medians(rec) {
        let label = if is_sub_phase(&name) { format!("  {name}") } else { name };
        let range = if many { format!("   {min:.1}–{max:.1}") } else { String::new() };
        let each = if count > 0 { format!("{:.1}", med / count as f64) } else { "-".to_string() };
        s.push_str(&format!(
            "{label:<12} {count:>6} {med:>12.1} {each:>10} {:>7.1}%{range}\n",
            100.0 * med / wall
        ));
    }
    let range = match w {
        Some(w) if many => format!("   {:.1}–{:.1}", w.min, w.max),
        _ => String::new(),
    };
    s.push_str(&format!("{:<12} {:>6} {:>12.1} {:>10} {:>7.1}%{range}\n", "wall", "", wall, "", 100.0));
    let after = rec.after_synthesis_us();
    if let Some(med) = after_median_ms(&after) {
        let calls = after.iter().map(Vec::len).sum::<usize>();
        s.push_str(&format!("{:<12} {calls:>6} {:>12} {med:>10.1} {:>8}\n", "after synth", "", "per call"));
    }
    for (lane, busy, idle) in device_medians(rec) {
        for (what, ms) in [("busy", busy), ("idle", idle)] {
            let name = format!("{lane} {what}");
            s.push_str(&format!("{name:<12} {:>6} {ms:>12.1} {:>10} {:>7.1}%\n", "", "", 100.0 * ms / wall));
        }
    }
    for (name, us) in rec.setup_phases() {
        s.push_str(&format!("{name:<12} {:>6} {:>12.1} {:>10} {:>8}\n", "", us as f64 / 1e3, "", "setup"));
    }
    s
}

/// Per device lane (`gpu<d>`): the median over repeats of its busy and idle ms
/// ([`RunRecord::device_lanes_ms`]: idle is the time between its first and last span that no span covers).
pub fn device_medians(rec: &RunRecord) -> Vec<(String, f64, f64)> {
    let med = |v: &[f64]| crate::util::median::median(v).unwrap_or(0.0);
    rec.device_lanes_ms().into_iter().map(|(lane, busy, idle)| (lane, med(&busy), med(&idle))).collect()
}

/// `cuzk verify`: every proof in the file against the vk and the inputs; fails if any does not verify.
pub fn verify(vk: &Path, proof: &Path, inputs: &Path) -> Result<(), CliError> {
    let vk = VerifyingKey::read_file(vk)?;
    let proofs = read_proofs(proof)?;
    if proofs.is_empty() {
        return Err(CliError::Msg(format!(
            "{}: no proofs (the file is empty; expected one or more 192-byte proofs)",
            proof.display()
        )));
    }
    let flat = read_inputs(inputs)?;
    let per = vk.ic.len().saturating_sub(1);
    if flat.len() != per * proofs.len() {
        return Err(CliError::Msg(format!(
            "{}: {} public inputs for {} proofs, expected {} ({} per proof from the vk)",
            inputs.display(),
            flat.len(),
            proofs.len(),
            per * proofs.len(),
            per
        )));
    }
    let chunks: Vec<&[blstrs::Scalar]> =
        if per == 0 { vec![&[][..]; proofs.len()] } else { flat.chunks(per).collect() };
    let ok = verify_batch(&PreparedVerifyingKey::new(&vk), &proofs, &chunks)?;
    for (i, good) in ok.iter().enumerate() {
        println!("proof {i}: {}", if *good { "ok" } else { "INVALID" });
    }
    if ok.iter().all(|g| *g) {
        println!("all {} proofs verified", ok.len());
        Ok(())
    } else {
        Err(CliError::Msg(format!(
            "{} of {} proofs did not verify",
            ok.iter().filter(|g| !**g).count(),
            ok.len()
        )))
    }
}
