//! The backend boundary: the phase operations a backend implements, so the CUDA backend can replace the CPU
//! one phase by phase (DESIGN.md §2).

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};

/// A backend operation that failed (device error, size beyond what the backend supports).
#[derive(Debug, thiserror::Error)]
#[error("{backend} backend: {op}: {msg}")]
pub struct BackendError {
    /// Which backend.
    pub backend: &'static str,
    /// Which operation.
    pub op: &'static str,
    /// What went wrong.
    pub msg: String,
}

/// Result of a backend operation.
pub type BResult<T> = Result<T, BackendError>;

/// Field and curve work the prover's phases delegate.
pub trait Backend: Send + Sync {
    /// Name shown in tables and run records (`cpu`, `gpu`).
    fn name(&self) -> &'static str;

    /// Device description for headers (e.g. `16 threads`, `GPU0 NVIDIA H200`).
    fn device(&self) -> String;

    /// `ntt_msm_h` for one circuit: H = (A·B − C)/Z from a/b/c (consumed) and Σ hᵢ·Hᵢ over `h_bases`.
    /// Emits the `ntt_h` and `msm_h` sub-spans.
    fn ntt_msm_h(
        &self,
        a: Vec<Scalar>,
        b: Vec<Scalar>,
        c: Vec<Scalar>,
        h_bases: &[G1Affine],
    ) -> BResult<G1Projective>;

    /// Sum of the G1 bases whose bit is set (bit i of word i/64).
    fn batch_add_g1(&self, bases: &[G1Affine], bitmap: &[u64]) -> BResult<G1Projective>;

    /// Sum of the G2 bases whose bit is set.
    fn batch_add_g2(&self, bases: &[G2Affine], bitmap: &[u64]) -> BResult<G2Projective>;

    /// Σ sᵢ·Pᵢ in G1; `window` forces the Pippenger window (D4 off), `None` picks it from the size.
    fn msm_g1(&self, bases: &[G1Affine], scalars: &[Scalar], window: Option<usize>) -> BResult<G1Projective>;

    /// Σ sᵢ·Pᵢ in G2 (B_G2 stays on the CPU on every backend).
    fn msm_g2(&self, bases: &[G2Affine], scalars: &[Scalar], window: Option<usize>) -> BResult<G2Projective>;

    /// The window this backend's MSM picks for `n` points (used for D4's shared window).
    fn window_for(&self, n: usize) -> usize;
}
