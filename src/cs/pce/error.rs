//! Why a PCE record cannot be built, read or used (shared by the recorder, the serializer and the root).

use crate::cs::Shape;

/// Why a record cannot be built, read or used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PceError {
    /// The circuit itself failed to synthesize.
    #[error(transparent)]
    Synthesis(#[from] crate::cs::SynthesisError),
    /// The assignment does not come from a circuit of the recorded shape.
    #[error("PCE record is for {expected:?}, the assignment has {found:?}")]
    ShapeMismatch {
        /// The record's shape.
        expected: Shape,
        /// The assignment's shape.
        found: Shape,
    },
    /// A buffer passed to [`Pce::evaluate_into`](super::Pce::evaluate_into) has the wrong length.
    #[error("PCE buffer {what} has {found} elements, the record needs {expected}")]
    Length {
        /// Which buffer.
        what: &'static str,
        /// The length the record needs.
        expected: usize,
        /// The length given.
        found: usize,
    },
    /// Same counts, but allocations and constraints came in another order: another circuit.
    #[error("PCE record fingerprint {expected:#018x} differs from the witness's {found:#018x}")]
    FingerprintMismatch {
        /// The record's fingerprint.
        expected: u64,
        /// The witness's fingerprint.
        found: u64,
    },
    /// A serialized record names another circuit than the one it is loaded for.
    #[error("PCE record is for shape {found:?} digest {found_digest:#018x}, expected {expected:?} digest {expected_digest:#018x}")]
    WrongCircuit {
        /// The shape asked for.
        expected: Shape,
        /// The digest asked for.
        expected_digest: u64,
        /// The shape in the record.
        found: Shape,
        /// The digest in the record.
        found_digest: u64,
    },
    /// The circuit does not fit the layout's index widths.
    #[error("circuit too large for a PCE record: {0}")]
    TooLarge(&'static str),
    /// The bytes are not a PCE record (wrong magic).
    #[error("not a PCE record (bad magic)")]
    BadMagic,
    /// A record of a format version this build does not read.
    #[error("PCE record version {0} is not supported")]
    Version(u32),
    /// The bytes end before the record does.
    #[error("PCE record truncated: {0}")]
    Truncated(&'static str),
    /// The SHA-256 trailer does not match the contents.
    #[error("PCE record checksum mismatch")]
    Checksum,
    /// The contents are inconsistent (a checksum-valid but malformed record).
    #[error("PCE record invalid: {0}")]
    Invalid(&'static str),
}
