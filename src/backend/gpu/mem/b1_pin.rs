//! B1: a/b/c page-locked in place for the duration of their upload (`cuMemHostRegister`, phase `pin_abc`),
//! unregistered when the guard drops. A buffer the driver will not register (e.g. it shares a page with one
//! registered already) is uploaded pageable instead: B1 changes speed, never whether a proof succeeds.

use std::sync::atomic::{AtomicU64, Ordering};

use blstrs::Scalar;

use super::super::device::Gpu;
use super::super::error::GResult;

/// The registrations of one upload; `held` counts their bytes while they last (the lane's page-locked bytes,
/// the memory lanes' `host_pinned`).
pub struct Pinned<'c> {
    regs: Vec<(*mut std::ffi::c_void, u64)>,
    held: &'c AtomicU64,
}

impl<'c> Pinned<'c> {
    /// Registers each non-empty buffer of `bufs` with the driver.
    pub fn new(gpu: &Gpu, bufs: &[&[Scalar]], held: &'c AtomicU64) -> GResult<Pinned<'c>> {
        use cudarc::driver::sys;
        gpu.ctx.bind_to_thread()?;
        let mut done = Pinned { regs: Vec::new(), held };
        for b in bufs.iter().filter(|b| !b.is_empty()) {
            let p = b.as_ptr() as *mut std::ffi::c_void;
            let bytes = std::mem::size_of_val(*b);
            // SAFETY: `b` is a live host allocation of `bytes` bytes that outlives the registration (the guard
            // is dropped, after a stream synchronize, before the vectors); flags 0 = page-lock only.
            let r = unsafe { sys::cuMemHostRegister_v2(p, bytes, 0) };
            if r == sys::CUresult::CUDA_SUCCESS {
                held.fetch_add(bytes as u64, Ordering::Relaxed);
                done.regs.push((p, bytes as u64));
            } else {
                tracing::warn!("pin_abc: cuMemHostRegister: {r:?}; uploading this buffer pageable");
            }
        }
        Ok(done)
    }
}

impl Drop for Pinned<'_> {
    fn drop(&mut self) {
        for &(p, bytes) in &self.regs {
            // SAFETY: `p` was registered by `Pinned::new` and is unregistered exactly once.
            let _ = unsafe { cudarc::driver::sys::cuMemHostUnregister(p) };
            self.held.fetch_sub(bytes, Ordering::Relaxed);
        }
    }
}
