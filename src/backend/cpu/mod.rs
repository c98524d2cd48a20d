//! The CPU backend: the prover's arithmetic on rayon, written against blstrs' field and curve types.
//!
//! - [`ntt`]: radix-2/4 NTT over Fr with precomputed twiddles, coset variants and Groth16's `compute_h`
//!   (passes in `ntt_kernels`, native Fr addition in [`fr`]).
//! - [`msm`]: Pippenger MSM for G1 and G2 with signed (Booth) window digits and batch-affine buckets.
//! - [`batch_add`]: the sum of the bases selected by a bitmap (scalars that are exactly one).
//! - [`fixed_base`]: many multiples of one base point, for parameter generation.
//! - [`digits`]: scalar recoding into signed window digits, shared by MSM and fixed-base.
//! - [`field`], [`curve`] and [`affine`]: coordinates in blst's layout and the batch-affine additions the
//!   others share.

pub mod affine;
pub mod backend;
pub mod batch_add;
pub mod curve;
pub mod digits;
pub mod field;
pub mod fixed_base;
pub mod floor;
pub mod fr;
pub mod msm;
pub mod ntt;
mod ntt_kernels;
