//! The sample circuits and the sample-file loader.

pub mod filecoin;
mod porep;
mod porep_witness;
mod poseidon_merkle;
pub mod sample;
mod seeded;
mod sha256_chain;
mod sparse_tree;

pub use filecoin::{FilecoinCircuit, FilecoinError, FilecoinJob};
pub use porep::PorepCircuit;
pub use porep_witness::SectorWitness;
pub use poseidon_merkle::PoseidonMerkleCircuit;
pub use sample::{CircuitSpec, LabelHash, PorepKnobs, PorepLayout, Sample, SampleError};
pub use sha256_chain::Sha256ChainCircuit;

use blstrs::Scalar;

use crate::cs::{Circuit, ConstraintSystem, SynthesisError};

/// Any sample circuit, so a batch of them can be proved together.
#[derive(Clone, Debug)]
pub enum SampleCircuit {
    /// A PoRep partition.
    Porep(PorepCircuit),
    /// A SHA-256 chain.
    Sha256Chain(Sha256ChainCircuit),
    /// Poseidon Merkle openings.
    PoseidonMerkle(PoseidonMerkleCircuit),
    /// A partition of a real Filecoin proof, with the public inputs its verifier derives.
    Filecoin(FilecoinCircuit, Vec<Scalar>),
}

impl SampleCircuit {
    /// Public inputs in circuit order (without the constant one).
    pub fn public_inputs(&self) -> Vec<Scalar> {
        match self {
            SampleCircuit::Porep(c) => c.public_inputs(),
            SampleCircuit::Sha256Chain(c) => c.public_inputs(),
            SampleCircuit::PoseidonMerkle(c) => c.public_inputs(),
            SampleCircuit::Filecoin(_, inputs) => inputs.clone(),
        }
    }
}

impl Circuit for SampleCircuit {
    fn synthesize<CS: ConstraintSystem>(&self, cs: &mut CS) -> Result<(), SynthesisError> {
        match self {
            SampleCircuit::Porep(c) => c.synthesize(cs),
            SampleCircuit::Sha256Chain(c) => c.synthesize(cs),
            SampleCircuit::PoseidonMerkle(c) => c.synthesize(cs),
            SampleCircuit::Filecoin(c, _) => c.synthesize(cs),
        }
    }
}

impl Sample {
    /// The circuits of sector `sector` (one per partition), witnesses built from the sample's seed.
    pub fn sector_circuits(&self, sector: usize) -> Vec<SampleCircuit> {
        match &self.circuit {
            CircuitSpec::Porep(k) => {
                let w = SectorWitness::build(k, self.seed, sector as u64, self.partitions);
                (0..self.partitions).map(|p| SampleCircuit::Porep(PorepCircuit::new(*k, &w, p))).collect()
            }
            CircuitSpec::Sha256Chain { compressions } => (0..self.partitions)
                .map(|p| {
                    let index = (sector * self.partitions + p) as u64;
                    SampleCircuit::Sha256Chain(Sha256ChainCircuit::new(*compressions, self.seed, index))
                })
                .collect(),
            CircuitSpec::PoseidonMerkle { height, paths } => (0..self.partitions)
                .map(|p| {
                    let index = (sector * self.partitions + p) as u64;
                    SampleCircuit::PoseidonMerkle(PoseidonMerkleCircuit::new(
                        *height, *paths, self.seed, index,
                    ))
                })
                .collect(),
            // A request is one sector; `sectors > 1` proves it again (throughput runs).
            CircuitSpec::Filecoin { .. } => match &self.filecoin {
                Some(job) => job
                    .circuits
                    .iter()
                    .zip(&job.inputs)
                    .map(|(c, i)| SampleCircuit::Filecoin(c.clone(), i.clone()))
                    .collect(),
                None => Vec::new(),
            },
        }
    }
}
