//! The device's floors for `cuzk bench floor`: peak full 64×64→128-bit multiplies per second and memory
//! bandwidth (`cuda/floor.cu`), and host-to-device copy bandwidth from page-locked and from pageable memory.
//! Each figure is the best of a few timed passes after an untimed warm-up; times are host time around a
//! stream synchronize, fine for passes of tens of milliseconds.

use std::time::Instant;

use cudarc::driver::{LaunchConfig, PushKernelArg};

use super::super::device::Gpu;
use super::super::error::GResult;
use super::Module;

/// Threads per block of both kernels.
const BLOCK: u32 = 256;
/// Timed passes per figure (the best counts: a floor is the fastest the device goes).
const PASSES: usize = 3;
/// Bytes copied per bandwidth pass.
const COPY_BYTES: usize = 256 << 20;

/// One device's measured rates.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DeviceFloor {
    /// Full 64×64→128-bit multiplies per second.
    pub mul64_per_s: f64,
    /// Device memory bandwidth, bytes read + written per second.
    pub mem_bytes_per_s: f64,
    /// Host-to-device copies from page-locked memory, bytes per second.
    pub h2d_pinned_bytes_per_s: f64,
    /// Host-to-device copies from pageable memory, bytes per second.
    pub h2d_pageable_bytes_per_s: f64,
}

/// The best (shortest) of `PASSES` timings of `f` after one warm-up, in seconds.
fn best(mut f: impl FnMut() -> GResult<()>) -> GResult<f64> {
    f()?;
    let mut t = f64::MAX;
    for _ in 0..PASSES {
        let s = Instant::now();
        f()?;
        t = t.min(s.elapsed().as_secs_f64());
    }
    Ok(t.max(1e-9))
}

/// Measures `gpu`'s floors (a few seconds; allocates 2 × 256 MiB on the device and 256 MiB on the host).
pub fn measure(gpu: &Gpu) -> GResult<DeviceFloor> {
    let s = &gpu.stream;
    let mul = gpu.kernel(Module::Floor, "floor_mul64")?;
    let copy = gpu.kernel(Module::Floor, "floor_copy")?;
    let grid = 1024 * 8u32;
    let threads = u64::from(grid) * u64::from(BLOCK);
    let iters: u64 = 4096;
    let seed: u64 = 7;
    let mut out = s.alloc_zeros::<u64>(threads as usize)?;
    let cfg = LaunchConfig { grid_dim: (grid, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 };
    let t_mul = best(|| {
        let mut lb = s.launch_builder(&mul);
        lb.arg(&iters).arg(&seed).arg(&mut out);
        // SAFETY: argument types and order match floor_mul64 in cuda/floor.cu; `out` holds one u64 per thread.
        unsafe { lb.launch(cfg) }?;
        s.synchronize()?;
        Ok(())
    })?;
    let n = (COPY_BYTES / 8) as u64;
    let src = s.alloc_zeros::<u64>(n as usize)?;
    let mut dst = s.alloc_zeros::<u64>(n as usize)?;
    let t_copy = best(|| {
        let mut lb = s.launch_builder(&copy);
        lb.arg(&src).arg(&mut dst).arg(&n);
        // SAFETY: argument types and order match floor_copy; both buffers hold n u64.
        unsafe { lb.launch(cfg) }?;
        s.synchronize()?;
        Ok(())
    })?;
    let host = vec![1u64; n as usize];
    let t_pageable = best(|| {
        s.memcpy_htod(&host, &mut dst)?;
        s.synchronize()?;
        Ok(())
    })?;
    // SAFETY: the pinned buffer is written before any read (the fill below).
    let mut pinned = unsafe { gpu.ctx.alloc_pinned_with_flags::<u64>(n as usize, 0) }?;
    pinned.as_mut_slice()?.fill(1);
    let t_pinned = best(|| {
        s.memcpy_htod(&pinned, &mut dst)?;
        s.synchronize()?;
        Ok(())
    })?;
    Ok(DeviceFloor {
        mul64_per_s: (threads * iters * 8) as f64 / t_mul,
        mem_bytes_per_s: 2.0 * COPY_BYTES as f64 / t_copy,
        h2d_pinned_bytes_per_s: COPY_BYTES as f64 / t_pinned,
        h2d_pageable_bytes_per_s: COPY_BYTES as f64 / t_pageable,
    })
}
