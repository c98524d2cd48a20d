//! One MSM's kernels, plan and scratch, launching one stage at a time on the stream it is given
//! (`sched::msm2s` decides the order and the streams). Steps 1–4 (recoding, the counting sort) are
//! `cuda/msm.cu`'s for both groups; steps 5–7 its `msm_g1_*` or `cuda/msm_g2.cu`'s `msm_g2_*`.

use std::sync::Arc;

use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, CudaView, LaunchConfig, PushKernelArg};

use super::super::super::{GResult, Gpu, GpuError};
use super::super::Module;
use super::plan::{Curve, Plan, SCAN_T};

/// Threads per block of every launch but the window sum's ([`Curve::final_threads`]).
const BLOCK: u32 = 128;

fn cfg(threads: usize, gy: u32) -> LaunchConfig {
    let blocks = threads.div_ceil(BLOCK as usize).max(1) as u32;
    LaunchConfig { grid_dim: (blocks, gy, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 }
}

/// Uninitialised device buffer of `len` (≥ 1) elements, ordered on stream `s` (the MSM's own: an allocation
/// on another stream would make the MSM wait for that stream's queued work); every kernel writes what it
/// later reads.
fn alloc<T: cudarc::driver::DeviceRepr>(s: &Arc<CudaStream>, len: usize) -> GResult<CudaSlice<T>> {
    // SAFETY: the MSM kernels write every element they read (see cuda/msm.cu).
    Ok(unsafe { s.alloc::<T>(len.max(1)) }?)
}

/// One pass's counting-sort output and buckets (two of them when passes overlap).
pub(crate) struct SortSet {
    keys: CudaSlice<u32>,
    ranks: CudaSlice<u32>,
    sorted: CudaSlice<u32>,
    offsets: CudaSlice<u32>,
    buckets: CudaSlice<u64>,
}

impl SortSet {
    fn new(s: &Arc<CudaStream>, gmax: usize, n: usize, mmax: usize, xyzz: usize) -> GResult<SortSet> {
        Ok(SortSet {
            keys: alloc(s, gmax * n)?,
            ranks: alloc(s, gmax * n)?,
            sorted: alloc(s, gmax * n)?,
            offsets: alloc(s, mmax + 1)?,
            buckets: alloc(s, mmax * xyzz / 8)?,
        })
    }
}

/// One MSM's kernels, plan and scratch, launching one stage at a time on the stream it is given
/// (`sched::msm2s` decides the order and the streams). Every launch's arguments match its kernel's signature
/// in cuda/msm.cu (steps 5–7 of G2: cuda/msm_g2.cu, the same signatures over G2 points), and every buffer
/// holds at least the elements its threads index (sizes from the same plan, point sizes from its [`Curve`]).
pub(crate) struct Stages {
    p: Plan,
    n: usize,
    /// The kernels' `fold` argument: the stride of the shifted copies, 0 for plain bases.
    fold32: u32,
    k: [CudaFunction; 12],
    limbs: CudaSlice<u64>,
    /// The buffer sets (one, or two when passes overlap).
    pub(crate) sets: Vec<SortSet>,
    csum: CudaSlice<u32>,
    segs: CudaSlice<u64>,
    wins: CudaSlice<u64>,
    parts_a: CudaSlice<u64>,
    parts_b: CudaSlice<u64>,
    b_key: CudaSlice<u32>,
}

/// Indices into [`Stages::k`].
const K_PREP: usize = 0;
const K_ZERO: usize = 1;
const K_DIGITS: usize = 2;
const K_SCAN_A: usize = 3;
const K_SCAN_B: usize = 4;
const K_SCAN_C: usize = 5;
const K_SCATTER: usize = 6;
const K_POINTS: usize = 7;
const K_FIX: usize = 8;
const K_PARTS: usize = 9;
const K_REDUCE: usize = 10;
const K_FINAL: usize = 11;
/// Steps 1–4, group-free (cuda/msm.cu).
const SORT_KERNELS: [&str; 7] =
    ["msm_prep", "msm_zero_u32", "msm_digits", "msm_scan_a", "msm_scan_b", "msm_scan_c", "msm_scatter"];
/// Steps 5–7 after the group's prefix (`msm_g1_accum_flat`, …).
const POINT_KERNELS: [&str; 5] = ["accum_flat", "accum_fix", "accum_parts", "bucket_reduce", "window_final"];

impl Stages {
    /// Loads the kernels and allocates the scratch, ordered on stream `s`.
    pub(super) fn new(
        gpu: &Gpu,
        s: &Arc<CudaStream>,
        p: &Plan,
        n: usize,
        stride: usize,
        fold: bool,
        nsets: usize,
    ) -> GResult<Stages> {
        let module = match p.curve {
            Curve::G1 => Module::Msm,
            Curve::G2 => Module::MsmG2,
        };
        let mut k = Vec::with_capacity(SORT_KERNELS.len() + POINT_KERNELS.len());
        for name in SORT_KERNELS {
            k.push(gpu.kernel(Module::Msm, name)?);
        }
        for name in POINT_KERNELS {
            k.push(gpu.kernel(module, &format!("{}_{name}", p.curve.prefix()))?);
        }
        let k: [CudaFunction; 12] =
            k.try_into().map_err(|_| GpuError::Invalid("msm: kernel table".into()))?;
        let (gmax, mmax) = (p.gmax as usize, p.mb());
        let (pa, pb) = p.part_slots();
        let x = p.curve.xyzz_bytes();
        Ok(Stages {
            fold32: if fold { stride as u32 } else { 0 },
            k,
            limbs: alloc(s, 4 * n)?,
            sets: (0..nsets).map(|_| SortSet::new(s, gmax, n, mmax, x)).collect::<GResult<Vec<_>>>()?,
            csum: alloc(s, SCAN_T)?,
            segs: alloc(s, 2 * p.groups(p.gmax) as usize * p.segs as usize * x / 8)?,
            wins: alloc(s, p.slots() * p.curve.jac_limbs())?,
            parts_a: alloc(s, pa * x / 8)?,
            parts_b: alloc(s, pb * x / 8)?,
            b_key: alloc(s, p.levels[0] as usize)?,
            p: p.clone(),
            n,
        })
    }

    /// The result slots, once every pass ran.
    pub(super) fn into_wins(self) -> CudaSlice<u64> {
        self.wins
    }

    /// The plan's passes: (first window, windows).
    pub(crate) fn passes(&self) -> Vec<(u32, u32)> {
        self.p.passes()
    }

    /// Recodes the scalars once (signed digits' limbs).
    pub(crate) fn prep(&mut self, s: &Arc<CudaStream>, scalars: &CudaView<u64>) -> GResult<()> {
        let n32 = self.n as u32;
        let mut b = s.launch_builder(&self.k[K_PREP]);
        b.arg(scalars).arg(&n32).arg(&mut self.limbs);
        // SAFETY: see the type's doc.
        unsafe { b.launch(cfg(self.n, 1)) }?;
        Ok(())
    }

    /// Counting sort of windows [w0, w0 + gc) into set `set`: counters zeroed, digits and ranks, the scan,
    /// the scatter. The set's buckets are zeroed too (buckets no entry reaches stay the identity).
    pub(crate) fn sort(&mut self, s: &Arc<CudaStream>, set: usize, w0: u32, gc: u32) -> GResult<()> {
        let p = &self.p;
        let n32 = self.n as u32;
        let m1 = p.groups(gc) * p.nb + 1; // bucket counters this pass, and the total
        let len = (m1 as usize).div_ceil(SCAN_T) as u32;
        let t = m1.div_ceil(len);
        let st = &mut self.sets[set];
        let mut b = s.launch_builder(&self.k[K_ZERO]);
        b.arg(&mut st.offsets).arg(&m1);
        // SAFETY (every launch here): see the type's doc.
        unsafe { b.launch(cfg(m1 as usize, 1)) }?;
        s.memset_zeros(&mut st.buckets)?;
        let mut b = s.launch_builder(&self.k[K_DIGITS]);
        b.arg(&self.limbs)
            .arg(&n32)
            .arg(&p.c)
            .arg(&w0)
            .arg(&p.nb)
            .arg(&gc)
            .arg(&self.fold32)
            .arg(&mut st.keys)
            .arg(&mut st.ranks)
            .arg(&mut st.offsets);
        unsafe { b.launch(cfg(self.n, 1)) }?;
        let mut b = s.launch_builder(&self.k[K_SCAN_A]);
        b.arg(&st.offsets).arg(&m1).arg(&len).arg(&mut self.csum);
        unsafe { b.launch(cfg(t as usize, 1)) }?;
        let mut b = s.launch_builder(&self.k[K_SCAN_B]);
        b.arg(&mut self.csum).arg(&t);
        unsafe { b.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (1, 1, 1), shared_mem_bytes: 0 }) }?;
        let mut b = s.launch_builder(&self.k[K_SCAN_C]);
        b.arg(&mut st.offsets).arg(&m1).arg(&len).arg(&self.csum);
        unsafe { b.launch(cfg(t as usize, 1)) }?;
        let mut b = s.launch_builder(&self.k[K_SCATTER]);
        b.arg(&st.keys).arg(&st.ranks).arg(&n32).arg(&p.nb).arg(&w0).arg(&self.fold32);
        b.arg(&st.offsets).arg(&mut st.sorted);
        unsafe { b.launch(cfg(self.n, gc)) }?;
        Ok(())
    }

    /// Bucket sums of a pass of `gc` windows sorted into set `set`: level 1 (the flat walk over `bases`), its
    /// fix-up, and the further levels for buckets cut over many slices.
    pub(crate) fn accumulate(
        &mut self,
        s: &Arc<CudaStream>,
        set: usize,
        gc: u32,
        bases: &CudaView<u64>,
    ) -> GResult<()> {
        let p = &self.p;
        let m = p.groups(gc) * p.nb;
        let st = &mut self.sets[set];
        let mut b = s.launch_builder(&self.k[K_POINTS]);
        b.arg(bases)
            .arg(&st.sorted)
            .arg(&st.offsets)
            .arg(&m)
            .arg(&p.k1)
            .arg(&mut st.buckets)
            .arg(&mut self.parts_a)
            .arg(&mut self.b_key);
        // SAFETY (every launch here): see the type's doc.
        unsafe { b.launch(cfg(p.levels[0] as usize, 1)) }?;
        let mut b = s.launch_builder(&self.k[K_FIX]);
        b.arg(&st.offsets).arg(&m).arg(&p.k1).arg(&self.b_key).arg(&self.parts_a).arg(&mut st.buckets);
        unsafe { b.launch(cfg(p.levels[0] as usize, 1)) }?;
        for (i, &threads) in p.levels.iter().enumerate().skip(1) {
            let level = i as u32 + 1;
            let (src, dst) = if level.is_multiple_of(2) {
                (&self.parts_a, &mut self.parts_b)
            } else {
                (&self.parts_b, &mut self.parts_a)
            };
            let mut b = s.launch_builder(&self.k[K_PARTS]);
            b.arg(&st.offsets)
                .arg(&m)
                .arg(&level)
                .arg(&p.k1)
                .arg(&p.kr)
                .arg(src)
                .arg(&mut st.buckets)
                .arg(dst);
            unsafe { b.launch(cfg(threads as usize, 1)) }?;
        }
        Ok(())
    }

    /// Pass `k`'s (windows [w0, w0 + gc), set `set`) bucket reduction and window sums into its result slots.
    pub(crate) fn reduce(
        &mut self,
        s: &Arc<CudaStream>,
        set: usize,
        k: usize,
        w0: u32,
        gc: u32,
    ) -> GResult<()> {
        let p = &self.p;
        let st = &self.sets[set];
        let mut b = s.launch_builder(&self.k[K_REDUCE]);
        b.arg(&st.buckets).arg(&p.nb).arg(&p.seg_len).arg(&p.segs).arg(&mut self.segs);
        // SAFETY (both launches): see the type's doc.
        unsafe { b.launch(cfg(p.segs as usize, p.groups(gc))) }?;
        // Folded, pass k's one bucket set is summed by `fin_blocks` blocks into slots [k·F, k·F + F).
        let fin_blocks = p.fin_blocks();
        let (slot, fin_segs) =
            if p.fold { (k as u32 * fin_blocks, p.segs / fin_blocks) } else { (w0, p.segs) };
        let mut b = s.launch_builder(&self.k[K_FINAL]);
        b.arg(&self.segs).arg(&fin_segs).arg(&p.seg_len).arg(&slot).arg(&self.fold32).arg(&mut self.wins);
        let grid = if p.fold { fin_blocks } else { gc };
        let threads = p.curve.final_threads();
        let fin = LaunchConfig { grid_dim: (grid, 1, 1), block_dim: (threads, 1, 1), shared_mem_bytes: 0 };
        unsafe { b.launch(fin) }?;
        Ok(())
    }
}
