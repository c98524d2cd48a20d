//! Public parameters, mirrored from filecoin-proofs 19.1.0 `parameters.rs`
//! (`setup_params`, `winning_post_setup_params`, `window_post_setup_params`), and the
//! parameter-cache identifiers / file names from storage-proofs-core `parameter_cache.rs`.

use anyhow::{ensure, Result};
use storage_proofs_core::{
    compound_proof::{self, CompoundProof},
    drgraph::BASE_DEGREE,
    merkle::MerkleTreeTrait,
    parameter_cache::{CacheableParameters, VERSION},
    proof::ProofScheme,
};
use storage_proofs_porep::stacked::{self, Challenges, StackedCircuit, StackedCompound, StackedDrg, EXP_DEGREE};
use storage_proofs_post::fallback::{self, FallbackPoSt, FallbackPoStCircuit, FallbackPoStCompound};

use crate::registry::{layers, PoStProof, PoStType, SealProof};
use crate::shapes::PieceHasher;

/// filecoin-proofs `setup_params(&registered_proof.as_v1_config())`.
pub fn porep_setup_params(proof: SealProof) -> Result<stacked::SetupParams> {
    let sector_size = proof.sector_size();
    ensure!(sector_size % 32 == 0, "sector size must be a multiple of 32");
    let n = proof.challenges_per_partition();
    let challenges = if proof.is_synthetic() {
        Challenges::new_synthetic(n)
    } else if proof.is_non_interactive() {
        Challenges::new_non_interactive(n)
    } else {
        Challenges::new_interactive(n)
    };
    Ok(stacked::SetupParams {
        nodes: (sector_size / 32) as usize,
        degree: BASE_DEGREE,
        expansion_degree: EXP_DEGREE,
        porep_id: proof.porep_id(),
        challenges,
        num_layers: layers(sector_size)?,
        api_version: proof.api_version(),
        api_features: proof.api_features(),
    })
}

/// The compound public params `seal_commit_phase2` builds
/// (`StackedCompound::setup` with `partitions: Some(partitions)`, `priority: false`).
pub fn porep_compound_params<'a, Tree: 'static + MerkleTreeTrait>(
    proof: SealProof,
) -> Result<compound_proof::PublicParams<'a, StackedDrg<'a, Tree, PieceHasher>>> {
    let setup = compound_proof::SetupParams {
        vanilla_params: porep_setup_params(proof)?,
        partitions: Some(proof.partitions()),
        priority: false,
    };
    <StackedCompound<Tree, PieceHasher> as CompoundProof<StackedDrg<'a, Tree, PieceHasher>, _>>::setup(&setup)
}

/// filecoin-proofs `winning_post_setup_params` / `window_post_setup_params`.
/// Note the WinningPoSt quirk: (challenge_count 66, sector_count 1) becomes
/// `sector_count: 66, challenge_count: 1` (66 one-challenge "sectors" in one circuit).
pub fn post_setup_params(proof: PoStProof) -> Result<fallback::SetupParams> {
    let (challenge_count, sector_count) = (proof.challenge_count(), proof.sector_count());
    let (challenge_count, sector_count) = match proof.typ() {
        PoStType::Winning => {
            ensure!(challenge_count % sector_count == 0, "sector count must divide challenge count");
            let param_sector_count = challenge_count / sector_count;
            (challenge_count / param_sector_count, param_sector_count)
        }
        PoStType::Window => (challenge_count, sector_count),
    };
    Ok(fallback::SetupParams {
        sector_size: proof.sector_size(),
        challenge_count,
        sector_count,
        api_version: proof.api_version(),
    })
}

/// filecoin-proofs `get_partitions_for_window_post` (None means one partition).
pub fn window_post_partitions(total_sector_count: usize, proof: PoStProof) -> Option<usize> {
    let partitions = total_sector_count.div_ceil(proof.sector_count());
    (partitions > 1).then_some(partitions)
}

/// Parameter-cache identifier for a PoRep circuit, e.g.
/// `stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-<sha256 hex>`.
/// Same as filecoin-proofs `PoRepConfig::get_cache_identifier::<Tree>()`.
pub fn porep_cache_identifier<Tree: 'static + MerkleTreeTrait>(proof: SealProof) -> Result<String> {
    let public_params = StackedDrg::<Tree, PieceHasher>::setup(&porep_setup_params(proof)?)?;
    Ok(<StackedCompound<Tree, PieceHasher> as CacheableParameters<
        StackedCircuit<Tree, PieceHasher>,
        _,
    >>::cache_identifier(&public_params))
}

/// Same as filecoin-proofs `PoStConfig::get_cache_identifier::<Tree>()`.
pub fn post_cache_identifier<Tree: 'static + MerkleTreeTrait>(proof: PoStProof) -> Result<String> {
    let public_params = FallbackPoSt::<Tree>::setup(&post_setup_params(proof)?)?;
    Ok(<FallbackPoStCompound<Tree> as CacheableParameters<FallbackPoStCircuit<Tree>, _>>::cache_identifier(
        &public_params,
    ))
}

/// `v28-<id>.vk` / `.params` / `.meta` — the file names filecoin-proofs looks for in
/// `FIL_PROOFS_PARAMETER_CACHE`.
pub fn cache_file_name(identifier: &str, ext: &str) -> String {
    format!("v{VERSION}-{identifier}.{ext}")
}

/// Identifier computed without naming a Tree type (dispatches on sector size).
pub fn seal_cache_identifier(proof: SealProof) -> Result<String> {
    crate::with_shape!(proof.sector_size(), porep_cache_identifier, proof)
}

pub fn post_proof_cache_identifier(proof: PoStProof) -> Result<String> {
    crate::with_shape!(proof.sector_size(), post_cache_identifier, proof)
}
