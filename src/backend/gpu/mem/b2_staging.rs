//! The pinned staging pool (toggle `b2`): a/b/c reach the device through page-locked host buffers allocated
//! once per lane and reused by every call, instead of pageable copies (the driver's own bounce buffers) or
//! B1's per-call `cuMemHostRegister`. The host copies chunk k into one buffer (its own copy threads) while the
//! copy engine moves chunk k − 1 out of the other, instead of the pageable path (8.3 GB/s on the H200 host
//! against 55 GB/s pinned, `cuzk bench floor`; ntt_h at 2^20 ~25% shorter, docs/PERF.md).

use std::sync::Arc;

use cudarc::driver::sys;
use cudarc::driver::{CudaEvent, CudaSlice, CudaStream, DevicePtrMut, PinnedHostSlice};
use rayon::prelude::*;

use super::super::device::Gpu;
use super::super::error::{GResult, GpuError};

/// Bytes per staging buffer: 32 MiB keeps a 2^22 vector (128 MiB) in four chunks, enough to overlap the
/// host copy with the DMA, while the pool stays small (two buffers, 64 MiB pinned per lane).
pub const CHUNK_BYTES: usize = 32 << 20;

/// Bytes each host thread copies at once within a chunk.
const SLICE_BYTES: usize = 1 << 20;

/// Threads of the pool's own copy workers. Its own: on the global rayon pool the copies queued behind the
/// host's `prep_msm`, which runs at the same moment. Four: a quarter of the H200 host's cores, leaving the rest
/// to prep_msm; other counts not measured.
const COPY_THREADS: usize = 4;

/// One lane's pool: two pinned buffers, for each the event after the last copy out of it, and the threads
/// that fill them.
pub struct Staging {
    bufs: [PinnedHostSlice<u8>; 2],
    done: [Option<CudaEvent>; 2],
    copiers: rayon::ThreadPool,
}

impl Staging {
    /// Allocates the two buffers (page-locked, cacheable) on `gpu`'s context.
    pub fn new(gpu: &Gpu) -> GResult<Staging> {
        // SAFETY: the buffers' contents are written (by `upload`) before any byte of them is copied out.
        let alloc = || unsafe { gpu.ctx.alloc_pinned_with_flags::<u8>(CHUNK_BYTES, 0) };
        let copiers = rayon::ThreadPoolBuilder::new()
            .num_threads(COPY_THREADS)
            .thread_name(|i| format!("cuzk-staging-{i}"))
            .build()
            .map_err(|e| GpuError::Invalid(format!("staging: copy threads: {e}")))?;
        Ok(Staging { bufs: [alloc()?, alloc()?], done: [None, None], copiers })
    }

    /// Page-locked bytes the pool holds (the memory lanes' `host_pinned`).
    pub fn bytes(&self) -> u64 {
        (2 * CHUNK_BYTES) as u64
    }

    /// Copies `src` into the start of `dst` on `stream`, chunk by chunk through the pool. On return the host
    /// may reuse or free `src`: every byte of it is in a pool buffer or on the device; the copies are ordered
    /// before any later work on the stream (and, through `dst`'s write event, before its readers elsewhere).
    pub fn upload(&mut self, stream: &Arc<CudaStream>, src: &[u64], dst: &mut CudaSlice<u64>) -> GResult<()> {
        let bytes = std::mem::size_of_val(src);
        if bytes > dst.len() * 8 {
            return Err(GpuError::Invalid(format!(
                "staging: {bytes} bytes into a {}-byte buffer",
                dst.len() * 8
            )));
        }
        // SAFETY: any u64 slice is a valid byte slice of 8× its length.
        let src: &[u8] = unsafe { std::slice::from_raw_parts(src.as_ptr().cast(), bytes) };
        let (base, _sync) = dst.device_ptr_mut(stream);
        for (k, chunk) in src.chunks(CHUNK_BYTES).enumerate() {
            let i = k % 2;
            if let Some(ev) = self.done[i].take() {
                ev.synchronize()?;
            }
            let buf = self.bufs[i].as_mut_slice()?;
            self.copiers.install(|| {
                buf[..chunk.len()]
                    .par_chunks_mut(SLICE_BYTES)
                    .zip(chunk.par_chunks(SLICE_BYTES))
                    .for_each(|(d, s)| d.copy_from_slice(s))
            });
            let at = base + (k * CHUNK_BYTES) as u64;
            // SAFETY: `buf` is page-locked and stays untouched until `done[i]` has completed; the destination
            // range lies inside `dst` (checked above) and is used only on this stream.
            let r = unsafe {
                sys::cuMemcpyHtoDAsync_v2(at, buf.as_ptr().cast(), chunk.len(), stream.cu_stream())
            };
            if r != sys::CUresult::CUDA_SUCCESS {
                return Err(GpuError::Invalid(format!("staging: cuMemcpyHtoDAsync: {r:?}")));
            }
            self.done[i] = Some(stream.record_event(None)?);
        }
        Ok(())
    }
}
