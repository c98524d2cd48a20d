//! Public parameters of the real circuits, mirrored from filecoin-proofs 19.1 `parameters.rs`
//! (`setup_params`, `winning_post_setup_params`, `window_post_setup_params`) and `api/update.rs` (the update
//! proof's compound setup), and the parameter-cache names from storage-proofs-core `parameter_cache.rs`
//! (`v28-<identifier>.params`).

use anyhow::{ensure, Result};
use storage_proofs_core::compound_proof::{self, CompoundProof};
use storage_proofs_core::drgraph::BASE_DEGREE;
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_core::parameter_cache::{CacheableParameters, VERSION};
use storage_proofs_core::proof::ProofScheme;
use storage_proofs_porep::stacked::{
    self, Challenges, StackedCircuit, StackedCompound, StackedDrg, EXP_DEGREE,
};
use storage_proofs_post::fallback::{self, FallbackPoSt, FallbackPoStCircuit, FallbackPoStCompound};
use storage_proofs_update::{EmptySectorUpdate, EmptySectorUpdateCircuit, EmptySectorUpdateCompound};

use super::registry::{PoStProof, PoStType, SealProof, UpdateProof};
use super::shapes::{with_shape, PieceHasher, TreeHasher};

/// filecoin-proofs `setup_params(&registered_proof.as_v1_config())`.
pub(crate) fn porep_setup_params(proof: SealProof) -> stacked::SetupParams {
    let n = proof.challenges_per_partition();
    let challenges = if proof.is_synthetic() {
        Challenges::new_synthetic(n)
    } else if proof.is_non_interactive() {
        Challenges::new_non_interactive(n)
    } else {
        Challenges::new_interactive(n)
    };
    stacked::SetupParams {
        nodes: (proof.size().bytes() / 32) as usize,
        degree: BASE_DEGREE,
        expansion_degree: EXP_DEGREE,
        porep_id: proof.porep_id(),
        challenges,
        num_layers: proof.size().layers(),
        api_version: proof.api_version(),
        api_features: proof.api_features(),
    }
}

/// The compound public params `seal_commit_phase2` builds (`partitions: Some(partitions)`, no priority).
pub(crate) fn porep_compound_params<'a, Tree: 'static + MerkleTreeTrait>(
    proof: SealProof,
) -> Result<compound_proof::PublicParams<'a, StackedDrg<'a, Tree, PieceHasher>>> {
    let setup = compound_proof::SetupParams {
        vanilla_params: porep_setup_params(proof),
        partitions: Some(proof.partitions()),
        priority: false,
    };
    <StackedCompound<Tree, PieceHasher> as CompoundProof<StackedDrg<'a, Tree, PieceHasher>, _>>::setup(&setup)
}

/// filecoin-proofs `winning_post_setup_params` / `window_post_setup_params`. WinningPoSt's (66 challenges,
/// 1 sector) becomes `sector_count 66, challenge_count 1`: 66 one-challenge "sectors" in one circuit.
pub(crate) fn post_setup_params(proof: PoStProof) -> Result<fallback::SetupParams> {
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
        sector_size: proof.size().bytes(),
        challenge_count,
        sector_count,
        api_version: proof.api_version(),
    })
}

/// filecoin-proofs `get_partitions_for_window_post` (`None`: one partition).
pub(crate) fn window_post_partitions(total_sector_count: usize, proof: PoStProof) -> Option<usize> {
    let partitions = total_sector_count.div_ceil(proof.sector_count());
    (partitions > 1).then_some(partitions)
}

/// The compound public params `generate_empty_sector_update_proof_with_vanilla` builds (every partition, no
/// priority).
pub(crate) fn update_compound_params<Tree: 'static + MerkleTreeTrait<Hasher = TreeHasher>>(
    proof: UpdateProof,
) -> Result<compound_proof::PublicParams<'static, EmptySectorUpdate<Tree>>> {
    let setup = compound_proof::SetupParams {
        vanilla_params: storage_proofs_update::SetupParams { sector_bytes: proof.size().bytes() },
        partitions: Some(proof.partitions()),
        priority: false,
    };
    EmptySectorUpdateCompound::<Tree>::setup(&setup)
}

fn porep_identifier<Tree: 'static + MerkleTreeTrait>(proof: SealProof) -> Result<String> {
    let public_params = StackedDrg::<Tree, PieceHasher>::setup(&porep_setup_params(proof))?;
    Ok(<StackedCompound<Tree, PieceHasher> as CacheableParameters<StackedCircuit<Tree, PieceHasher>, _>>::cache_identifier(
        &public_params,
    ))
}

fn post_identifier<Tree: 'static + MerkleTreeTrait>(proof: PoStProof) -> Result<String> {
    let public_params = FallbackPoSt::<Tree>::setup(&post_setup_params(proof)?)?;
    Ok(<FallbackPoStCompound<Tree> as CacheableParameters<FallbackPoStCircuit<Tree>, _>>::cache_identifier(
        &public_params,
    ))
}

fn update_identifier<Tree: 'static + MerkleTreeTrait<Hasher = TreeHasher>>(
    proof: UpdateProof,
) -> Result<String> {
    let public_params = update_compound_params::<Tree>(proof)?.vanilla_params;
    Ok(<EmptySectorUpdateCompound<Tree> as CacheableParameters<EmptySectorUpdateCircuit<Tree>, _>>::cache_identifier(
        &public_params,
    ))
}

/// The parameter-cache identifier of a PoRep circuit (filecoin-proofs `PoRepConfig::get_cache_identifier`),
/// e.g. `stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d31…`.
pub fn seal_identifier(proof: SealProof) -> Result<String, String> {
    with_shape!(proof.size(), porep_identifier, proof).map_err(|e| e.to_string())
}

/// The parameter-cache identifier of a PoSt circuit (filecoin-proofs `PoStConfig::get_cache_identifier`).
pub fn post_identifier_of(proof: PoStProof) -> Result<String, String> {
    with_shape!(proof.size(), post_identifier, proof).map_err(|e| e.to_string())
}

/// The parameter-cache identifier of a SnapDeals update circuit (what filecoin-proofs'
/// `get_empty_sector_update_verifying_key` looks up), e.g. `empty-sector-update-merkletree-poseidon_hasher-8-0-0-…`.
pub fn update_identifier_of(proof: UpdateProof) -> Result<String, String> {
    with_shape!(proof.size(), update_identifier, proof).map_err(|e| e.to_string())
}

/// `v28-<identifier>.<ext>`: the names filecoin-proofs looks for in `FIL_PROOFS_PARAMETER_CACHE`.
pub fn cache_file_name(identifier: &str, ext: &str) -> String {
    format!("v{VERSION}-{identifier}.{ext}")
}
