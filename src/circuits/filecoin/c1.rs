//! The C1 output a node hands its C2 prover.
//!
//! * The wrapper Lotus (`Commit2In`) and Curio write: `{"SectorNum": i64, "Phase1Out": base64(inner JSON),
//!   "SectorSize": u64}` (Go's `json.Marshal` writes `[]byte` as standard base64 with padding).
//! * The inner JSON: filecoin-proofs-api 19.1 `SealCommitPhase1Output` as filecoin-ffi serializes it, mirrored
//!   here field by field in the same order, so re-serializing gives the same bytes.

use filecoin_hashers::poseidon::PoseidonDomain;
use serde::{Deserialize, Serialize};
use storage_proofs_porep::stacked;

use super::encoding::{b64_decode, b64_encode};
use super::registry::{SealProof, SectorSize};
use super::shapes::{PieceHasher, ShapeBase, ShapeSub8, ShapeTop2};

/// The Lotus/Curio wrapper around a C1 output.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct C1Wrapper {
    /// The sector number.
    #[serde(rename = "SectorNum")]
    pub sector_num: i64,
    /// Base64 of the inner JSON.
    #[serde(rename = "Phase1Out")]
    pub phase1_out: String,
    /// Sector size in bytes.
    #[serde(rename = "SectorSize")]
    pub sector_size: u64,
}

type Vp<Tree> = Vec<Vec<stacked::Proof<Tree, PieceHasher>>>;

/// filecoin-proofs-api `VanillaSealProof`: partitions × challenges of vanilla proofs; the variant names only
/// the sector size (V1, V1_1, synthetic and non-interactive proofs of one size share it).
#[allow(missing_docs)]
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum VanillaSealProof {
    StackedDrg2KiBV1(Vp<ShapeBase>),
    StackedDrg8MiBV1(Vp<ShapeBase>),
    StackedDrg512MiBV1(Vp<ShapeBase>),
    StackedDrg32GiBV1(Vp<ShapeSub8>),
    StackedDrg64GiBV1(Vp<ShapeTop2>),
}

impl VanillaSealProof {
    /// The sector size the variant names.
    pub fn size(&self) -> SectorSize {
        match self {
            Self::StackedDrg2KiBV1(_) => SectorSize::S2KiB,
            Self::StackedDrg8MiBV1(_) => SectorSize::S8MiB,
            Self::StackedDrg512MiBV1(_) => SectorSize::S512MiB,
            Self::StackedDrg32GiBV1(_) => SectorSize::S32GiB,
            Self::StackedDrg64GiBV1(_) => SectorSize::S64GiB,
        }
    }

    /// Partitions present.
    pub fn partitions(&self) -> usize {
        match self {
            Self::StackedDrg2KiBV1(v) | Self::StackedDrg8MiBV1(v) | Self::StackedDrg512MiBV1(v) => v.len(),
            Self::StackedDrg32GiBV1(v) => v.len(),
            Self::StackedDrg64GiBV1(v) => v.len(),
        }
    }
}

/// filecoin-proofs-api `SealCommitPhase1Output`; in JSON the 32-byte values are arrays of 32 numbers.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SealCommitPhase1Output {
    /// The registered proof type.
    pub registered_proof: SealProof,
    /// The vanilla proofs of every partition.
    pub vanilla_proofs: VanillaSealProof,
    /// comm_r (a canonical field element).
    pub comm_r: [u8; 32],
    /// comm_d.
    pub comm_d: [u8; 32],
    /// The replica id.
    pub replica_id: PoseidonDomain,
    /// The interactive seed.
    pub seed: [u8; 32],
    /// The ticket.
    pub ticket: [u8; 32],
}

/// Parses JSON, naming the path of the first field that does not fit (`vanilla_proofs.StackedDrg2KiBV1[0]…`).
pub(crate) fn parse_json<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    let de = &mut serde_json::Deserializer::from_slice(bytes);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if path == "." || path.is_empty() {
            inner.to_string()
        } else {
            format!("field `{path}`: {inner}")
        }
    })
}

impl SealCommitPhase1Output {
    /// The inner JSON, checked: the vanilla proofs' size matches the registered proof's.
    pub fn from_json(bytes: &[u8]) -> Result<Self, String> {
        let out: Self = parse_json(bytes)?;
        if out.vanilla_proofs.size() != out.registered_proof.size() {
            return Err(format!(
                "field `vanilla_proofs`: proofs of a {:?} sector, but registered_proof {} is {:?}",
                out.vanilla_proofs.size(),
                out.registered_proof.name(),
                out.registered_proof.size()
            ));
        }
        Ok(out)
    }

    /// The inner JSON as filecoin-ffi writes it.
    pub fn to_json(&self) -> Result<Vec<u8>, String> {
        serde_json::to_vec(self).map_err(|e| e.to_string())
    }
}

/// Reads the Lotus/Curio wrapper or the bare inner JSON; errors name the field.
pub fn read_c1(bytes: &[u8]) -> Result<(Option<C1Wrapper>, SealCommitPhase1Output), String> {
    let value: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| format!("not JSON: {e}"))?;
    if value.get("Phase1Out").is_none() {
        return Ok((None, SealCommitPhase1Output::from_json(bytes)?));
    }
    let wrapper: C1Wrapper = parse_json(bytes)?;
    let inner = b64_decode(&wrapper.phase1_out).map_err(|e| format!("field `Phase1Out`: {e}"))?;
    let inner =
        SealCommitPhase1Output::from_json(&inner).map_err(|e| format!("field `Phase1Out` (decoded): {e}"))?;
    let size = inner.registered_proof.size().bytes();
    if wrapper.sector_size != size {
        return Err(format!(
            "field `SectorSize`: {} does not match registered_proof {} ({size} bytes)",
            wrapper.sector_size,
            inner.registered_proof.name()
        ));
    }
    Ok((Some(wrapper), inner))
}

/// The wrapper of an inner JSON, as lotus-bench writes it.
pub fn wrap_c1(sector_num: i64, inner_json: &[u8], sector_size: u64) -> C1Wrapper {
    C1Wrapper { sector_num, phase1_out: b64_encode(inner_json), sector_size }
}

/// The 32 bytes of a Poseidon domain element (replica ids, comm_r of PoSt sectors).
pub fn domain_bytes(d: &PoseidonDomain) -> [u8; 32] {
    let mut out = [0u8; 32];
    out.copy_from_slice(AsRef::<[u8]>::as_ref(d));
    out
}
