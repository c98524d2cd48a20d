//! `cuzk setup`, `cuzk prove` and `cuzk verify`.

use std::path::{Path, PathBuf};

use crate::backend::select::{select, BackendKind};
use crate::circuits::Sample;
use crate::engine::store::RunStore;
use crate::engine::{default_mem_budget, load_params, run, JobOutput, ParamsInfo, RunResult, RunSpec};
use crate::groth16::proof::{read_inputs, read_proofs, write_inputs, write_proofs};
use crate::groth16::verify::{verify_batch, PreparedVerifyingKey};
use crate::groth16::{phases, Parameters, VerifyingKey};
use crate::timeline::record::RunRecord;
use crate::toggles::Toggles;

use super::progress::LineProgress;
use super::CliError;

/// Loads a sample with `--seed` applied.
pub fn load_sample(path: &Path, seed: Option<u64>) -> Result<Sample, CliError> {
    let mut s = Sample::load(path)?;
    if let Some(seed) = seed {
        s.seed = seed;
    }
    Ok(s)
}

/// Params for a sample, with a progress line while a setup runs and the cache's warning if any.
pub fn params_with_progress(sample: &Sample) -> Result<(std::sync::Arc<Parameters>, ParamsInfo), CliError> {
    let progress = LineProgress::new(format!("setup {}:", sample.name));
    let r = load_params(sample, &|stage, done, total| progress.update(stage, done, total));
    progress.finish();
    let (params, info) = r?;
    if let Some(w) = info.outcome.as_ref().and_then(|o| o.warning()) {
        eprintln!("warning: {w}");
    }
    Ok((params, info))
}

/// `cuzk setup`: prints the params file path as its last line.
pub fn setup(sample: &Path, seed: Option<u64>) -> Result<(), CliError> {
    let sample = load_sample(sample, seed)?;
    let (_, info) = params_with_progress(&sample)?;
    let how = match &info.outcome {
        Some(crate::groth16::cache::CacheOutcome::Loaded) => "loaded from cache",
        Some(crate::groth16::cache::CacheOutcome::Built) => "generated",
        Some(crate::groth16::cache::CacheOutcome::Rebuilt { .. }) => "regenerated (cache entry was invalid)",
        None => "in memory",
    };
    eprintln!(
        "{} constraints, {} aux, domain 2^{}: {how}",
        info.shape.rows(),
        info.shape.aux,
        info.shape.domain().trailing_zeros()
    );
    println!("{}", info.path.display());
    Ok(())
}

/// What to prove: the options `prove` and `ablate` share.
#[derive(clap::Args, Debug, Clone)]
pub struct JobArgs {
    /// The sample file.
    #[arg(long, default_value = super::DEFAULT_SAMPLE)]
    pub sample: PathBuf,
    /// Backend.
    #[arg(long, value_enum, default_value_t = BackendKind::Auto)]
    pub backend: BackendKind,
    /// Seed for witness, params and randomizers (default: the sample's).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Toggles, e.g. `a1=on,d4=off,batch=2` (for ablate: the baseline).
    #[arg(long)]
    pub set: Option<String>,
    /// Sectors to prove (default: the sample's).
    #[arg(long)]
    pub sectors: Option<usize>,
}

impl JobArgs {
    /// The sample with the overrides applied, its toggles, and the backend.
    pub fn resolve(&self) -> Result<(Sample, Toggles, crate::backend::select::Selected), CliError> {
        let (sample, toggles) =
            sample_and_toggles(&self.sample, self.seed, self.sectors, self.set.as_deref())?;
        Ok((sample, toggles, select(self.backend)?))
    }
}

/// Options of `cuzk prove`.
pub struct ProveArgs {
    /// What to prove.
    pub job: JobArgs,
    /// Repeats.
    pub repeat: usize,
    /// Output folder for vk.bin, proofs.bin, inputs.bin.
    pub out: Option<PathBuf>,
    /// Export folder (all formats).
    pub export: Option<PathBuf>,
    /// Print the record summary as JSON.
    pub json: bool,
    /// Common engine options.
    pub engine: EngineOpts,
}

/// Options every run-making command shares.
#[derive(clap::Args, Debug, Clone)]
pub struct EngineOpts {
    /// Data dir for runs and exports (default: $CUZK_HOME, else the user data dir).
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// Pipeline memory budget, e.g. 8G or 512M (default: half the machine's memory).
    #[arg(long, value_parser = parse_bytes)]
    pub mem_budget: Option<u64>,
    /// Print one `CUZK_TIMING:` line per finished phase on stderr (also CUZK_TIMING=1).
    #[arg(long)]
    pub timing_log: bool,
}

/// Parses `123`, `512K`, `64M`, `8G` into bytes.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let (num, mul) = match s.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let mul = match c.to_ascii_uppercase() {
                'K' => 1u64 << 10,
                'M' => 1 << 20,
                'G' => 1 << 30,
                'T' => 1 << 40,
                _ => return Err(format!("`{s}`: unknown unit `{c}` (expected K, M, G or T)")),
            };
            (&s[..i], mul)
        }
        _ => (s, 1),
    };
    num.trim()
        .parse::<u64>()
        .map(|n| n * mul)
        .map_err(|_| format!("`{s}` is not a byte count such as 8G or 512M"))
}

/// The sample with `--seed`/`--sectors` applied and its toggles with `--set` applied.
pub fn sample_and_toggles(
    path: &Path,
    seed: Option<u64>,
    sectors: Option<usize>,
    set: Option<&str>,
) -> Result<(Sample, Toggles), CliError> {
    let mut sample = load_sample(path, seed)?;
    if let Some(n) = sectors {
        sample.sectors = n.max(1);
    }
    let mut toggles = sample.toggles;
    if let Some(spec) = set {
        toggles.apply_set(spec)?;
    }
    Ok((sample, toggles))
}

/// Runs one sample × toggles × repeats with a progress line for setup and Ctrl-C handling; saves the record.
pub fn run_and_save(
    sample: &Sample,
    toggles: Toggles,
    backend: &dyn crate::backend::api::Backend,
    repeats: usize,
    opts: &EngineOpts,
) -> Result<(RunResult, PathBuf), CliError> {
    let store = RunStore::open(opts.data_dir.as_deref()).map_err(crate::engine::EngineError::from)?;
    if opts.timing_log || std::env::var("CUZK_TIMING").is_ok_and(|v| v == "1") {
        crate::timeline::install();
        crate::timeline::set_timing_log(true);
    }
    super::interrupt::install();
    let progress = LineProgress::new(format!("setup {}:", sample.name));
    let spec = RunSpec {
        sample,
        toggles,
        backend,
        repeats: repeats.max(1),
        mem_budget: opts.mem_budget.unwrap_or_else(default_mem_budget),
    };
    let r = run(&spec, &|stage, done, total| progress.update(stage, done, total));
    progress.finish();
    let result = r?;
    if let Some(w) = result.params_info.outcome.as_ref().and_then(|o| o.warning()) {
        eprintln!("warning: {w}");
    }
    let path = store.save(&result.record).map_err(crate::engine::EngineError::from)?;
    Ok((result, path))
}

/// `cuzk prove`.
pub fn prove(args: ProveArgs) -> Result<(), CliError> {
    let (sample, toggles, selected) = args.job.resolve()?;
    let (result, path) =
        run_and_save(&sample, toggles, selected.backend.as_ref(), args.repeat, &args.engine)?;
    let rec = &result.record;
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&summary_json(rec, &path))
                .map_err(|e| CliError::Msg(e.to_string()))?
        );
    } else {
        println!(
            "{} · {} circuits × {} constraints · backend {} ({}; {}) · seed {}",
            sample.name,
            rec.sample.circuits,
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
    if let Some(dir) = &args.out {
        write_outputs(dir, &result.params.vk, &result.last)?;
        eprintln!("wrote {}/{{vk.bin,proofs.bin,inputs.bin}}", dir.display());
    }
    if let Some(dir) = &args.export {
        for p in super::runs::export_all(rec, dir)? {
            eprintln!("exported {}", p.display());
        }
    }
    if result.last.verified.as_ref().is_some_and(|v| v.iter().any(|ok| !ok)) {
        return Err(CliError::Msg("some proofs did not verify".into()));
    }
    Ok(())
}

/// The short JSON `cuzk prove --json` prints (the full record is in the store and `cuzk export --format json`).
fn summary_json(rec: &RunRecord, path: &Path) -> serde_json::Value {
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
        "phases": phases,
        "verified": rec.all_verified(),
        "dropped_events": rec.dropped_events,
    })
}

fn write_outputs(dir: &Path, vk: &VerifyingKey, out: &JobOutput) -> Result<(), CliError> {
    std::fs::create_dir_all(dir)
        .map_err(|e| CliError::Msg(format!("{}: cannot create folder: {e}", dir.display())))?;
    let vk_path = dir.join("vk.bin");
    crate::groth16::params_file::write_atomic(&vk_path, &vk_path.display().to_string(), |w| vk.write(w))?;
    write_proofs(&dir.join("proofs.bin"), &out.proofs)?;
    let flat: Vec<_> = out.inputs.iter().flatten().copied().collect();
    write_inputs(&dir.join("inputs.bin"), &flat)?;
    Ok(())
}

/// Per phase over repeats: (name, instances per repeat, median, min, max of the summed ms).
pub fn phase_medians(rec: &RunRecord) -> Vec<(String, u64, f64, f64, f64)> {
    let mut names: Vec<&String> = rec.repeats.iter().flat_map(|r| r.phases.keys()).collect();
    names.sort_by_key(|n| phases::ALL.iter().position(|p| p == n).unwrap_or(usize::MAX));
    names.dedup();
    names
        .into_iter()
        .map(|name| {
            let mut v: Vec<f64> = rec
                .repeats
                .iter()
                .map(|r| r.phases.get(name).map_or(0.0, |t| t.sum_us as f64 / 1e3))
                .collect();
            v.sort_by(f64::total_cmp);
            let count = rec.repeats.last().and_then(|r| r.phases.get(name)).map_or(0, |t| t.count);
            (name.clone(), count, v[v.len() / 2], v[0], v[v.len() - 1])
        })
        .collect()
}

/// The per-phase table: phase, count, total ms (median over repeats, with min–max when repeated), share
/// of wall.
pub fn phase_table(rec: &RunRecord) -> String {
    let mut walls: Vec<f64> = rec.repeats.iter().map(|r| r.wall_us as f64 / 1e3).collect();
    walls.sort_by(f64::total_cmp);
    let wall = walls.get(walls.len() / 2).copied().unwrap_or(0.0).max(1e-3);
    let many = rec.repeats.len() > 1;
    let mut s = format!(
        "{:<12} {:>6} {:>12} {:>8}{}\n",
        "phase",
        "count",
        "total ms",
        "of wall",
        if many { "   min–max ms" } else { "" }
    );
    for (name, count, med, min, max) in phase_medians(rec) {
        let label = if phases::is_sub_phase(&name) { format!("  {name}") } else { name };
        let range = if many { format!("   {min:.1}–{max:.1}") } else { String::new() };
        s.push_str(&format!("{label:<12} {count:>6} {med:>12.1} {:>7.1}%{range}\n", 100.0 * med / wall));
    }
    let range =
        if many { format!("   {:.1}–{:.1}", walls[0], walls[walls.len() - 1]) } else { String::new() };
    s.push_str(&format!("{:<12} {:>6} {:>12.1} {:>7.1}%{range}\n", "wall", "", wall, 100.0));
    s
}

/// `cuzk verify`: every proof in the file against the vk and the inputs; fails if any does not verify.
pub fn verify(vk: &Path, proof: &Path, inputs: &Path) -> Result<(), CliError> {
    let vk = VerifyingKey::read_file(vk)?;
    let proofs = read_proofs(proof)?;
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
