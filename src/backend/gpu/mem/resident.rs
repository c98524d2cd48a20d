//! Host data on the device: synchronous uploads and the check that a resident copy still holds what the host
//! has (sampled points read back), run before a resident SRS is reused.

use std::marker::PhantomData;
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream};

use super::super::device::Gpu;
use super::super::error::GResult;
use super::super::{limbs, read_back, Limbs};

/// Elements compared when a resident copy is checked: first, last and two between.
const CHECK_SAMPLES: usize = 4;

/// Copies `v` to `gpu` (synchronously: the host slice may be freed right after).
pub fn upload<T: Limbs>(gpu: &Gpu, v: &[T]) -> GResult<CudaSlice<u64>> {
    upload_on(&gpu.stream, v)
}

/// Bytes from which [`upload_locked`] page-locks a section for its copy: a 2 KiB C2's smallest SRS section
/// (B_G1, 66 MB) is past it; a tiny circuit's bases are not worth a registration.
const LOCK_MIN: usize = 8 << 20;

/// [`upload`] of an SRS section, page-locked in place for its copy (`cuMemHostRegister`, then one DMA; the
/// registration ends before this returns). On an H100 the real 2 KiB C2's H (402 MB) went up in 54–74 ms
/// against 112–159 ms pageable, both beside the pool's first blocks; at 2^27 the five sections took 4.4 s
/// (docs/PERF.md, session aj). A section the driver will not register (e.g. one another lane has
/// registered for its own copy) goes up pageable.
pub fn upload_locked<T: Limbs>(gpu: &Gpu, v: &[T]) -> GResult<CudaSlice<u64>> {
    let _locked = lock_in_place(gpu, v);
    upload(gpu, v)
}

/// A host slice page-locked in place for `gpu`'s copies (`cuMemHostRegister`), unlocked when dropped; the
/// borrow keeps the slice alive and unmoved until then.
pub struct Locked<'a> {
    gpu: &'a Gpu,
    p: *mut std::ffi::c_void,
    _slice: PhantomData<&'a [u8]>,
}

// SAFETY: the pointer is only handed back to the driver (`cuMemHostUnregister`), from whichever thread drops it.
unsafe impl Send for Locked<'_> {}

/// `v` page-locked on `gpu` ([`Locked`]), or `None` below `LOCK_MIN` bytes or when the driver refuses (the copy
/// then goes up pageable). A stager locks the next section on a thread of its own while the current one is
/// copied: a registration took 8–12 ms per 2 KiB C2 section (docs/PERF.md, session al).
pub fn lock_in_place<'a, T>(gpu: &'a Gpu, v: &'a [T]) -> Option<Locked<'a>> {
    let bytes = std::mem::size_of_val(v);
    if bytes < LOCK_MIN || gpu.ctx.bind_to_thread().is_err() {
        return None;
    }
    use cudarc::driver::sys;
    let p = v.as_ptr() as *mut std::ffi::c_void;
    // SAFETY: `v` is a live host slice of `bytes` bytes, borrowed for the guard's whole life and unregistered
    // when it drops; flags 0 = page-lock only, no byte changes.
    if unsafe { sys::cuMemHostRegister_v2(p, bytes, 0) } != sys::CUresult::CUDA_SUCCESS {
        return None;
    }
    // Milestone: the registration's share of a section's upload (a one-shot's H took 84 ms beside the pool's
    // first blocks, L and A 19 ms each after them; docs/PERF.md, session aj).
    crate::util::marks::mark_with(|| format!("srs_registered bytes={bytes}"));
    Some(Locked { gpu, p, _slice: PhantomData })
}

impl Drop for Locked<'_> {
    fn drop(&mut self) {
        let _ = self.gpu.ctx.bind_to_thread();
        // SAFETY: registered by `lock_in_place`, unregistered once; a copy from it has completed (every upload
        // synchronizes its stream before returning).
        let _ = unsafe { cudarc::driver::sys::cuMemHostUnregister(self.p) };
    }
}

/// [`upload`] on stream `s` (`tailseq`'s gathered bases, which must not queue behind the lane's msm_h).
pub fn upload_on<T: Limbs>(s: &Arc<CudaStream>, v: &[T]) -> GResult<CudaSlice<u64>> {
    let dev = if v.is_empty() { s.alloc_zeros::<u64>(1)? } else { s.clone_htod(limbs(v))? };
    s.synchronize()?;
    Ok(dev)
}

/// Whether `dev` holds `host` at a few sampled elements (false on any device error).
pub fn matches<T: Limbs>(gpu: &Gpu, dev: &CudaSlice<u64>, host: &[T]) -> bool {
    if host.is_empty() {
        return true;
    }
    if dev.len() < host.len() * T::LIMBS {
        return false;
    }
    let l = limbs(host);
    (0..CHECK_SAMPLES).all(|k| {
        let i = (host.len() - 1) * k / (CHECK_SAMPLES - 1);
        let range = i * T::LIMBS..(i + 1) * T::LIMBS;
        read_back(&gpu.stream, &dev.slice(range.clone())).is_ok_and(|back| back == l[range])
    })
}
