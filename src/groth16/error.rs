//! The typed errors of the Groth16 formats, params file, cache and verifier. Every message is one line that
//! names where the data came from (e.g. `params file /x/y.params`), the section or field, and what was expected.

use std::fmt;

/// A named part of a serialized key, params file, proof or input list, so errors can say where things went wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Section {
    /// Verifying key α in G1.
    AlphaG1,
    /// Verifying key β in G1.
    BetaG1,
    /// Verifying key β in G2.
    BetaG2,
    /// Verifying key γ in G2.
    GammaG2,
    /// Verifying key δ in G1.
    DeltaG1,
    /// Verifying key δ in G2.
    DeltaG2,
    /// Verifying key IC points (coefficients of the public inputs, `IC[0]` for the constant one).
    Ic,
    /// Params H bases (powers of τ times Z(τ)/δ).
    H,
    /// Params L bases (private-variable terms over δ).
    L,
    /// Params A bases in G1.
    A,
    /// Params B bases in G1.
    BG1,
    /// Params B bases in G2.
    BG2,
    /// Proof element A (G1).
    ProofA,
    /// Proof element B (G2).
    ProofB,
    /// Proof element C (G1).
    ProofC,
    /// A public input scalar.
    Input,
}

impl Section {
    /// The name used in messages, matching the section names of the params layout.
    pub fn name(self) -> &'static str {
        match self {
            Section::AlphaG1 => "vk.alpha_g1",
            Section::BetaG1 => "vk.beta_g1",
            Section::BetaG2 => "vk.beta_g2",
            Section::GammaG2 => "vk.gamma_g2",
            Section::DeltaG1 => "vk.delta_g1",
            Section::DeltaG2 => "vk.delta_g2",
            Section::Ic => "IC",
            Section::H => "H",
            Section::L => "L",
            Section::A => "A",
            Section::BG1 => "B_G1",
            Section::BG2 => "B_G2",
            Section::ProofA => "proof.A",
            Section::ProofB => "proof.B",
            Section::ProofC => "proof.C",
            Section::Input => "public input",
        }
    }
}

impl fmt::Display for Section {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Everything that can go wrong reading, writing, caching or verifying Groth16 data.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An operating-system error while touching a file or stream.
    #[error("{origin}: cannot {action}: {source}")]
    Io {
        /// What was being read or written, e.g. `params file /x/y.params`.
        origin: String,
        /// The operation that failed, e.g. `open`, `rename into place`.
        action: &'static str,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The data ends before a section is complete (checked before any point is decoded).
    #[error(
        "{origin}: section {section} truncated: expected {expected} bytes of {what} at offset {offset}, \
         file is {len} bytes"
    )]
    Truncated {
        /// What was being read.
        origin: String,
        /// The section that does not fit.
        section: Section,
        /// What the missing bytes hold, e.g. `count` or `1024 points`.
        what: String,
        /// How many bytes the section part needs.
        expected: u64,
        /// Where it starts.
        offset: u64,
        /// How long the data actually is.
        len: u64,
    },
    /// Bytes remain after the last section, so the counts do not describe this file.
    #[error("{origin}: {extra} unexpected trailing byte(s) after section {section} (layout ends at offset {end}, file is {len} bytes)")]
    TrailingBytes {
        /// What was being read.
        origin: String,
        /// The last section.
        section: Section,
        /// Where the layout says the data ends.
        end: u64,
        /// How long the data actually is.
        len: u64,
        /// `len - end`.
        extra: u64,
    },
    /// A point's encoding is invalid (bad flags, non-canonical coordinate, not on the curve, not in the subgroup).
    #[error("{origin}: section {section} point {index} at offset {offset}: {problem}")]
    BadPoint {
        /// What was being read.
        origin: String,
        /// The section holding the point.
        section: Section,
        /// Index of the point within its section.
        index: usize,
        /// Byte offset of the point's encoding.
        offset: u64,
        /// What is wrong with it.
        problem: &'static str,
    },
    /// A proof element does not decode to a valid point in the prime-order subgroup.
    #[error("{origin}: proof {index} element {element} at offset {offset}: {problem}")]
    BadProof {
        /// What was being read.
        origin: String,
        /// Index of the proof (0 for a single proof).
        index: usize,
        /// Which element: `proof.A`, `proof.B` or `proof.C`.
        element: Section,
        /// Byte offset of the element's encoding.
        offset: u64,
        /// What is wrong with it.
        problem: &'static str,
    },
    /// A public input is not a canonical 32-byte little-endian scalar.
    #[error("{origin}: public input {index} at offset {offset}: not a canonical scalar (expected 32 little-endian bytes below the BLS12-381 scalar modulus)")]
    BadScalar {
        /// What was being read.
        origin: String,
        /// Index of the input.
        index: usize,
        /// Byte offset of its encoding.
        offset: u64,
    },
    /// A file of fixed-size records (proofs, inputs) has a length that is not a multiple of the record size.
    #[error("{origin}: expected a whole number of {record}s of {unit} bytes each, file is {len} bytes")]
    BadLength {
        /// What was being read.
        origin: String,
        /// The record kind, e.g. `proof`.
        record: &'static str,
        /// The record size in bytes.
        unit: u64,
        /// The data length.
        len: u64,
    },
    /// The verifier got a number of public inputs that does not match the verifying key.
    #[error("verifying key has {ic} IC points so it expects {expected} public inputs (excluding the constant one), got {found}")]
    InputCount {
        /// Number of IC points in the key.
        ic: usize,
        /// `ic - 1`.
        expected: usize,
        /// Number of inputs given.
        found: usize,
    },
    /// `verify_batch` got a different number of proofs and input lists.
    #[error(
        "batch verification: {proofs} proofs but {inputs} public-input lists; expected one list per proof"
    )]
    BatchMismatch {
        /// Number of proofs.
        proofs: usize,
        /// Number of input lists.
        inputs: usize,
    },
    /// A cache key that is not usable as a file name.
    #[error("params cache: key {key:?} is not a valid file name (expected 1-128 characters of A-Z a-z 0-9 . _ -, not starting with '.')")]
    BadCacheKey {
        /// The offending key.
        key: String,
    },
    /// No cache location: neither `CUZK_CACHE` nor a user cache directory is available.
    #[error("params cache: no cache directory (set CUZK_CACHE or HOME)")]
    NoCacheDir,
    /// The circuit could not be synthesized to count its shape or generate its params, or a given params
    /// file does not fit it (the message names the file).
    #[error("params: {0}")]
    Synthesis(String),
    /// Setup, or the wait for another process building the same cache entry, stopped on a cancel.
    #[error("cancelled")]
    Cancelled,
}

impl Error {
    /// Builds an [`Error::Io`] with less typing at call sites.
    pub fn io(origin: impl Into<String>, action: &'static str, source: std::io::Error) -> Self {
        Error::Io { origin: origin.into(), action, source }
    }
}

/// Result alias for this module.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The label used in messages for a params file at `path`.
pub fn params_origin(path: &std::path::Path) -> String {
    format!("params file {}", path.display())
}
