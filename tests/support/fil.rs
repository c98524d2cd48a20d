//! filecoin-proofs 19.1 as the reference: its settings, its configs for cuzk's registered proofs, and its
//! verifiers. Shared by `tests/filecoin.rs`, `examples/make_fixtures.rs` and `examples/fil_c2_bench.rs`
//! (included with `#[path]`, so each user compiles only what it calls).
//!
//! filecoin-proofs reads its settings once per process (`storage_proofs_core::settings::SETTINGS`, a
//! lazy_static over `./rust-fil-proofs.config.toml` and `FIL_PROOFS_*` variables) and memoizes verifying keys per
//! process by sector size: point the caches with [`cache_env`] before its first call, in a fresh process.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, ensure, Context, Result};
use cuzk::circuits::filecoin::c1::{read_c1, VanillaSealProof};
use cuzk::circuits::filecoin::encoding::prover_id_from_miner_id;
use cuzk::circuits::filecoin::post::PostRequest;
use cuzk::circuits::filecoin::registry::{PoStProof, PoStType, SealProof, UpdateProof};
use cuzk::circuits::filecoin::snap::SnapRequest;
use filecoin_proofs::{PoRepConfig, PoStConfig, PublicReplicaInfo, SectorShape2KiB, SectorSize};
use storage_proofs_core::api_version::ApiVersion;
use storage_proofs_core::sector::SectorId;

/// The tree type of 2 KiB, 8 MiB and 512 MiB sectors (filecoin-proofs' three small shapes are one type).
pub type SmallTree = SectorShape2KiB;

/// lotus-bench's default `--miner-addr t01000`: the prover id of every fixture.
pub const MINER_ID: u64 = 1000;

/// The `FIL_PROOFS_*` variables that put every filecoin-proofs cache under `work` (params in `work/params`),
/// with the optional checks off. `FIL_PROOFS_CACHE_DIR` is concatenated as a string by filecoin-proofs, hence
/// the trailing slash on every directory.
pub fn cache_env(work: &Path) -> Result<Vec<(&'static str, String)>> {
    let mut env = Vec::new();
    for (var, sub) in [
        ("FIL_PROOFS_PARAMETER_CACHE", "params"),
        ("FIL_PROOFS_PARENT_CACHE", "parents"),
        ("FIL_PROOFS_CACHE_DIR", "cache"),
    ] {
        let dir = work.join(sub);
        std::fs::create_dir_all(&dir).with_context(|| format!("{}: cannot create", dir.display()))?;
        env.push((var, format!("{}/", dir.display())));
    }
    for var in [
        "FIL_PROOFS_VERIFY_CACHE",
        "FIL_PROOFS_VERIFY_PRODUCTION_PARAMS",
        "FIL_PROOFS_USE_MULTICORE_SDR",
        "FIL_PROOFS_USE_GPU_COLUMN_BUILDER",
        "FIL_PROOFS_USE_GPU_TREE_BUILDER",
    ] {
        env.push((var, "0".to_string()));
    }
    Ok(env)
}

/// Sets [`cache_env`] in this process: only while it is single-threaded and before filecoin-proofs is first
/// called; refuses when a `./rust-fil-proofs.config.toml` would override the variables.
pub fn set_cache_env(work: &Path) -> Result<()> {
    ensure!(
        !Path::new("rust-fil-proofs.config.toml").exists(),
        "./rust-fil-proofs.config.toml would override the FIL_PROOFS_* settings"
    );
    for (var, value) in cache_env(work)? {
        std::env::set_var(var, value);
    }
    Ok(())
}

/// The parameter cache folder [`cache_env`] names.
pub fn params_dir(work: &Path) -> PathBuf {
    work.join("params")
}

/// filecoin-proofs-api's `RegisteredSealProof::as_v1_config()` for cuzk's registered proof.
pub fn porep_config(p: SealProof) -> Result<PoRepConfig> {
    PoRepConfig::new_groth16_with_features(p.size().bytes(), p.porep_id(), p.api_version(), p.api_features())
}

/// filecoin-proofs-api's `RegisteredUpdateProof::as_v1_config()`: API 1.1, porep_id = the abi number (nonce 0).
/// The update proof reads only its sector size.
pub fn update_config(p: UpdateProof) -> Result<PoRepConfig> {
    let mut porep_id = [0u8; 32];
    porep_id[..8].copy_from_slice(&p.as_u64().to_le_bytes());
    PoRepConfig::new_groth16_with_features(p.size().bytes(), porep_id, ApiVersion::V1_1_0, vec![])
}

/// `filecoin_proofs::verify_empty_sector_update_proof` of `proof` (the bytes
/// `generate_empty_sector_update_proof_with_vanilla` returns) for a `--snap` request, with the vk found in
/// `FIL_PROOFS_PARAMETER_CACHE`.
pub fn verify_update(req: &SnapRequest, proof: &[u8]) -> Result<bool> {
    let p = req.registered_proof;
    ensure_small(p.size().bytes(), p.name())?;
    filecoin_proofs::verify_empty_sector_update_proof::<SmallTree>(
        &update_config(p)?,
        proof,
        req.comm_r_old,
        req.comm_r_new,
        req.comm_d_new,
    )
}

/// filecoin-proofs-api's `RegisteredPoStProof::as_v1_config()` for cuzk's registered proof.
pub fn post_config(p: PoStProof) -> PoStConfig {
    PoStConfig {
        sector_size: SectorSize(p.size().bytes()),
        challenge_count: p.challenge_count(),
        sector_count: p.sector_count(),
        typ: match p.typ() {
            PoStType::Winning => filecoin_proofs::PoStType::Winning,
            PoStType::Window => filecoin_proofs::PoStType::Window,
        },
        priority: true,
        api_version: p.api_version(),
    }
}

/// The small sizes only: the tests and tools here never instantiate the 32/64 GiB shapes (minutes of codegen).
fn ensure_small(bytes: u64, what: &str) -> Result<()> {
    ensure!(bytes <= 1 << 29, "{what}: only 2 KiB, 8 MiB and 512 MiB sectors are supported here");
    Ok(())
}

/// `filecoin_proofs::verify_winning_post` / `verify_window_post` of `proof` for a `--post` request, with the
/// vk found in `FIL_PROOFS_PARAMETER_CACHE`.
pub fn verify_post(req: &PostRequest, proof: &[u8]) -> Result<bool> {
    let p = req.registered_proof;
    ensure_small(p.size().bytes(), p.name())?;
    ensure!(!req.sectors.is_empty(), "the request lists no `sectors` (needed to verify)");
    let cfg = post_config(p);
    match p.typ() {
        PoStType::Winning => {
            let replicas = req
                .sectors
                .iter()
                .map(|s| Ok((SectorId::from(s.sector_id), PublicReplicaInfo::new(s.comm_r)?)))
                .collect::<Result<Vec<_>>>()?;
            filecoin_proofs::verify_winning_post::<SmallTree>(
                &cfg,
                &req.randomness,
                &replicas,
                req.prover_id,
                proof,
            )
        }
        PoStType::Window => {
            let replicas = req
                .sectors
                .iter()
                .map(|s| Ok((SectorId::from(s.sector_id), PublicReplicaInfo::new(s.comm_r)?)))
                .collect::<Result<BTreeMap<_, _>>>()?;
            filecoin_proofs::verify_window_post::<SmallTree>(
                &cfg,
                &req.randomness,
                &replicas,
                req.prover_id,
                proof,
            )
        }
    }
}

/// What `verify_seal` needs besides the proof, from a C1 file (the wrapper gives the sector number; the
/// prover id comes from the miner id, which C1 does not carry).
pub struct SealStatement {
    /// The registered proof.
    pub proof: SealProof,
    /// comm_r, comm_d, ticket, seed as in C1.
    pub comm_r: [u8; 32],
    /// comm_d.
    pub comm_d: [u8; 32],
    /// The ticket.
    pub ticket: [u8; 32],
    /// The interactive seed.
    pub seed: [u8; 32],
    /// The prover id.
    pub prover_id: [u8; 32],
    /// The sector number.
    pub sector: u64,
    /// The C1 output as filecoin-proofs' own type (for `seal_commit_phase2`).
    pub phase1: filecoin_proofs::SealCommitPhase1Output<SmallTree>,
}

/// Reads a C1 file (wrapper; a bare inner JSON needs `sector`) for `verify_seal` / `seal_commit_phase2`.
pub fn seal_statement(c1_file: &Path, miner_id: u64, sector: Option<u64>) -> Result<SealStatement> {
    let bytes = std::fs::read(c1_file).with_context(|| format!("{}: cannot read", c1_file.display()))?;
    let (wrapper, c1) = read_c1(&bytes).map_err(|e| anyhow::anyhow!("{}: {e}", c1_file.display()))?;
    let sector = match (sector, wrapper) {
        (Some(s), _) => s,
        (None, Some(w)) => u64::try_from(w.sector_num).context("field `SectorNum`: negative")?,
        (None, None) => bail!("{}: a bare C1 output names no sector: pass it", c1_file.display()),
    };
    let vanilla = match c1.vanilla_proofs {
        VanillaSealProof::StackedDrg2KiBV1(v)
        | VanillaSealProof::StackedDrg8MiBV1(v)
        | VanillaSealProof::StackedDrg512MiBV1(v) => v,
        _ => bail!("{}: only 2 KiB, 8 MiB and 512 MiB sectors are supported here", c1_file.display()),
    };
    Ok(SealStatement {
        proof: c1.registered_proof,
        comm_r: c1.comm_r,
        comm_d: c1.comm_d,
        ticket: c1.ticket,
        seed: c1.seed,
        prover_id: prover_id_from_miner_id(miner_id),
        sector,
        phase1: filecoin_proofs::SealCommitPhase1Output {
            vanilla_proofs: vanilla,
            comm_r: c1.comm_r,
            comm_d: c1.comm_d,
            replica_id: c1.replica_id,
            seed: c1.seed,
            ticket: c1.ticket,
        },
    })
}

/// `filecoin_proofs::verify_seal` of `proof` (the bytes `seal_commit_phase2` returns), with the vk found in
/// `FIL_PROOFS_PARAMETER_CACHE`.
pub fn verify_seal(st: &SealStatement, proof: &[u8]) -> Result<bool> {
    filecoin_proofs::verify_seal::<SmallTree>(
        &porep_config(st.proof)?,
        st.comm_r,
        st.comm_d,
        st.prover_id,
        SectorId::from(st.sector),
        st.ticket,
        st.seed,
        proof,
    )
}
