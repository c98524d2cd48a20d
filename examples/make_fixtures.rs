//! Deterministic Filecoin fixtures: seals seeded random data with filecoin-proofs 19.1 (add_piece → PC1 → PC2 →
//! C1) and writes what a storage provider's node hands its prover, for one sector size:
//!
//! * `c1-<size>.json` — the Lotus/Curio wrapper `{"SectorNum","Phase1Out","SectorSize"}` of sector 1's C1 output
//!   (Go `json.Marshal` form: compact, base64 with padding, no newline);
//! * `c1-<size>-inner.json` — the bare C1 output, byte for byte what filecoin-ffi's `seal_commit_phase1` returns;
//! * `winning-post-<size>.json` — WinningPoSt of sector 1, cuzk's `--post` request (`PostRequest`);
//! * `window-post-<size>.json` — WindowPoSt of sectors 1 and 2 (one partition);
//! * `snap-<size>.json` — a SnapDeals update of sector 1 (new seeded data encoded into its replica with
//!   `encode_into`, vanilla partition proofs from `generate_partition_proofs`), cuzk's `--snap` request
//!   (`SnapRequest`).
//!
//! ```text
//! cargo run --release --features examples --example make_fixtures -- [--seed N] [--size 2KiB|8MiB|512MiB] OUT_DIR
//! ```
//!
//! Everything derives from one ChaCha20 stream seeded by `seed ‖ "cuzk-fil"`, drawn in a fixed order (sector 1's
//! data and ticket, sector 2's, the C1 seed, the WinningPoSt then WindowPoSt randomness, the update's data), so
//! the output is the same on every run; seed 0 at 2 KiB gives the committed `samples/filecoin/*-2kib*.json`. Prover id: miner
//! t01000. No step needs Groth16 parameters. filecoin-proofs' caches go to a temp dir, removed at the end.
//! Port of the prototype `filgen gen` (its output for seed 0 is byte-identical).

#[path = "../tests/support/fil.rs"]
mod fil;

use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, ensure, Context, Result};
use cuzk::circuits::filecoin::c1::{wrap_c1, SealCommitPhase1Output, VanillaSealProof};
use cuzk::circuits::filecoin::encoding::prover_id_from_miner_id;
use cuzk::circuits::filecoin::post::{PostRequest, PostSector};
use cuzk::circuits::filecoin::registry::{PoStProof, SealProof, SectorSize, UpdateProof};
use cuzk::circuits::filecoin::snap::SnapRequest;
use fil::{porep_config, post_config, update_config, SmallTree as Tree, MINER_ID};
use filecoin_proofs::{
    Commitment, PaddedBytesAmount, PieceInfo, PrivateReplicaInfo, SealPreCommitOutput, SectorUpdateConfig,
    UnpaddedBytesAmount,
};
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use storage_proofs_core::sector::SectorId;

/// The proofs of one size: what Lotus/Curio seal and prove with today.
struct Kinds {
    label: &'static str,
    seal: SealProof,
    winning: PoStProof,
    window: PoStProof,
    update: UpdateProof,
}

fn kinds(size: &str) -> Result<Kinds> {
    Ok(match size.to_ascii_lowercase().as_str() {
        "2kib" => Kinds {
            label: "2kib",
            seal: SealProof::StackedDrg2KiBV1_1,
            winning: PoStProof::StackedDrgWinning2KiBV1,
            window: PoStProof::StackedDrgWindow2KiBV1_2,
            update: UpdateProof::StackedDrg2KiBV1,
        },
        "8mib" => Kinds {
            label: "8mib",
            seal: SealProof::StackedDrg8MiBV1_1,
            winning: PoStProof::StackedDrgWinning8MiBV1,
            window: PoStProof::StackedDrgWindow8MiBV1_2,
            update: UpdateProof::StackedDrg8MiBV1,
        },
        "512mib" => Kinds {
            label: "512mib",
            seal: SealProof::StackedDrg512MiBV1_1,
            winning: PoStProof::StackedDrgWinning512MiBV1,
            window: PoStProof::StackedDrgWindow512MiBV1_2,
            update: UpdateProof::StackedDrg512MiBV1,
        },
        _ => bail!("--size {size}: expected 2KiB, 8MiB or 512MiB"),
    })
}

/// A sealed sector's files and commitments.
struct Sealed {
    id: u64,
    comm_r: Commitment,
    comm_d: Commitment,
    ticket: [u8; 32],
    cache: PathBuf,
    sealed: PathBuf,
    pieces: Vec<PieceInfo>,
}

fn bytes32(rng: &mut ChaCha20Rng) -> [u8; 32] {
    let mut b = [0u8; 32];
    rng.fill_bytes(&mut b);
    b
}

/// Lotus masks chain randomness into a canonical field element before using it as a PoSt seed.
fn fr_safe(mut b: [u8; 32]) -> [u8; 32] {
    b[31] &= 0x3f;
    b
}

/// Runs `f`, printing how long it took on stderr.
fn timed<T>(what: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    let t = Instant::now();
    let r = f().with_context(|| what.to_string())?;
    eprintln!("  {what}: {:.3} s", t.elapsed().as_secs_f64());
    Ok(r)
}

fn seal_sector(
    work: &Path,
    k: &Kinds,
    rng: &mut ChaCha20Rng,
    prover_id: [u8; 32],
    id: u64,
) -> Result<Sealed> {
    let cfg = porep_config(k.seal)?;
    let unpadded = UnpaddedBytesAmount::from(PaddedBytesAmount(k.seal.size().bytes()));
    // One fill of the whole piece: the ChaCha stream (and so the fixture) depends on the call pattern.
    let mut data = vec![0u8; u64::from(unpadded) as usize];
    rng.fill_bytes(&mut data);
    let ticket = bytes32(rng);

    let dir = work.join(format!("sector-{id}"));
    let cache = dir.join("cache");
    fs::create_dir_all(&cache).with_context(|| format!("{}: cannot create", cache.display()))?;
    let (staged, sealed) = (dir.join("staged"), dir.join("sealed"));
    let mut staged_file =
        OpenOptions::new().read(true).write(true).create(true).truncate(true).open(&staged)?;
    let (piece, _) = timed(&format!("sector {id}: add_piece"), || {
        filecoin_proofs::add_piece(&data[..], &mut staged_file, unpadded, &[])
    })?;
    drop((staged_file, data));
    File::create(&sealed)?; // PC1 copies the staged file over an existing out_path
    let pieces = vec![piece];
    let sid = SectorId::from(id);
    let pc1 = timed(&format!("sector {id}: seal_pre_commit_phase1"), || {
        filecoin_proofs::seal_pre_commit_phase1::<_, _, _, Tree>(
            &cfg, &cache, &staged, &sealed, prover_id, sid, ticket, &pieces,
        )
    })?;
    let pc2 = timed(&format!("sector {id}: seal_pre_commit_phase2"), || {
        filecoin_proofs::seal_pre_commit_phase2::<_, _, Tree>(&cfg, pc1, &cache, &sealed)
    })?;
    Ok(Sealed { id, comm_r: pc2.comm_r, comm_d: pc2.comm_d, ticket, cache, sealed, pieces })
}

/// The `--post` request of `sectors` (vanilla proofs in ascending sector order, as the verifier takes them).
fn post_request(
    proof: PoStProof,
    randomness: [u8; 32],
    prover_id: [u8; 32],
    sectors: &[&Sealed],
) -> Result<PostRequest> {
    let cfg = post_config(proof);
    let ids: Vec<SectorId> = sectors.iter().map(|s| SectorId::from(s.id)).collect();
    let challenges: BTreeMap<SectorId, Vec<u64>> = timed(&format!("{}: challenges", proof.name()), || {
        filecoin_proofs::generate_fallback_sector_challenges::<Tree>(&cfg, &randomness, &ids, prover_id)
    })?;
    let mut vanilla_proofs = Vec::new();
    let mut listed = Vec::new();
    for (sid, ch) in &challenges {
        let Some(s) = sectors.iter().find(|s| SectorId::from(s.id) == *sid) else {
            bail!("challenges for unknown sector {sid:?}");
        };
        let replica = PrivateReplicaInfo::<Tree>::new(s.sealed.clone(), s.comm_r, s.cache.clone())?;
        let v = timed(&format!("{}: vanilla proof of sector {}", proof.name(), s.id), || {
            filecoin_proofs::generate_single_vanilla_proof::<Tree>(&cfg, *sid, &replica, ch)
        })?;
        // The bytes filecoin-proofs-api's generate_single_vanilla_proof returns.
        vanilla_proofs.push(bincode::serialize(&v)?);
        listed.push(PostSector { sector_id: s.id, comm_r: s.comm_r });
    }
    Ok(PostRequest {
        registered_proof: proof,
        randomness,
        prover_id,
        miner_id: Some(MINER_ID),
        partition_index: None,
        sectors: listed,
        vanilla_proofs,
    })
}

/// Encodes seeded new data into sealed sector `s` (SnapDeals: `s`'s replica is the sector key) and returns the
/// `--snap` request of the update's vanilla partition proofs, checked by filecoin-proofs' vanilla verifier.
fn snap_request(work: &Path, k: &Kinds, rng: &mut ChaCha20Rng, s: &Sealed) -> Result<SnapRequest> {
    let cfg = SectorUpdateConfig::from_porep_config(&update_config(k.update)?);
    let size = k.update.size().bytes();
    let unpadded = UnpaddedBytesAmount::from(PaddedBytesAmount(size));
    let mut data = vec![0u8; u64::from(unpadded) as usize];
    rng.fill_bytes(&mut data);
    let dir = work.join(format!("update-{}", s.id));
    let cache = dir.join("cache");
    fs::create_dir_all(&cache).with_context(|| format!("{}: cannot create", cache.display()))?;
    let (staged, replica) = (dir.join("staged"), dir.join("replica"));
    let mut staged_file =
        OpenOptions::new().read(true).write(true).create(true).truncate(true).open(&staged)?;
    let (piece, _) = timed(&format!("sector {}: update add_piece", s.id), || {
        filecoin_proofs::add_piece(&data[..], &mut staged_file, unpadded, &[])
    })?;
    drop((staged_file, data));
    File::create(&replica)?.set_len(size)?; // encode_into writes into a file of the sector key's length
    let encoded = timed(&format!("sector {}: encode_into", s.id), || {
        filecoin_proofs::encode_into::<Tree>(&cfg, &replica, &cache, &s.sealed, &s.cache, &staged, &[piece])
    })?;
    let (comm_r_new, comm_d_new) = (encoded.comm_r_new, encoded.comm_d_new);
    let proofs = timed(&format!("sector {}: update partition proofs", s.id), || {
        filecoin_proofs::generate_partition_proofs::<Tree>(
            cfg, s.comm_r, comm_r_new, comm_d_new, &s.sealed, &s.cache, &replica, &cache,
        )
    })?;
    ensure!(
        filecoin_proofs::verify_partition_proofs::<Tree>(cfg, &proofs, s.comm_r, comm_r_new, comm_d_new)?,
        "filecoin-proofs rejected its own update partition proofs"
    );
    Ok(SnapRequest {
        registered_proof: k.update,
        comm_r_old: s.comm_r,
        comm_r_new,
        comm_d_new,
        // The bytes filecoin-proofs-api's generate_partition_proofs returns, one per partition.
        vanilla_proofs: proofs.iter().map(bincode::serialize).collect::<Result<_, _>>()?,
    })
}

/// Seals two sectors of the size under `work` and writes the five fixture files into `out`.
fn generate(seed: u64, k: &Kinds, work: &Path, out: &Path) -> Result<Vec<PathBuf>> {
    let mut rng_seed = [0u8; 32];
    rng_seed[..8].copy_from_slice(&seed.to_le_bytes());
    rng_seed[8..16].copy_from_slice(b"cuzk-fil");
    let mut rng = ChaCha20Rng::from_seed(rng_seed);
    let prover_id = prover_id_from_miner_id(MINER_ID);

    let s1 = seal_sector(work, k, &mut rng, prover_id, 1)?;
    let s2 = seal_sector(work, k, &mut rng, prover_id, 2)?;
    let seed32 = bytes32(&mut rng);
    let winning_randomness = fr_safe(bytes32(&mut rng));
    let window_randomness = fr_safe(bytes32(&mut rng));

    let cfg = porep_config(k.seal)?;
    let pre = SealPreCommitOutput { comm_r: s1.comm_r, comm_d: s1.comm_d };
    let c1 = timed("sector 1: seal_commit_phase1", || {
        filecoin_proofs::seal_commit_phase1::<_, Tree>(
            &cfg,
            &s1.cache,
            &s1.sealed,
            prover_id,
            SectorId::from(s1.id),
            s1.ticket,
            seed32,
            pre,
            &s1.pieces,
        )
    })?;
    // filecoin-proofs-api wraps the output with the registered proof and a size-named vanilla variant.
    let vanilla_proofs = match k.seal.size() {
        SectorSize::S2KiB => VanillaSealProof::StackedDrg2KiBV1(c1.vanilla_proofs),
        SectorSize::S8MiB => VanillaSealProof::StackedDrg8MiBV1(c1.vanilla_proofs),
        _ => VanillaSealProof::StackedDrg512MiBV1(c1.vanilla_proofs),
    };
    let api = SealCommitPhase1Output {
        registered_proof: k.seal,
        vanilla_proofs,
        comm_r: c1.comm_r,
        comm_d: c1.comm_d,
        replica_id: c1.replica_id,
        seed: c1.seed,
        ticket: c1.ticket,
    };
    let inner = api.to_json().map_err(anyhow::Error::msg)?;
    let wrapper = wrap_c1(s1.id as i64, &inner, k.seal.size().bytes());

    let idx = filecoin_proofs::generate_winning_post_sector_challenge::<Tree>(
        &post_config(k.winning),
        &winning_randomness,
        1,
        prover_id,
    )?;
    ensure!(idx == vec![0], "a one-sector set challenged sector index {idx:?}");
    let winning = post_request(k.winning, winning_randomness, prover_id, &[&s1])?;
    let window = post_request(k.window, window_randomness, prover_id, &[&s1, &s2])?;
    let snap = snap_request(work, k, &mut rng, &s1)?;

    let files = [
        (format!("c1-{}.json", k.label), serde_json::to_vec(&wrapper)?),
        (format!("c1-{}-inner.json", k.label), inner),
        (format!("winning-post-{}.json", k.label), serde_json::to_vec_pretty(&winning)?),
        (format!("window-post-{}.json", k.label), serde_json::to_vec_pretty(&window)?),
        (format!("snap-{}.json", k.label), serde_json::to_vec_pretty(&snap)?),
    ];
    fs::create_dir_all(out).with_context(|| format!("{}: cannot create", out.display()))?;
    let mut written = Vec::new();
    for (name, bytes) in files {
        let path = out.join(name);
        fs::write(&path, bytes).with_context(|| format!("{}: cannot write", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

fn main() -> Result<()> {
    let usage = "usage: make_fixtures [--seed N] [--size 2KiB|8MiB|512MiB] OUT_DIR";
    let (mut seed, mut size, mut out) = (0u64, "2KiB".to_string(), None);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--seed" => seed = args.next().context(usage)?.parse().context("--seed: not a number")?,
            "--size" => size = args.next().context(usage)?,
            "-h" | "--help" => {
                println!("{usage}");
                return Ok(());
            }
            s if s.starts_with('-') => bail!("unknown option {s}; {usage}"),
            _ if out.is_none() => out = Some(PathBuf::from(a)),
            _ => bail!("{usage}"),
        }
    }
    let out = out.context(usage)?;
    let k = kinds(&size)?;
    // Before the first filecoin-proofs call, while single-threaded: its settings are read once.
    let work = tempfile::Builder::new().prefix("cuzk-fixtures-").tempdir()?;
    fil::set_cache_env(work.path())?;
    let t = Instant::now();
    let written = generate(seed, &k, work.path(), &out)?;
    let params = fs::read_dir(fil::params_dir(work.path()))?.count();
    ensure!(params == 0, "filecoin-proofs wrote {params} files into its parameter cache");
    for p in &written {
        println!("{} ({} bytes)", p.display(), fs::metadata(p)?.len());
    }
    eprintln!("make_fixtures: {} seed {seed} in {:.2} s", k.label, t.elapsed().as_secs_f64());
    Ok(())
}
