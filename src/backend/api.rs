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

/// Per-call options from the toggles that only a device backend acts on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CallOpts {
    /// B1: page-lock a/b/c (`cuMemHostRegister`) for their upload.
    pub pin_abc: bool,
    /// Keep the SRS bases on the device across calls (uploaded once per process and params).
    pub srs_resident: bool,
}

/// The params' G1 bases a call uses, so a device backend can upload them once and recognise sub-slices of
/// them later (by address) without copying again.
#[derive(Clone, Copy, Debug)]
pub struct Srs<'a> {
    /// H query.
    pub h: &'a [G1Affine],
    /// L query.
    pub l: &'a [G1Affine],
    /// A query (inputs then aux).
    pub a: &'a [G1Affine],
    /// B query in G1 (inputs then aux).
    pub b_g1: &'a [G1Affine],
}

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

    /// Compute lanes (devices): the prover splits circuits contiguously across them, one thread per lane.
    fn lanes(&self) -> usize {
        1
    }

    /// Lane `i` as a backend of its own (`None`: this backend is its only lane).
    fn lane(&self, _i: usize) -> Option<&dyn Backend> {
        None
    }

    /// Whether `ntt_msm_h`, `batch_add` and `tail_msm` are timed on the device: then the prover opens no host
    /// spans for them but brackets them with `phase_begin`/`phase_end`, and runs lanes concurrently with the
    /// CPU's `prep_msm` and `b_g2_msm`.
    fn device_timed(&self) -> bool {
        false
    }

    /// Before a proving call: upload (or find resident) the SRS bases, remember the options.
    fn begin_call(&self, _opts: CallOpts, _srs: Srs<'_>) -> BResult<()> {
        Ok(())
    }

    /// After a proving call: drop per-call device buffers (and the SRS unless resident).
    fn end_call(&self) {}

    /// Opens device phase `phase` of job circuit `circuit` (device-timed backends only).
    fn phase_begin(
        &self,
        _phase: &'static str,
        _circuit: u64,
        _args: Vec<(&'static str, String)>,
    ) -> BResult<()> {
        Ok(())
    }

    /// Closes the phase opened last and reports it to the timeline.
    fn phase_end(&self) -> BResult<()> {
        Ok(())
    }
}
