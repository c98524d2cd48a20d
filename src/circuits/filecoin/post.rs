//! WinningPoSt and WindowPoSt circuits from vanilla proofs, as filecoin-proofs 19.1
//! `generate_{winning,window}_post_with_vanilla` and `generate_single_window_post_with_vanilla` build them
//! (`partition_vanilla_proofs` / `single_partition_vanilla_proofs`) up to the Groth16 prover, with the public
//! inputs a verifier derives. The request file of `cuzk prove --post` is a [`PostRequest`].

use anyhow::{anyhow, ensure, Context, Result};
use blstrs::Scalar;
use filecoin_hashers::{poseidon::PoseidonDomain, Domain, Hasher};
use serde::{Deserialize, Serialize};
use storage_proofs_core::{
    compound_proof::{self, CompoundProof},
    merkle::MerkleTreeTrait,
    proof::ProofScheme,
    sector::SectorId,
};
use storage_proofs_post::fallback::{
    self, FallbackPoSt, FallbackPoStCircuit, FallbackPoStCompound, PublicSector, SectorProof,
};

use super::c1::domain_bytes;
use super::encoding::{b64_vec, canonical_fr_bytes, hex32};
use super::registry::{PoStProof, PoStType};
use super::setup::{post_setup_params, window_post_partitions};
use super::shapes::TreeHasher;

/// The `--post` request: exactly the arguments of filecoin-proofs-api `generate_winning_post_with_vanilla` /
/// `generate_window_post_with_vanilla` (with `partition_index`: `generate_single_window_post_with_vanilla`,
/// what Curio calls per WindowPoSt partition), plus an optional sector list for cross-checking.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PostRequest {
    /// filecoin-proofs-api `RegisteredPoStProof` variant name, e.g. `"StackedDrgWindow2KiBV1_2"`.
    pub registered_proof: PoStProof,
    /// 32-byte challenge seed (hex). Must be a canonical Fr (the API rejects others).
    #[serde(with = "hex32")]
    pub randomness: [u8; 32],
    /// 32-byte prover id (hex); for miner actor f0N it is uvarint(N) zero-padded.
    #[serde(with = "hex32")]
    pub prover_id: [u8; 32],
    /// Optional: the miner actor id `prover_id` was derived from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub miner_id: Option<u64>,
    /// WindowPoSt only: prove just this partition; `vanilla_proofs` are then that partition's
    /// sectors only (Curio's `GenerateSingleWindowPoStWithVanilla`). Absent: all partitions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition_index: Option<usize>,
    /// Optional cross-check: `(sector_id, comm_r)` of each vanilla proof, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sectors: Vec<PostSector>,
    /// One entry per sector: `bincode::serialize(&FallbackPoStSectorProof<Tree>)`, i.e. the
    /// bytes `generate_single_vanilla_proof` returns, base64 (Go `[][]byte` JSON form).
    #[serde(with = "b64_vec")]
    pub vanilla_proofs: Vec<Vec<u8>>,
}

/// A sector of a PoSt request: its number and comm_r.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PostSector {
    /// The sector number.
    pub sector_id: u64,
    /// Its comm_r (hex).
    #[serde(with = "hex32")]
    pub comm_r: [u8; 32],
}

/// Mirror of filecoin-proofs `FallbackPoStSectorProof<Tree>` (same field order, hence the same bincode bytes
/// as `generate_single_vanilla_proof` returns).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SectorPostProof<Tree: MerkleTreeTrait> {
    /// The sector.
    pub sector_id: SectorId,
    /// Its comm_r.
    pub comm_r: <Tree::Hasher as Hasher>::Domain,
    /// The inclusion proofs of its challenges.
    #[serde(bound(
        serialize = "fallback::Proof<Tree::Proof>: Serialize",
        deserialize = "fallback::Proof<Tree::Proof>: Deserialize<'de>"
    ))]
    pub vanilla_proof: fallback::Proof<Tree::Proof>,
}

/// The vanilla proofs of a request, decoded.
pub(crate) fn decode_vanilla<Tree: MerkleTreeTrait>(bytes: &[Vec<u8>]) -> Result<Vec<SectorPostProof<Tree>>> {
    bytes
        .iter()
        .enumerate()
        .map(|(i, b)| {
            bincode::deserialize(b)
                .with_context(|| format!("field `vanilla_proofs[{i}]`: not a vanilla PoSt proof"))
        })
        .collect()
}

fn safe_domain(bytes: &[u8; 32], what: &str) -> Result<PoseidonDomain> {
    PoseidonDomain::try_from_bytes(&canonical_fr_bytes(bytes, what).map_err(anyhow::Error::msg)?)
}

/// One partition circuit plus the public inputs a verifier (`verify_*_post`) derives for it.
pub(crate) struct PostPartition<Tree: 'static + MerkleTreeTrait<Hasher = TreeHasher>> {
    /// The circuit.
    pub circuit: FallbackPoStCircuit<Tree>,
    /// Its public inputs.
    pub public_inputs: Vec<Scalar>,
}

fn setup<'a, Tree: 'static + MerkleTreeTrait<Hasher = TreeHasher>>(
    proof: PoStProof,
    partitions: Option<usize>,
) -> Result<compound_proof::PublicParams<'a, FallbackPoSt<'a, Tree>>> {
    let setup = compound_proof::SetupParams {
        vanilla_params: post_setup_params(proof)?,
        partitions,
        priority: true, // PoStConfig.priority from the API; irrelevant for synthesis
    };
    FallbackPoStCompound::<Tree>::setup(&setup)
}

fn circuit_of<Tree: 'static + MerkleTreeTrait<Hasher = TreeHasher>>(
    pub_in: &fallback::PublicInputs<PoseidonDomain>,
    proof: &fallback::Proof<Tree::Proof>,
    pp: &fallback::PublicParams,
    k: usize,
) -> Result<FallbackPoStCircuit<Tree>> {
    <FallbackPoStCompound<Tree> as CompoundProof<FallbackPoSt<'_, Tree>, _>>::circuit(
        pub_in,
        Default::default(),
        proof,
        pp,
        Some(k),
    )
}

fn inputs_of<Tree: 'static + MerkleTreeTrait<Hasher = TreeHasher>>(
    pub_in: &fallback::PublicInputs<PoseidonDomain>,
    pp: &fallback::PublicParams,
    k: usize,
) -> Result<Vec<Scalar>> {
    <FallbackPoStCompound<Tree> as CompoundProof<FallbackPoSt<'_, Tree>, _>>::generate_public_inputs(
        pub_in,
        pp,
        Some(k),
    )
}

/// Builds the partition circuits exactly as filecoin-proofs does before calling the prover.
pub(crate) fn post_partitions<Tree: 'static + MerkleTreeTrait<Hasher = TreeHasher>>(
    req: &PostRequest,
) -> Result<Vec<PostPartition<Tree>>> {
    let proof = req.registered_proof;
    ensure!(!req.vanilla_proofs.is_empty(), "field `vanilla_proofs`: empty");
    let vanilla = decode_vanilla::<Tree>(&req.vanilla_proofs)?;
    if !req.sectors.is_empty() {
        let got: Vec<PostSector> = vanilla
            .iter()
            .map(|v| PostSector { sector_id: u64::from(v.sector_id), comm_r: domain_bytes(&v.comm_r) })
            .collect();
        ensure!(got == req.sectors, "field `sectors`: does not match the vanilla proofs' sectors");
    }
    let randomness = safe_domain(&req.randomness, "field `randomness`")?;
    let prover_id = safe_domain(&req.prover_id, "field `prover_id`")?;
    let pub_sectors: Vec<PublicSector<PoseidonDomain>> =
        vanilla.iter().map(|v| PublicSector { id: v.sector_id, comm_r: v.comm_r }).collect();
    let pub_in = |sectors: Vec<PublicSector<PoseidonDomain>>, k| fallback::PublicInputs {
        randomness,
        prover_id,
        sectors,
        k,
    };

    match proof.typ() {
        PoStType::Winning => {
            ensure!(req.partition_index.is_none(), "field `partition_index`: only for WindowPoSt");
            ensure!(
                vanilla.len() == proof.sector_count(),
                "field `vanilla_proofs`: {} proofs, WinningPoSt takes {}",
                vanilla.len(),
                proof.sector_count()
            );
            let pp = setup::<Tree>(proof, None)?;
            let vp = &pp.vanilla_params;
            // single_partition_vanilla_proofs, Winning branch.
            ensure!(
                vanilla[0].vanilla_proof.sectors.len() == 1,
                "field `vanilla_proofs[0]`: expected one sector"
            );
            let sp = &vanilla[0].vanilla_proof.sectors[0];
            let mut sectors: Vec<SectorProof<Tree::Proof>> = sp
                .inclusion_proofs()
                .iter()
                .map(|p| SectorProof {
                    inclusion_proofs: vec![p.clone()],
                    comm_c: sp.comm_c,
                    comm_r_last: sp.comm_r_last,
                })
                .collect();
            while sectors.len() < vp.sector_count {
                sectors.push(sectors[sectors.len() - 1].clone());
            }
            ensure!(sectors.len() == proof.challenge_count(), "invalid number of Winning PoSt challenges");
            let partition = fallback::Proof { sectors };
            let prover_in = pub_in(pub_sectors.clone(), None);
            // verify_winning_post repeats the sector list `vp.sector_count` (66) times; checked against the
            // prover's one-sector list, only the first of the 66 inclusion proofs would be read.
            let verifier_in =
                pub_in((0..vp.sector_count).flat_map(|_| pub_sectors.iter().cloned()).collect(), None);
            ensure!(
                FallbackPoSt::<Tree>::verify_all_partitions(
                    vp,
                    &verifier_in,
                    std::slice::from_ref(&partition)
                )?,
                "field `vanilla_proofs`: they do not verify against the randomness, prover_id and their comm_r"
            );
            let circuit = circuit_of::<Tree>(&prover_in, &partition, vp, 0)?;
            let public_inputs = inputs_of::<Tree>(&verifier_in, vp, 0)?;
            Ok(vec![PostPartition { circuit, public_inputs }])
        }
        PoStType::Window => {
            let per = post_setup_params(proof)?.sector_count;
            // verify_window_post takes the sectors from a BTreeMap, i.e. sorted by id; the
            // prover derives challenges from the position in the list, so the order must match.
            ensure!(
                pub_sectors.windows(2).all(|w| w[0].id < w[1].id),
                "field `vanilla_proofs`: must be ordered by strictly ascending sector id"
            );
            let partitions = window_post_partitions(vanilla.len(), proof);
            let pp = setup::<Tree>(proof, partitions)?;
            let vp = &pp.vanilla_params;
            let prover_in = pub_in(pub_sectors.clone(), req.partition_index);
            // Single partition (Curio): the given sectors are partition `p`, proved as circuit 0.
            let chunks: Vec<&[PublicSector<PoseidonDomain>]> = match req.partition_index {
                None => pub_sectors.chunks(per).collect(),
                Some(_) => {
                    ensure!(
                        vanilla.len() <= per,
                        "field `partition_index`: more sectors than one partition holds"
                    );
                    vec![&pub_sectors[..]]
                }
            };
            let mut out = Vec::new();
            let mut partition_proofs = Vec::new();
            for (j, chunk) in chunks.iter().enumerate() {
                let mut sectors = Vec::with_capacity(per);
                for s in chunk.iter() {
                    let v = vanilla
                        .iter()
                        .find(|v| v.sector_id == s.id)
                        .ok_or_else(|| anyhow!("failed to locate sector proof"))?;
                    sectors.extend(v.vanilla_proof.sectors.iter().cloned());
                }
                while sectors.len() < per {
                    sectors.push(sectors[sectors.len() - 1].clone());
                }
                let partition = fallback::Proof { sectors };
                let circuit = circuit_of::<Tree>(&prover_in, &partition, vp, j)?;
                // What the verifier derives for the *global* partition index.
                let (global_k, verifier_sectors) = match req.partition_index {
                    None => (j, pub_sectors.clone()),
                    // Place this partition's sectors at chunk `p` of a full-length list.
                    Some(p) => (
                        p,
                        std::iter::repeat_n(chunk[0].clone(), p * per).chain(chunk.iter().cloned()).collect(),
                    ),
                };
                let public_inputs = inputs_of::<Tree>(&pub_in(verifier_sectors, None), vp, global_k)?;
                partition_proofs.push(partition);
                out.push(PostPartition { circuit, public_inputs });
            }
            let ok = match req.partition_index {
                None => FallbackPoSt::<Tree>::verify_all_partitions(vp, &prover_in, &partition_proofs)?,
                Some(_) => FallbackPoSt::<Tree>::verify(vp, &prover_in, &partition_proofs[0])?,
            };
            ensure!(ok, "field `vanilla_proofs`: they do not verify against the randomness, prover_id and their comm_r");
            Ok(out)
        }
    }
}
