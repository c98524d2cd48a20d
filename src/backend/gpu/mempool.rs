//! The device's stream-ordered memory pool kept warm between calls: cudarc allocates per-call scratch (MSM
//! buckets and sort keys, batch-add partials) with `cuMemAllocAsync` from the device's default pool, whose
//! release threshold is 0 — every synchronisation hands the freed memory back to the driver and the next
//! call maps it again. Raising the threshold keeps up to [`keep_bytes`] mapped, so a steady-state call
//! allocates nothing new. `Gpu::check_mem` trims the pool before it reports too little memory.

use cudarc::driver::{sys, CudaContext};

/// The default pool of one device and the bytes it may keep.
pub struct DevicePool {
    pool: sys::CUmemoryPool,
    /// The release threshold set on the pool.
    pub keep: u64,
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
        let mut v = keep;
        // SAFETY: the attribute takes a pointer to a u64 (cuuint64_t).
        let r = unsafe {
            sys::cuMemPoolSetAttribute(
                pool,
                sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                (&mut v as *mut u64).cast(),
            )
        };
        (r == sys::CUresult::CUDA_SUCCESS).then_some(DevicePool { pool, keep })
    }

    /// Hands every unused kept byte back to the driver (before concluding that memory is short).
    pub fn trim(&self, ctx: &CudaContext) {
        if ctx.bind_to_thread().is_ok() {
            // SAFETY: `pool` is the device's default pool, valid for the context's lifetime.
            let _ = unsafe { sys::cuMemPoolTrimTo(self.pool, 0) };
        }
    }
}
