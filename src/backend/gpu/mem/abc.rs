//! a, b, c on their way into `compute_h`: three device buffers per lane kept across calls (two such sets with
//! `hpipe`; no per-call device allocation in steady state; reallocated only when a larger domain arrives),
//! filled from the host vectors by the upload the toggles chose (`mem::upload`), the padding up to the domain
//! zeroed on the device; the host vectors are freed on another thread, off the lane's critical path (freeing
//! 3 × 128 MiB at 2^22 returns ~100k pages to the kernel).

use std::sync::Arc;

use blstrs::Scalar;
use cudarc::driver::{CudaSlice, CudaStream};

use super::super::device::Gpu;
use super::super::error::GResult;
use super::super::limbs;
use crate::cs::Evals;

/// One lane's a/b/c device buffer sets (none before the first call; two while `hpipe` stages a circuit).
#[derive(Default)]
pub struct AbcBufs {
    held: Vec<[CudaSlice<u64>; 3]>,
}

impl AbcBufs {
    /// Device bytes `sets` buffer sets of a domain of `n` elements take beyond what the lane holds already:
    /// the figure the memory check before `ntt_msm_h` counts.
    pub fn extra_bytes(&self, n: usize, sets: usize) -> usize {
        let fit = self.held.iter().filter(|b| b[0].len() >= 4 * n).count();
        sets.saturating_sub(fit) * 3 * 32 * n
    }

    /// A set of at least `n` elements: one the lane holds when large enough, else a new one (a smaller held
    /// one freed first).
    pub fn take(&mut self, gpu: &Gpu, n: usize) -> GResult<[CudaSlice<u64>; 3]> {
        if let Some(i) = self.held.iter().position(|b| b[0].len() >= 4 * n) {
            return Ok(self.held.swap_remove(i));
        }
        drop(self.held.pop());
        // SAFETY: every limb compute_h reads is first written: [0, len) by the upload, [len, n) zeroed
        // by `fill`; limbs past n are never read.
        let a = || unsafe { gpu.stream.alloc::<u64>(4 * n) };
        Ok([a()?, a()?, a()?])
    }

    /// Keeps `bufs` for the next call.
    pub fn keep(&mut self, bufs: [CudaSlice<u64>; 3]) {
        self.held.push(bufs);
    }

    /// Frees all but `sets` of the held sets (a call without `hpipe` keeps one).
    pub fn trim(&mut self, sets: usize) {
        self.held.truncate(sets);
    }

    /// Device bytes held between calls.
    pub fn bytes(&self) -> u64 {
        self.held.iter().map(|b| 3 * 8 * b[0].len() as u64).sum()
    }
}

/// Fills `dst[k]`'s first `n` elements with `src[k]` zero-padded: `upload(src, dst)` copies the vector into
/// the start of the buffer, the rest of the first `n` elements is zeroed on `stream` (the upload stream, so
/// each vector is complete when its copy's event fires).
pub fn fill(
    stream: &Arc<CudaStream>,
    dst: &mut [CudaSlice<u64>; 3],
    src: [&[Scalar]; 3],
    n: usize,
    mut upload: impl FnMut(&[u64], &mut CudaSlice<u64>) -> GResult<()>,
) -> GResult<()> {
    for (d, v) in dst.iter_mut().zip(src) {
        if !v.is_empty() {
            upload(limbs(v), d)?;
        }
        if v.len() < n {
            stream.memset_zeros(&mut d.slice_mut(4 * v.len()..4 * n))?;
        }
    }
    Ok(())
}

/// One copy into the buffer's start on `stream`: a DMA from the pinned pool's blocks or B1's page-locked
/// vectors, else a pageable copy (neither B1 nor B2).
pub fn copy(stream: &Arc<CudaStream>, src: &[u64], dst: &mut CudaSlice<u64>) -> GResult<()> {
    stream.memcpy_htod(src, &mut dst.slice_mut(0..src.len()))?;
    Ok(())
}

/// Releases the host a/b/c once the copies queued so far on `stream` are done (a lent block must not go
/// back to the pool while the copy engine still reads it), on a short-lived thread of its own: freeing
/// 3 × 128 MiB of heap at 2^22 returns ~100k pages to the kernel, off the lane's critical path.
pub fn release_after(stream: &Arc<CudaStream>, v: [Evals; 3]) -> GResult<()> {
    if v.iter().all(|x| !x.is_lent() && x.len() < (1 << 16)) {
        return Ok(());
    }
    let release = Release { copied: stream.record_event(None)?, v: Some(v) };
    // If no thread can be started, the closure is dropped here, and `Release` still waits before freeing.
    if let Err(e) = std::thread::Builder::new().name("cuzk-free-abc".into()).spawn(move || drop(release)) {
        tracing::warn!("ntt_msm_h: freeing a/b/c on this thread: {e}");
    }
    Ok(())
}

/// a/b/c and the event after their copies: dropping it waits for the event, then frees them.
struct Release {
    copied: cudarc::driver::CudaEvent,
    v: Option<[Evals; 3]>,
}

impl Drop for Release {
    fn drop(&mut self) {
        let _ = self.copied.synchronize();
        drop(self.v.take());
    }
}
