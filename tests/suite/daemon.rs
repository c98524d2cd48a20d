//! `cuzk daemon` as Curio meets it: a child process on a unix socket or a loopback port, driven by a tonic
//! client. Every RPC of cuzk.v1 and the console's watch stream; proofs equal to `cuzk prove`'s for the same
//! input and seed and accepted by filecoin-proofs' verifier (WindowPoSt and WinningPoSt 2 KiB; the PoRep C2
//! through gRPC is tests/filecoin.rs's, on the device: its 2^22 setup is too slow for CI); malformed, truncated,
//! oversized and wrong-kind requests (a SnapDeals one among them); a client leaving mid-Prove; SIGTERM's
//! drain; kill -9 and a restart on the same caches; two daemons on one cache.

use crate::fil;
use crate::harness;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use cuzk::circuits::filecoin::post::PostRequest;
use cuzk::cli::client::{request_from_post, request_from_snap};
use cuzk::wire::v1::{self as pb, await_proof_response::Status as Done};
use harness::{cache, rt, Daemon};
use tonic::Code;

const WINDOW: &str = "samples/filecoin/window-post-2kib.json";
const WINNING: &str = "samples/filecoin/winning-post-2kib.json";

fn post_req(file: &str, id: &str) -> pb::SubmitProofRequest {
    let mut r = request_from_post(&std::fs::read(file).expect("fixture")).expect("request");
    r.request_id = id.into();
    r
}

/// `cuzk prove --post FILE --seed 42 --out DIR` on the same cache: DIR (vk.bin, proofs.bin).
fn cli_prove(file: &str, tmp: &Path) -> PathBuf {
    // The daemon proves a WindowPoSt request as one partition (`partition_index`, 0 here): so does this file.
    let mut req: PostRequest = serde_json::from_slice(&std::fs::read(file).expect("fixture")).expect("json");
    if req.registered_proof.typ() == cuzk::circuits::filecoin::registry::PoStType::Window {
        req.partition_index = Some(req.partition_index.unwrap_or(0));
    }
    let f = tmp.join("request.json");
    std::fs::write(&f, serde_json::to_vec(&req).expect("json")).expect("write");
    let stem = Path::new(file).file_stem().map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let out = tmp.join(format!("cli-out-{stem}"));
    let o = Command::new(env!("CARGO_BIN_EXE_cuzk"))
        .args(["prove", "--backend", "cpu", "--seed", "42", "--post"])
        .arg(&f)
        .arg("--out")
        .arg(&out)
        .env("CUZK_CACHE", cache())
        .env("CUZK_HOME", tmp.join("cli-home"))
        .env_remove("FIL_PROOFS_PARAMETER_CACHE")
        .output()
        .expect("cuzk prove");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    out
}

/// The child test's full name in this binary (`--exact` matches the module path too).
const CHILD: &str = "daemon::child_verifies_post_with_filecoin_proofs";
const CHILD_ENV: &str = "CUZK_DAEMON_FIL_CHILD";

/// Not a test of its own: the child process that verifies a daemon's PoSt proof with filecoin-proofs (a
/// no-op unless `CUZK_DAEMON_FIL_CHILD` is `REQUEST\nPROOF`).
#[test]
fn child_verifies_post_with_filecoin_proofs() {
    let Ok(spec) = std::env::var(CHILD_ENV) else { return };
    let [file, proof] = spec.split('\n').collect::<Vec<_>>()[..] else { panic!("bad {CHILD_ENV}") };
    let req: PostRequest = serde_json::from_slice(&std::fs::read(file).expect("request")).expect("json");
    let proof = std::fs::read(proof).expect("proof");
    assert!(
        matches!(fil::verify_post(&req, &proof), Ok(true)),
        "filecoin-proofs rejected the daemon's proof"
    );
    let mut bad = proof.clone();
    bad[20] ^= 1;
    assert!(!matches!(fil::verify_post(&req, &bad), Ok(true)), "a flipped byte was accepted");
    eprintln!("child: verified by filecoin-proofs");
}

/// filecoin-proofs verifies `proof` of `file` with `vk` (in a child process: its caches are per process).
fn verify_with_filecoin_proofs(file: &str, proof: &[u8], vk: &Path, tmp: &Path) {
    let fil_dir = tmp.join("fil");
    let env = fil::cache_env(&fil_dir).expect("cache env");
    let req: PostRequest = serde_json::from_slice(&std::fs::read(file).expect("fixture")).expect("json");
    let id =
        cuzk::circuits::filecoin::Registered::Post(req.registered_proof).identifier().expect("identifier");
    std::fs::copy(vk, fil::params_dir(&fil_dir).join(format!("v28-{id}.vk"))).expect("vk");
    let p = tmp.join("daemon.proof");
    std::fs::write(&p, proof).expect("write");
    let o = Command::new(std::env::current_exe().expect("test binary"))
        .args([CHILD, "--exact", "--nocapture", "--test-threads=1"])
        .envs(env)
        .env(CHILD_ENV, format!("{file}\n{}", p.display()))
        .output()
        .expect("child");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success() && err.contains("verified by filecoin-proofs"), "child: {err}");
}

/// The daemon's `proof` of `file` has the bytes `cuzk prove` gives for it, and filecoin-proofs accepts it.
fn same_as_cli_and_verified(file: &str, proof: &[u8], tmp: &Path) {
    let out = cli_prove(file, tmp);
    assert_eq!(
        std::fs::read(out.join("proofs.bin")).expect("proofs.bin"),
        proof,
        "{file}: daemon and cuzk prove differ"
    );
    verify_with_filecoin_proofs(file, proof, &out.join("vk.bin"), tmp);
}

/// Every cuzk.v1 RPC and the watch stream over a unix socket, and GET /status over HTTP.
#[test]
fn every_rpc_over_a_unix_socket() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let sock = tmp.path().join("run/cuzk.sock");
    let d = Daemon::start(
        &format!("unix://{}", sock.display()),
        &tmp.path().join("home"),
        &["--http-listen", "127.0.0.1:0"],
    );
    let rt = rt();
    rt.block_on(async {
        let mut c = d.client();
        let s = c.get_status(pb::GetStatusRequest {}).await.expect("status").into_inner();
        let kinds: Vec<&str> = s.queues.iter().map(|q| q.proof_kind.as_str()).collect();
        assert_eq!(
            kinds,
            ["POREP_SEAL_COMMIT", "SNAP_DEALS_UPDATE", "WINDOW_POST_PARTITION", "WINNING_POST"]
        );
        // Submit, await with a short timeout, then for good; a repeat of the request id is the same job.
        let sub = c.submit_proof(post_req(WINDOW, "w-1")).await.expect("submit").into_inner();
        let again = c.submit_proof(post_req(WINDOW, "w-1")).await.expect("resubmit").into_inner();
        assert_eq!(again.job_id, sub.job_id);
        let quick = c
            .await_proof(pb::AwaitProofRequest { job_id: sub.job_id.clone(), timeout_ms: 1 })
            .await
            .expect("await");
        assert!([Done::Timeout as i32, Done::Completed as i32].contains(&quick.get_ref().status));
        let r = c
            .await_proof(pb::AwaitProofRequest { job_id: sub.job_id.clone(), timeout_ms: 0 })
            .await
            .expect("await")
            .into_inner();
        assert_eq!(r.status, Done::Completed as i32, "{}", r.error_message);
        assert_eq!(r.proof.len(), 192);
        assert!(r.total_ms >= r.synthesis_ms && r.total_ms > 0);
        // The same bytes as `cuzk prove`, accepted by filecoin-proofs; WinningPoSt (CRITICAL, as Curio sends
        // it) the same way.
        same_as_cli_and_verified(WINDOW, &r.proof, tmp.path());
        let mut winning = post_req(WINNING, "win-1");
        winning.priority = pb::Priority::Critical as i32;
        let w = c.prove(pb::ProveRequest { submit: Some(winning) }).await.expect("prove").into_inner();
        let w = w.result.expect("result");
        assert_eq!(w.status, Done::Completed as i32, "{}", w.error_message);
        same_as_cli_and_verified(WINNING, &w.proof, tmp.path());
        let p = c
            .prove(pb::ProveRequest { submit: Some(post_req(WINDOW, "w-2")) })
            .await
            .expect("prove")
            .into_inner();
        assert_eq!(p.result.expect("result").status, Done::Completed as i32);
        let cancel =
            c.cancel_proof(pb::CancelProofRequest { job_id: sub.job_id.clone() }).await.expect("cancel");
        assert!(!cancel.get_ref().was_running);
        let e =
            c.cancel_proof(pb::CancelProofRequest { job_id: "nope".into() }).await.expect_err("unknown job");
        assert_eq!(e.code(), Code::NotFound);
        let m = c.get_metrics(pb::GetMetricsRequest {}).await.expect("metrics").into_inner().prometheus_text;
        assert!(m.contains("cuzk_proofs_completed_total{proof_kind=\"window-post\"} 2"), "{m}");
        assert!(m.contains("cuzk_phase_duration_seconds_bucket{phase=\"synthesis\",le=\"+Inf\"}"), "{m}");
        // SRS: resident after the jobs; evicted; loaded again.
        let pre = c
            .preload_srs(pb::PreloadSrsRequest { circuit_id: "wpost-2k".into() })
            .await
            .expect("preload")
            .into_inner();
        assert!(pre.already_loaded);
        let ev = c
            .evict_srs(pb::EvictSrsRequest { circuit_id: "wpost-2k".into() })
            .await
            .expect("evict")
            .into_inner();
        assert!(ev.was_loaded && ev.freed_bytes > 0);
        let tier = |s: &pb::GetStatusResponse| {
            s.loaded_srs.iter().find(|e| e.circuit_id == "wpost-2k").map(|e| e.tier)
        };
        let s = c.get_status(pb::GetStatusRequest {}).await.expect("status").into_inner();
        assert_ne!(tier(&s), Some(pb::srs_status::Tier::Hot as i32));
        let pre = c
            .preload_srs(pb::PreloadSrsRequest { circuit_id: "wpost-2k".into() })
            .await
            .expect("preload")
            .into_inner();
        assert!(!pre.already_loaded);
        let s = c.get_status(pb::GetStatusRequest {}).await.expect("status").into_inner();
        assert_eq!(tier(&s), Some(pb::srs_status::Tier::Hot as i32));
        // A SnapDeals SRS nothing has proved with yet, with no production params file: refused, saying so.
        let e =
            c.preload_srs(pb::PreloadSrsRequest { circuit_id: "snap-32g".into() }).await.expect_err("snap");
        assert!(e.code() == Code::FailedPrecondition && e.message().contains("no params file"), "{e}");
        let e = c.evict_srs(pb::EvictSrsRequest { circuit_id: "bogus".into() }).await.expect_err("bogus");
        assert!(e.code() == Code::InvalidArgument && e.message().starts_with("circuit_id"), "{e}");
        // The console's stream: a status first, then a submitted sample's job and phase events.
        let mut w = cuzk::wire::dial::watch(&d.addr).expect("watch");
        let mut stream = w
            .stream(cuzk::wire::console::WatchRequest { no_phases: false })
            .await
            .expect("stream")
            .into_inner();
        let first = stream.message().await.expect("event").expect("open");
        assert!(matches!(first.event, Some(cuzk::wire::console::watch_event::Event::Status(_))));
        let job = w
            .submit(cuzk::wire::console::SubmitSampleRequest {
                sample: "samples/porep-tiny.toml".into(),
                sectors: 1,
                priority: "high".into(),
            })
            .await
            .expect("submit sample")
            .into_inner()
            .job_id;
        let (mut phases, mut done) = (std::collections::BTreeSet::new(), false);
        while !done {
            let e = tokio::time::timeout(Duration::from_secs(120), stream.message())
                .await
                .expect("in time")
                .expect("event")
                .expect("open");
            match e.event {
                Some(cuzk::wire::console::watch_event::Event::Phase(p)) if p.job_id == job && !p.open => {
                    phases.insert(p.phase);
                }
                Some(cuzk::wire::console::watch_event::Event::Job(j)) if j.job_id == job => {
                    assert_ne!(j.state, "failed", "{}", j.error);
                    done = j.state == "completed";
                }
                _ => {}
            }
        }
        assert!(phases.contains("synthesis") && phases.contains("assemble"), "{phases:?}");
    });
    // GET /status: JSON with the counters.
    let http = d.http.clone().expect("http address");
    let mut sock = std::net::TcpStream::connect(&http).expect("http");
    sock.write_all(b"GET /status HTTP/1.1\r\nHost: x\r\n\r\n").expect("write");
    let mut resp = String::new();
    sock.read_to_string(&mut resp).expect("read");
    let body = resp.split("\r\n\r\n").nth(1).expect("body");
    let v: serde_json::Value = serde_json::from_str(body).expect("json");
    assert!(v["proofs_completed"].as_u64() >= Some(3), "{v}");
}

fn invalid(r: Result<tonic::Response<pb::SubmitProofResponse>, tonic::Status>, field: &str) {
    match r {
        Err(e) => {
            assert!(e.code() == Code::InvalidArgument && e.message().starts_with(field), "{field}: {e}")
        }
        Ok(r) => panic!("{field}: accepted as {:?}", r.into_inner()),
    }
}

/// Bad requests answered with the field's name, never a crash; a client leaving mid-Prove
/// leaves the job running; SIGTERM drains.
#[test]
fn faults_and_drain() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let d = Daemon::start("127.0.0.1:0", &tmp.path().join("home"), &["--workers", "1"]);
    let rt = rt();
    // Whether the first late submission got in before the daemon heard SIGTERM (then it is dropped too).
    let late_queued = rt.block_on(async {
        let mut c = d.client();
        let w = post_req(WINDOW, "");
        invalid(c.submit_proof(pb::SubmitProofRequest { proof_kind: 0, ..w.clone() }).await, "proof_kind");
        invalid(c.submit_proof(pb::SubmitProofRequest { proof_kind: 99, ..w.clone() }).await, "proof_kind");
        invalid(c.submit_proof(pb::SubmitProofRequest { priority: 9, ..w.clone() }).await, "priority");
        invalid(
            c.submit_proof(pb::SubmitProofRequest { randomness: vec![1; 31], ..w.clone() }).await,
            "randomness",
        );
        invalid(
            c.submit_proof(pb::SubmitProofRequest { sector_size: 1 << 35, ..w.clone() }).await,
            "sector_size",
        );
        invalid(
            c.submit_proof(pb::SubmitProofRequest { vanilla_proofs: vec![vec![1, 2, 3]], ..w.clone() }).await,
            "request: field `vanilla_proofs[0]`",
        );
        invalid(
            c.submit_proof(pb::SubmitProofRequest { vanilla_proof: vec![1], ..w.clone() }).await,
            "vanilla_proof",
        );
        // A WinningPoSt proof type under the WindowPoSt kind.
        let win = post_req(WINNING, "");
        invalid(
            c.submit_proof(pb::SubmitProofRequest { registered_proof: win.registered_proof, ..w.clone() })
                .await,
            "registered_proof",
        );
        // PoRep: truncated C1, a C1 under another registered proof, an empty one.
        let c1 = std::fs::read("samples/filecoin/c1-2kib.json").expect("c1");
        let porep = cuzk::cli::client::request_from_c1(c1.clone()).expect("c1 request");
        invalid(
            c.submit_proof(pb::SubmitProofRequest {
                vanilla_proof: c1[..c1.len() / 2].to_vec(),
                ..porep.clone()
            })
            .await,
            "vanilla_proof",
        );
        invalid(
            c.submit_proof(pb::SubmitProofRequest { registered_proof: 0, ..porep.clone() }).await,
            "registered_proof",
        );
        invalid(
            c.submit_proof(pb::SubmitProofRequest { vanilla_proof: Vec::new(), ..porep.clone() }).await,
            "vanilla_proof",
        );
        invalid(
            c.submit_proof(pb::SubmitProofRequest { randomness: vec![0; 32], ..porep.clone() }).await,
            "randomness",
        );
        // Oversized: over the 256 MiB limit, refused by the transport.
        let mut big =
            cuzk::wire::dial::proving(&d.addr).expect("channel").max_encoding_message_size(300 << 20);
        let huge = pb::SubmitProofRequest { vanilla_proof: vec![b' '; (256 << 20) + 1], ..porep.clone() };
        assert!(big.submit_proof(huge).await.is_err(), "a 256 MiB + 1 request was accepted");
        // SnapDeals with a vanilla proof that is not one: refused, naming the field.
        let snap = pb::SubmitProofRequest {
            request_id: "snap-1".into(),
            proof_kind: pb::ProofKind::SnapDealsUpdate as i32,
            sector_size: 2048,
            vanilla_proofs: vec![vec![1]],
            comm_r_old: vec![1; 32],
            comm_r_new: vec![2; 32],
            comm_d_new: vec![3; 32],
            ..Default::default()
        };
        let e = c.prove(pb::ProveRequest { submit: Some(snap) }).await.expect_err("a bad snap request");
        assert!(e.code() == Code::InvalidArgument && e.message().contains("vanilla_proofs[0]"), "{e}");
        // A client that gives up mid-Prove: the job goes on, and its request id finds it. NORMAL, so it
        // holds the one general worker (the critical worker takes only CRITICAL jobs) and the next one waits.
        let gone = || pb::SubmitProofRequest {
            priority: pb::Priority::Normal as i32,
            ..post_req(WINNING, "gone-1")
        };
        let mut short = c.clone();
        let mut req = tonic::Request::new(pb::ProveRequest { submit: Some(gone()) });
        req.set_timeout(Duration::from_millis(300));
        let e = short.prove(req).await.expect_err("timed out");
        assert!(matches!(e.code(), Code::DeadlineExceeded | Code::Cancelled), "{e}");
        let sub = c.submit_proof(gone()).await.expect("find again").into_inner();
        // SIGTERM while it runs and another waits: the queued one is cancelled, new ones refused, it finishes.
        let queued = c.submit_proof(post_req(WINDOW, "queued-1")).await.expect("queue").into_inner();
        d.signal("-TERM");
        let deadline = Instant::now() + Duration::from_secs(20);
        let mut late_queued = false;
        loop {
            match c.submit_proof(post_req(WINDOW, "late-1")).await {
                Err(e) if e.code() == Code::Unavailable => break,
                _ if Instant::now() > deadline => panic!("still accepting jobs after SIGTERM"),
                r => {
                    // Resubmitting "late-1" finds the same job: at most one late job is queued.
                    late_queued |= r.is_ok();
                    tokio::time::sleep(Duration::from_millis(20)).await
                }
            }
        }
        let q = c
            .await_proof(pb::AwaitProofRequest { job_id: queued.job_id, timeout_ms: 0 })
            .await
            .expect("await");
        assert_eq!(q.get_ref().status, Done::Cancelled as i32);
        let r = c
            .await_proof(pb::AwaitProofRequest { job_id: sub.job_id, timeout_ms: 0 })
            .await
            .expect("await")
            .into_inner();
        assert_eq!(r.status, Done::Completed as i32, "{}", r.error_message);
        late_queued
    });
    let mut d = d;
    let t = Instant::now();
    let status = loop {
        if let Some(s) = d.child.try_wait().expect("wait") {
            break s;
        }
        assert!(t.elapsed() < Duration::from_secs(60), "no exit after the drain:\n{}", d.log());
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{}", d.log());
    let dropped = 1 + usize::from(late_queued);
    let want = format!("drained: 1 finished, 0 cancelled while running, {dropped} dropped");
    assert!(d.log().contains(&want), "{}", d.log());
}

/// Two daemons on one cache prove at once with the same bytes; one killed with -9 mid-proof restarts on the
/// same caches, preloads the params the first made before any job, and serves again; the cache holds no
/// temp files afterwards.
#[test]
fn kill_9_restart_and_a_shared_cache() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let home = tmp.path().join("home");
    let a = Daemon::start("127.0.0.1:0", &home, &[]);
    let b = Daemon::start("127.0.0.1:0", &home, &[]);
    let rt = rt();
    let (pa, pb_) = rt.block_on(async {
        let (mut ca, mut cb) = (a.client(), b.client());
        let ra = ca.prove(pb::ProveRequest { submit: Some(post_req(WINDOW, "a")) });
        let rb = cb.prove(pb::ProveRequest { submit: Some(post_req(WINDOW, "b")) });
        let (ra, rb) = tokio::join!(ra, rb);
        (ra.expect("a").into_inner().result.expect("a"), rb.expect("b").into_inner().result.expect("b"))
    });
    assert_eq!(pa.status, Done::Completed as i32, "{}", pa.error_message);
    assert_eq!(pa.proof, pb_.proof, "two daemons, same input and seed, different proofs");
    drop(b);
    rt.block_on(async {
        let mut c = a.client();
        let _ = c.submit_proof(post_req(WINNING, "killed")).await.expect("submit");
    });
    std::thread::sleep(Duration::from_millis(500));
    a.signal("-9");
    drop(a);
    let again = Daemon::start("127.0.0.1:0", &home, &[]);
    let r = rt.block_on(async {
        let mut c = again.client();
        // cuzk's own params of a circuit no job ran in this process: found through the circuit index.
        let pre = c
            .preload_srs(pb::PreloadSrsRequest { circuit_id: "wpost-2k".into() })
            .await
            .expect("preload of cuzk's own params before any job")
            .into_inner();
        assert!(!pre.already_loaded);
        let s = c.get_status(pb::GetStatusRequest {}).await.expect("status").into_inner();
        let e = s.loaded_srs.iter().find(|e| e.circuit_id == "wpost-2k").expect("listed");
        assert!(e.tier == pb::srs_status::Tier::Hot as i32 && e.size_bytes > 0, "{e:?}");
        c.prove(pb::ProveRequest { submit: Some(post_req(WINDOW, "after")) })
            .await
            .expect("prove")
            .into_inner()
            .result
            .expect("r")
    });
    assert_eq!(r.status, Done::Completed as i32, "{}", r.error_message);
    assert_eq!(r.proof, pa.proof);
    let temps: Vec<_> = std::fs::read_dir(cache().join("params"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.contains(".tmp-"))
                .collect()
        })
        .unwrap_or_default();
    assert!(temps.iter().all(|t| !t.contains(&format!("-{}-", std::process::id()))), "{temps:?}");
    let runs = std::fs::read_dir(home.join("runs")).expect("runs").count();
    assert!(runs >= 3, "every completed job is a run record ({runs})");
}

/// `cuzk client prove --snap FILE` sends what Curio would for a SnapDeals update: the daemon builds from it
/// the partition circuits and public inputs `cuzk prove --snap FILE` builds from the file, and a damaged
/// commitment is refused naming its field.
#[test]
fn client_snap_request_is_the_files_update_job() {
    const SNAP: &str = "samples/filecoin/snap-2kib.json";
    let bytes = std::fs::read(SNAP).expect("fixture");
    let req = request_from_snap(&bytes).expect("request");
    assert_eq!(req.proof_kind, pb::ProofKind::SnapDealsUpdate as i32);
    assert_eq!(req.sector_size, 2048);
    let job = cuzk::daemon::request::to_job(&req, 42).expect("the daemon takes it");
    assert_eq!(job.kind, cuzk::engine::service::JobKind::Snap);
    let file: cuzk::circuits::filecoin::snap::SnapRequest = serde_json::from_slice(&bytes).expect("json");
    let direct = cuzk::circuits::filecoin::FilecoinJob::from_snap(Path::new(SNAP), &file).expect("from file");
    let inputs: Vec<_> = job.sample.sector_circuits(0).iter().map(|c| c.public_inputs()).collect();
    assert!(!inputs.is_empty() && inputs == direct.inputs, "the daemon's inputs differ from the file's");
    let mut bad = req.clone();
    bad.comm_d_new.truncate(31);
    let err = cuzk::daemon::request::to_job(&bad, 42).map(|_| ()).expect_err("a 31-byte commitment");
    assert!(format!("{err:?}").contains("comm_d_new"), "{err:?}");
}
