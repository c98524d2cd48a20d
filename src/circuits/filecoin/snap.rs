//! SnapDeals update proofs: the partition circuits filecoin-proofs 19.1
//! `generate_empty_sector_update_proof_with_vanilla` builds (storage-proofs-update's `EmptySectorUpdateCompound`)
//! from the vanilla partition proofs, with the public inputs its verifier `verify_empty_sector_update_proof`
//! derives. The request of `cuzk prove --snap` is a [`SnapRequest`]: the fields of a `cuzk.v1`
//! `SubmitProofRequest` of kind `SNAP_DEALS_UPDATE`, which [`SnapRequest::from_fields`] reads as the daemon gets
//! them, so both reach the circuits through `snap_partitions`.

use anyhow::{ensure, Context, Result};
use blstrs::Scalar;
use ff::PrimeField;
use filecoin_hashers::{poseidon::PoseidonDomain, sha256::Sha256Domain, Domain};
use serde::{Deserialize, Serialize};
use storage_proofs_core::compound_proof::CompoundProof;
use storage_proofs_core::merkle::{MerkleProofTrait, MerkleTreeTrait};
use storage_proofs_core::proof::ProofScheme;
use storage_proofs_update::{
    circuit, EmptySectorUpdate, EmptySectorUpdateCircuit, EmptySectorUpdateCompound, PartitionProof,
    PublicInputs,
};

use super::encoding::{b64_vec, hex32};
use super::registry::UpdateProof;
use super::setup::update_compound_params;
use super::shapes::TreeHasher;

/// The `--snap` request: exactly the arguments of filecoin-proofs-api
/// `generate_empty_sector_update_proof_with_vanilla` (what Curio calls, and what a `cuzk.v1`
/// `SNAP_DEALS_UPDATE` request carries).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SnapRequest {
    /// `RegisteredUpdateProof`: its name (`"StackedDrg2KiBV1"`) or Go's abi number (0..=4); written as the name.
    #[serde(with = "update_proof")]
    pub registered_proof: UpdateProof,
    /// comm_r of the sector before the update (hex; a canonical Fr).
    #[serde(with = "hex32")]
    pub comm_r_old: [u8; 32],
    /// comm_r of the updated replica (hex; a canonical Fr).
    #[serde(with = "hex32")]
    pub comm_r_new: [u8; 32],
    /// comm_d of the new data (hex).
    #[serde(with = "hex32")]
    pub comm_d_new: [u8; 32],
    /// One entry per partition: `bincode::serialize(&PartitionProof<Tree>)`, the bytes filecoin-proofs-api's
    /// `generate_partition_proofs` returns, base64 (Go `[][]byte` JSON form).
    #[serde(with = "b64_vec")]
    pub vanilla_proofs: Vec<Vec<u8>>,
}

impl SnapRequest {
    /// The request from a `cuzk.v1` `SubmitProofRequest`'s fields; errors name the field.
    pub fn from_fields(
        registered_proof: u64,
        vanilla_proofs: &[Vec<u8>],
        comm_r_old: &[u8],
        comm_r_new: &[u8],
        comm_d_new: &[u8],
    ) -> Result<SnapRequest, String> {
        let registered_proof = UpdateProof::from_u64(registered_proof).ok_or_else(|| {
            format!("field `registered_proof`: {registered_proof} is not a RegisteredUpdateProof (0..=4)")
        })?;
        let comm = |bytes: &[u8], field: &str| -> Result<[u8; 32], String> {
            bytes.try_into().map_err(|_| format!("field `{field}`: {} bytes, expected 32", bytes.len()))
        };
        Ok(SnapRequest {
            registered_proof,
            comm_r_old: comm(comm_r_old, "comm_r_old")?,
            comm_r_new: comm(comm_r_new, "comm_r_new")?,
            comm_d_new: comm(comm_d_new, "comm_d_new")?,
            vanilla_proofs: vanilla_proofs.to_vec(),
        })
    }
}

/// `#[serde(with = "update_proof")]`: a [`UpdateProof`] as its name, read from its name or its abi number.
mod update_proof {
    use super::UpdateProof;
    use serde::{de, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(p: &UpdateProof, s: S) -> Result<S::Ok, S::Error> {
        p.serialize(s)
    }

    struct Visitor;

    impl de::Visitor<'_> for Visitor {
        type Value = UpdateProof;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a RegisteredUpdateProof name (StackedDrg2KiBV1 …) or number (0..=4)")
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<UpdateProof, E> {
            UpdateProof::from_u64(v).ok_or_else(|| E::invalid_value(de::Unexpected::Unsigned(v), &self))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<UpdateProof, E> {
            UpdateProof::ALL
                .iter()
                .copied()
                .find(|p| p.name() == v)
                .ok_or_else(|| E::invalid_value(de::Unexpected::Str(v), &self))
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<UpdateProof, D::Error> {
        d.deserialize_any(Visitor)
    }
}

/// One partition circuit of an update proof. storage-proofs-update's circuit is not `Clone` (its derives ask
/// the tree type to be); its parts are, and cuzk's systems synthesize a circuit by reference.
pub struct SnapCircuit<Tree: MerkleTreeTrait<Hasher = TreeHasher>>(pub EmptySectorUpdateCircuit<Tree>);

impl<Tree: MerkleTreeTrait<Hasher = TreeHasher>> Clone for SnapCircuit<Tree> {
    fn clone(&self) -> Self {
        let p = &self.0.priv_inputs;
        SnapCircuit(EmptySectorUpdateCircuit {
            pub_params: self.0.pub_params.clone(),
            pub_inputs: self.0.pub_inputs.clone(),
            priv_inputs: circuit::PrivateInputs {
                comm_c: p.comm_c,
                root_r_old: p.root_r_old,
                root_r_new: p.root_r_new,
                apex_leafs: p.apex_leafs.clone(),
                challenge_proofs: p.challenge_proofs.clone(),
            },
        })
    }
}

impl<Tree: MerkleTreeTrait<Hasher = TreeHasher>> bellperson::Circuit<Scalar> for SnapCircuit<Tree> {
    fn synthesize<CS: bellperson::ConstraintSystem<Scalar>>(
        self,
        cs: &mut CS,
    ) -> Result<(), bellperson::SynthesisError> {
        self.0.synthesize(cs)
    }
}

fn commitment<D: Domain>(bytes: &[u8; 32], field: &str) -> Result<D> {
    ensure!(*bytes != [0; 32], "field `{field}`: all zero");
    ensure!(canonical(bytes), "field `{field}`: not a canonical BLS12-381 scalar");
    D::try_from_bytes(bytes)
}

fn canonical(bytes: &[u8]) -> bool {
    <[u8; 32]>::try_from(bytes).is_ok_and(|b| bool::from(Scalar::from_repr(b).is_some()))
}

/// Row lengths of a merkle path (siblings per row), with every row's index inside its arity.
fn path_rows<P: MerkleProofTrait>(p: &P) -> Option<Vec<usize>> {
    let path = p.path();
    let ok = path.iter().all(|(siblings, index)| *index <= siblings.len())
        && path.iter().flat_map(|(s, _)| s.iter()).all(|d| canonical(d.as_ref()))
        && canonical(p.leaf().as_ref())
        && canonical(p.root().as_ref());
    ok.then(|| path.iter().map(|(s, _)| s.len()).collect())
}

/// Checks what storage-proofs-update's verifier and circuit index or convert without checking (counts, path
/// shapes, field elements), so a malformed proof is an error here, never a panic there: each challenge's
/// paths must have the blank circuit's shape (the one the params were made for).
fn check_shape<Tree: MerkleTreeTrait<Hasher = TreeHasher>>(
    p: &PartitionProof<Tree>,
    pp: &storage_proofs_update::PublicParams,
) -> Result<()> {
    ensure!(
        p.apex_leafs.len() == pp.apex_leaf_count,
        "{} apex leafs, expected {}",
        p.apex_leafs.len(),
        pp.apex_leaf_count
    );
    ensure!(
        p.challenge_proofs.len() == pp.challenge_count,
        "{} challenge proofs, expected {}",
        p.challenge_proofs.len(),
        pp.challenge_count
    );
    ensure!(
        canonical(p.comm_c.as_ref()) && p.apex_leafs.iter().all(|l| canonical(l.as_ref())),
        "comm_c or an apex leaf is not a canonical BLS12-381 scalar"
    );
    let blank = circuit::ChallengeProof::<Tree>::empty(pp.sector_nodes);
    let rows = |path: &[Vec<Option<Scalar>>]| path.iter().map(Vec::len).collect::<Vec<_>>();
    let (want_r, want_d) = (rows(&blank.path_r_old), rows(&blank.path_d_new));
    for (i, c) in p.challenge_proofs.iter().enumerate() {
        let shapes = (path_rows(&c.proof_r_old), path_rows(&c.proof_d_new), path_rows(&c.proof_r_new));
        ensure!(
            shapes == (Some(want_r.clone()), Some(want_d.clone()), Some(want_r.clone())),
            "challenge proof {i}: merkle paths not of the sector's tree shape (or not canonical scalars)"
        );
    }
    Ok(())
}

/// One partition circuit plus the public inputs the verifier derives for it.
pub(crate) type SnapPartition<Tree> = (SnapCircuit<Tree>, Vec<Scalar>);

/// Builds every partition circuit as filecoin-proofs does before calling the prover (`prove_with_vanilla` →
/// `EmptySectorUpdateCompound::circuit(.., Some(k))`), after checking the vanilla proofs as its vanilla
/// verifier does (filecoin-proofs does not: a bad proof would only show after proving).
pub(crate) fn snap_partitions<Tree: 'static + MerkleTreeTrait<Hasher = TreeHasher>>(
    req: &SnapRequest,
) -> Result<Vec<SnapPartition<Tree>>> {
    let proof = req.registered_proof;
    let comm_r_old: PoseidonDomain = commitment(&req.comm_r_old, "comm_r_old")?;
    let comm_r_new: PoseidonDomain = commitment(&req.comm_r_new, "comm_r_new")?;
    let comm_d_new: Sha256Domain = commitment(&req.comm_d_new, "comm_d_new")?;
    ensure!(!req.vanilla_proofs.is_empty(), "field `vanilla_proofs`: empty");
    ensure!(
        req.vanilla_proofs.len() == proof.partitions(),
        "field `vanilla_proofs`: {} partition proofs, {} takes {}",
        req.vanilla_proofs.len(),
        proof.name(),
        proof.partitions()
    );
    let pp = update_compound_params::<Tree>(proof)?;
    let vp = &pp.vanilla_params;
    let vanilla = req
        .vanilla_proofs
        .iter()
        .enumerate()
        .map(|(k, bytes)| {
            let p: PartitionProof<Tree> = bincode::deserialize(bytes).with_context(|| {
                format!("field `vanilla_proofs[{k}]`: not a {} partition proof", proof.name())
            })?;
            check_shape(&p, vp).with_context(|| format!("field `vanilla_proofs[{k}]`"))?;
            Ok(p)
        })
        .collect::<Result<Vec<_>>>()?;
    // What the verifier takes: `k` is each partition's (`Some(k)` below), `h` the sector size's default.
    let pub_in = PublicInputs { k: proof.partitions(), comm_r_old, comm_d_new, comm_r_new, h: proof.h() };
    type Esu<Tree> = EmptySectorUpdate<Tree>;
    type Compound<Tree> = EmptySectorUpdateCompound<Tree>;
    vanilla
        .iter()
        .enumerate()
        .map(|(k, partition)| {
            let at_k = PublicInputs { k, ..pub_in.clone() };
            ensure!(
                Esu::<Tree>::verify(vp, &at_k, partition)?,
                "field `vanilla_proofs[{k}]`: does not verify against comm_r_old, comm_r_new and comm_d_new"
            );
            let c = <Compound<Tree> as CompoundProof<Esu<Tree>, _>>::circuit(
                &pub_in,
                (),
                partition,
                vp,
                Some(k),
            )?;
            let inputs = <Compound<Tree> as CompoundProof<Esu<Tree>, _>>::generate_public_inputs(
                &pub_in,
                vp,
                Some(k),
            )?;
            Ok((SnapCircuit(c), inputs))
        })
        .collect()
}
