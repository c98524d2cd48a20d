//! Filecoin's real circuits: a sector's C1 output (PoRep C2), vanilla PoSt proofs (WinningPoSt, WindowPoSt)
//! and vanilla SnapDeals partition proofs (the update proof) turned into the partition circuits
//! filecoin-proofs 19.1 would prove, through Filecoin's own storage-proofs crates, with the public inputs a
//! verifier derives. The circuits synthesize into cuzk's
//! constraint systems through the bellperson adapter ([`crate::cs::foreign`]).

pub mod c1;
pub mod encoding;
mod porep;
pub mod post;
pub mod registry;
pub mod setup;
pub mod shapes;
pub mod snap;

use std::path::{Path, PathBuf};

use blstrs::Scalar;
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_porep::stacked::StackedCircuit;
use storage_proofs_post::fallback::FallbackPoStCircuit;

use crate::cs::foreign::bellperson::Foreign;
use crate::cs::{Circuit, ConstraintSystem, SynthesisError};
use c1::{read_c1, SealCommitPhase1Output, VanillaSealProof};
use post::PostRequest;
use registry::{PoStProof, PoStType, SealProof, SectorSize, UpdateProof};
use shapes::{with_shape, PieceHasher, ShapeBase, ShapeSub8, ShapeTop2, TreeHasher};
use snap::{SnapCircuit, SnapRequest};

/// A request file that cannot be proved, as one line naming the file and the field.
#[derive(Debug, thiserror::Error)]
#[error("{}: {msg}", path.display())]
pub struct FilecoinError {
    /// The file.
    pub path: PathBuf,
    /// What is wrong, naming the field.
    pub msg: String,
}

/// Which real proof a request asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Registered {
    /// PoRep C2 of one sector.
    Seal(SealProof),
    /// WinningPoSt or WindowPoSt.
    Post(PoStProof),
    /// SnapDeals update proof of one sector.
    Update(UpdateProof),
}

impl Registered {
    /// The registered proof's name.
    pub fn name(self) -> &'static str {
        match self {
            Registered::Seal(p) => p.name(),
            Registered::Post(p) => p.name(),
            Registered::Update(p) => p.name(),
        }
    }

    /// `porep`, `winning-post`, `window-post` or `snap-deals`.
    pub fn kind(self) -> &'static str {
        match self {
            Registered::Seal(_) => "porep",
            Registered::Post(p) if p.typ() == PoStType::Winning => "winning-post",
            Registered::Post(_) => "window-post",
            Registered::Update(_) => "snap-deals",
        }
    }

    /// The parameter-cache identifier of its circuit (production params are `v28-<identifier>.params`).
    pub fn identifier(self) -> Result<String, String> {
        match self {
            Registered::Seal(p) => setup::seal_identifier(p),
            Registered::Post(p) => setup::post_identifier_of(p),
            Registered::Update(p) => setup::update_identifier_of(p),
        }
    }
}

/// One partition circuit of a real proof.
#[derive(Clone)]
pub enum FilecoinCircuit {
    /// PoRep partition, 2 KiB / 8 MiB / 512 MiB.
    PorepBase(Foreign<StackedCircuit<ShapeBase, PieceHasher>>),
    /// PoRep partition, 32 GiB.
    PorepSub8(Foreign<StackedCircuit<ShapeSub8, PieceHasher>>),
    /// PoRep partition, 64 GiB.
    PorepTop2(Foreign<StackedCircuit<ShapeTop2, PieceHasher>>),
    /// PoSt partition, 2 KiB / 8 MiB / 512 MiB.
    PostBase(Foreign<FallbackPoStCircuit<ShapeBase>>),
    /// PoSt partition, 32 GiB.
    PostSub8(Foreign<FallbackPoStCircuit<ShapeSub8>>),
    /// PoSt partition, 64 GiB.
    PostTop2(Foreign<FallbackPoStCircuit<ShapeTop2>>),
    /// SnapDeals update partition, 2 KiB / 8 MiB / 512 MiB.
    SnapBase(Foreign<SnapCircuit<ShapeBase>>),
    /// SnapDeals update partition, 32 GiB.
    SnapSub8(Foreign<SnapCircuit<ShapeSub8>>),
    /// SnapDeals update partition, 64 GiB.
    SnapTop2(Foreign<SnapCircuit<ShapeTop2>>),
}

impl std::fmt::Debug for FilecoinCircuit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match self {
            FilecoinCircuit::PorepBase(_) => "PoRep (8-ary base tree)",
            FilecoinCircuit::PorepSub8(_) => "PoRep (8-8 tree)",
            FilecoinCircuit::PorepTop2(_) => "PoRep (8-8-2 tree)",
            FilecoinCircuit::PostBase(_) => "PoSt (8-ary base tree)",
            FilecoinCircuit::PostSub8(_) => "PoSt (8-8 tree)",
            FilecoinCircuit::PostTop2(_) => "PoSt (8-8-2 tree)",
            FilecoinCircuit::SnapBase(_) => "SnapDeals update (8-ary base tree)",
            FilecoinCircuit::SnapSub8(_) => "SnapDeals update (8-8 tree)",
            FilecoinCircuit::SnapTop2(_) => "SnapDeals update (8-8-2 tree)",
        };
        write!(f, "FilecoinCircuit({what})")
    }
}

impl Circuit for FilecoinCircuit {
    fn synthesize<CS: ConstraintSystem>(&self, cs: &mut CS) -> Result<(), SynthesisError> {
        match self {
            FilecoinCircuit::PorepBase(c) => c.synthesize(cs),
            FilecoinCircuit::PorepSub8(c) => c.synthesize(cs),
            FilecoinCircuit::PorepTop2(c) => c.synthesize(cs),
            FilecoinCircuit::PostBase(c) => c.synthesize(cs),
            FilecoinCircuit::PostSub8(c) => c.synthesize(cs),
            FilecoinCircuit::PostTop2(c) => c.synthesize(cs),
            FilecoinCircuit::SnapBase(c) => c.synthesize(cs),
            FilecoinCircuit::SnapSub8(c) => c.synthesize(cs),
            FilecoinCircuit::SnapTop2(c) => c.synthesize(cs),
        }
    }
}

impl FilecoinCircuit {
    /// bellperson's own synthesis of this circuit into its `ProvingAssignment` (the vendored crate's
    /// `synthesize_only`): the reference `cuzk bench synth` times cuzk's synthesis against, in one process.
    /// Returns the rows (input constraints included) and the aux count.
    pub fn bellperson_synthesis(&self) -> Result<(usize, usize), String> {
        use ::bellperson::groth16::synthesize_only as bp;
        let r = match self {
            FilecoinCircuit::PorepBase(c) => bp(c.0.clone()),
            FilecoinCircuit::PorepSub8(c) => bp(c.0.clone()),
            FilecoinCircuit::PorepTop2(c) => bp(c.0.clone()),
            FilecoinCircuit::PostBase(c) => bp(c.0.clone()),
            FilecoinCircuit::PostSub8(c) => bp(c.0.clone()),
            FilecoinCircuit::PostTop2(c) => bp(c.0.clone()),
            FilecoinCircuit::SnapBase(c) => bp(c.0.clone()),
            FilecoinCircuit::SnapSub8(c) => bp(c.0.clone()),
            FilecoinCircuit::SnapTop2(c) => bp(c.0.clone()),
        };
        r.map_err(|e| e.to_string())
    }
}

/// A request loaded: the registered proof, its partition circuits and their public inputs.
#[derive(Clone, Debug)]
pub struct FilecoinJob {
    /// The request file (empty for a request given as fields: [`FilecoinJob::from_update_fields`]).
    pub path: PathBuf,
    /// What it proves.
    pub registered: Registered,
    /// The sector number (C1 wrapper's `SectorNum`), when known.
    pub sector: Option<i64>,
    /// One circuit per partition.
    pub circuits: Vec<FilecoinCircuit>,
    /// Each partition's public inputs (what filecoin-proofs' verifier derives).
    pub inputs: Vec<Vec<Scalar>>,
}

/// Wraps the per-shape circuits of a PoRep into [`FilecoinCircuit`]s.
trait ShapeCircuit: 'static + MerkleTreeTrait<Hasher = TreeHasher> + Sized {
    fn porep(c: StackedCircuit<Self, PieceHasher>) -> FilecoinCircuit;
    fn post(c: FallbackPoStCircuit<Self>) -> FilecoinCircuit;
    fn snap(c: SnapCircuit<Self>) -> FilecoinCircuit;
}

impl ShapeCircuit for ShapeBase {
    fn porep(c: StackedCircuit<Self, PieceHasher>) -> FilecoinCircuit {
        FilecoinCircuit::PorepBase(Foreign(c))
    }
    fn post(c: FallbackPoStCircuit<Self>) -> FilecoinCircuit {
        FilecoinCircuit::PostBase(Foreign(c))
    }
    fn snap(c: SnapCircuit<Self>) -> FilecoinCircuit {
        FilecoinCircuit::SnapBase(Foreign(c))
    }
}

impl ShapeCircuit for ShapeSub8 {
    fn porep(c: StackedCircuit<Self, PieceHasher>) -> FilecoinCircuit {
        FilecoinCircuit::PorepSub8(Foreign(c))
    }
    fn post(c: FallbackPoStCircuit<Self>) -> FilecoinCircuit {
        FilecoinCircuit::PostSub8(Foreign(c))
    }
    fn snap(c: SnapCircuit<Self>) -> FilecoinCircuit {
        FilecoinCircuit::SnapSub8(Foreign(c))
    }
}

impl ShapeCircuit for ShapeTop2 {
    fn porep(c: StackedCircuit<Self, PieceHasher>) -> FilecoinCircuit {
        FilecoinCircuit::PorepTop2(Foreign(c))
    }
    fn post(c: FallbackPoStCircuit<Self>) -> FilecoinCircuit {
        FilecoinCircuit::PostTop2(Foreign(c))
    }
    fn snap(c: SnapCircuit<Self>) -> FilecoinCircuit {
        FilecoinCircuit::SnapTop2(Foreign(c))
    }
}

type Parts = (Vec<FilecoinCircuit>, Vec<Vec<Scalar>>);

fn porep_parts<Tree: ShapeCircuit>(
    c1: &SealCommitPhase1Output,
    vanilla: &[Vec<storage_proofs_porep::stacked::Proof<Tree, PieceHasher>>],
) -> anyhow::Result<Parts> {
    Ok(porep::circuits::<Tree>(c1, vanilla)?.into_iter().map(|(c, i)| (Tree::porep(c), i)).unzip())
}

fn post_parts<Tree: ShapeCircuit>(req: &PostRequest) -> anyhow::Result<Parts> {
    Ok(post::post_partitions::<Tree>(req)?
        .into_iter()
        .map(|p| (Tree::post(p.circuit), p.public_inputs))
        .unzip())
}

fn snap_parts<Tree: ShapeCircuit>(req: &SnapRequest) -> anyhow::Result<Parts> {
    Ok(snap::snap_partitions::<Tree>(req)?.into_iter().map(|(c, i)| (Tree::snap(c), i)).unzip())
}

impl FilecoinJob {
    /// Loads a C1 file (Lotus/Curio wrapper or bare `SealCommitPhase1Output` JSON), a `--post` request or a
    /// `--snap` request, whichever `path` holds.
    pub fn load(path: &Path) -> Result<FilecoinJob, FilecoinError> {
        let err = |msg: String| FilecoinError { path: path.to_path_buf(), msg };
        let bytes = std::fs::read(path).map_err(|e| err(format!("cannot read: {e}")))?;
        let value: serde_json::Value =
            serde_json::from_slice(&bytes).map_err(|e| err(format!("not JSON: {e}")))?;
        let is_post = value.get("vanilla_proofs").is_some_and(serde_json::Value::is_array);
        if is_post && value.get("comm_r_old").is_some() {
            let req: SnapRequest = c1::parse_json(&bytes).map_err(err)?;
            Self::from_snap(path, &req).map_err(err)
        } else if is_post {
            Self::from_post(path, &bytes).map_err(err)
        } else {
            Self::from_c1(path, &bytes).map_err(err)
        }
    }

    /// A C1 output's partitions.
    fn from_c1(path: &Path, bytes: &[u8]) -> Result<FilecoinJob, String> {
        let (wrapper, c1) = read_c1(bytes)?;
        let (circuits, inputs) = match &c1.vanilla_proofs {
            VanillaSealProof::StackedDrg2KiBV1(v)
            | VanillaSealProof::StackedDrg8MiBV1(v)
            | VanillaSealProof::StackedDrg512MiBV1(v) => porep_parts::<ShapeBase>(&c1, v),
            VanillaSealProof::StackedDrg32GiBV1(v) => porep_parts::<ShapeSub8>(&c1, v),
            VanillaSealProof::StackedDrg64GiBV1(v) => porep_parts::<ShapeTop2>(&c1, v),
        }
        .map_err(|e| format!("{e:#}"))?;
        Ok(FilecoinJob {
            path: path.to_path_buf(),
            registered: Registered::Seal(c1.registered_proof),
            sector: wrapper.map(|w| w.sector_num),
            circuits,
            inputs,
        })
    }

    /// A C1 output given as bytes (a daemon request), named `name` in messages.
    pub fn from_c1_bytes(name: &Path, bytes: &[u8]) -> Result<FilecoinJob, FilecoinError> {
        Self::from_c1(name, bytes).map_err(|msg| FilecoinError { path: name.to_path_buf(), msg })
    }

    /// A PoSt request given as a value (a daemon request), named `name` in messages.
    pub fn from_post_request(name: &Path, req: &PostRequest) -> Result<FilecoinJob, FilecoinError> {
        Self::from_post_req(name, req).map_err(|msg| FilecoinError { path: name.to_path_buf(), msg })
    }

    /// A PoSt request file's partitions.
    fn from_post(path: &Path, bytes: &[u8]) -> Result<FilecoinJob, String> {
        Self::from_post_req(path, &c1::parse_json(bytes)?)
    }

    /// A PoSt request's partitions.
    fn from_post_req(path: &Path, req: &PostRequest) -> Result<FilecoinJob, String> {
        let size: SectorSize = req.registered_proof.size();
        let (circuits, inputs) = with_shape!(size, post_parts, req).map_err(|e| format!("{e:#}"))?;
        Ok(FilecoinJob {
            path: path.to_path_buf(),
            registered: Registered::Post(req.registered_proof),
            sector: None,
            circuits,
            inputs,
        })
    }

    /// A SnapDeals update job from the fields of a `cuzk.v1` `SubmitProofRequest` of kind `SNAP_DEALS_UPDATE`
    /// (`registered_proof`: Go's `abi.RegisteredUpdateProof` number; `vanilla_proofs`: one bincode
    /// `PartitionProof` per partition; the three 32-byte commitments): the same circuits and public inputs as
    /// `cuzk prove --snap` of a file holding them. Errors are one line naming the field.
    pub fn from_update_fields(
        registered_proof: u64,
        vanilla_proofs: &[Vec<u8>],
        comm_r_old: &[u8],
        comm_r_new: &[u8],
        comm_d_new: &[u8],
    ) -> Result<FilecoinJob, String> {
        let req =
            SnapRequest::from_fields(registered_proof, vanilla_proofs, comm_r_old, comm_r_new, comm_d_new)?;
        Self::from_snap(Path::new(""), &req)
    }

    /// A SnapDeals request's partitions.
    pub fn from_snap(path: &Path, req: &SnapRequest) -> Result<FilecoinJob, String> {
        let size = req.registered_proof.size();
        let (circuits, inputs) = with_shape!(size, snap_parts, req).map_err(|e| format!("{e:#}"))?;
        Ok(FilecoinJob {
            path: path.to_path_buf(),
            registered: Registered::Update(req.registered_proof),
            sector: None,
            circuits,
            inputs,
        })
    }

    /// Partitions (circuits per proof).
    pub fn partitions(&self) -> usize {
        self.circuits.len()
    }
}
