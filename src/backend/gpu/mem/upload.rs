//! How one circuit's a/b/c reach the lane's device buffers, chosen once per circuit from the call's toggles
//! and where synthesis put the vectors:
//! - [`Upload::Lent`]: synthesis wrote them into B2's page-locked blocks (`b2_pool`): one DMA each, no copy;
//! - [`Upload::Staged`]: heap vectors through B2's staging buffers (`b2_staging`), host copies overlapping the
//!   DMA;
//! - [`Upload::Pinned`]: B1 page-locks the heap vectors in place for the copy (`b1_pin`, span `pin_abc`);
//! - [`Upload::Pageable`]: plain copies from pageable memory (the driver's own bounce buffers).
//!
//! Every way zero-pads each vector to the domain on the device and hands the host vectors to
//! [`abc::release_after`], so they are freed off the lane's thread once their copies are done.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use cudarc::driver::{CudaSlice, CudaStream};

use super::super::device::Gpu;
use super::super::error::GResult;
use super::abc;
use super::b1_pin::Pinned;
use super::b2_staging::Staging;
use crate::backend::api::CallOpts;
use crate::cs::Evals;
use crate::vocab::{Phase, Probe, Site};

/// The ways a/b/c go up (module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Upload {
    /// B2 blocks synthesis wrote into.
    Lent,
    /// B2's staging buffers.
    Staged,
    /// B1's in-place registration.
    Pinned,
    /// Pageable copies.
    Pageable,
}

impl Upload {
    /// The way for these vectors under these toggles: lent blocks whenever synthesis used them; else B1 when
    /// on (it wins over B2), B2's staging when on, pageable otherwise.
    pub fn choose(abc: &[Evals; 3], opts: &CallOpts) -> Upload {
        if abc.iter().all(|e| matches!(e, Evals::Lent(l) if l.block().page_locked())) {
            Upload::Lent
        } else if opts.pin_abc {
            Upload::Pinned
        } else if opts.pinned_pool {
            Upload::Staged
        } else {
            Upload::Pageable
        }
    }

    /// The name recorded on the `ntt_h` span (`upload` arg).
    pub fn name(self) -> &'static str {
        match self {
            Upload::Lent => "b2_lent",
            Upload::Staged => "b2_staged",
            Upload::Pinned => "b1_pinned",
            Upload::Pageable => "pageable",
        }
    }
}

/// What an upload may use of its lane: the staging buffers (made on first use) and the count of page-locked
/// bytes the lane holds.
pub struct UploadCtx<'l> {
    /// The lane's device.
    pub gpu: &'l Gpu,
    /// B2's staging buffers, allocated on the first staged upload and kept for the lane.
    pub staging: &'l Mutex<Option<Staging>>,
    /// The lane's page-locked host bytes (B1 registrations and the staging buffers).
    pub pinned: &'l AtomicU64,
}

/// Fills `bufs`' first `n` elements with a, b, c (zero-padded) on stream `up` the way `how` says, then
/// releases the host vectors once their copies are done (`pin_abc` spans circuit `circuit`'s registration).
#[allow(clippy::too_many_arguments)] // one circuit's upload: every argument is a different thing
pub fn run(
    how: Upload,
    ctx: &UploadCtx<'_>,
    probe: &Probe,
    circuit: usize,
    up: &Arc<CudaStream>,
    bufs: &mut [CudaSlice<u64>; 3],
    [a, b, c]: [Evals; 3],
    n: usize,
) -> GResult<()> {
    let gpu = ctx.gpu;
    match how {
        Upload::Lent | Upload::Pageable => {
            abc::fill(up, bufs, [&a, &b, &c], n, |src, dst| abc::copy(up, src, dst))?;
        }
        Upload::Staged => {
            let mut slot = crate::util::lock(ctx.staging);
            let pool = match &mut *slot {
                Some(p) => p,
                none => {
                    let p = Staging::new(gpu)?;
                    ctx.pinned.fetch_add(p.bytes(), Ordering::Relaxed);
                    none.insert(p)
                }
            };
            abc::fill(up, bufs, [&a, &b, &c], n, |src, dst| pool.upload(up, src, dst))?;
        }
        Upload::Pinned => {
            let site = Site::new(Phase::PinAbc).circuit(circuit).device(gpu.ordinal as u64).arg("n", n);
            let pin = {
                let _span = probe.open(site);
                Pinned::new(gpu, &[&a, &b, &c], ctx.pinned)?
            };
            abc::fill(up, bufs, [&a, &b, &c], n, |src, dst| abc::copy(up, src, dst))?;
            // B1's registration ends with `pin`: the copies must be done by then.
            up.synchronize()?;
            drop(pin);
        }
    }
    abc::release_after(up, [a, b, c])
}
