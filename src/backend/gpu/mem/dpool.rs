//! The device's stream-ordered memory pool kept warm between calls: cudarc allocates per-call scratch (MSM
//! buckets and sort keys, batch-add partials) with `cuMemAllocAsync` from the device's default pool, whose
//! release threshold is 0 — every synchronisation hands the freed memory back to the driver and the next
//! call maps it again. Raising the threshold keeps up to [`keep_bytes`] mapped, so a steady-state call
//! allocates nothing new. `Gpu::check_mem` trims the pool before it reports too little memory. The `dpool`
//! toggle switches the threshold per call ([`DevicePool::keep_warm`]).

use std::sync::atomic::{AtomicBool, Ordering};

use cudarc::driver::{sys, CudaContext};

/// The default pool of one device and the bytes it may keep.
pub struct DevicePool {
    pool: sys::CUmemoryPool,
    /// The release threshold set on the pool while `dpool` is on.
    pub keep: u64,
    /// Whether the threshold is `keep` now (else 0, the driver's default).
    warm: AtomicBool,
}

// SAFETY: a CUmemoryPool handle is a driver object usable from any thread once the context is bound.
unsafe impl Send for DevicePool {}
// SAFETY: as above; the driver serialises pool operations.
unsafe impl Sync for DevicePool {}

/// Bytes the pool keeps: `CUZK_DEVICE_POOL_KEEP` (bytes; 0 = the driver's default, release at every
/// synchronisation), else a quarter of device memory — above the largest call's scratch we size (the MSM at
/// 2^24 uses ≈ 4.3 GiB, docs/PERF.md) and small enough that other processes keep the rest.
pub fn keep_bytes(mem_total: usize) -> u64 {
    match std::env::var("CUZK_DEVICE_POOL_KEEP").ok().and_then(|v| v.trim().parse::<u64>().ok()) {
        Some(v) => v,
        None => mem_total as u64 / 4,
    }
}

impl DevicePool {
    /// The device's default pool with its release threshold raised to `keep`; `None` when the device has no
    /// stream-ordered pools (allocation then goes through `cuMemAlloc` and nothing is kept) or `keep` is 0.
    pub fn open(ctx: &CudaContext, keep: u64) -> Option<DevicePool> {
        if keep == 0 || ctx.bind_to_thread().is_err() {
            return None;
        }
        let mut pool: sys::CUmemoryPool = std::ptr::null_mut();
        // SAFETY: the context is bound; `pool` is a valid out pointer.
        let r = unsafe { sys::cuDeviceGetDefaultMemPool(&mut pool, ctx.cu_device()) };
        if r != sys::CUresult::CUDA_SUCCESS || pool.is_null() {
            return None;
        }
        set_threshold(pool, keep).then_some(DevicePool { pool, keep, warm: AtomicBool::new(true) })
    }

    /// Whether the pool keeps freed memory now (`dpool` on at the last call).
    pub fn is_warm(&self) -> bool {
        self.warm.load(Ordering::Relaxed)
    }

    /// `dpool` for the next call: on keeps up to `keep` bytes mapped, off restores the driver's default and
    /// hands back what the pool holds. A driver error leaves the threshold as it was (speed, not results).
    pub fn keep_warm(&self, ctx: &CudaContext, on: bool) {
        if self.warm.load(Ordering::Relaxed) == on || ctx.bind_to_thread().is_err() {
            return;
        }
        if set_threshold(self.pool, if on { self.keep } else { 0 }) {
            self.warm.store(on, Ordering::Relaxed);
            if !on {
                self.trim(ctx);
            }
        }
    }

    /// Hands every unused kept byte back to the driver (before concluding that memory is short).
    pub fn trim(&self, ctx: &CudaContext) {
        if ctx.bind_to_thread().is_ok() {
            // SAFETY: `pool` is the device's default pool, valid for the context's lifetime.
            let _ = unsafe { sys::cuMemPoolTrimTo(self.pool, 0) };
        }
    }
}

/// Sets `pool`'s release threshold; false on a driver error.
fn set_threshold(pool: sys::CUmemoryPool, bytes: u64) -> bool {
    let mut v = bytes;
    // SAFETY: `pool` is a device's default pool; the attribute takes a pointer to a u64 (cuuint64_t).
    let r = unsafe {
        sys::cuMemPoolSetAttribute(
            pool,
            sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
            (&mut v as *mut u64).cast(),
        )
    };
    r == sys::CUresult::CUDA_SUCCESS
}
