//! A `SubmitProofRequest` checked field by field and turned into the service's job: the same circuits
//! `cuzk prove --c1` / `--post` build from their files, here from the request's bytes. Every refusal is one
//! line naming the wire field.

use std::path::Path;

use crate::circuits::filecoin::encoding::prover_id_from_miner_id;
use crate::circuits::filecoin::post::PostRequest;
use crate::circuits::filecoin::registry::{PoStProof, PoStType, SealProof, SectorSize, UpdateProof};
use crate::circuits::filecoin::{FilecoinJob, Registered};
use crate::circuits::{CircuitSpec, Sample};
use crate::engine::service::circuit_id::circuit_id;
use crate::engine::service::{JobKind, JobRequest, Priority};
use crate::wire::v1::{self as pb, ProofKind};

/// Why a request was not queued.
#[derive(Debug, PartialEq, Eq)]
pub enum Refusal {
    /// A malformed or inconsistent field: a gRPC `INVALID_ARGUMENT` naming it.
    Invalid(String),
    /// A well-formed request this build cannot prove: a job that ends FAILED at once, with this line.
    Unsupported {
        /// Its kind.
        kind: JobKind,
        /// Its circuit id.
        circuit_id: String,
        /// Why.
        why: String,
    },
}

fn invalid(field: &str, msg: impl std::fmt::Display) -> Refusal {
    Refusal::Invalid(format!("{field}: {msg}"))
}

/// The wire's proof kind as the service's.
pub fn kind_of(req: &pb::SubmitProofRequest) -> Result<JobKind, Refusal> {
    match ProofKind::try_from(req.proof_kind) {
        Ok(ProofKind::PorepSealCommit) => Ok(JobKind::Porep),
        Ok(ProofKind::SnapDealsUpdate) => Ok(JobKind::Snap),
        Ok(ProofKind::WindowPostPartition) => Ok(JobKind::WindowPost),
        Ok(ProofKind::WinningPost) => Ok(JobKind::WinningPost),
        Ok(ProofKind::Unspecified) => Err(invalid("proof_kind", "unspecified (expected 1 POREP_SEAL_COMMIT, 2 SNAP_DEALS_UPDATE, 3 WINDOW_POST_PARTITION or 4 WINNING_POST)")),
        Err(_) => Err(invalid("proof_kind", format!("{} is not a ProofKind (expected 1 to 4)", req.proof_kind))),
    }
}

/// The request's priority; unspecified: CRITICAL for WinningPoSt (due within its epoch), HIGH for a WindowPoSt
/// partition (due within its deadline), NORMAL otherwise.
pub fn priority_of(req: &pb::SubmitProofRequest, kind: JobKind) -> Result<Priority, Refusal> {
    match pb::Priority::try_from(req.priority) {
        Ok(pb::Priority::Unspecified) => Ok(match kind {
            JobKind::WinningPost => Priority::Critical,
            JobKind::WindowPost => Priority::High,
            _ => Priority::Normal,
        }),
        Ok(pb::Priority::Low) => Ok(Priority::Low),
        Ok(pb::Priority::Normal) => Ok(Priority::Normal),
        Ok(pb::Priority::High) => Ok(Priority::High),
        Ok(pb::Priority::Critical) => Ok(Priority::Critical),
        Err(_) => Err(invalid("priority", format!("{} is not a Priority (expected 0 to 4)", req.priority))),
    }
}

fn check_size(req: &pb::SubmitProofRequest, size: SectorSize, what: &str) -> Result<(), Refusal> {
    if req.sector_size != 0 && req.sector_size != size.bytes() {
        return Err(invalid(
            "sector_size",
            format!("{} but {what} is a {}-byte sector's", req.sector_size, size.bytes()),
        ));
    }
    Ok(())
}

fn unused(req: &pb::SubmitProofRequest, kind: &str, fields: &[&str]) -> Result<(), Refusal> {
    for f in fields {
        let set = match *f {
            "vanilla_proof" => !req.vanilla_proof.is_empty(),
            "vanilla_proofs" => !req.vanilla_proofs.is_empty(),
            "randomness" => !req.randomness.is_empty(),
            "partition_index" => req.partition_index != 0,
            "comm_r_old" => !req.comm_r_old.is_empty(),
            "comm_r_new" => !req.comm_r_new.is_empty(),
            "comm_d_new" => !req.comm_d_new.is_empty(),
            _ => false,
        };
        if set {
            return Err(invalid(f, format!("set, but {kind} does not take it")));
        }
    }
    Ok(())
}

/// The memo key of every job of one registered proof: they share a circuit, so the engine counts its shape
/// and loads its params once.
fn circuit_key(r: Registered) -> CircuitSpec {
    CircuitSpec::Filecoin { file: format!("daemon:{}", r.name()).into() }
}

/// The job a request asks for (the circuits built, so a bad vanilla proof is refused here), with `seed` as
/// its params seed. Parsing a 32 GiB C1 output takes seconds: call it off the async threads.
pub fn to_job(req: &pb::SubmitProofRequest, seed: u64) -> Result<JobRequest, Refusal> {
    let kind = kind_of(req)?;
    let priority = priority_of(req, kind)?;
    let (job, what) = match kind {
        JobKind::Porep => (porep(req)?, "POREP_SEAL_COMMIT"),
        JobKind::WindowPost | JobKind::WinningPost => (post(req, kind)?, "PoSt"),
        JobKind::Snap => (snap(req)?, "SNAP_DEALS_UPDATE"),
        JobKind::Sample => return Err(invalid("proof_kind", "not a wire kind")),
    };
    let id = circuit_id(job.registered);
    let name = id.clone();
    let description =
        format!("{} ({what}), request {:?}, from the daemon", job.registered.name(), req.request_id);
    let sample = Sample::of_job(job, name, description, circuit_key_of(kind, req)?, seed);
    Ok(JobRequest { request_id: req.request_id.clone(), kind, priority, circuit_id: id, sample })
}

fn circuit_key_of(kind: JobKind, req: &pb::SubmitProofRequest) -> Result<CircuitSpec, Refusal> {
    match kind {
        JobKind::Porep => {
            let p = SealProof::ALL.iter().find(|p| p.as_u64() == req.registered_proof);
            p.map(|p| circuit_key(Registered::Seal(*p))).ok_or_else(|| invalid("registered_proof", "unknown"))
        }
        JobKind::Snap => UpdateProof::from_u64(req.registered_proof)
            .map(|p| circuit_key(Registered::Update(p)))
            .ok_or_else(|| invalid("registered_proof", "unknown")),
        _ => {
            let p = PoStProof::ALL.iter().find(|p| p.as_u64() == req.registered_proof);
            p.map(|p| circuit_key(Registered::Post(*p))).ok_or_else(|| invalid("registered_proof", "unknown"))
        }
    }
}

fn porep(req: &pb::SubmitProofRequest) -> Result<FilecoinJob, Refusal> {
    unused(
        req,
        "POREP_SEAL_COMMIT",
        &["vanilla_proofs", "randomness", "partition_index", "comm_r_old", "comm_r_new", "comm_d_new"],
    )?;
    let Some(want) = SealProof::ALL.iter().copied().find(|p| p.as_u64() == req.registered_proof) else {
        return Err(invalid(
            "registered_proof",
            format!("{} is not a RegisteredSealProof (0 to 19)", req.registered_proof),
        ));
    };
    if want.is_non_interactive() {
        return Err(invalid(
            "registered_proof",
            format!(
                "{} ({}): a non-interactive PoRep's C2 is a SnarkPack aggregate, which cuzk does not produce",
                want.as_u64(),
                want.name()
            ),
        ));
    }
    check_size(req, want.size(), want.name())?;
    if req.vanilla_proof.is_empty() {
        return Err(invalid("vanilla_proof", "empty (expected the C1 output JSON)"));
    }
    let job = FilecoinJob::from_c1_bytes(Path::new("vanilla_proof"), &req.vanilla_proof)
        .map_err(|e| Refusal::Invalid(e.to_string()))?;
    let got = match job.registered {
        Registered::Seal(p) => p,
        Registered::Post(_) | Registered::Update(_) => {
            return Err(invalid("vanilla_proof", "not a C1 output"))
        }
    };
    if got != want {
        return Err(invalid(
            "registered_proof",
            format!(
                "{} ({}) but the C1 output is {} ({})",
                want.as_u64(),
                want.name(),
                got.as_u64(),
                got.name()
            ),
        ));
    }
    if let (Some(n), true) = (job.sector, req.sector_number != 0) {
        if u64::try_from(n).ok() != Some(req.sector_number) {
            return Err(invalid(
                "sector_number",
                format!("{} but the C1 wrapper's SectorNum is {n}", req.sector_number),
            ));
        }
    }
    Ok(job)
}

fn post(req: &pb::SubmitProofRequest, kind: JobKind) -> Result<FilecoinJob, Refusal> {
    let name = if kind == JobKind::WinningPost { "WINNING_POST" } else { "WINDOW_POST_PARTITION" };
    unused(req, name, &["vanilla_proof", "comm_r_old", "comm_r_new", "comm_d_new"])?;
    let Some(proof) = PoStProof::ALL.iter().copied().find(|p| p.as_u64() == req.registered_proof) else {
        return Err(invalid(
            "registered_proof",
            format!("{} is not a RegisteredPoStProof (0 to 14)", req.registered_proof),
        ));
    };
    let typ = if kind == JobKind::WinningPost { PoStType::Winning } else { PoStType::Window };
    if proof.typ() != typ {
        return Err(invalid(
            "registered_proof",
            format!("{} ({}) is not a proof of {name}", proof.as_u64(), proof.name()),
        ));
    }
    check_size(req, proof.size(), proof.name())?;
    if typ == PoStType::Winning && req.partition_index != 0 {
        return Err(invalid("partition_index", "only WINDOW_POST_PARTITION takes it"));
    }
    if req.vanilla_proofs.is_empty() {
        return Err(invalid(
            "vanilla_proofs",
            "empty (expected one bincode FallbackPoStSectorProof per sector)",
        ));
    }
    let randomness: [u8; 32] = req
        .randomness
        .as_slice()
        .try_into()
        .map_err(|_| invalid("randomness", format!("{} bytes, expected 32", req.randomness.len())))?;
    let r = PostRequest {
        registered_proof: proof,
        randomness,
        prover_id: prover_id_from_miner_id(req.miner_id),
        miner_id: Some(req.miner_id),
        partition_index: (typ == PoStType::Window).then_some(req.partition_index as usize),
        sectors: Vec::new(),
        vanilla_proofs: req.vanilla_proofs.clone(),
    };
    FilecoinJob::from_post_request(Path::new("request"), &r).map_err(|e| Refusal::Invalid(e.to_string()))
}

/// SnapDeals: the update circuits from `vanilla_proofs` (one bincode PartitionProof per partition) and the
/// three commitments (32 raw bytes, or their CIDs), through the path `cuzk prove --snap` takes.
fn snap(req: &pb::SubmitProofRequest) -> Result<FilecoinJob, Refusal> {
    let mut comms = [[0u8; 32]; 3];
    for (k, (f, b)) in
        [("comm_r_old", &req.comm_r_old), ("comm_r_new", &req.comm_r_new), ("comm_d_new", &req.comm_d_new)]
            .into_iter()
            .enumerate()
    {
        comms[k] = commitment(b).ok_or_else(|| {
            invalid(f, format!("{} bytes, expected a 32-byte commitment (or its CID)", b.len()))
        })?;
    }
    if let Some(p) = UpdateProof::from_u64(req.registered_proof) {
        check_size(req, p.size(), p.name())?;
    }
    unused(req, "SNAP_DEALS_UPDATE", &["vanilla_proof", "randomness", "partition_index"])?;
    FilecoinJob::from_update_fields(
        req.registered_proof,
        &req.vanilla_proofs,
        &comms[0],
        &comms[1],
        &comms[2],
    )
    .map_err(Refusal::Invalid)
}

/// A commitment as Curio sends it: 32 raw bytes, or the CID bytes whose digest is the commitment (CIDv1,
/// a fil-commitment codec, a 32-byte multihash: the last 32 bytes).
pub fn commitment(b: &[u8]) -> Option<[u8; 32]> {
    if b.len() == 32 {
        return b.try_into().ok();
    }
    if b.len() > 34 && b[0] == 0x01 && b[b.len() - 33] == 0x20 {
        return b[b.len() - 32..].try_into().ok();
    }
    None
}
