//! Real PoRep C2 on one host: cuzk by phase beside filecoin-proofs' own CPU `seal_commit_phase2` (bellperson),
//! both from the same C1 output and the same params file; every proof is checked with filecoin-proofs'
//! `verify_seal`. One JSON object per line on stdout; progress on stderr.
//!
//! ```text
//! cargo build --release --features examples --example fil_c2_bench
//! target/release/examples/fil_c2_bench --c1 FILE --params FILE [--vk FILE] [--repeat N] [--miner-id N]
//!     [--cuzk auto|cpu|gpu|none] [--no-filecoin-proofs] [--seed N]
//! ```
//!
//! * `--c1`: the Lotus/Curio wrapper (its `SectorNum` is the sector) of a 2 KiB, 8 MiB or 512 MiB sector.
//! * `--params`: bellperson-layout params for the sector's circuit: Filecoin's production
//!   `v28-stacked-proof-of-replication-…params`, or the file `cuzk setup --c1 FILE` prints (params cuzk generated
//!   from its seed; proofs then verify only with that file's vk, which is what this bench uses).
//! * `--vk`: the matching `v28-…vk` (default: read from the front of the params file).
//!
//! The params are linked as `v28-<identifier>.params` (and the vk written as `.vk`) into a temp
//! `FIL_PROOFS_PARAMETER_CACHE`. Lines: `{"tool":"cuzk",…,"phases":{phase: ms}}` per repeat, then
//! `{"tool":"filecoin-proofs","fn":"seal_commit_phase2",…,"prove_ms","verify_ms","verified"}` per repeat (the
//! first repeat of each includes loading the params: filecoin-proofs keeps them mapped for later calls).

#[path = "../tests/support/fil.rs"]
mod fil;

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, ensure, Context, Result};
use cuzk::backend::select::select;
use cuzk::circuits::filecoin::Registered;
use cuzk::circuits::Sample;
use cuzk::engine::{default_mem_budget, Engine, RunCtl, RunSpec};
use cuzk::vocab::{BackendKind, CancelToken};
use serde_json::json;
use storage_proofs_core::sector::SectorId;

struct Args {
    c1: PathBuf,
    params: PathBuf,
    vk: Option<PathBuf>,
    repeat: usize,
    miner_id: u64,
    cuzk: Option<BackendKind>,
    filecoin_proofs: bool,
    seed: u64,
}

const USAGE: &str = "usage: fil_c2_bench --c1 FILE --params FILE [--vk FILE] [--repeat N] [--miner-id N] \
                     [--cuzk auto|cpu|gpu|none] [--no-filecoin-proofs] [--seed N]";

fn args() -> Result<Args> {
    let mut a = Args {
        c1: PathBuf::new(),
        params: PathBuf::new(),
        vk: None,
        repeat: 1,
        miner_id: fil::MINER_ID,
        cuzk: Some(BackendKind::Auto),
        filecoin_proofs: true,
        seed: 42,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().with_context(|| format!("{flag} needs a value; {USAGE}"));
        match flag.as_str() {
            "--c1" => a.c1 = value()?.into(),
            "--params" => a.params = value()?.into(),
            "--vk" => a.vk = Some(value()?.into()),
            "--repeat" => a.repeat = value()?.parse().context("--repeat: not a number")?,
            "--miner-id" => a.miner_id = value()?.parse().context("--miner-id: not a number")?,
            "--seed" => a.seed = value()?.parse().context("--seed: not a number")?,
            "--cuzk" => {
                a.cuzk = match value()?.as_str() {
                    "none" => None,
                    b => Some(b.parse().map_err(|e| anyhow::anyhow!("--cuzk: {e}"))?),
                }
            }
            "--no-filecoin-proofs" => a.filecoin_proofs = false,
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            _ => bail!("unknown argument {flag}; {USAGE}"),
        }
    }
    ensure!(!a.c1.as_os_str().is_empty() && !a.params.as_os_str().is_empty(), "{USAGE}");
    a.repeat = a.repeat.max(1);
    Ok(a)
}

/// Links the params and writes the vk under the names filecoin-proofs looks for.
fn place_params(a: &Args, identifier: &str, dir: &Path) -> Result<()> {
    let params =
        std::fs::canonicalize(&a.params).with_context(|| format!("{}: not found", a.params.display()))?;
    let link = dir.join(format!("v28-{identifier}.params"));
    std::os::unix::fs::symlink(&params, &link).with_context(|| format!("{}: cannot link", link.display()))?;
    let vk_path = dir.join(format!("v28-{identifier}.vk"));
    match &a.vk {
        Some(vk) => {
            std::fs::copy(vk, &vk_path).with_context(|| format!("{}: cannot copy", vk.display()))?;
        }
        None => {
            // bellperson's params layout starts with the verifying key.
            let mut f = std::io::BufReader::new(std::fs::File::open(&params)?);
            let vk = bellperson::groth16::VerifyingKey::<blstrs::Bls12>::read(&mut f)
                .with_context(|| format!("{}: no verifying key at its start", params.display()))?;
            let mut out = Vec::new();
            vk.write(&mut out)?;
            std::fs::write(&vk_path, out)?;
        }
    }
    Ok(())
}

/// cuzk's runs (one engine, `repeat` repeats) with the given params file; returns its proof bytes.
fn run_cuzk(a: &Args, backend: BackendKind, st: &fil::SealStatement) -> Result<Vec<u8>> {
    let mut sample = Sample::from_request(&a.c1, a.seed)?;
    sample.params_file = Some(a.params.clone());
    let selected = select(backend)?;
    let engine = Engine::new();
    let spec = RunSpec {
        sample: &sample,
        toggles: sample.toggles,
        backend: selected.backend.as_ref(),
        repeats: a.repeat,
        mem_budget: default_mem_budget(),
    };
    eprintln!("cuzk: {} on {} ({})", sample.name, selected.backend.name(), selected.reason);
    let r = engine.run(&spec, &RunCtl::quiet(CancelToken::new()))?;
    let proof: Vec<u8> = r.last.proofs.iter().flat_map(|p| p.to_bytes()).collect();
    let t = Instant::now();
    let by_filecoin = fil::verify_seal(st, &proof)?;
    let verify_ms = t.elapsed().as_secs_f64() * 1e3;
    for (i, rep) in r.record.repeats.iter().enumerate() {
        let phases: serde_json::Map<String, serde_json::Value> =
            rep.phases.iter().map(|(k, v)| (k.clone(), json!(v.sum_us as f64 / 1e3))).collect();
        println!(
            "{}",
            json!({
                "tool": "cuzk", "backend": selected.backend.name(), "device": selected.backend.device(),
                "registered_proof": st.proof.name(), "repeat": i, "wall_ms": rep.wall_us as f64 / 1e3,
                "phases": phases, "constraints": r.record.sample.constraints,
                "verified": r.last.verified.as_ref().is_some_and(|v| v.iter().all(|ok| *ok)),
                "verified_by_filecoin_proofs": by_filecoin, "filecoin_verify_ms": verify_ms,
            })
        );
    }
    ensure!(by_filecoin, "filecoin-proofs' verify_seal rejected cuzk's proof");
    Ok(proof)
}

/// filecoin-proofs' `seal_commit_phase2` (bellperson's CPU prover; it verifies its own proof too).
fn run_filecoin_proofs(a: &Args, st: &fil::SealStatement) -> Result<()> {
    let cfg = fil::porep_config(st.proof)?;
    let threads = std::thread::available_parallelism().map_or(0, |n| n.get());
    for i in 0..a.repeat {
        // The C1 output is not Clone: a copy through its own serde form, outside the timed call.
        let phase1 = serde_json::from_value(serde_json::to_value(&st.phase1)?)?;
        let t = Instant::now();
        let out = filecoin_proofs::seal_commit_phase2::<fil::SmallTree>(
            &cfg,
            phase1,
            st.prover_id,
            SectorId::from(st.sector),
        )?;
        let prove_ms = t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now();
        let verified = fil::verify_seal(st, &out.proof)?;
        println!(
            "{}",
            json!({
                "tool": "filecoin-proofs", "fn": "seal_commit_phase2", "registered_proof": st.proof.name(),
                "repeat": i, "prove_ms": prove_ms, "verify_ms": t.elapsed().as_secs_f64() * 1e3,
                "verified": verified, "proof_bytes": out.proof.len(), "threads": threads,
            })
        );
        ensure!(verified, "verify_seal rejected seal_commit_phase2's own proof");
    }
    Ok(())
}

fn main() -> Result<()> {
    let a = args()?;
    // filecoin-proofs reads its settings once: point its caches at a temp dir before anything else runs.
    let work = tempfile::Builder::new().prefix("cuzk-c2-bench-").tempdir()?;
    fil::set_cache_env(work.path())?;
    let st = fil::seal_statement(&a.c1, a.miner_id, None)?;
    let identifier = Registered::Seal(st.proof).identifier().map_err(anyhow::Error::msg)?;
    place_params(&a, &identifier, &fil::params_dir(work.path()))?;
    eprintln!("{}: {} sector {}, params {}", a.c1.display(), st.proof.name(), st.sector, a.params.display());
    if let Some(b) = a.cuzk {
        run_cuzk(&a, b, &st)?;
    }
    if a.filecoin_proofs {
        run_filecoin_proofs(&a, &st)?;
    }
    Ok(())
}
