//! `cuzk client`: a running daemon checked from the command line, as a storage provider would: its status,
//! one proof of a C1 or PoSt request file, or a mixed burst submitted at once with per-kind latency,
//! proofs per minute and memory over the burst.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::error::CliError;
use crate::circuits::filecoin::c1::read_c1;
use crate::circuits::filecoin::post::PostRequest;
use crate::circuits::filecoin::registry::PoStType;
use crate::circuits::filecoin::snap::SnapRequest;
use crate::engine::budget::human;
use crate::wire::v1::{self as pb, await_proof_response::Status as Done, ProofKind};

/// `cuzk client`'s arguments.
#[derive(clap::Args, Debug, Clone)]
pub struct ClientArgs {
    /// The daemon: host:port or unix:///path.
    #[arg(long, default_value = "127.0.0.1:9820")]
    pub addr: String,
    /// What to do.
    #[command(subcommand)]
    pub what: ClientCommand,
}

/// The client's subcommands.
#[derive(clap::Subcommand, Debug, Clone)]
pub enum ClientCommand {
    /// GetStatus: GPUs, SRS tiers, queues, counters.
    Status,
    /// One Prove of a request file; writes the proof bytes to --out.
    Prove {
        /// A C1 output (PoRep C2).
        #[arg(long, conflicts_with_all = ["post", "snap"])]
        c1: Option<PathBuf>,
        /// A WinningPoSt / WindowPoSt request (the `cuzk prove --post` file).
        #[arg(long, conflicts_with = "snap")]
        post: Option<PathBuf>,
        /// A SnapDeals update request (the `cuzk prove --snap` file).
        #[arg(long)]
        snap: Option<PathBuf>,
        /// low, normal, high or critical (default: the daemon's for the kind).
        #[arg(long)]
        priority: Option<String>,
        /// Where the proof bytes go.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Submit every --c1 and --post file --each times, all at once (PoRep first, then WindowPoSt, then
    /// WinningPoSt), and report latency per kind, proofs per minute and the daemon's memory.
    Burst {
        /// C1 outputs (PoRep C2).
        #[arg(long)]
        c1: Vec<PathBuf>,
        /// PoSt requests.
        #[arg(long)]
        post: Vec<PathBuf>,
        /// Submissions of each file.
        #[arg(long, default_value = "4")]
        each: usize,
        /// Delay before the WinningPoSt submissions, ms (so they arrive behind queued PoRep).
        #[arg(long, default_value = "500")]
        winning_delay_ms: u64,
    },
}

fn msg(e: impl std::fmt::Display) -> CliError {
    CliError::Msg(e.to_string())
}

/// A unique request id: the file's stem, this process and a counter.
fn request_id(file: &Path, n: usize) -> String {
    let stem = file.file_stem().map_or_else(|| "req".into(), |s| s.to_string_lossy().into_owned());
    format!(
        "cuzk-client-{stem}-{}-{n}-{}",
        std::process::id(),
        crate::engine::host::run_id(std::time::SystemTime::now())
    )
}

/// The `SubmitProofRequest` Curio would send for a C1 output file's bytes.
pub fn request_from_c1(bytes: Vec<u8>) -> Result<pb::SubmitProofRequest, String> {
    let (wrapper, c1) = read_c1(&bytes)?;
    Ok(pb::SubmitProofRequest {
        proof_kind: ProofKind::PorepSealCommit as i32,
        sector_size: c1.registered_proof.size().bytes(),
        registered_proof: c1.registered_proof.as_u64(),
        priority: pb::Priority::Normal as i32,
        sector_number: wrapper.and_then(|w| u64::try_from(w.sector_num).ok()).unwrap_or(0),
        vanilla_proof: bytes,
        ..Default::default()
    })
}

/// The miner id a prover id encodes (uvarint, zero padded), when it is one.
fn miner_of(prover_id: &[u8; 32]) -> Option<u64> {
    let (mut v, mut shift) = (0u64, 0);
    for (i, b) in prover_id.iter().enumerate() {
        v |= u64::from(b & 0x7f).checked_shl(shift)?;
        if b & 0x80 == 0 {
            return prover_id[i + 1..].iter().all(|z| *z == 0).then_some(v);
        }
        shift += 7;
    }
    None
}

/// The `SubmitProofRequest` Curio would send for a `cuzk prove --post` request file.
pub fn request_from_post(bytes: &[u8]) -> Result<pb::SubmitProofRequest, String> {
    let r: PostRequest = serde_json::from_slice(bytes).map_err(|e| format!("not a PoSt request: {e}"))?;
    let miner_id =
        r.miner_id.or_else(|| miner_of(&r.prover_id)).ok_or("field `prover_id`: not a miner id's")?;
    let winning = r.registered_proof.typ() == PoStType::Winning;
    let (kind, priority) = if winning {
        (ProofKind::WinningPost, pb::Priority::Critical)
    } else {
        (ProofKind::WindowPostPartition, pb::Priority::High)
    };
    Ok(pb::SubmitProofRequest {
        proof_kind: kind as i32,
        sector_size: r.registered_proof.size().bytes(),
        registered_proof: r.registered_proof.as_u64(),
        priority: priority as i32,
        vanilla_proofs: r.vanilla_proofs,
        miner_id,
        randomness: r.randomness.to_vec(),
        partition_index: r.partition_index.unwrap_or(0) as u32,
        ..Default::default()
    })
}

/// The `SubmitProofRequest` Curio would send for a `cuzk prove --snap` request file.
pub fn request_from_snap(bytes: &[u8]) -> Result<pb::SubmitProofRequest, String> {
    let r: SnapRequest =
        serde_json::from_slice(bytes).map_err(|e| format!("not a SnapDeals request: {e}"))?;
    Ok(pb::SubmitProofRequest {
        proof_kind: ProofKind::SnapDealsUpdate as i32,
        sector_size: r.registered_proof.size().bytes(),
        registered_proof: r.registered_proof.as_u64(),
        priority: pb::Priority::Normal as i32,
        vanilla_proofs: r.vanilla_proofs,
        comm_r_old: r.comm_r_old.to_vec(),
        comm_r_new: r.comm_r_new.to_vec(),
        comm_d_new: r.comm_d_new.to_vec(),
        ..Default::default()
    })
}

fn read(file: &Path) -> Result<Vec<u8>, CliError> {
    std::fs::read(file).map_err(|e| CliError::Msg(format!("{}: cannot read: {e}", file.display())))
}

fn load(
    c1: Option<&Path>,
    post: Option<&Path>,
    snap: Option<&Path>,
) -> Result<pb::SubmitProofRequest, CliError> {
    let named = |f: &Path, r: Result<pb::SubmitProofRequest, String>| {
        r.map_err(|e| CliError::Msg(format!("{}: {e}", f.display())))
    };
    match (c1, post, snap) {
        (Some(f), _, _) => named(f, request_from_c1(read(f)?)),
        (None, Some(f), _) => named(f, request_from_post(&read(f)?)),
        (None, None, Some(f)) => named(f, request_from_snap(&read(f)?)),
        (None, None, None) => Err(CliError::Msg("give --c1 FILE, --post FILE or --snap FILE".into())),
    }
}

/// Runs the client on a small runtime of its own.
pub fn run(args: ClientArgs) -> Result<(), CliError> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| CliError::Msg(format!("cannot start the async runtime: {e}")))?;
    rt.block_on(async move {
        match args.what {
            ClientCommand::Status => status(&args.addr).await,
            ClientCommand::Prove { c1, post, snap, priority, out } => {
                let mut req = load(c1.as_deref(), post.as_deref(), snap.as_deref())?;
                if let Some(p) = priority {
                    req.priority = pb::Priority::from_str_name(&p.to_ascii_uppercase()).ok_or_else(|| {
                        CliError::Msg(format!("--priority {p}: expected low, normal, high or critical"))
                    })? as i32;
                }
                req.request_id = request_id(c1.as_deref().or(post.as_deref()).unwrap_or(Path::new("req")), 0);
                prove_one(&args.addr, req, out.as_deref()).await
            }
            ClientCommand::Burst { c1, post, each, winning_delay_ms } => {
                burst(&args.addr, &c1, &post, each, Duration::from_millis(winning_delay_ms)).await
            }
        }
    })
}

async fn status(addr: &str) -> Result<(), CliError> {
    let s = crate::wire::dial::proving(addr)
        .map_err(msg)?
        .get_status(pb::GetStatusRequest {})
        .await
        .map_err(msg)?;
    let s = s.into_inner();
    println!(
        "up {} s · {} proofs completed, {} failed",
        s.uptime_seconds, s.total_proofs_completed, s.total_proofs_failed
    );
    for g in &s.gpus {
        let job = if g.current_job_id.is_empty() {
            "idle".into()
        } else {
            format!("{} {}", g.current_proof_kind, g.current_job_id)
        };
        println!(
            "gpu{} {} · {} of {} free · {job}",
            g.ordinal,
            g.name,
            human(g.vram_free_bytes),
            human(g.vram_total_bytes)
        );
    }
    for q in &s.queues {
        println!("queue {:<22} pending {:>4}  running {:>3}", q.proof_kind, q.pending, q.in_progress);
    }
    for e in &s.loaded_srs {
        let tier = pb::srs_status::Tier::try_from(e.tier).map_or("?", |t| t.as_str_name());
        println!("srs {:<12} {tier:<5} {:>10}  refs {}", e.circuit_id, human(e.size_bytes), e.ref_count);
    }
    Ok(())
}

async fn prove_one(addr: &str, req: pb::SubmitProofRequest, out: Option<&Path>) -> Result<(), CliError> {
    let t = Instant::now();
    let r = crate::wire::dial::proving(addr)
        .map_err(msg)?
        .prove(pb::ProveRequest { submit: Some(req) })
        .await
        .map_err(msg)?;
    let r = r.into_inner().result.ok_or_else(|| CliError::Msg("Prove returned no result".into()))?;
    let st = Done::try_from(r.status).map_or("?", |s| s.as_str_name());
    println!(
        "{st} job {} · {} proof bytes · total {} ms (queue {}, srs {}, synthesis {}, gpu {}) · {:.0} ms round trip",
        r.job_id, r.proof.len(), r.total_ms, r.queue_wait_ms, r.srs_load_ms, r.synthesis_ms, r.gpu_compute_ms,
        t.elapsed().as_secs_f64() * 1e3
    );
    if r.status != Done::Completed as i32 {
        return Err(CliError::Msg(format!("job {}: {st}: {}", r.job_id, r.error_message)));
    }
    if let Some(path) = out {
        crate::util::write_atomic(path, &r.proof)
            .map_err(|e| CliError::Msg(format!("{}: {e}", path.display())))?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

/// The daemon's host RSS and device memory in use from its metrics.
fn memory_of(text: &str) -> (u64, u64) {
    let value = |l: &str| l.rsplit(' ').next().and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0) as u64;
    let rss = text.lines().find(|l| l.starts_with("cuzk_host_rss_bytes ")).map_or(0, value);
    let gpu = text.lines().filter(|l| l.starts_with("cuzk_gpu_memory_used_bytes{")).map(value).sum();
    (rss, gpu)
}

struct Done1 {
    kind: &'static str,
    ms: f64,
    ok: bool,
    porep_ahead: u32,
}

async fn burst(
    addr: &str,
    c1: &[PathBuf],
    post: &[PathBuf],
    each: usize,
    delay: Duration,
) -> Result<(), CliError> {
    let mut reqs: Vec<(&'static str, pb::SubmitProofRequest, PathBuf)> = Vec::new();
    for f in c1 {
        reqs.push(("porep", load(Some(f), None, None)?, f.clone()));
    }
    for f in post {
        let r = load(None, Some(f), None)?;
        let kind = if r.proof_kind == ProofKind::WinningPost as i32 { "winning-post" } else { "window-post" };
        reqs.push((kind, r, f.clone()));
    }
    reqs.sort_by_key(|(k, _, _)| match *k {
        "porep" => 0,
        "window-post" => 1,
        _ => 2,
    });
    let client = crate::wire::dial::proving(addr).map_err(msg)?;
    let t0 = Instant::now();
    let (samples_tx, mut samples_rx) = tokio::sync::mpsc::unbounded_channel::<(f64, u64, u64)>();
    let memory = {
        let mut c = client.clone();
        tokio::spawn(async move {
            loop {
                if let Ok(m) = c.get_metrics(pb::GetMetricsRequest {}).await {
                    let (rss, gpu) = memory_of(&m.into_inner().prometheus_text);
                    if samples_tx.send((t0.elapsed().as_secs_f64(), rss, gpu)).is_err() {
                        return;
                    }
                }
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
        })
    };
    let mut tasks = Vec::new();
    let mut delayed = false;
    for n in 0..each {
        for (kind, req, file) in &reqs {
            if *kind == "winning-post" && !delayed {
                tokio::time::sleep(delay).await;
                delayed = true;
            }
            let mut req = req.clone();
            req.request_id = request_id(file, n);
            let mut c = client.clone();
            let kind: &'static str = kind;
            tasks.push(tokio::spawn(async move {
                let ahead = match c.get_status(pb::GetStatusRequest {}).await {
                    Ok(s) => s.into_inner().queues.iter().filter(|q| q.proof_kind == "POREP_SEAL_COMMIT").map(|q| q.pending + q.in_progress).sum(),
                    Err(_) => 0,
                };
                let t = Instant::now();
                let r = c.prove(pb::ProveRequest { submit: Some(req) }).await;
                let ok = matches!(&r, Ok(r) if r.get_ref().result.as_ref().is_some_and(|x| x.status == Done::Completed as i32));
                Done1 { kind, ms: t.elapsed().as_secs_f64() * 1e3, ok, porep_ahead: ahead }
            }));
        }
    }
    let mut done = Vec::new();
    for t in tasks {
        done.push(t.await.map_err(msg)?);
    }
    let wall = t0.elapsed().as_secs_f64();
    memory.abort();
    let mut samples = Vec::new();
    while let Ok(s) = samples_rx.try_recv() {
        samples.push(s);
    }
    println!(
        "{:<14} {:>5} {:>6} {:>10} {:>10} {:>10}",
        "kind", "jobs", "failed", "min ms", "median ms", "max ms"
    );
    for kind in ["porep", "window-post", "winning-post"] {
        let mut ms: Vec<f64> = done.iter().filter(|d| d.kind == kind && d.ok).map(|d| d.ms).collect();
        let failed = done.iter().filter(|d| d.kind == kind && !d.ok).count();
        if ms.is_empty() && failed == 0 {
            continue;
        }
        ms.sort_by(f64::total_cmp);
        let med = crate::util::median::median(&ms).unwrap_or(0.0);
        println!(
            "{kind:<14} {:>5} {failed:>6} {:>10.0} {med:>10.0} {:>10.0}",
            ms.len() + failed,
            ms.first().unwrap_or(&0.0),
            ms.last().unwrap_or(&0.0)
        );
    }
    for d in done.iter().filter(|d| d.kind == "winning-post") {
        println!(
            "winning-post with {} PoRep jobs queued or running at submit: {:.0} ms",
            d.porep_ahead, d.ms
        );
    }
    let ok = done.iter().filter(|d| d.ok).count();
    println!("{ok} proofs in {wall:.1} s: {:.1} proofs/min", ok as f64 * 60.0 / wall.max(1e-9));
    if !samples.is_empty() {
        println!("memory over the burst (daemon host RSS, GPU memory in use):");
        let step = samples.len().div_ceil(10).max(1);
        for (t, rss, gpu) in samples.iter().step_by(step).chain(samples.last()) {
            println!("  t {t:>7.1} s  rss {:>10}  gpu {:>10}", human(*rss), human(*gpu));
        }
        let peak = samples.iter().map(|s| s.1).max().unwrap_or(0);
        println!("  peak rss {}", human(peak));
    }
    if ok < done.len() {
        return Err(CliError::Msg(format!("{} of {} proofs failed", done.len() - ok, done.len())));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn miner_ids_round_trip_through_prover_ids() {
        for id in [0u64, 1, 127, 128, 1000, 16_384, u64::MAX >> 1] {
            let p = crate::circuits::filecoin::encoding::prover_id_from_miner_id(id);
            assert_eq!(miner_of(&p), Some(id));
        }
        let mut junk = [0u8; 32];
        junk[0] = 5;
        junk[5] = 1;
        assert_eq!(miner_of(&junk), None);
    }
}
