//! PoRep C2 circuits from a C1 output, as filecoin-proofs 19.1 `seal_commit_phase2_circuit_proofs` builds
//! them up to the Groth16 prover, with the public inputs a verifier derives for each partition.

use anyhow::{ensure, Result};
use blstrs::Scalar;
use filecoin_hashers::{poseidon::PoseidonDomain, sha256::Sha256Domain, Domain};
use storage_proofs_core::compound_proof::CompoundProof;
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_core::proof::ProofScheme;
use storage_proofs_porep::stacked::{self, StackedCircuit, StackedCompound, StackedDrg};

use super::c1::SealCommitPhase1Output;
use super::encoding::canonical_fr_bytes;
use super::setup::porep_compound_params;
use super::shapes::{PieceHasher, TreeHasher};

/// The `stacked::PublicInputs` seal_commit_phase2 builds from a C1 output.
fn public_inputs(c1: &SealCommitPhase1Output) -> Result<stacked::PublicInputs<PoseidonDomain, Sha256Domain>> {
    ensure!(c1.comm_d != [0; 32], "field `comm_d`: all zero");
    ensure!(c1.comm_r != [0; 32], "field `comm_r`: all zero");
    ensure!(c1.seed != [0; 32], "field `seed`: all zero");
    let comm_r = canonical_fr_bytes(&c1.comm_r, "field `comm_r`").map_err(anyhow::Error::msg)?;
    Ok(stacked::PublicInputs {
        replica_id: c1.replica_id,
        tau: Some(stacked::Tau {
            comm_d: Sha256Domain::try_from_bytes(&c1.comm_d)?,
            comm_r: PoseidonDomain::try_from_bytes(&comm_r)?,
        }),
        k: None,
        seed: Some(c1.seed),
    })
}

type Sc<Tree> = StackedCompound<Tree, PieceHasher>;

/// A partition's circuit and its public inputs.
type Partition<Tree> = (StackedCircuit<Tree, PieceHasher>, Vec<Scalar>);

/// The circuit of every partition (`StackedCompound::circuit(.., Some(k))`) with the public inputs a verifier
/// derives for it (`StackedCompound::generate_public_inputs`).
pub(crate) fn circuits<Tree: 'static + MerkleTreeTrait<Hasher = TreeHasher>>(
    c1: &SealCommitPhase1Output,
    vanilla: &[Vec<stacked::Proof<Tree, PieceHasher>>],
) -> Result<Vec<Partition<Tree>>> {
    let proof = c1.registered_proof;
    ensure!(
        !proof.is_non_interactive(),
        "field `registered_proof`: {} is non-interactive PoRep, whose C2 is a SnarkPack aggregate (not supported)",
        proof.name()
    );
    ensure!(
        !vanilla.is_empty() && vanilla.iter().all(|p| !p.is_empty()),
        "field `vanilla_proofs`: no vanilla proofs"
    );
    ensure!(
        vanilla.len() == proof.partitions(),
        "field `vanilla_proofs`: {} partitions, {} needs {}",
        vanilla.len(),
        proof.name(),
        proof.partitions()
    );
    let pub_in = public_inputs(c1)?;
    let pp = porep_compound_params::<Tree>(proof)?;
    // filecoin-proofs checks the vanilla proofs when it makes them (C1), not in C2: a damaged C1 would only show
    // as a proof that fails to verify after the whole C2. Checking here costs milliseconds (2 KiB: 2 challenges;
    // 32 GiB: 176 of them, merkle paths and labels only).
    ensure!(
        StackedDrg::<Tree, PieceHasher>::verify_all_partitions(&pp.vanilla_params, &pub_in, vanilla)?,
        "field `vanilla_proofs`: they do not verify against comm_r, comm_d, replica_id and seed (a damaged C1)"
    );
    vanilla
        .iter()
        .enumerate()
        .map(|(k, partition)| {
            let circuit = <Sc<Tree> as CompoundProof<StackedDrg<'_, Tree, PieceHasher>, _>>::circuit(
                &pub_in,
                Default::default(),
                partition,
                &pp.vanilla_params,
                Some(k),
            )?;
            let inputs =
                <Sc<Tree> as CompoundProof<StackedDrg<'_, Tree, PieceHasher>, _>>::generate_public_inputs(
                    &pub_in,
                    &pp.vanilla_params,
                    Some(k),
                )?;
            Ok((circuit, inputs))
        })
        .collect()
}
