//! `g2d`: B_G2 on a lane's device. The params' B_G2 bases (192 B each) stay resident across calls like the G1
//! SRS (uploaded at `begin_call`, once per params, checked by sampled points before reuse), and all of
//! `b_g2_msm` runs on a second stream of the lane, so it overlaps the lane's G1 work (`ntt_msm_h`,
//! `batch_add`, tails): the batch addition of the density-one bases ([`G2Dev::add`]) and the G2 MSM over the
//! entries whose scalar is neither 0 nor 1 ([`G2Dev::msm`]: their positions go up, the bases are gathered
//! from the resident query, then `kernels::msm::msm_g2_on`). When the bases or a step's scratch do not fit
//! (device memory checked first; tests can lower the room with [`G2Dev::limit`]) the lane says so once and
//! that step stays on the host: `g2d` changes speed, never whether or what a proof computes. The second
//! stream has the default priority, as the lane's (the lane made more urgent than it measured no change:
//! docs/PERF.md).

use std::sync::Arc;
use std::time::Instant;

use blstrs::{G2Affine, G2Projective, Scalar};
use cudarc::driver::{CudaSlice, CudaStream};

use super::super::device::Gpu;
use super::super::error::{GResult, GpuError};
use super::super::kernels::batch_add::{batch_add_g2_on, g2_scratch_bytes};
use super::super::kernels::msm::{gather_g2_on, msm_g2_on, scratch_bytes_g2, window_for};
use super::super::mem::resident::{matches, upload};
use crate::backend::api::ParamsId;

/// One lane's B_G2 state.
#[derive(Default)]
pub struct G2Dev {
    /// The second stream, made on first use.
    stream: Option<Arc<CudaStream>>,
    /// The resident bases: params, number of bases, device copy (24 limbs each).
    bases: Option<(ParamsId, usize, CudaSlice<u64>)>,
    /// Whether the lane has said that B_G2 stays on the host (said once per lane).
    warned: bool,
    /// Bytes the lane may use for the bases and their scratch at most (tests: "no room"); `None`: free memory.
    limit: Option<usize>,
    /// Uploads of B_G2 so far (tests: resident bases are not uploaded again).
    uploads: u64,
    /// Batch additions run on the device so far, and their summed wall time in ms.
    adds: (u64, f64),
    /// G2 MSMs run on the device so far, and their summed wall time in ms.
    msms: (u64, f64),
}

impl G2Dev {
    /// Caps the device memory the bases may take (`None`: what the device has free), for the fallback test.
    pub fn limit(&mut self, bytes: Option<usize>) {
        self.limit = bytes;
    }

    /// Uploads of B_G2 this lane has made.
    pub fn uploads(&self) -> u64 {
        self.uploads
    }

    /// Batch additions this lane ran on its device, and their summed wall time (ms).
    pub fn adds(&self) -> (u64, f64) {
        self.adds
    }

    /// G2 MSMs this lane ran on its device, and their summed wall time (ms).
    pub fn msms(&self) -> (u64, f64) {
        self.msms
    }

    /// Whether B_G2 of some params is on the device now.
    pub fn resident(&self) -> bool {
        self.bases.is_some()
    }

    /// Fails like `Gpu::check_mem` when `need` bytes exceed free memory or the test limit.
    fn check(&self, gpu: &Gpu, what: &str, need: usize) -> GResult<()> {
        gpu.check_mem(what, need)?;
        match self.limit {
            Some(free) if need > free => {
                Err(GpuError::OutOfMemory { device: gpu.ordinal, what: what.to_string(), need, free })
            }
            _ => Ok(()),
        }
    }

    /// Says once per lane why B_G2 is added on the host.
    fn fall_back(&mut self, gpu: &Gpu, why: &GpuError) {
        if !self.warned {
            self.warned = true;
            tracing::warn!("g2d: GPU{}: B_G2 work stays on the host: {why}", gpu.ordinal);
        }
    }

    /// At `begin_call`: with `on`, makes `host` (the params' whole B_G2) resident, reusing a copy of the same
    /// params that still matches; without room it falls back (said once). With `on` false, frees the bases.
    /// Returns whether it uploaded (the caller's `srs_upload` span).
    pub fn prepare(&mut self, gpu: &Gpu, on: bool, params: ParamsId, host: &[G2Affine]) -> bool {
        if !on || host.is_empty() {
            self.bases = None;
            return false;
        }
        if let Some((p, len, dev)) = &self.bases {
            if *p == params && *len == host.len() && matches(gpu, dev, host) {
                return false;
            }
        }
        self.bases = None; // the old copy's memory counts as free for the new one
        let bytes = std::mem::size_of_val(host) + g2_scratch_bytes(host.len());
        match self.check(gpu, "the B_G2 bases (g2d)", bytes).and_then(|()| upload(gpu, host)) {
            Ok(dev) => {
                self.uploads += 1;
                self.bases = Some((params, host.len(), dev));
                true
            }
            Err(e) => {
                self.fall_back(gpu, &e);
                false
            }
        }
    }

    /// Whether `host` and its scratch would fit beside `also` more bytes, freeing and saying nothing: a stager
    /// page-locks the bases ahead only when they will go up (a 2 KiB C2's registration costs 8–12 ms).
    pub fn would_fit(&self, gpu: &Gpu, host: &[G2Affine], also: usize) -> bool {
        let need = std::mem::size_of_val(host) + g2_scratch_bytes(host.len());
        let held = self.bases.as_ref().map_or(0, |(_, _, d)| d.len() * 8);
        let free = gpu.free_mem().unwrap_or(0) + held;
        need + also <= free && self.limit.is_none_or(|l| need <= l)
    }

    /// Whether `host` of `params` is resident and its sampled points still match.
    pub fn holds(&self, gpu: &Gpu, params: ParamsId, host: &[G2Affine]) -> bool {
        matches!(&self.bases, Some((p, len, dev)) if *p == params && *len == host.len() && matches(gpu, dev, host))
    }

    /// Before a stager uploads `host` outside this lock: frees an older copy and checks there is room for the
    /// bases and their scratch, falling back (said once) as [`G2Dev::prepare`] does when there is none.
    pub fn room(&mut self, gpu: &Gpu, host: &[G2Affine]) -> bool {
        self.bases = None;
        let bytes = std::mem::size_of_val(host) + g2_scratch_bytes(host.len());
        match self.check(gpu, "the B_G2 bases (g2d)", bytes) {
            Ok(()) => true,
            Err(e) => {
                self.fall_back(gpu, &e);
                false
            }
        }
    }

    /// B_G2 of `params` (`len` points) that a stager uploaded, now resident.
    pub fn adopt(&mut self, params: ParamsId, len: usize, dev: CudaSlice<u64>) {
        self.uploads += 1;
        self.bases = Some((params, len, dev));
    }

    /// The sum of resident bases `start..start + n` of `params` whose bit is set, on the second stream, with
    /// the call's wall time in ms (bitmap upload, kernels, result read back); `None` when they are not held or there is no room for the scratch (the caller
    /// adds on the host).
    pub fn add(
        &mut self,
        gpu: &Gpu,
        params: ParamsId,
        start: usize,
        n: usize,
        bitmap: &[u64],
    ) -> Option<GResult<(G2Projective, f64)>> {
        const L: usize = 24; // u64 limbs per G2 affine point
        let held = matches!(&self.bases, Some((p, len, _)) if *p == params && start + n <= *len);
        if !held {
            return None;
        }
        if let Err(e) = self.check(gpu, "B_G2 batch addition scratch (g2d)", g2_scratch_bytes(n)) {
            self.fall_back(gpu, &e);
            return None;
        }
        let stream = match self.stream(gpu) {
            Ok(s) => s,
            Err(e) => return Some(Err(e)),
        };
        let (_, _, dev) = self.bases.as_ref()?;
        let view = dev.slice(start * L..(start + n) * L);
        let t = Instant::now();
        let r = batch_add_g2_on(gpu, &stream, &view, n, bitmap).map(|p| (p, t.elapsed().as_secs_f64() * 1e3));
        if let Ok((_, ms)) = &r {
            self.adds = (self.adds.0 + 1, self.adds.1 + ms);
        }
        Some(r)
    }

    /// `Σ sᵢ·B_G2[idxᵢ]` over the resident bases of `params` (`scalars`: the concatenation of `parts`,
    /// aligned with `idx`), on the second stream, with the call's wall time in ms (uploads, gather, MSM,
    /// result read back); `None` when the bases are not held or there is no room (the caller runs the MSM on
    /// the host).
    pub fn msm(
        &mut self,
        gpu: &Gpu,
        params: ParamsId,
        idx: &[u32],
        parts: &[&[Scalar]],
    ) -> Option<GResult<(G2Projective, f64)>> {
        let len = match &self.bases {
            Some((p, len, _)) if *p == params => *len,
            _ => return None,
        };
        let n = idx.len();
        let total: usize = parts.iter().map(|p| p.len()).sum();
        if total != n || idx.iter().any(|&i| i as usize >= len) {
            return Some(Err(GpuError::Invalid(format!(
                "g2d msm: {n} positions (each below {len}) for {total} scalars"
            ))));
        }
        let need = n * (192 + 4 + 32) + scratch_bytes_g2(n, window_for(n));
        if let Err(e) = self.check(gpu, "B_G2 MSM scratch (g2d)", need) {
            self.fall_back(gpu, &e);
            return None;
        }
        let stream = match self.stream(gpu) {
            Ok(s) => s,
            Err(e) => return Some(Err(e)),
        };
        let (_, _, dev) = self.bases.as_ref()?;
        let t = Instant::now();
        let r = (|| -> GResult<G2Projective> {
            let didx = stream.clone_htod(idx)?;
            let bases = gather_g2_on(gpu, &stream, &dev.slice(..), &didx, n)?;
            // SAFETY: every limb is written by the copies below (the parts cover all n scalars).
            let mut ds = unsafe { stream.alloc::<u64>((4 * n).max(1)) }?;
            let mut at = 0;
            for p in parts.iter().copied().filter(|p| !p.is_empty()) {
                stream.memcpy_htod(super::super::limbs(p), &mut ds.slice_mut(4 * at..4 * (at + p.len())))?;
                at += p.len();
            }
            msm_g2_on(gpu, &stream, &bases.slice(..), &ds.slice(..), n, None, None)
        })()
        .map(|p| (p, t.elapsed().as_secs_f64() * 1e3));
        if let Ok((_, ms)) = &r {
            self.msms = (self.msms.0 + 1, self.msms.1 + ms);
        }
        Some(r)
    }

    /// The second stream, made on first use.
    fn stream(&mut self, gpu: &Gpu) -> GResult<Arc<CudaStream>> {
        match &self.stream {
            Some(s) => Ok(s.clone()),
            None => Ok(self.stream.insert(gpu.ctx.new_stream()?).clone()),
        }
    }

    /// At `end_call` without `srs_resident`: frees the bases with the rest of the SRS.
    pub fn release(&mut self) {
        self.bases = None;
    }
}
