//! Filecoin's real circuits against filecoin-proofs 19.1 as the reference.
//!
//! * Every fixture parses (the C1 wrapper and its bare inner JSON give the same job); malformed request files
//!   give one-line errors naming the field.
//! * The partition circuits' shapes from cuzk's `ShapeCounter` equal an independent count (a reference CS for the
//!   PoRep, bellperson's `TestConstraintSystem` for PoSt); cuzk's proving assignment satisfies every row; the
//!   circuit's public inputs equal the verifier's (`filecoin_proofs::get_seal_inputs` for the PoRep); the PoRep's
//!   `pce` path (witness-only synthesis + SpMV) gives the reference's witness and normal synthesis's a, b, c.
//! * cuzk's WindowPoSt and WinningPoSt proofs (the `cuzk` binary, locally generated params) are accepted by
//!   `filecoin_proofs::verify_window_post` / `verify_winning_post` and a flipped byte is rejected; the same
//!   for the 2 KiB PoRep C2 with `verify_seal`, ignored by a plain `cargo test` (its 2^22 setup is too slow
//!   for CI; `scripts/gpu-check.sh` runs it with `--include-ignored`).
//!
//! filecoin-proofs reads its settings once per process and memoizes verifying keys, so every verification runs in
//! a child process (this binary again, filtered to [`child_verifies_with_filecoin_proofs`]) with its own caches.

#[path = "support/fil.rs"]
mod fil;
#[path = "support/daemon.rs"]
mod harness;
#[path = "support/refcs.rs"]
mod refcs;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use blstrs::Scalar;
use cuzk::circuits::filecoin::c1::SealCommitPhase1Output;
use cuzk::circuits::filecoin::post::PostRequest;
use cuzk::circuits::filecoin::registry::SealProof;
use cuzk::circuits::{FilecoinCircuit, FilecoinJob};
use cuzk::cs::foreign::bellperson::Foreign;
use cuzk::cs::{ProvingAssignment, Shape, ShapeCounter, VecStore};
use filecoin_hashers::{poseidon::PoseidonDomain, sha256::Sha256Domain, sha256::Sha256Hasher, Domain};
use serde_json::Value;
use storage_proofs_core::compound_proof::{self, CompoundProof};
use storage_proofs_core::sector::SectorId;
use storage_proofs_porep::stacked::{self, StackedCompound, StackedDrg};

const DIR: &str = "samples/filecoin";

fn fixture(name: &str) -> PathBuf {
    Path::new(DIR).join(name)
}

fn load(path: &Path) -> FilecoinJob {
    FilecoinJob::load(path).unwrap_or_else(|e| panic!("{e}"))
}

/// The sizes with committed fixtures (2 KiB always; 8 MiB when generated).
fn sizes() -> Vec<&'static str> {
    ["2kib", "8mib", "512mib"].into_iter().filter(|s| fixture(&format!("c1-{s}.json")).is_file()).collect()
}

#[test]
fn fixtures_parse_and_wrapper_equals_inner() {
    for size in sizes() {
        let wrapped = load(&fixture(&format!("c1-{size}.json")));
        let inner_path = fixture(&format!("c1-{size}-inner.json"));
        let bare = load(&inner_path);
        assert_eq!(wrapped.registered, bare.registered, "{size}");
        assert_eq!(wrapped.sector, Some(1), "{size}: SectorNum");
        assert_eq!(bare.sector, None);
        assert_eq!(wrapped.partitions(), 1, "{size}: small sectors have one partition");
        assert_eq!(wrapped.inputs, bare.inputs, "{size}: same public inputs");
        // The inner JSON re-serializes byte for byte (field order and encodings as filecoin-ffi writes them),
        // and the wrapper's Phase1Out is exactly that file.
        let inner = std::fs::read(&inner_path).expect("read");
        let parsed = SealCommitPhase1Output::from_json(&inner).expect("inner");
        assert_eq!(parsed.to_json().expect("to_json"), inner, "{size}: inner JSON round trip");
        let w: Value =
            serde_json::from_slice(&std::fs::read(fixture(&format!("c1-{size}.json"))).expect("read"))
                .expect("wrapper JSON");
        let decoded =
            cuzk::circuits::filecoin::encoding::b64_decode(w["Phase1Out"].as_str().expect("Phase1Out"))
                .expect("base64");
        assert_eq!(decoded, inner, "{size}: Phase1Out is the inner file");
        assert_eq!(w["SectorSize"].as_u64(), Some(parsed.registered_proof.size().bytes()));
        for kind in ["winning-post", "window-post"] {
            let job = load(&fixture(&format!("{kind}-{size}.json")));
            assert_eq!(job.registered.kind(), kind);
            assert_eq!(job.partitions(), 1);
            assert_eq!(job.inputs.len(), 1);
        }
    }
}

/// Writes `bytes` as a request file and returns the one-line error loading it gives.
fn load_error(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write");
    match FilecoinJob::load(&path) {
        Ok(_) => panic!("{name}: loaded"),
        Err(e) => {
            let msg = e.to_string();
            assert!(!msg.contains('\n'), "{name}: more than one line: {msg}");
            assert!(msg.starts_with(&path.display().to_string()), "{name}: does not name the file: {msg}");
            msg
        }
    }
}

fn json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).expect("read")).expect("json")
}

fn to_bytes(v: &Value) -> Vec<u8> {
    serde_json::to_vec(v).expect("serialize")
}

#[test]
fn malformed_files_give_one_line_errors_naming_the_field() {
    use cuzk::circuits::filecoin::encoding::{b64_decode, b64_encode};
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    let wrapper = std::fs::read(fixture("c1-2kib.json")).expect("read");
    let inner = json(&fixture("c1-2kib-inner.json"));
    let window = json(&fixture("window-post-2kib.json"));
    let winning = json(&fixture("winning-post-2kib.json"));
    let expect = |name: &str, bytes: Vec<u8>, want: &str| {
        let msg = load_error(dir, name, &bytes);
        assert!(msg.contains(want), "{name}: expected `{want}` in: {msg}");
    };

    expect("truncated.json", wrapper[..wrapper.len() / 2].to_vec(), "not JSON");
    let mut w: Value = serde_json::from_slice(&wrapper).expect("wrapper");
    w["Phase1Out"] = Value::from("not*base64!");
    expect("bad-base64.json", to_bytes(&w), "field `Phase1Out`: bad base64");
    let mut w: Value = serde_json::from_slice(&wrapper).expect("wrapper");
    w["SectorSize"] = Value::from(8u64 << 20);
    expect("sector-size.json", to_bytes(&w), "field `SectorSize`");
    let mut v = inner.clone();
    v["registered_proof"] = Value::from("StackedDrg3KiBV1_1");
    expect("registered.json", to_bytes(&v), "field `registered_proof`");
    // The same inside the wrapper names both levels.
    let mut w: Value = serde_json::from_slice(&wrapper).expect("wrapper");
    w["Phase1Out"] = Value::from(b64_encode(&to_bytes(&v)));
    expect("registered-wrapped.json", to_bytes(&w), "field `Phase1Out` (decoded): field `registered_proof`");
    let mut v = window.clone();
    v["registered_proof"] = Value::from("StackedDrgWindow3KiBV1_2");
    expect("post-registered.json", to_bytes(&v), "field `registered_proof`");
    let mut v = inner.clone();
    v["vanilla_proofs"]["StackedDrg2KiBV1"] = Value::Array(vec![]);
    expect("c1-empty.json", to_bytes(&v), "field `vanilla_proofs`");
    let mut v = window.clone();
    v["vanilla_proofs"] = Value::Array(vec![]);
    expect("post-empty.json", to_bytes(&v), "field `vanilla_proofs`: empty");
    // WindowPoSt sectors out of order (vanilla proofs and sector list both swapped, so they agree).
    let mut v = window.clone();
    for key in ["vanilla_proofs", "sectors"] {
        v[key].as_array_mut().expect("array").reverse();
    }
    expect("unsorted.json", to_bytes(&v), "ascending sector id");
    // Flipped bits: in a PoSt vanilla proof (a hash in its merkle path) and in a C1 vanilla proof (comm_d leaf).
    for (name, req) in [("window", &window), ("winning", &winning)] {
        let mut v = req.clone();
        let mut blob = b64_decode(v["vanilla_proofs"][0].as_str().expect("base64")).expect("base64");
        let at = blob.len() / 2;
        blob[at] ^= 0x04;
        v["vanilla_proofs"][0] = Value::from(b64_encode(&blob));
        expect(&format!("{name}-flipped.json"), to_bytes(&v), "field `vanilla_proofs");
    }
    let mut v = inner.clone();
    let leaf =
        &mut v["vanilla_proofs"]["StackedDrg2KiBV1"][0][0]["comm_d_proofs"]["data"]["Single"]["leaf"][0];
    *leaf = Value::from(leaf.as_u64().expect("byte") ^ 1);
    expect("c1-flipped.json", to_bytes(&v), "field `vanilla_proofs`");
    // A byte value out of range names its path.
    let mut v = inner.clone();
    v["comm_r"][3] = Value::from(300);
    expect("c1-range.json", to_bytes(&v), "field `comm_r[3]`");
}

/// cuzk's shape, assignment and public inputs of `job`'s partition 0 against a reference synthesis of the same
/// storage-proofs circuit: (constraints, inputs with ONE, aux) and the reference's inputs.
fn check_against_reference(job: &FilecoinJob, reference: &refcs::RefCs) -> Shape {
    let circuit = &job.circuits[0];
    let shape = ShapeCounter::count(circuit).expect("count");
    assert_eq!(
        (shape.constraints, shape.inputs, shape.aux),
        (reference.constraints, reference.inputs.len(), reference.aux.len()),
        "cuzk's ShapeCounter against the reference count"
    );
    assert!(reference.unsatisfied.is_empty(), "reference CS: unsatisfied {:?}", reference.unsatisfied);
    let asg = ProvingAssignment::synthesize::<VecStore, _>(circuit, Some(shape)).expect("synthesize");
    assert_eq!(asg.num_constraints(), shape.rows());
    let bad: Vec<usize> = (0..asg.a.len()).filter(|&i| asg.a[i] * asg.b[i] != asg.c[i]).take(8).collect();
    assert!(bad.is_empty(), "cuzk's assignment: a·b ≠ c at rows {bad:?}");
    assert_eq!(asg.input_assignment, reference.inputs, "cuzk's inputs against the reference's");
    assert_eq!(asg.aux_assignment, reference.aux, "cuzk's witness against the reference's");
    assert_eq!(asg.input_assignment[1..], job.inputs[0][..], "the circuit's inputs are the verifier's");
    shape
}

#[test]
fn porep_2kib_shape_inputs_and_satisfaction() {
    use bellperson::Circuit as _;
    type Tree = fil::SmallTree;
    let job = load(&fixture("c1-2kib.json"));
    // The circuit rebuilt without cuzk's reader: the vanilla proofs straight from the JSON, the setup from
    // filecoin-proofs' own `setup_params`.
    let mut inner = json(&fixture("c1-2kib-inner.json"));
    let vanilla: Vec<Vec<stacked::Proof<Tree, Sha256Hasher>>> =
        serde_json::from_value(inner["vanilla_proofs"]["StackedDrg2KiBV1"].take()).expect("vanilla proofs");
    let bytes32 = |key: &str| -> [u8; 32] { serde_json::from_value(inner[key].clone()).expect("32 bytes") };
    let proof = SealProof::StackedDrg2KiBV1_1;
    let cfg = fil::porep_config(proof).expect("config");
    let setup = compound_proof::SetupParams {
        vanilla_params: filecoin_proofs::parameters::setup_params(&cfg).expect("setup params"),
        partitions: Some(1),
        priority: false,
    };
    let pp =
        <StackedCompound<Tree, Sha256Hasher> as CompoundProof<StackedDrg<'_, Tree, Sha256Hasher>, _>>::setup(
            &setup,
        )
        .expect("setup");
    let pub_in = stacked::PublicInputs {
        replica_id: PoseidonDomain::try_from_bytes(&bytes32("replica_id")).expect("replica_id"),
        tau: Some(stacked::Tau {
            comm_d: Sha256Domain::try_from_bytes(&bytes32("comm_d")).expect("comm_d"),
            comm_r: PoseidonDomain::try_from_bytes(&bytes32("comm_r")).expect("comm_r"),
        }),
        k: None,
        seed: Some(bytes32("seed")),
    };
    let circuit = <StackedCompound<Tree, Sha256Hasher> as CompoundProof<
        StackedDrg<'_, Tree, Sha256Hasher>,
        _,
    >>::circuit(&pub_in, (), &vanilla[0], &pp.vanilla_params, Some(0))
    .expect("circuit");
    let mut reference = refcs::RefCs::default();
    circuit.synthesize(&mut reference).expect("reference synthesis");
    let shape = check_against_reference(&job, &reference);
    assert_eq!((shape.constraints, shape.inputs, shape.aux), (2_687_921, 40, 2_685_673));
    assert_eq!(shape.domain(), 1 << 22);
    // The verifier's inputs, derived as verify_seal does: replica_id recomputed from the prover id, sector,
    // ticket, comm_d and porep_id.
    let inputs = filecoin_proofs::get_seal_inputs::<Tree>(
        &cfg,
        bytes32("comm_r"),
        bytes32("comm_d"),
        cuzk::circuits::filecoin::encoding::prover_id_from_miner_id(fil::MINER_ID),
        SectorId::from(1),
        bytes32("ticket"),
        bytes32("seed"),
    )
    .expect("get_seal_inputs");
    assert_eq!(inputs, job.inputs, "filecoin-proofs' get_seal_inputs against cuzk's");
    // The pce path on the real circuit: witness-only synthesis (bellperson's gadgets skipping their
    // combinations) plus the SpMV gives the reference's witness and normal synthesis's a, b, c.
    let (pce, _) = cuzk::cs::Pce::record(&job.circuits[0]).expect("record");
    let fast = pce.synthesize(&job.circuits[0]).expect("pce synthesis");
    assert_eq!(fast.aux_assignment, reference.aux, "witness-only synthesis against the reference's witness");
    assert_eq!(fast.input_assignment, reference.inputs);
    let normal =
        ProvingAssignment::synthesize::<VecStore, _>(&job.circuits[0], Some(shape)).expect("synthesize");
    assert!(
        fast.a == normal.a && fast.b == normal.b && fast.c == normal.c,
        "pce a/b/c against normal synthesis"
    );
}

#[test]
fn post_2kib_shapes_inputs_and_satisfaction() {
    use bellperson::util_cs::test_cs::TestConstraintSystem;
    use bellperson::Circuit as _;
    for (file, want) in
        [("winning-post-2kib.json", (90_750, 133, 91_674)), ("window-post-2kib.json", (21_866, 23, 22_128))]
    {
        let job = load(&fixture(file));
        let FilecoinCircuit::PostBase(Foreign(circuit)) = &job.circuits[0] else {
            panic!("{file}: not a PoSt")
        };
        // bellperson's own test CS: its count, satisfaction and inputs.
        let mut test_cs = TestConstraintSystem::<Scalar>::new();
        circuit.clone().synthesize(&mut test_cs).expect("synthesize");
        assert!(test_cs.is_satisfied(), "{file}: {:?}", test_cs.which_is_unsatisfied());
        let mut reference = refcs::RefCs::default();
        circuit.clone().synthesize(&mut reference).expect("synthesize");
        assert_eq!(test_cs.num_constraints(), reference.constraints, "{file}");
        assert_eq!(test_cs.scalar_inputs(), reference.inputs, "{file}");
        assert_eq!(test_cs.scalar_aux(), reference.aux, "{file}");
        let shape = check_against_reference(&job, &reference);
        assert_eq!((shape.constraints, shape.inputs, shape.aux), want, "{file}");
    }
}

// ---- end to end: cuzk proves, filecoin-proofs verifies (in a child process) ----

fn cuzk_bin() -> PathBuf {
    std::env::var_os("CUZK_BIN").map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_cuzk")), PathBuf::from)
}

/// `cuzk prove FLAG FILE --out DIR` with params generated locally (cuzk's cache: `$CUZK_CACHE` when set, as in
/// gpu-check, else under `tmp`); returns DIR.
fn cuzk_prove(flag: &str, file: &Path, tmp: &Path, extra: &[&str]) -> PathBuf {
    let out = tmp.join("out");
    let cache = std::env::var_os("CUZK_CACHE").map_or_else(|| tmp.join("cuzk-cache"), PathBuf::from);
    let t = Instant::now();
    let o = Command::new(cuzk_bin())
        .args(["prove", flag])
        .arg(file)
        .arg("--out")
        .arg(&out)
        .args(extra)
        .env("CUZK_HOME", tmp.join("cuzk-home"))
        .env("CUZK_CACHE", cache)
        .env_remove("FIL_PROOFS_PARAMETER_CACHE")
        .output()
        .expect("run cuzk");
    let (stdout, stderr) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "cuzk prove {flag} {}: {stdout}\n{stderr}", file.display());
    assert!(stdout.contains("verified: all"), "{stdout}");
    eprintln!("cuzk prove {flag} {}: {:.1} s", file.display(), t.elapsed().as_secs_f64());
    out
}

/// Proves `file` with cuzk, writes its vk as `v28-<identifier>.vk` into a fresh filecoin-proofs parameter cache
/// and has a child process verify the proof with filecoin-proofs.
fn prove_and_verify_with_filecoin_proofs(kind: &str, flag: &str, file: &str) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let file = fixture(file);
    let out = cuzk_prove(flag, &file, tmp.path(), &[]);
    verify_in_child(kind, &file, &out, tmp.path());
}

/// Has a child process verify `out`'s proofs.bin of `file` with filecoin-proofs, `out`'s vk.bin written as
/// `v28-<identifier>.vk` into a fresh filecoin-proofs parameter cache under `tmp`.
fn verify_in_child(kind: &str, file: &Path, out: &Path, tmp: &Path) {
    let fil_dir = tmp.join("fil");
    let env = fil::cache_env(&fil_dir).expect("cache env");
    let id = load(file).registered.identifier().expect("identifier");
    let vk = fil::params_dir(&fil_dir).join(format!("v28-{id}.vk"));
    std::fs::copy(out.join("vk.bin"), &vk).expect("copy vk");
    let o = Command::new(std::env::current_exe().expect("test binary"))
        .args([CHILD, "--exact", "--nocapture", "--test-threads=1"])
        .envs(env)
        .env(CHILD_ENV, format!("{kind}\n{}\n{}", file.display(), out.join("proofs.bin").display()))
        .output()
        .expect("run child");
    let (stdout, stderr) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success() && stdout.contains("1 passed"), "child: {stdout}\n{stderr}");
    assert!(stderr.contains("verified by filecoin-proofs"), "child did not verify: {stderr}");
    eprint!(
        "{}",
        stderr.lines().filter(|l| l.starts_with("child:")).map(|l| format!("{l}\n")).collect::<String>()
    );
}

const CHILD: &str = "child_verifies_with_filecoin_proofs";
const CHILD_ENV: &str = "CUZK_FIL_CHILD";

/// Not a test of its own: the child process of the end-to-end tests (a no-op unless `CUZK_FIL_CHILD` is set to
/// `KIND\nREQUEST\nPROOFS`). Verifies the proof with filecoin-proofs, then the proof with one byte flipped.
#[test]
fn child_verifies_with_filecoin_proofs() {
    let Ok(spec) = std::env::var(CHILD_ENV) else { return };
    let [kind, file, proofs] = spec.split('\n').collect::<Vec<_>>()[..] else { panic!("bad {CHILD_ENV}") };
    let proof = std::fs::read(proofs).expect("proofs.bin");
    assert_eq!(proof.len() % 192, 0);
    let verify = |bytes: &[u8]| -> anyhow::Result<bool> {
        match kind {
            "seal" => fil::verify_seal(&fil::seal_statement(Path::new(file), fil::MINER_ID, None)?, bytes),
            _ => {
                let req: PostRequest = serde_json::from_slice(&std::fs::read(file)?)?;
                fil::verify_post(&req, bytes)
            }
        }
    };
    let t = Instant::now();
    let ok = verify(&proof);
    eprintln!("child: {kind} {file}: filecoin-proofs verify = {ok:?} ({:.2} s)", t.elapsed().as_secs_f64());
    assert!(matches!(ok, Ok(true)), "filecoin-proofs rejected cuzk's proof: {ok:?}");
    // Flip one byte of each point (A, B, C): each proof must be rejected (false, or an error decoding the point).
    for at in [20, 48 + 50, 144 + 20] {
        let mut bad = proof.clone();
        bad[at] ^= 0x01;
        let r = verify(&bad);
        eprintln!("child: byte {at} flipped: {r:?}");
        assert!(!matches!(r, Ok(true)), "byte {at} flipped and still accepted");
    }
    eprintln!("child: {kind}: verified by filecoin-proofs; flipped bytes rejected");
}

#[test]
fn window_post_2kib_verified_by_filecoin_proofs() {
    prove_and_verify_with_filecoin_proofs("post", "--post", "window-post-2kib.json");
}

#[test]
fn winning_post_2kib_verified_by_filecoin_proofs() {
    prove_and_verify_with_filecoin_proofs("post", "--post", "winning-post-2kib.json");
}

/// The 2 KiB PoRep C2 end to end. Its params setup over the 2^22 domain takes about 7 minutes on CI's 2 cores
/// (docs/PERF.md), more than CI's budget allows, so it runs in `scripts/gpu-check.sh` only
/// (`--include-ignored`; there the params are already in `$CUZK_CACHE` from its own C2 proofs).
#[test]
#[ignore = "the real 2 KiB C2 needs a 2^22 setup (~7 min on 2 cores): runs in scripts/gpu-check.sh (--include-ignored)"]
fn porep_2kib_verified_by_filecoin_proofs() {
    prove_and_verify_with_filecoin_proofs("seal", "--c1", "c1-2kib.json");
}

/// The 2 KiB PoRep C2 through the daemon as Curio sends it (`SubmitProof` of the C1 JSON, then `AwaitProof`):
/// the proof bytes equal `cuzk prove --c1`'s for the same seed, and filecoin-proofs' `verify_seal` accepts
/// them. Ignored for the same reason as the test above; gpu-check runs it with the daemon on the GPU
/// (`CUZK_DAEMON_BACKEND=gpu`).
#[test]
#[ignore = "the real 2 KiB C2 needs a 2^22 setup (~7 min on 2 cores): runs in scripts/gpu-check.sh (--include-ignored)"]
fn porep_2kib_through_the_daemon_verified_by_filecoin_proofs() {
    use cuzk::wire::v1::{self as pb, await_proof_response::Status as Done};
    let tmp = tempfile::tempdir().expect("tempdir");
    let file = fixture("c1-2kib.json");
    let out = cuzk_prove("--c1", &file, tmp.path(), &["--seed", "42"]);
    // Without CUZK_CACHE (gpu-check sets it) the daemon's cache is another: it makes the same params again.
    let d = harness::Daemon::start("127.0.0.1:0", &tmp.path().join("daemon-home"), &[]);
    let mut req = cuzk::cli::client::request_from_c1(std::fs::read(&file).expect("c1")).expect("request");
    req.request_id = "c2-2kib".into();
    let r = harness::rt().block_on(async {
        let mut c = d.client();
        let sub = c.submit_proof(req).await.expect("submit").into_inner();
        let a = pb::AwaitProofRequest { job_id: sub.job_id, timeout_ms: 0 };
        c.await_proof(a).await.expect("await").into_inner()
    });
    assert_eq!(r.status, Done::Completed as i32, "{}\n{}", r.error_message, d.log());
    let cli = std::fs::read(out.join("proofs.bin")).expect("proofs.bin");
    assert_eq!(r.proof, cli, "the daemon's C2 proof differs from cuzk prove's");
    eprintln!(
        "daemon c2-2kib: total {} ms, synthesis {} ms, gpu {} ms",
        r.total_ms, r.synthesis_ms, r.gpu_compute_ms
    );
    let daemon_out = tmp.path().join("daemon-out");
    std::fs::create_dir_all(&daemon_out).expect("mkdir");
    std::fs::write(daemon_out.join("proofs.bin"), &r.proof).expect("write");
    std::fs::copy(out.join("vk.bin"), daemon_out.join("vk.bin")).expect("vk");
    verify_in_child("seal", &file, &daemon_out, tmp.path());
}

/// Not a test of its own: with `CUZK_BELLPERSON_VERIFY=DIR`, bellperson's verifier (an implementation
/// independent of cuzk's) checks every proof of DIR as `cuzk prove --out` writes it (vk.bin, proofs.bin,
/// inputs.bin), and that each with a flipped byte is rejected. `scripts/sector-32g.sh` runs it on a 32 GiB
/// sector's proofs; a no-op otherwise.
#[test]
fn bellperson_verifies_an_out_dir() {
    let Ok(dir) = std::env::var("CUZK_BELLPERSON_VERIFY") else { return };
    let dir = PathBuf::from(dir);
    let t = Instant::now();
    let vk_file = std::fs::File::open(dir.join("vk.bin")).expect("vk.bin");
    let vk = bellperson::groth16::VerifyingKey::<blstrs::Bls12>::read(std::io::BufReader::new(vk_file))
        .expect("vk.bin in bellperson's format");
    let pvk = bellperson::groth16::prepare_verifying_key(&vk);
    let proofs = std::fs::read(dir.join("proofs.bin")).expect("proofs.bin");
    let inputs = cuzk::groth16::proof::read_inputs(&dir.join("inputs.bin")).expect("inputs.bin");
    let per = vk.ic.len() - 1;
    assert!(!proofs.is_empty() && proofs.len() % 192 == 0, "proofs.bin: {} bytes", proofs.len());
    let n = proofs.len() / 192;
    assert_eq!(inputs.len(), n * per, "inputs.bin: {} inputs for {n} proofs of {per}", inputs.len());
    let verify = |bytes: &[u8], k: usize| -> bool {
        let Ok(proof) = bellperson::groth16::Proof::<blstrs::Bls12>::read(bytes) else { return false };
        let public = &inputs[k * per..(k + 1) * per];
        bellperson::groth16::verify_proof(&pvk, &proof, public).unwrap_or(false)
    };
    for (k, chunk) in proofs.chunks(192).enumerate() {
        assert!(verify(chunk, k), "bellperson rejected proof {k} of {}", dir.display());
        let mut bad = chunk.to_vec();
        bad[20 + k % 150] ^= 1;
        assert!(!verify(&bad, k), "proof {k} with a flipped byte was accepted");
    }
    eprintln!(
        "bellperson: {n} of {n} proofs of {} verified ({per} inputs each), flipped bytes rejected, in {:.2} s",
        dir.display(),
        t.elapsed().as_secs_f64()
    );
}

/// Production params come from bellperson's own generator, which leaves out of the A and B queries every
/// variable that only appears with a zero coefficient (its density marking skips them). cuzk proves with a
/// file bellperson generated and bellperson's verifier, with that file's vk, accepts the proof: cuzk reads the
/// queries as bellperson wrote them and its densities select the same bases.
#[test]
fn proofs_against_params_bellperson_generated_verify_with_bellpersons_verifier() {
    use rand::SeedableRng;
    // WindowPoSt: the same gadgets as WinningPoSt (which passes too, 4× the rows) in a quarter of CI's time.
    for file in ["window-post-2kib.json"] {
        let tmp = tempfile::tempdir().expect("tempdir");
        let path = fixture(file);
        let job = load(&path);
        let FilecoinCircuit::PostBase(Foreign(circuit)) = &job.circuits[0] else {
            panic!("{file}: not a PoSt")
        };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x5eed);
        let params =
            bellperson::groth16::generate_random_parameters::<blstrs::Bls12, _, _>(circuit.clone(), &mut rng)
                .expect("bellperson's setup");
        let params_file = tmp.path().join("bellperson.params");
        let mut w = std::io::BufWriter::new(std::fs::File::create(&params_file).expect("create"));
        params.write(&mut w).expect("write params");
        drop(w);
        let out = cuzk_prove("--post", &path, tmp.path(), &["--params", &params_file.display().to_string()]);
        let bytes = std::fs::read(out.join("proofs.bin")).expect("proofs.bin");
        assert_eq!(bytes.len(), 192 * job.circuits.len(), "{file}: one 192-byte proof per partition");
        let pvk = bellperson::groth16::prepare_verifying_key(&params.vk);
        for (k, chunk) in bytes.chunks(192).enumerate() {
            let proof = bellperson::groth16::Proof::<blstrs::Bls12>::read(chunk).expect("proof bytes");
            assert!(
                bellperson::groth16::verify_proof(&pvk, &proof, &job.inputs[k]).expect("verify"),
                "{file}: bellperson rejected cuzk's proof {k} against bellperson's params"
            );
        }
    }
}
