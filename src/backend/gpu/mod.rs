//! The CUDA backend: kernels in `cuda/` compiled by NVRTC for the device's own arch, launched through cudarc;
//! libcuda and NVRTC are loaded at run time, so a build needs no CUDA and a machine without a GPU falls back
//! to the CPU backend with the reason. Laid out by role (docs/ARCHITECTURE.md, "The GPU backend"):
//!
//! - the device: [`discover`] (is there a driver, a device, NVRTC — never panics when not), [`compile`]
//!   (embedded sources, NVRTC, the on-disk cubin cache), [`device`] (one [`Gpu`] per device: context, main
//!   stream, loaded modules, per-device memo), [`streams`] (the side streams by role), [`timing`] (CUDA
//!   events mapped to host instants for the timeline);
//! - [`kernels`]: one wrapper file per kernel module (the `Module` list is `kernels::Module`);
//! - [`mem`]: host and device memory by toggle: `b2_pool` and `b2_staging` (B2), `dpool`, the lane's a/b/c
//!   device buffers (`abc`) and how a/b/c go up (`upload`: B2 blocks, B2 staging, B1, pageable), the resident
//!   SRS (`srs`, `resident`);
//! - [`sched`]: the overlap schemes, each whole in one file: `hpipe`, `tailseq`, `g2d`, `msm2s`;
//! - the lane: [`lane_core`] (what one device's lane holds), `h` (one circuit's `ntt_msm_h`), [`lane`]
//!   ([`lane::GpuLane`], the `Backend` of one device), [`backend`] ([`backend::GpuBackend`], every device).

pub mod backend;
pub mod compile;
pub mod device;
pub mod discover;
pub mod error;
mod h;
pub mod kernels;
pub mod lane;
pub mod lane_core;
pub mod mem;
pub mod sched;
pub mod streams;
pub mod timing;

pub use device::Gpu;
pub use error::{GResult, GpuError};
pub use kernels::Module;

use std::sync::Arc;

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use cudarc::driver::{CudaStream, DevicePtr, DeviceRepr};

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

/// Reads `dev` back into a new host vector once stream `s` has reached it. The stream is waited for first: a
/// copy into pageable memory queued behind kernels holds the driver's lock until they end, so another
/// thread's allocations and uploads for other streams waited for it (the tails' first upload sat 25 ms behind
/// msm_h's result at 2 KiB: docs/PERF.md, "Results read back after the wait").
pub fn read_back<T: DeviceRepr, D: DevicePtr<T>>(s: &Arc<CudaStream>, dev: &D) -> GResult<Vec<T>> {
    s.synchronize()?;
    let host = s.clone_dtoh(dev)?;
    s.synchronize()?;
    Ok(host)
}
