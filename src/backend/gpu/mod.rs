//! The CUDA backend: kernels in `cuda/` compiled by NVRTC for the device's own arch, launched
//! through cudarc; libcuda and NVRTC are loaded at run time, so a build needs no CUDA and a machine without a
//! GPU falls back to the CPU backend with the reason.
//!
//! - [`discover`]: is there a driver, a device and NVRTC (never panics when there is not).
//! - [`compile`]: embedded sources, NVRTC, the on-disk cubin cache.
//! - [`device`]: one [`Gpu`] per visible device (context, stream, modules, per-device memo).
//! - [`ntt`], [`msm`], [`batch_add`]: the kernels' Rust wrappers (one enqueue per op on `Gpu::stream`).
//! - [`g2d`]: B_G2 resident on a lane's device and its batch addition on a second stream (`g2d`).
//! - [`backend`]: [`backend::GpuBackend`], the `Backend` implementation with one lane per device.
//! - [`hpipe`]: a lane's next circuit staged (upload, compute_h) beside its current msm_h (`hpipe`).
//! - [`tailseq`]: a lane's batch additions and tail MSMs of all its circuits as one launch sequence (`tailseq`).
//! - [`mempool`]: the device's stream-ordered pool kept warm between calls.
//! - [`timing`]: CUDA events mapped to host instants for the timeline.
//! - [`floor`]: the device's peak multiply rate and bandwidths for `cuzk bench floor`.

pub mod abc;
pub mod backend;
pub mod batch_add;
pub mod compile;
pub mod device;
pub mod discover;
pub mod error;
pub mod floor;
pub mod g2d;
pub mod hostpool;
pub mod hpipe;
pub mod mempool;
pub mod msm;
mod msm_profile;
pub mod msm_shift;
pub mod msm_variant;
pub mod ntt;
mod resident;
pub mod staging;
pub mod tailseq;
pub mod timing;

pub use compile::Module;
pub use device::Gpu;
pub use error::{GResult, GpuError};

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};

/// Types whose memory is exactly `LIMBS` little-endian u64 limbs in blst's layout, so slices of them can be
/// copied to and from the device without conversion.
///
/// # Safety
/// Implementors must be `repr(transparent)` (or `repr(C)`) over `[u64; LIMBS]` with no padding.
pub unsafe trait Limbs: Copy {
    /// u64 limbs per value.
    const LIMBS: usize;
}

// SAFETY: blstrs 0.7.1 declares each of these `#[repr(transparent)]` over the blst struct of the same
// layout: blst_fr = [u64; 4], blst_fp = [u64; 6], blst_p1_affine = 2 fp, blst_p1 = 3 fp, blst_fp2 = 2 fp,
// blst_p2_affine = 2 fp2, blst_p2 = 3 fp2 (blst compiles them as plain `repr(C)` structs of u64 arrays).
unsafe impl Limbs for Scalar {
    const LIMBS: usize = 4;
}
unsafe impl Limbs for G1Affine {
    const LIMBS: usize = 12;
}
unsafe impl Limbs for G2Affine {
    const LIMBS: usize = 24;
}
unsafe impl Limbs for G1Projective {
    const LIMBS: usize = 18;
}
unsafe impl Limbs for G2Projective {
    const LIMBS: usize = 36;
}

/// Views blstrs values as their u64 limbs (Scalar = 4, G1Affine = 12, G2Affine = 24, G1Projective = 18,
/// G2Projective = 36), for uploads without a copy.
pub fn limbs<T: Limbs>(v: &[T]) -> &[u64] {
    debug_assert_eq!(std::mem::size_of::<T>(), 8 * T::LIMBS);
    // SAFETY: `Limbs` guarantees T is exactly LIMBS u64s; alignment of T is that of u64.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u64>(), v.len() * T::LIMBS) }
}

/// Mutable limb view, for downloads straight into blstrs values.
pub fn limbs_mut<T: Limbs>(v: &mut [T]) -> &mut [u64] {
    debug_assert_eq!(std::mem::size_of::<T>(), 8 * T::LIMBS);
    // SAFETY: as in `limbs`; every bit pattern the device writes is one the caller asked for (Montgomery
    // limbs), and blstrs values have no invalid bit patterns at the type level.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<u64>(), v.len() * T::LIMBS) }
}

/// A G1 point from Jacobian limbs in blst's layout (x, y, z; identity when z = 0), as the kernels return.
pub fn g1_from_jacobian(l: &[u64; 18]) -> G1Projective {
    let mut p = [<G1Projective as group::Group>::identity()];
    limbs_mut(&mut p).copy_from_slice(l);
    p[0]
}

/// A G2 point from Jacobian limbs in blst's layout (x, y, z over Fp2; identity when z = 0).
pub fn g2_from_jacobian(l: &[u64; 36]) -> G2Projective {
    let mut p = [<G2Projective as group::Group>::identity()];
    limbs_mut(&mut p).copy_from_slice(l);
    p[0]
}
