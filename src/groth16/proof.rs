//! Groth16 proofs in bellperson's 192-byte compressed layout (A 48, B 96, C 48 bytes), files of concatenated
//! proofs, and public inputs as concatenated 32-byte little-endian scalars.

use std::io::{Read, Write};
use std::path::Path;

use blstrs::{G1Affine, G2Affine, Scalar};

use super::error::{Error, Result, Section};
use super::params_file::write_atomic;

/// Bytes of a compressed proof: A (G1, 48) ‖ B (G2, 96) ‖ C (G1, 48).
pub const PROOF_LEN: usize = 192;
/// Bytes of one public input scalar.
pub const SCALAR_LEN: usize = 32;
const G1_COMPRESSED: usize = 48;
const G2_COMPRESSED: usize = 96;

/// A Groth16 proof: the three group elements the verifier pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Proof {
    /// A in G1.
    pub a: G1Affine,
    /// B in G2.
    pub b: G2Affine,
    /// C in G1.
    pub c: G1Affine,
}

const BAD_POINT: &str = "not a valid compressed point (bad flags, x not below p, or no point with this x)";
const NOT_IN_SUBGROUP: &str = "on the curve but not in the prime-order subgroup";

fn g1_compressed(b: &[u8]) -> Result<G1Affine, &'static str> {
    let arr: &[u8; G1_COMPRESSED] = b.try_into().map_err(|_| "wrong encoding size")?;
    let p = Option::<G1Affine>::from(G1Affine::from_compressed_unchecked(arr)).ok_or(BAD_POINT)?;
    if bool::from(p.is_torsion_free()) {
        Ok(p)
    } else {
        Err(NOT_IN_SUBGROUP)
    }
}

fn g2_compressed(b: &[u8]) -> Result<G2Affine, &'static str> {
    let arr: &[u8; G2_COMPRESSED] = b.try_into().map_err(|_| "wrong encoding size")?;
    let p = Option::<G2Affine>::from(G2Affine::from_compressed_unchecked(arr)).ok_or(BAD_POINT)?;
    if bool::from(p.is_torsion_free()) {
        Ok(p)
    } else {
        Err(NOT_IN_SUBGROUP)
    }
}

impl Proof {
    /// The 192-byte compressed encoding.
    pub fn to_bytes(&self) -> [u8; PROOF_LEN] {
        let mut out = [0u8; PROOF_LEN];
        out[..G1_COMPRESSED].copy_from_slice(&self.a.to_compressed());
        out[G1_COMPRESSED..G1_COMPRESSED + G2_COMPRESSED].copy_from_slice(&self.b.to_compressed());
        out[G1_COMPRESSED + G2_COMPRESSED..].copy_from_slice(&self.c.to_compressed());
        out
    }

    /// Decodes a 192-byte proof, rejecting points that are invalid or outside the subgroup; `origin` and
    /// `index`/`offset` label errors (proof `index` of a file, starting at byte `offset`).
    pub fn from_bytes_at(bytes: &[u8; PROOF_LEN], origin: &str, index: usize, offset: u64) -> Result<Self> {
        let bad = |element, at: usize, problem| Error::BadProof {
            origin: origin.to_string(),
            element,
            index,
            offset: offset + at as u64,
            problem,
        };
        let (a, rest) = bytes.split_at(G1_COMPRESSED);
        let (b, c) = rest.split_at(G2_COMPRESSED);
        Ok(Proof {
            a: g1_compressed(a).map_err(|p| bad(Section::ProofA, 0, p))?,
            b: g2_compressed(b).map_err(|p| bad(Section::ProofB, G1_COMPRESSED, p))?,
            c: g1_compressed(c).map_err(|p| bad(Section::ProofC, G1_COMPRESSED + G2_COMPRESSED, p))?,
        })
    }

    /// Decodes a 192-byte proof (see `from_bytes_at`).
    pub fn from_bytes(bytes: &[u8; PROOF_LEN]) -> Result<Self> {
        Self::from_bytes_at(bytes, "proof", 0, 0)
    }

    /// Writes the 192-byte compressed encoding (bellperson's `Proof::write`).
    pub fn write(&self, mut w: impl Write) -> std::io::Result<()> {
        w.write_all(&self.to_bytes())
    }

    /// Reads one proof written by `write`, rejecting invalid points; a short read is a `Truncated` error.
    pub fn read(mut r: impl Read) -> Result<Self> {
        let mut buf = [0u8; PROOF_LEN];
        let mut got = 0;
        while got < PROOF_LEN {
            match r.read(&mut buf[got..]) {
                Ok(0) => {
                    let section = if got < G1_COMPRESSED {
                        Section::ProofA
                    } else if got < G1_COMPRESSED + G2_COMPRESSED {
                        Section::ProofB
                    } else {
                        Section::ProofC
                    };
                    return Err(Error::Truncated {
                        origin: "proof".into(),
                        section,
                        what: "proof".into(),
                        expected: PROOF_LEN as u64,
                        offset: 0,
                        len: got as u64,
                    });
                }
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::io("proof", "read", e)),
            }
        }
        Self::from_bytes(&buf)
    }
}

/// Concatenates the proofs' encodings (the proof-file format).
pub fn encode_proofs(proofs: &[Proof]) -> Vec<u8> {
    proofs.iter().flat_map(|p| p.to_bytes()).collect()
}

/// Decodes concatenated proofs; the length must be a multiple of 192 and every point valid.
pub fn decode_proofs(bytes: &[u8], origin: &str) -> Result<Vec<Proof>> {
    if !bytes.len().is_multiple_of(PROOF_LEN) {
        return Err(Error::BadLength {
            origin: origin.to_string(),
            record: "proof",
            unit: PROOF_LEN as u64,
            len: bytes.len() as u64,
        });
    }
    bytes
        .chunks_exact(PROOF_LEN)
        .enumerate()
        .map(|(i, c)| {
            let arr: &[u8; PROOF_LEN] = c.try_into().map_err(|_| Error::BadLength {
                origin: origin.to_string(),
                record: "proof",
                unit: PROOF_LEN as u64,
                len: bytes.len() as u64,
            })?;
            Proof::from_bytes_at(arr, origin, i, (i * PROOF_LEN) as u64)
        })
        .collect()
}

/// Writes a file of concatenated proofs atomically.
pub fn write_proofs(path: &Path, proofs: &[Proof]) -> Result<()> {
    let bytes = encode_proofs(proofs);
    write_atomic(path, &format!("proof file {}", path.display()), |w| w.write_all(&bytes))
}

/// Reads a file of concatenated proofs; errors name the file, the proof index and the element.
pub fn read_proofs(path: &Path) -> Result<Vec<Proof>> {
    let origin = format!("proof file {}", path.display());
    let bytes = std::fs::read(path).map_err(|e| Error::io(origin.clone(), "read", e))?;
    decode_proofs(&bytes, &origin)
}

/// Concatenates public inputs as 32-byte little-endian scalars.
pub fn encode_inputs(inputs: &[Scalar]) -> Vec<u8> {
    inputs.iter().flat_map(|s| s.to_bytes_le()).collect()
}

/// Decodes concatenated 32-byte little-endian scalars, rejecting non-canonical ones (value ≥ the modulus).
pub fn decode_inputs(bytes: &[u8], origin: &str) -> Result<Vec<Scalar>> {
    let bad_len = || Error::BadLength {
        origin: origin.to_string(),
        record: "public input",
        unit: SCALAR_LEN as u64,
        len: bytes.len() as u64,
    };
    if !bytes.len().is_multiple_of(SCALAR_LEN) {
        return Err(bad_len());
    }
    bytes
        .chunks_exact(SCALAR_LEN)
        .enumerate()
        .map(|(index, c)| {
            let arr: &[u8; SCALAR_LEN] = c.try_into().map_err(|_| bad_len())?;
            Option::<Scalar>::from(Scalar::from_bytes_le(arr)).ok_or_else(|| Error::BadScalar {
                origin: origin.to_string(),
                index,
                offset: (index * SCALAR_LEN) as u64,
            })
        })
        .collect()
}

/// Writes a public-inputs file atomically.
pub fn write_inputs(path: &Path, inputs: &[Scalar]) -> Result<()> {
    let bytes = encode_inputs(inputs);
    write_atomic(path, &format!("inputs file {}", path.display()), |w| w.write_all(&bytes))
}

/// Reads a public-inputs file; errors name the file and the input index.
pub fn read_inputs(path: &Path) -> Result<Vec<Scalar>> {
    let origin = format!("inputs file {}", path.display());
    let bytes = std::fs::read(path).map_err(|e| Error::io(origin.clone(), "read", e))?;
    decode_inputs(&bytes, &origin)
}
