//! The page-locked host pool synthesis writes a/b/c into (toggle B2 with `pce`): blocks mapped once, in huge
//! pages where allowed, and registered with the driver (portable, so every device's context sees them as
//! page-locked), lent to synthesis, read by the copy engine straight into the lane's device buffers (one DMA
//! per vector, no host copy), and given back for the next circuit. Idle blocks beyond [`MAX_IDLE`] are freed
//! (the release threshold), and the pool never holds more than its byte cap ([`caps`], widened to a run's
//! window): past it a/b/c go through the heap, as with the pool off, and the run says so once.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use blstrs::Scalar;
use cudarc::driver::{sys, CudaContext};

use crate::cs::{HostBlock, HostPool};

/// Idle blocks kept for reuse: a, b, c of four circuits in flight (the pipeline's usual depth on one
/// device); more are freed when returned.
pub const MAX_IDLE: usize = 12;

/// The pool's byte caps: `CUZK_PINNED_POOL_MAX` (bytes) fixes both, else a quarter of physical memory, widened
/// up to half of it for a run whose memory plan holds more lent a/b/c at once ([`Caps::within`]); 0 where
/// the memory is unknown means no cap. Page-locked memory cannot be swapped or reclaimed, so an uncapped pool
/// at 2^24 (a, b, c of 512 MiB each, up to [`MAX_IDLE`] kept) could lock 6 GiB of a small host. A quarter
/// alone held 8 of the 9 blocks (4.2 GB each) that three 32 GiB calls in flight need on the 128 GiB device
/// host: every third call went through the heap and B2's staging, its ntt_h 0.72 s against 0.31 s
/// (docs/PERF.md, session ag).
pub fn caps() -> Caps {
    match std::env::var("CUZK_PINNED_POOL_MAX").ok().and_then(|v| v.trim().parse::<u64>().ok()) {
        Some(v) => Caps { cap: v, ceiling: v },
        None => match crate::util::meminfo::memory_bytes() {
            0 => Caps { cap: u64::MAX, ceiling: u64::MAX },
            m => Caps { cap: m / 4, ceiling: m / 2 },
        },
    }
}

/// What a pool may hold: its own cap, and how far a run's window may widen it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caps {
    /// Bytes held, lent and idle, outside a window (and kept idle after one, until a lend needs room).
    pub cap: u64,
    /// The most a window widens `cap` to.
    pub ceiling: u64,
}

impl Caps {
    /// The cap for a lend within a run whose plan holds `window` bytes of lent a/b/c at once.
    pub fn within(&self, window: u64) -> u64 {
        self.cap.max(window.min(self.ceiling))
    }
}

/// The pool of one backend.
pub struct PinnedPool {
    ctx: Arc<CudaContext>,
    idle: Mutex<Vec<Mem>>,
    /// Bytes this pool may hold, lent and idle together (widened within a run's window).
    caps: Caps,
    /// Bytes this pool holds now.
    held: AtomicU64,
    warned: std::sync::Once,
    capped: std::sync::Once,
}

/// One block: an anonymous mapping registered with the driver while it lives.
///
/// Why not `cuMemHostAlloc`: it maps and zeroes its 4 KiB pages under a lock the driver's other allocations
/// wait on. A fresh process's first three blocks (86 MB each at 2 KiB) took 30–50 ms apiece on the H200,
/// and the SRS's device allocation waited for all three. Mapped first and then registered, a block takes
/// 15–20 ms on an H100 (27–47 through `cuMemHostAlloc` in the same call; docs/PERF.md, session aj).
struct Mem {
    ctx: Arc<CudaContext>,
    map: memmap2::MmapMut,
    ptr: *mut Scalar,
    scalars: usize,
}

// SAFETY: `ptr` points into `map`, which this block owns; a block is used by one owner at a time.
unsafe impl Send for Mem {}
// SAFETY: as above.
unsafe impl Sync for Mem {}

impl Mem {
    /// `bytes` of fresh memory, mapped now and page-locked; `Err` names the step that failed.
    fn new(ctx: &Arc<CudaContext>, bytes: usize, scalars: usize) -> Result<Mem, String> {
        let mut map = memmap2::MmapMut::map_anon(bytes).map_err(|e| format!("mapping {bytes} bytes: {e}"))?;
        crate::util::mem::populate_map(&mut map);
        ctx.bind_to_thread().map_err(|e| e.to_string())?;
        let ptr = map.as_mut_ptr();
        // SAFETY: `map` is a live private mapping of `bytes` bytes, unregistered in `Drop` before it is
        // unmapped; PORTABLE makes it page-locked for every context.
        let r = unsafe { sys::cuMemHostRegister_v2(ptr.cast(), bytes, sys::CU_MEMHOSTREGISTER_PORTABLE) };
        if r != sys::CUresult::CUDA_SUCCESS {
            return Err(format!("cuMemHostRegister of {bytes} bytes: {r:?}"));
        }
        Ok(Mem { ctx: Arc::clone(ctx), map, ptr: ptr.cast(), scalars })
    }

    fn bytes(&self) -> usize {
        self.map.len()
    }
}

impl Drop for Mem {
    fn drop(&mut self) {
        // The registration ends before the mapping does (the field drops after this).
        let _ = self.ctx.bind_to_thread();
        // SAFETY: `map` was registered by `Mem::new` and is unregistered exactly once.
        let _ = unsafe { sys::cuMemHostUnregister(self.map.as_mut_ptr().cast()) };
    }
}

impl PinnedPool {
    /// An empty pool allocating in `ctx` and holding at most `caps` bytes.
    pub fn new(ctx: Arc<CudaContext>, caps: Caps) -> Arc<PinnedPool> {
        Arc::new(PinnedPool {
            ctx,
            idle: Mutex::new(Vec::new()),
            caps,
            held: AtomicU64::new(0),
            warned: std::sync::Once::new(),
            capped: std::sync::Once::new(),
        })
    }

    /// Bytes this pool holds now (lent and idle): the memory lanes' `host_pinned` counts them.
    pub fn held_bytes(&self) -> u64 {
        self.held.load(Ordering::Relaxed)
    }

    /// Counts `bytes` as held if that stays within `cap`: blocks are allocated concurrently (a circuit's a,
    /// b and c at once), so the check and the count are one step.
    fn reserve(&self, bytes: u64, cap: u64) -> bool {
        let fits = |h: u64| (h.saturating_add(bytes) <= cap).then_some(h.saturating_add(bytes));
        self.held.fetch_update(Ordering::Relaxed, Ordering::Relaxed, fits).is_ok()
    }

    fn alloc(&self, scalars: usize, cap: u64) -> Option<Mem> {
        let bytes = scalars.checked_mul(32)?;
        if !self.reserve(bytes as u64, cap) {
            // Free idle blocks first: a smaller circuit's blocks should not keep a larger one off the pool.
            let idle: Vec<Mem> = std::mem::take(&mut *crate::util::lock(&self.idle));
            idle.into_iter().for_each(|m| self.free(m));
            if !self.reserve(bytes as u64, cap) {
                self.capped.call_once(|| {
                    tracing::warn!(
                        "pinned pool: {bytes} more bytes would pass its cap of {cap} bytes \
                         (CUZK_PINNED_POOL_MAX, else a quarter of memory widened to the run's window up to \
                         half); a/b/c go through the heap"
                    )
                });
                return None;
            }
        }
        // Milestones: a fresh process's first blocks are allocated while the SRS goes up (session af).
        crate::util::marks::mark_with(|| format!("b2_alloc_begins bytes={bytes}"));
        let r = Mem::new(&self.ctx, bytes, scalars);
        crate::util::marks::mark("b2_alloc_done");
        match r {
            Ok(m) => Some(m),
            Err(e) => {
                self.held.fetch_sub(bytes as u64, Ordering::Relaxed);
                self.warned.call_once(|| tracing::warn!("pinned pool: {e}; a/b/c go through the heap"));
                None
            }
        }
    }

    fn give_back(&self, m: Mem) {
        let mut idle = crate::util::lock(&self.idle);
        if idle.len() < MAX_IDLE {
            idle.push(m);
        } else {
            drop(idle);
            self.free(m);
        }
    }

    fn free(&self, m: Mem) {
        let bytes = m.bytes() as u64;
        self.held.fetch_sub(bytes, Ordering::Relaxed);
        drop(m);
    }

    /// Idle blocks (for tests and the memory picture).
    pub fn idle_blocks(&self) -> usize {
        crate::util::lock(&self.idle).len()
    }
}

impl HostPool for Arc<PinnedPool> {
    fn lend(&self, scalars: usize) -> Option<Box<dyn HostBlock>> {
        self.lend_within(scalars, 0)
    }

    fn lend_within(&self, scalars: usize, window: u64) -> Option<Box<dyn HostBlock>> {
        let reused = {
            let mut idle = crate::util::lock(&self.idle);
            // The smallest idle block that fits.
            let best =
                (0..idle.len()).filter(|&i| idle[i].scalars >= scalars).min_by_key(|&i| idle[i].scalars);
            best.map(|i| idle.swap_remove(i))
        };
        let mem = match reused {
            Some(m) => m,
            None => self.alloc(scalars.max(1), self.caps.within(window))?,
        };
        Some(Box::new(Block { mem: Some(mem), pool: Arc::clone(self) }))
    }
}

/// A lent block; returns to its pool when dropped.
struct Block {
    mem: Option<Mem>,
    pool: Arc<PinnedPool>,
}

impl HostBlock for Block {
    fn ptr(&self) -> *mut Scalar {
        self.mem.as_ref().map_or(std::ptr::null_mut(), |m| m.ptr)
    }

    fn capacity(&self) -> usize {
        self.mem.as_ref().map_or(0, |m| m.scalars)
    }

    fn page_locked(&self) -> bool {
        true
    }
}

impl Drop for Block {
    fn drop(&mut self) {
        if let Some(m) = self.mem.take() {
            self.pool.give_back(m);
        }
    }
}

impl Drop for PinnedPool {
    fn drop(&mut self) {
        let idle = std::mem::take(self.idle.get_mut().unwrap_or_else(|p| p.into_inner()));
        idle.into_iter().for_each(|m| self.free(m));
    }
}

#[cfg(test)]
mod tests {
    use super::Caps;

    #[test]
    fn a_window_widens_the_cap_up_to_the_ceiling() {
        let c = Caps { cap: 100, ceiling: 250 };
        assert_eq!(
            [c.within(0), c.within(99), c.within(180), c.within(250), c.within(u64::MAX)],
            [100, 100, 180, 250, 250]
        );
        // An explicit CUZK_PINNED_POOL_MAX sets both: no window widens it.
        let fixed = Caps { cap: 64, ceiling: 64 };
        assert_eq!(fixed.within(1 << 40), 64);
    }
}
