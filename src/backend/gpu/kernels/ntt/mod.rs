//! NTTs over Fr and Groth16's quotient `compute_h` on the device (kernels: `cuda/ntt.cu`, per-thread bodies in
//! `cuda/ntt_stage.cuh` and `cuda/ntt_perm.cuh`).
//!
//! A transform is a DIF (Gentleman–Sande: natural → bit-reversed; either direction, ω or ω^(−1)): the spans
//! N/2 … 2^10 as global passes three stages at a time (`ntt_dif_r8`; two or one for the last few, see
//! `global_radices`), the last min(log_n, 10) stages in shared memory two per barrier (`ntt_dif_smem4`),
//! twiddles from a full table ω^k, k ≤ N/2 (inverse via ω^(−k) = −ω^(N/2−k)); then the permutation
//! i ↔ bitrev(i) with an optional ·c·g^i (`ntt_bitrev_tile`: 16×16 tiles swapped through shared memory,
//! coalesced rows, from 2^8 points; `ntt_bitrev_scale` below):
//! - Forward: DIF; bitrev.   Inverse: DIF⁻¹; bitrev·(1/N).
//! - CosetForward: `ntt_scale` (·g^i); DIF; bitrev.   CosetInverse: DIF⁻¹; bitrev·(g^(−i)/N).
//!
//! compute_h ([`quotient`]) takes six transforms, not bellperson's seven: H = z·(icoset(A_g·B_g) − iNTT(C))
//! with z = 1/(g^N − 1) (the inverse coset transform is linear and undoes the coset NTT; the CPU's
//! `backend::cpu::ntt::compute_h` does the same). Above 2^10 points, for v in a, b: DIF⁻¹'s global passes,
//! `ntt_smem_turn` (DIF⁻¹'s shared stages, ·g^i/N at i = bitrev(P), the forward DIT's shared stages), the
//! DIT's global passes (`ntt_dit_r8`…; `turn`) — coset evaluations in natural order, no permutation;
//! DIF⁻¹(c); DIF⁻¹(a) with a ← a·b on its first pass's loads (`ntt_dif_r8_inv_mul`; a plain `ntt_mul` first
//! where that pass is not radix 8); then the one permutation, which also subtracts C's term
//! (`bitrev_combine` Sub: `a[i] ← a[r]·z·g^(−i)/N − c[r]·z/N`, `r = bitrev(i)`). Up to 2^10: for v in a, b:
//! DIF⁻¹(v); bitrev·(g^i/N); DIF(v); DIF⁻¹(c); `bitrev_combine` Mul (a ← a·b, natural); DIF⁻¹(a);
//! `bitrev_combine` Sub. a's launches run on [`HStreams::a`], b's and c's on their own streams (toggle
//! `streams`), each starting when its upload lands; the combining passes wait for b and c through the buffers'
//! events. Every fr_t moves through global memory as two 16-byte accesses, and values stay in a lazy form
//! (< 2r) between the stages of one transform, reduced at its last store.
//!
//! Device memory per (device, log_n), cached for the process ([`scratch_bytes`]): six two-level power tables
//! (g^i, g^i/N, g^(−i)/N, 1/N, ω^i, z·g^(−i)/N; 2^12 + N/2^12 entries each), z/N, the compact shared-stage
//! table and the twiddle table ((N/2 + 1)·32 B: 256 MiB at 2^24, 1 GiB at 2^26). Traffic per NTT at 2^24:
//! 5 global passes + 1 shared + 1 permutation (≈ 7 GiB). Measured figures: docs/PERF.md.
//!
//! Host check of the kernels and these sequences (no GPU): `bash cuda/hostcheck/ntt_check.sh`.

use std::sync::Arc;

use blstrs::Scalar;
use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, CudaView, LaunchConfig, PushKernelArg};
use ff::{Field, PrimeField};

use super::super::{limbs, GResult, Gpu, GpuError};
use super::Module;

/// Groth16's quotient `compute_h` and its combining permutations.
pub mod quotient;
/// compute_h's coset transforms without a permutation (DIT kernels), a child so it shares the tables.
mod turn;

pub use crate::backend::gpu::streams::HStreams;
pub use quotient::compute_h;

/// log2 of the shared-memory block (SMEM_LOG in cuda/ntt_stage.cuh).
const SMEM_LOG: u32 = 10;
/// log2 of the low half of the two-level power tables.
const LO_BITS_MAX: u32 = 12;
/// Largest domain the kernels index with 32-bit thread ids (the CPU's MAX_LOG_SIZE).
pub const MAX_LOG_N: u32 = 28;
const THREADS: u32 = 256;

/// Which transform [`ntt`] runs (natural order in and out, as the CPU's `Domain` methods).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NttDir {
    /// `Domain::ntt`: `a[i] ← Σ_j a[j]·ω^(ij)`.
    Forward,
    /// `Domain::intt`: `a[i] ← (1/N)·Σ_j a[j]·ω^(−ij)`.
    Inverse,
    /// `Domain::coset_ntt`: multiply coefficient i by g^i, then NTT.
    CosetForward,
    /// `Domain::icoset_ntt`: iNTT, then multiply coefficient i by g^(−i).
    CosetInverse,
}

/// Offsets (in fr_t) of one two-level power table c·x^i = lo[i mod 2^L]·hi[i >> L] inside `NttTables::pows`.
#[derive(Clone, Copy)]
struct PowTable {
    lo: usize,
    hi: usize,
    hi_len: usize,
}

/// Device tables for one domain size, built once per (device, log_n).
pub struct NttTables {
    log_n: u32,
    lo_bits: u32,
    /// ω^k for k ≤ N/2 (tw[N/2] = −1), 4 limbs each.
    tw: CudaSlice<u64>,
    /// Concatenated power tables and z⁻¹ (offsets below, in fr_t).
    pows: CudaSlice<u64>,
    /// g^i (coset forward).
    coset_fwd: PowTable,
    /// g^i / N (inverse then coset shift, compute_h's first part).
    coset_h: PowTable,
    /// g^(−i) / N (inverse coset).
    coset_inv: PowTable,
    /// 1 / N (plain inverse).
    inv: PowTable,
    /// z·g^(−i) / N with z = 1 / (g^N − 1): compute_h's last step (H = z·(icoset(A·B) − iNTT(C))).
    h_out: PowTable,
    /// z / N, one fr_t (the same step's factor on iNTT(C)).
    zn: usize,
    /// Compact twiddles of the shared-memory stages (`LT_BASE` in cuda/ntt_stage.cuh).
    lt: usize,
}

impl NttTables {
    /// The (lo, hi) device halves of one two-level table.
    fn pow_slices(&self, p: PowTable) -> (CudaView<'_, u64>, CudaView<'_, u64>) {
        (self.pows.slice(4 * p.lo..4 * p.hi), self.pows.slice(4 * p.hi..4 * (p.hi + p.hi_len)))
    }

    /// The compact shared-stage twiddles (LT_LEN fr_t).
    fn lt_slice(&self) -> CudaView<'_, u64> {
        self.pows.slice(4 * self.lt..4 * (self.lt + LT_LEN))
    }

    /// z / N, one fr_t.
    fn zn_slice(&self) -> CudaView<'_, u64> {
        self.pows.slice(4 * self.zn..4 * self.zn + 4)
    }
}

fn n_of(log_n: u32) -> usize {
    1usize << log_n
}

fn lo_bits_for(log_n: u32) -> u32 {
    log_n.min(LO_BITS_MAX)
}

/// Offset of span 2^log_h in the compact shared-stage table (LT_BASE in cuda/ntt_stage.cuh), and its length.
fn lt_base(log_h: u32) -> usize {
    (1usize << log_h) - 1 + log_h as usize
}
const LT_LEN: usize = (1 << (SMEM_LOG - 1)) - 1 + (SMEM_LOG as usize - 1) + (1 << (SMEM_LOG - 1)) + 1;

/// The compact shared-stage twiddles: for span h = 2^log_h < 2^SMEM_LOG, ω_2h^j for j ≤ h (ω_2h^h = −1),
/// ω_2h = ROOT_OF_UNITY^(2^(S − log_h − 1)) the primitive 2h-th root (the same for every N ≥ 2h).
fn local_twiddles() -> Vec<Scalar> {
    let mut out = Vec::with_capacity(LT_LEN);
    for log_h in 0..SMEM_LOG {
        debug_assert_eq!(out.len(), lt_base(log_h));
        let w = Scalar::ROOT_OF_UNITY.pow_vartime([1u64 << (Scalar::S - log_h - 1)]);
        let mut cur = Scalar::ONE;
        for _ in 0..=(1usize << log_h) {
            out.push(cur);
            cur *= w;
        }
    }
    debug_assert_eq!(out.len(), LT_LEN);
    out
}

/// Entries of one two-level table covering exponents 0..count.
fn pow_table_len(lo_bits: u32, count: usize) -> (usize, usize) {
    (1usize << lo_bits, ((count.max(1) - 1) >> lo_bits) + 1)
}

/// Bytes of the cached tables for a domain of 2^log_n points: the N/2 + 1 twiddles, six two-level power
/// tables, z/N and the compact table.
fn table_bytes(log_n: u32) -> usize {
    let n = n_of(log_n);
    let lb = lo_bits_for(log_n);
    let (lo, hi) = pow_table_len(lb, n);
    32 * (n / 2 + 1 + 6 * (lo + hi) + 1 + LT_LEN)
}

/// Device bytes compute_h needs beyond a/b/c (the tables), for the memory check: 257 MiB at 2^24.
pub fn scratch_bytes(log_n: u32) -> usize {
    table_bytes(log_n)
}

/// [lo | hi] host limbs of the table c·x^i, i < count.
fn pow_table_host(c: Scalar, x: Scalar, lo_bits: u32, count: usize) -> Vec<Scalar> {
    let (lo_len, hi_len) = pow_table_len(lo_bits, count);
    let mut out = Vec::with_capacity(lo_len + hi_len);
    let mut cur = Scalar::ONE;
    for _ in 0..lo_len {
        out.push(cur);
        cur *= x;
    }
    let step = cur; // x^(2^lo_bits)
    let mut cur = c;
    for _ in 0..hi_len {
        out.push(cur);
        cur *= step;
    }
    out
}

fn grid(threads: usize) -> LaunchConfig {
    let blocks = threads.div_ceil(THREADS as usize).max(1) as u32;
    LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (THREADS, 1, 1), shared_mem_bytes: 0 }
}

fn tables(gpu: &Gpu, log_n: u32) -> GResult<Arc<NttTables>> {
    gpu.cached(&format!("ntt_tables_{log_n}"), || build_tables(gpu, log_n))
}

fn build_tables(gpu: &Gpu, log_n: u32) -> GResult<NttTables> {
    gpu.check_mem("NTT twiddle tables", table_bytes(log_n))?;
    let n = n_of(log_n);
    let lo_bits = lo_bits_for(log_n);
    let omega = Scalar::ROOT_OF_UNITY.pow_vartime([1u64 << (Scalar::S - log_n)]);
    let n_inv = Scalar::from(n as u64).invert().unwrap_or(Scalar::ZERO);
    let g = Scalar::MULTIPLICATIVE_GENERATOR;
    let g_inv = g.invert().unwrap_or(Scalar::ZERO);
    let z_inv = (g.pow_vartime([n as u64]) - Scalar::ONE).invert().unwrap_or(Scalar::ZERO);

    let mut host: Vec<Scalar> = Vec::new();
    let mut push = |c: Scalar, x: Scalar| {
        let t = pow_table_host(c, x, lo_bits, n);
        let lo = host.len();
        let (lo_len, hi_len) = pow_table_len(lo_bits, n);
        host.extend_from_slice(&t);
        PowTable { lo, hi: lo + lo_len, hi_len }
    };
    let coset_fwd = push(Scalar::ONE, g);
    let coset_h = push(n_inv, g);
    let coset_inv = push(n_inv, g_inv);
    let inv = push(n_inv, Scalar::ONE);
    let omega_t = push(Scalar::ONE, omega);
    let h_out = push(z_inv * n_inv, g_inv);
    let zn = host.len();
    host.push(z_inv * n_inv);
    let lt = host.len();
    host.extend(local_twiddles());
    let pows = gpu.stream.clone_htod(limbs(&host))?;
    // Twiddles: expand ω^k, k ≤ N/2, on the device from the two-level ω table.
    let tw_count = n / 2 + 1;
    let mut tw = gpu.stream.alloc_zeros::<u64>(4 * tw_count)?;
    let t = |p: PowTable| (4 * p.lo, 4 * p.hi, 4 * (p.hi + p.hi_len));
    let (lo0, hi0, end) = t(omega_t);
    let f = gpu.kernel(Module::Ntt, "ntt_powers")?;
    let (count, lb) = (tw_count as u32, lo_bits);
    let (lo_v, hi_v) = (pows.slice(lo0..hi0), pows.slice(hi0..end));
    let mut b = gpu.stream.launch_builder(&f);
    b.arg(&mut tw).arg(&lo_v).arg(&hi_v).arg(&count).arg(&lb);
    // SAFETY: ntt_powers(u64*, const u64*, const u64*, u32, u32); tw has count fr_t, lo/hi cover
    // exponents < N ≥ count.
    unsafe { b.launch(grid(tw_count)) }?;
    Ok(NttTables { log_n, lo_bits, tw, pows, coset_fwd, coset_h, coset_inv, inv, h_out, zn, lt })
}

/// The kernels, looked up once per call. Pairs are [forward, inverse]: those kernels are compiled once per
/// direction (the direction known at compile time drops dif_diff's operand selects).
struct Kernels {
    r2: CudaFunction,
    r4: [CudaFunction; 2],
    r8: [CudaFunction; 2],
    /// `ntt_dif_r8_inv_mul`: the inverse radix-8 pass with compute_h's product on its loads.
    r8_mul: CudaFunction,
    smem: CudaFunction,
    smem4: [CudaFunction; 2],
}

impl Kernels {
    fn new(gpu: &Gpu) -> GResult<Self> {
        Ok(Kernels {
            r2: gpu.kernel(Module::Ntt, "ntt_dif_r2")?,
            r4: [gpu.kernel(Module::Ntt, "ntt_dif_r4")?, gpu.kernel(Module::Ntt, "ntt_dif_r4_inv")?],
            r8: [gpu.kernel(Module::Ntt, "ntt_dif_r8")?, gpu.kernel(Module::Ntt, "ntt_dif_r8_inv")?],
            r8_mul: gpu.kernel(Module::Ntt, "ntt_dif_r8_inv_mul")?,
            smem: gpu.kernel(Module::Ntt, "ntt_dif_smem")?,
            smem4: [gpu.kernel(Module::Ntt, "ntt_dif_smem4")?, gpu.kernel(Module::Ntt, "ntt_dif_smem4_inv")?],
        })
    }
}

/// Stages per global pass for `global` stages (spans N/2 … 2^10): three (`ntt_dif_r8`) while more than four
/// are left or exactly three, two (`ntt_dif_r4`) for four or two, one (`ntt_dif_r2`) for one — the fewest passes
/// over memory with no single-stage pass unless `global` is 1 (2^24: 3+3+3+3+2, 2^22: 3+3+3+3, 2^20: 3+3+2+2).
/// Radix 8 measured faster than radix 4 throughout (2^24 forward 5.02 against 5.31 ms, docs/PERF.md).
fn global_radices(global: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let mut g = global;
    while g > 0 {
        let r = match g {
            1 => 1,
            2 | 4 => 2,
            _ => 3,
        };
        out.push(r);
        g -= r;
    }
    out
}

/// Unnormalized DIF transform in place (natural in, bit-reversed out); `inv` uses ω^(−1).
fn dif(s: &CudaStream, k: &Kernels, t: &NttTables, a: &mut CudaSlice<u64>, inv: bool) -> GResult<()> {
    if t.log_n == 0 {
        return Ok(());
    }
    dif_global(s, k, t, a, inv, None)?;
    dif_smem(s, k, t, a, inv)
}

/// DIF's global passes: spans N/2 … 2^min(log_n, SMEM_LOG), three stages per pass where it can. `mul` (inverse
/// only, and only when the first pass is radix 8, [`fuses_mul`]): a ← a·mul on the first pass's loads.
fn dif_global(
    s: &CudaStream,
    k: &Kernels,
    t: &NttTables,
    a: &mut CudaSlice<u64>,
    inv: bool,
    mul: Option<&CudaSlice<u64>>,
) -> GResult<()> {
    let log_n = t.log_n;
    let n = n_of(log_n);
    let tw = &t.tw;
    let d = inv as usize;
    let inv = inv as u32;
    let log_b = log_n.min(SMEM_LOG);
    let global = log_n - log_b;
    let mut log_h = log_n as i64 - 1;
    for r in global_radices(global) {
        let lh = log_h as u32;
        let f = match r {
            3 => &k.r8[d],
            2 => &k.r4[d],
            _ => &k.r2,
        };
        let fused = mul.filter(|_| r == 3 && inv == 1 && lh + 1 == log_n);
        if mul.is_some() && fused.is_none() && lh + 1 == log_n {
            return Err(GpuError::Invalid("the product rides only on an inverse radix-8 first pass".into()));
        }
        let mut b = s.launch_builder(if fused.is_some() { &k.r8_mul } else { f });
        b.arg(&mut *a);
        if let Some(m) = fused {
            b.arg(m);
        }
        b.arg(tw).arg(&lh).arg(&log_n);
        if r == 1 {
            b.arg(&inv); // the radix-2 pass takes the direction at run time
        }
        // SAFETY: ntt_dif_r{4,8}[_inv](u64*, const u64*, u32, u32), ntt_dif_r2(…, u32 inv); a holds N fr_t, tw
        // N/2 + 1; N/2^r threads, each reading and writing its 2^r elements below N (spans 2^lh … 2^(lh − r + 1),
        // lh < log_n).
        unsafe { b.launch(grid(n >> r)) }?;
        log_h -= r as i64;
    }
    Ok(())
}

/// DIF's last min(log_n, SMEM_LOG) stages in shared memory, one block per contiguous 2^log_b elements.
fn dif_smem(s: &CudaStream, k: &Kernels, t: &NttTables, a: &mut CudaSlice<u64>, inv: bool) -> GResult<()> {
    let log_n = t.log_n;
    let n = n_of(log_n);
    let d = inv as usize;
    let inv = inv as u32;
    let log_b = log_n.min(SMEM_LOG);
    let lt = t.lt_slice();
    // Two stages per barrier from log_b = 2 (`ntt_dif_smem4`; 2^24 forward 5.40 against 5.63 ms with one,
    // docs/PERF.md); one below.
    let four = log_b >= 2;
    let cfg = LaunchConfig {
        grid_dim: ((n >> log_b) as u32, 1, 1),
        block_dim: (1u32 << (log_b - if four { 2 } else { 1 }), 1, 1),
        shared_mem_bytes: 0, // static 32 KiB
    };
    let mut b = s.launch_builder(if four { &k.smem4[d] } else { &k.smem });
    b.arg(&mut *a).arg(&lt).arg(&log_b);
    if !four {
        b.arg(&inv);
    }
    // SAFETY: ntt_dif_smem4[_inv](u64*, const u64*, u32) / ntt_dif_smem(…, u32 inv); one block per 2^log_b elements with
    // 2^(log_b−2) ≤ 256 / 2^(log_b−1) ≤ 512 threads (their __launch_bounds__); lt holds LT_LEN fr_t.
    unsafe { b.launch(cfg) }?;
    Ok(())
}

/// log2 of the tile side of `ntt_bitrev_tile` (BR_T in cuda/ntt_perm.cuh): 16×16-element tiles, 256 threads.
const BR_T: u32 = 4;

/// In place a[i] ← a[bitrev(i)]·(table value at i, if any): `ntt_bitrev_tile` (coalesced 512 B rows, tiles
/// swapped through shared memory; 2^24 forward 5.40 against 5.72 ms per element, docs/PERF.md) from 2^8 up,
/// the per-element `ntt_bitrev_scale` below that.
fn bitrev_scale(
    gpu: &Gpu,
    s: &CudaStream,
    t: &NttTables,
    a: &mut CudaSlice<u64>,
    tab: Option<PowTable>,
) -> GResult<()> {
    let log_n = t.log_n;
    let n = n_of(log_n);
    let (lo, hi) = t.pow_slices(tab.unwrap_or(t.inv));
    let scale = tab.is_some() as u32;
    if log_n >= 2 * BR_T {
        let f = gpu.kernel(Module::Ntt, "ntt_bitrev_tile")?;
        let cfg = LaunchConfig {
            grid_dim: (1u32 << (log_n - 2 * BR_T), 1, 1),
            block_dim: (1u32 << (2 * BR_T), 1, 1),
            shared_mem_bytes: 0, // static 17 KiB
        };
        let mut b = s.launch_builder(&f);
        b.arg(&mut *a).arg(&lo).arg(&hi).arg(&log_n).arg(&t.lo_bits).arg(&scale);
        // SAFETY: ntt_bitrev_tile(u64*, const u64*, const u64*, u32, u32, u32); a holds N ≥ 2^8 fr_t, one
        // block per tile of 2^8 elements with 256 threads (its __launch_bounds__); the tables cover i < N.
        unsafe { b.launch(cfg) }?;
        return Ok(());
    }
    let f = gpu.kernel(Module::Ntt, "ntt_bitrev_scale")?;
    let mut b = s.launch_builder(&f);
    b.arg(&mut *a).arg(&lo).arg(&hi).arg(&log_n).arg(&t.lo_bits).arg(&scale);
    // SAFETY: ntt_bitrev_scale(u64*, const u64*, const u64*, u32, u32, u32); N threads, tables cover i < N.
    unsafe { b.launch(grid(n)) }?;
    Ok(())
}

/// The domain fits and every buffer holds N fr_t. Alignment is not checked here: the kernels move fr_t as
/// 16-byte accesses (cuda/ntt_stage.cuh's ldv/stv), and every buffer is a whole `CudaSlice` (CUDA aligns allocations,
/// stream-ordered ones included, for any type, 16-byte vectors among them; the tables are 32-byte-multiple
/// views of one). Asking cudarc for the pointer here would make the transform's stream wait for the buffer's
/// upload: a check on a's stream held a's transforms until b's and c's uploads landed (ntt_h at 2^20 2.6 →
/// 3.4 ms, docs/PERF.md).
fn check_args(log_n: u32, bufs: &[(&str, usize)]) -> GResult<()> {
    if log_n > MAX_LOG_N {
        return Err(GpuError::Invalid(format!("NTT domain 2^{log_n} exceeds the supported 2^{MAX_LOG_N}")));
    }
    let need = 4 * n_of(log_n);
    for (name, len) in bufs {
        if *len < need {
            return Err(GpuError::Invalid(format!(
                "NTT buffer {name} holds {len} limbs, domain 2^{log_n} needs {need}"
            )));
        }
    }
    Ok(())
}

/// Plain transforms for tests and `cuzk bench ntt --backend gpu`: natural order in and out, matching
/// src/backend/cpu/ntt.rs Domain::{ntt, intt, coset_ntt, icoset_ntt}. `a` holds (at least) N = 2^log_n fr_t.
pub fn ntt(gpu: &Gpu, a: &mut CudaSlice<u64>, log_n: u32, dir: NttDir) -> GResult<()> {
    check_args(log_n, &[("a", a.len())])?;
    let t = tables(gpu, log_n)?;
    let k = Kernels::new(gpu)?;
    let s = &*gpu.stream;
    match dir {
        NttDir::Forward => {
            dif(s, &k, &t, a, false)?;
            bitrev_scale(gpu, s, &t, a, None)
        }
        NttDir::Inverse => {
            dif(s, &k, &t, a, true)?;
            bitrev_scale(gpu, s, &t, a, Some(t.inv))
        }
        NttDir::CosetForward => {
            let f = gpu.kernel(Module::Ntt, "ntt_scale")?;
            let (lo, hi) = t.pow_slices(t.coset_fwd);
            let mut b = s.launch_builder(&f);
            b.arg(&mut *a).arg(&lo).arg(&hi).arg(&log_n).arg(&t.lo_bits);
            // SAFETY: ntt_scale(u64*, const u64*, const u64*, u32, u32); N threads.
            unsafe { b.launch(grid(n_of(log_n))) }?;
            dif(s, &k, &t, a, false)?;
            bitrev_scale(gpu, s, &t, a, None)
        }
        NttDir::CosetInverse => {
            dif(s, &k, &t, a, true)?;
            bitrev_scale(gpu, s, &t, a, Some(t.coset_inv))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The host halves of the two-level tables: lo[i mod 2^L]·hi[i >> L] = c·x^i for every i < count, as the
    /// kernels read them (pow_at in cuda/ntt_stage.cuh).
    #[test]
    fn two_level_tables_cover_their_range() {
        let (c, x) = (Scalar::from(5u64), Scalar::from(7u64));
        for log_n in [0u32, 1, 2, 5, 12, 13, 15] {
            let n = n_of(log_n);
            let lb = lo_bits_for(log_n);
            for count in [n, n / 2 + 1] {
                let t = pow_table_host(c, x, lb, count);
                let (lo_len, hi_len) = pow_table_len(lb, count);
                assert_eq!(t.len(), lo_len + hi_len);
                let mut want = c;
                for i in 0..count {
                    let got = t[i & (lo_len - 1)] * t[lo_len + (i >> lb)];
                    assert_eq!(got, want, "log_n {log_n} count {count} i {i}");
                    want *= x;
                }
            }
        }
        // The twiddles (256 MiB) and six tables of 2^12 + 2^12 entries (1.5 MiB).
        assert_eq!(table_bytes(24) / (1 << 20), 256 + 1);
    }

    /// The compact table equals the full table's entries: ω_2h^j = ω_N^(j·N/2h), and ω_2h^h = −1.
    #[test]
    fn local_twiddles_match_the_domain() {
        let lt = local_twiddles();
        assert_eq!(lt.len(), LT_LEN);
        let log_n = 12u32;
        let omega = Scalar::ROOT_OF_UNITY.pow_vartime([1u64 << (Scalar::S - log_n)]);
        for log_h in 0..SMEM_LOG {
            let h = 1usize << log_h;
            assert_eq!(lt[lt_base(log_h) + h], -Scalar::ONE);
            for j in [0, 1, h / 2, h - 1, h] {
                let want = omega.pow_vartime([(j << (log_n - 1 - log_h)) as u64]);
                assert_eq!(lt[lt_base(log_h) + j], want, "log_h {log_h} j {j}");
            }
        } // twiddles 256 MiB + power tables ≈ 1.2 MiB
    }

    /// Global passes cover every global stage, three at a time where they can, never one unless only one is
    /// left, and no more passes than ⌈global/3⌉ + 1.
    #[test]
    fn global_radices_cover_the_stages() {
        for g in 0..=20u32 {
            let r = global_radices(g);
            assert_eq!(r.iter().sum::<u32>(), g, "g {g}");
            assert!(g == 1 || !r.contains(&1), "g {g}: {r:?}");
            assert!(r.iter().all(|&x| (1..=3).contains(&x)));
            assert!(r.len() as u32 <= g.div_ceil(3) + 1, "g {g}: {r:?}");
        }
        assert_eq!(global_radices(14), [3, 3, 3, 3, 2]);
        assert_eq!(global_radices(12), [3, 3, 3, 3]);
        assert_eq!(global_radices(10), [3, 3, 2, 2]);
    }
}
