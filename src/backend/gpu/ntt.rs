//! NTTs over Fr and Groth16's quotient `compute_h` on the device (kernels: `cuda/ntt.cu`).
//!
//! Two launch paths, identical results:
//! - **Passes** (`CUZK_NTT_PASS=1`; src/backend/gpu/ntt/pass.rs): a transform is ⌈log_n/10⌉ launches of
//!   `ntt_pass`, each running B ≤ 10 radix-2 stages in shared memory on blocks of 2^10 elements (2^(10−B) columns of 2^B
//!   elements strided by the pass's lowest span, so the C columns are contiguous in global memory); splits as
//!   equal as possible, larger last: 2^24 8+8+8, 2^22 7+7+8, 2^20 10+10. Between passes the six-step "twist"
//!   ω_M^(±low·k1) is applied in the pass (DIF: before the store; DIT: after the load), read from a two-level
//!   table of ω_N (ω^k = lo[k mod 2^12]·hi[k >> 12]); the shared stages read the compact 1033-entry table.
//!   DIF (Gentleman–Sande) maps natural → bit-reversed, DIT (Cooley–Tukey, passes in reverse order)
//!   bit-reversed → natural; either can run with ω^(−1). Scaling c·g^idx (1/N, coset shifts) rides on the first
//!   pass's loads (idx = P) or the last pass's stores (idx = P or bitrev(P)).
//! - **Old** (default; the path is read per call and is part of the table cache key): DIF only; spans N/2 …
//!   2^10 as global passes three stages at a time (`ntt_dif_r8`; two or one for the last few, see
//!   [`global_radices`]; `CUZK_NTT_R8=0` runs `ntt_dif_r4` passes instead), the last min(log_n, 10) stages in
//!   `ntt_dif_smem4` (two per barrier), twiddles from a full table ω^k, k ≤ N/2 (inverse via
//!   ω^(−k) = −ω^(N/2−k)), then the permutation (i ↔ bitrev(i), ·c·g^i; below).
//!
//! Launch sequences, pass path (N = 2^log_n; "bitrev·s" = the permutation with ·s(i), on both paths
//! `ntt_bitrev_tile`, 16×16 tiles swapped through shared memory, from 2^8; `ntt_bitrev_scale` below that):
//! - Forward: DIF; bitrev.   Inverse: DIF⁻¹; bitrev·(1/N).
//! - CosetForward: DIF with ·g^i on the first loads; bitrev.   CosetInverse: DIF⁻¹; bitrev·(g^(−i)/N).
//! - compute_h: six transforms, not bellperson's seven: H = z·(icoset(A_g·B_g) − iNTT(C)) (z = 1/(g^N − 1);
//!   the inverse coset transform is linear and undoes the coset NTT, src/backend/cpu/ntt.rs's compute_h).
//!   For v in a, b: DIF⁻¹(v) storing ·g^i/N at i = bitrev(P) (coefficients, bit-reversed, coset shifted);
//!   DIT(v) (coset evaluations, natural). DIF⁻¹(c). Then DIF⁻¹(a) with a ← a·b on its first pass's loads,
//!   and `bitrev_combine` (Sub): a[i] ← a[r]·z·g^(−i)/N − c[r]·z/N, r = bitrev(i) — the one permutation (the
//!   old path pays 4).
//! - Old path: Forward: DIF; bitrev.  Inverse: DIF⁻¹; bitrev·(1/N).  CosetForward: `ntt_scale` (g^i); DIF;
//!   bitrev.  CosetInverse: DIF⁻¹; bitrev·(g^(−i)/N).  compute_h above 2^SMEM_LOG points: for v in a, b:
//!   DIF⁻¹'s global passes, `ntt_smem_turn` (DIF⁻¹'s shared stages, ·g^i/N at i = bitrev(P), the forward DIT's
//!   shared stages), the DIT's global passes (`ntt_dit_r8`…; ntt/turn.rs) — coset evaluations, natural, no
//!   permutation; DIF⁻¹(c); DIF⁻¹(a) with a ← a·b on its first pass (`ntt_dif_r8_inv_mul`; `ntt_mul` first
//!   where that pass is not radix 8); `bitrev_combine` Sub, the one permutation. Up to
//!   2^SMEM_LOG: for v in a, b: DIF⁻¹(v); bitrev·(g^i/N); DIF(v); DIF⁻¹(c); `bitrev_combine` Mul (a ← a·b,
//!   natural); DIF⁻¹(a); `bitrev_combine` Sub. a's
//!   launches run on the main stream, b's and c's (toggle `streams`) on side streams 1 and 2 ([`Gpu::side`]),
//!   each starting when its upload (side stream 0, a first) lands; the combining passes wait for b and c
//!   through the buffers' events.
//!
//! Device memory per (device, log_n, path), cached for the process ([`scratch_bytes`]): six two-level power
//! tables (g^i, g^i/N, g^(−i)/N, 1/N, ω^i, z·g^(−i)/N; 2^12 + N/2^12 entries each), z/N and the compact table:
//! ≈ 1.5 MiB at 2^24. The old path adds the twiddle table ((N/2 + 1)·32 B: 256 MiB at 2^24, 1 GiB at 2^26).
//! Traffic per NTT at 2^24: pass path 3 passes + 1 permutation, each reading and writing 512 MiB (≈ 4 GiB;
//! twist/table reads are L2 hits); old path 5 global + 1 shared + 1 permutation (≈ 7 GiB) plus ≲ 0.5 GiB of
//! twiddle reads. compute_h at 2^22 (128 MiB per vector): pass path 21 passes (one reading b, c too) + 1
//! permutation ≈ 5.75 GiB; old path ≈ 10.5 GiB (13.5 with radix-4 passes). Measured (H200, 2026-12-01, one
//! call, radix-4 passes): forward 2^24 old 6.16 ms, pass 6.90; compute_h 2^22 old 10.7, pass 11.6 — the pass
//! path moves half the bytes yet is ~12% slower (its shared-memory stages, not DRAM, bound it), so the old
//! path stays the default and the pass path stays opt-in for the work on it. With two shared stages per barrier, the tiled permutation and
//! the side streams the old path was at 5.40 ms (2^24 forward) and 8.8 ms (compute_h 2^22); with the cheaper Fr
//! multiplication (field32.cuh's FR_REDC), radix-8 passes and four blocks per SM for `ntt_dif_r4` / `ntt_dif_smem4`
//! 2^24 forward was 4.93 ms and compute_h 2^22 ≈ 8.1 ms; with compute_h in six transforms, the permutation-free
//! turn and per-direction DIF kernels 4.78 ms and 6.15 ms; with Fr's reduction rows partly on the ALU and the
//! lazy form (cuda/ntt_stage.cuh's `lz_*`) 4.65 ms and 6.07 ms; with fr_t moved as two 16-byte accesses (`ldv`/`stv`) 4.10 ms
//! and 5.69–5.74 ms (docs/PERF.md).
//!
//! Host check of the kernels and both paths' sequences (no GPU): `bash cuda/hostcheck/ntt_check.sh`.

use std::sync::Arc;

use blstrs::Scalar;
use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, CudaView, LaunchConfig, PushKernelArg};
use ff::{Field, PrimeField};

use super::{limbs, GResult, Gpu, GpuError, Module};

/// The strided-pass launch sequences (`CUZK_NTT_PASS=1`), a child so it shares the tables privately.
mod pass;
/// Groth16's quotient `compute_h` on the old path and its combining permutations.
mod quotient;
mod trace;
/// compute_h's coset transforms without a permutation (DIT kernels), a child for the same reason.
mod turn;

pub(crate) use quotient::{bitrev_combine, Combine};
pub use quotient::{compute_h, compute_h_on, compute_h_with, HStreams};

use trace::Trace;

/// log2 of the shared-memory block (SMEM_LOG in cuda/ntt_stage.cuh).
pub(crate) const SMEM_LOG: u32 = 10;
/// log2 of the low half of the two-level power tables.
const LO_BITS_MAX: u32 = 12;
/// Largest domain the kernels index with 32-bit thread ids (the CPU's MAX_LOG_SIZE).
pub const MAX_LOG_N: u32 = 28;
const THREADS: u32 = 256;

/// Which transform [`ntt`] runs (natural order in and out, as the CPU's `Domain` methods).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NttDir {
    /// `Domain::ntt`: a[i] ← Σ_j a[j]·ω^(ij).
    Forward,
    /// `Domain::intt`: a[i] ← (1/N)·Σ_j a[j]·ω^(−ij).
    Inverse,
    /// `Domain::coset_ntt`: multiply coefficient i by g^i, then NTT.
    CosetForward,
    /// `Domain::icoset_ntt`: iNTT, then multiply coefficient i by g^(−i).
    CosetInverse,
}

/// Offsets (in fr_t) of one two-level power table c·x^i = lo[i mod 2^L]·hi[i >> L] inside `NttTables::pows`.
#[derive(Clone, Copy)]
pub(crate) struct PowTable {
    lo: usize,
    hi: usize,
    hi_len: usize,
}

/// Device tables for one domain size, built once per (device, log_n).
pub struct NttTables {
    pub(crate) log_n: u32,
    pub(crate) lo_bits: u32,
    /// ω^k for k ≤ N/2 (tw[N/2] = −1), 4 limbs each: only the old path (the default) has it.
    tw: Option<CudaSlice<u64>>,
    /// Concatenated power tables and z⁻¹ (offsets below, in fr_t).
    pows: CudaSlice<u64>,
    /// g^i (coset forward).
    pub(crate) coset_fwd: PowTable,
    /// g^i / N (inverse then coset shift, compute_h's first part).
    pub(crate) coset_h: PowTable,
    /// g^(−i) / N (inverse coset).
    pub(crate) coset_inv: PowTable,
    /// 1 / N (plain inverse).
    pub(crate) inv: PowTable,
    /// ω^i, i < N (the pass path's twists; the old path expands `tw` from it).
    pub(crate) omega: PowTable,
    /// z·g^(−i) / N with z = 1 / (g^N − 1): compute_h's last step (H = z·(icoset(A·B) − iNTT(C))).
    pub(crate) h_out: PowTable,
    /// z / N, one fr_t (the same step's factor on iNTT(C)).
    zn: usize,
    /// Compact twiddles of the shared-memory stages (`LT_BASE` in cuda/ntt_stage.cuh).
    lt: usize,
}

impl NttTables {
    /// The (lo, hi) device halves of one two-level table.
    pub(crate) fn pow_slices(&self, p: PowTable) -> (CudaView<'_, u64>, CudaView<'_, u64>) {
        (self.pows.slice(4 * p.lo..4 * p.hi), self.pows.slice(4 * p.hi..4 * (p.hi + p.hi_len)))
    }

    /// The compact shared-stage twiddles (LT_LEN fr_t).
    pub(crate) fn lt_slice(&self) -> CudaView<'_, u64> {
        self.pows.slice(4 * self.lt..4 * (self.lt + LT_LEN))
    }

    /// z / N, one fr_t.
    pub(crate) fn zn_slice(&self) -> CudaView<'_, u64> {
        self.pows.slice(4 * self.zn..4 * self.zn + 4)
    }
}

/// The radix-4 global passes + N/2-entry twiddle table, unless `CUZK_NTT_PASS=1` selects the strided-pass
/// path for A/B runs on the device (measured slower, module comment); results are identical.
pub fn old_path() -> bool {
    std::env::var_os("CUZK_NTT_PASS").is_none_or(|v| v != "1")
}

pub(crate) fn n_of(log_n: u32) -> usize {
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

/// Bytes of the cached tables for a domain of 2^log_n points: six two-level power tables, z/N, the compact
/// table, and on the old path the N/2 + 1 twiddles.
fn table_bytes(log_n: u32, old: bool) -> usize {
    let n = n_of(log_n);
    let lb = lo_bits_for(log_n);
    let (lo, hi) = pow_table_len(lb, n);
    let tw = if old { n / 2 + 1 } else { 0 };
    32 * (tw + 6 * (lo + hi) + 1 + LT_LEN)
}

/// Device bytes compute_h needs beyond a/b/c (twiddles etc.), for the memory check: ≈ 1.5 MiB at 2^24 on the
/// pass path (257 MiB on the old path, the default).
pub fn scratch_bytes(log_n: u32) -> usize {
    table_bytes(log_n, old_path())
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

pub(crate) fn grid(threads: usize) -> LaunchConfig {
    let blocks = threads.div_ceil(THREADS as usize).max(1) as u32;
    LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (THREADS, 1, 1), shared_mem_bytes: 0 }
}

fn tables(gpu: &Gpu, log_n: u32, old: bool) -> GResult<Arc<NttTables>> {
    let path = if old { "old" } else { "pass" };
    gpu.cached(&format!("ntt_tables_{log_n}_{path}"), || build_tables(gpu, log_n, old))
}

fn build_tables(gpu: &Gpu, log_n: u32, old: bool) -> GResult<NttTables> {
    gpu.check_mem("NTT twiddle tables", table_bytes(log_n, old))?;
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
    let mut t = NttTables {
        log_n,
        lo_bits,
        tw: None,
        pows,
        coset_fwd,
        coset_h,
        coset_inv,
        inv,
        omega: omega_t,
        h_out,
        zn,
        lt,
    };
    if old {
        // Twiddles: expand ω^k, k ≤ N/2, on the device from the two-level ω table.
        let tw_count = n / 2 + 1;
        let mut tw = gpu.stream.alloc_zeros::<u64>(4 * tw_count)?;
        let (lo, hi) = t.pow_slices(t.omega);
        let f = gpu.kernel(Module::Ntt, "ntt_powers")?;
        let (count, lb) = (tw_count as u32, lo_bits);
        let mut b = gpu.stream.launch_builder(&f);
        b.arg(&mut tw).arg(&lo).arg(&hi).arg(&count).arg(&lb);
        // SAFETY: ntt_powers(u64*, const u64*, const u64*, u32, u32); tw has count fr_t, lo/hi cover
        // exponents < N ≥ count.
        unsafe { b.launch(grid(tw_count)) }?;
        t.tw = Some(tw);
    }
    Ok(t)
}

/// The kernels, looked up once per call. Pairs are [forward, inverse]: those kernels are compiled once per
/// direction (the direction known at compile time drops dif_diff's operand selects).
struct Kernels {
    r2: CudaFunction,
    r4: [CudaFunction; 2],
    /// `None` under `CUZK_NTT_R8=0`.
    r8: Option<[CudaFunction; 2]>,
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
            // `CUZK_NTT_R8=0`: radix-4 passes only, to re-measure the radix-8 passes against them.
            r8: match std::env::var("CUZK_NTT_R8").as_deref() {
                Ok("0") => None,
                _ => {
                    Some([gpu.kernel(Module::Ntt, "ntt_dif_r8")?, gpu.kernel(Module::Ntt, "ntt_dif_r8_inv")?])
                }
            },
            r8_mul: gpu.kernel(Module::Ntt, "ntt_dif_r8_inv_mul")?,
            smem: gpu.kernel(Module::Ntt, "ntt_dif_smem")?,
            smem4: [gpu.kernel(Module::Ntt, "ntt_dif_smem4")?, gpu.kernel(Module::Ntt, "ntt_dif_smem4_inv")?],
        })
    }
}

/// Stages per global pass for `global` stages (spans N/2 … 2^10): three (`ntt_dif_r8`) while more than four
/// are left or exactly three, two (`ntt_dif_r4`) for four or two, one (`ntt_dif_r2`) for one — the fewest passes
/// over memory with no single-stage pass unless `global` is 1 (2^24: 3+3+3+3+2, 2^22: 3+3+3+3, 2^20: 3+3+2+2).
/// Without `r8`: radix 4, one radix-2 pass first for an odd count.
fn global_radices(global: u32, r8: bool) -> Vec<u32> {
    let mut out = Vec::new();
    let mut g = global;
    if !r8 && g % 2 == 1 {
        out.push(1);
        g -= 1;
    }
    while g > 0 {
        let r = match g {
            1 => 1,
            2 | 4 => 2,
            _ if r8 => 3,
            _ => 2,
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

/// The twiddle table (old path only).
fn twiddles(t: &NttTables) -> GResult<&CudaSlice<u64>> {
    t.tw.as_ref().ok_or_else(|| GpuError::Invalid("NTT tables built without twiddles".into()))
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
    let tw = twiddles(t)?;
    let d = inv as usize;
    let inv = inv as u32;
    let log_b = log_n.min(SMEM_LOG);
    let global = log_n - log_b;
    let mut log_h = log_n as i64 - 1;
    let trace = Trace::start(s)?;
    for r in global_radices(global, k.r8.is_some()) {
        let lh = log_h as u32;
        let (f, name) = match r {
            // global_radices gives 3 only with the kernel loaded; never run another kernel in its place.
            3 => (
                &k.r8.as_ref().ok_or_else(|| GpuError::Invalid("radix-8 pass without ntt_dif_r8".into()))?[d],
                "dif_r8",
            ),
            2 => (&k.r4[d], "dif_r4"),
            _ => (&k.r2, "dif_r2"),
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
        trace.lap(s, name, lh)?;
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
    let trace = Trace::start(s)?;
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
    trace.lap(s, if four { "dif_smem4" } else { "dif_smem" }, log_b)
}

/// log2 of the tile side of `ntt_bitrev_tile` (BR_T in cuda/ntt_pass.cuh): 16×16-element tiles, 256 threads.
const BR_T: u32 = 4;

/// In place a[i] ← a[bitrev(i)]·(table value at i, if any): `ntt_bitrev_tile` (coalesced 512 B rows, tiles
/// swapped through shared memory; 2^24 forward 5.40 against 5.72 ms per element, docs/PERF.md) from 2^8 up,
/// the per-element `ntt_bitrev_scale` below that.
pub(crate) fn bitrev_scale(
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
    let trace = Trace::start(s)?;
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
        return trace.lap(s, "bitrev_tile", log_n);
    }
    let f = gpu.kernel(Module::Ntt, "ntt_bitrev_scale")?;
    let mut b = s.launch_builder(&f);
    b.arg(&mut *a).arg(&lo).arg(&hi).arg(&log_n).arg(&t.lo_bits).arg(&scale);
    // SAFETY: ntt_bitrev_scale(u64*, const u64*, const u64*, u32, u32, u32); N threads, tables cover i < N.
    unsafe { b.launch(grid(n)) }?;
    trace.lap(s, "bitrev_scale", log_n)
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
    ntt_on(gpu, a, log_n, dir, old_path())
}

/// [`ntt`] on an explicitly chosen path (`old`: the default sequences; `false`: the pass path), so tests cover both at once.
pub fn ntt_on(gpu: &Gpu, a: &mut CudaSlice<u64>, log_n: u32, dir: NttDir, old: bool) -> GResult<()> {
    check_args(log_n, &[("a", a.len())])?;
    let t = tables(gpu, log_n, old)?;
    if !old {
        return pass::ntt(gpu, &t, a, dir);
    }
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
        assert_eq!(table_bytes(24, true) / (1 << 20), 256 + 1);
        assert_eq!(table_bytes(24, false) / (1 << 10), 1568); // six tables of 2^12 + 2^12 entries
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
    /// left, and no more passes than ⌈global/3⌉ + 1 (radix 4 alone: ⌈global/2⌉).
    #[test]
    fn global_radices_cover_the_stages() {
        for g in 0..=20u32 {
            for r8 in [true, false] {
                let r = global_radices(g, r8);
                assert_eq!(r.iter().sum::<u32>(), g, "g {g} r8 {r8}");
                assert!(g == 1 || !r.contains(&1) || !r8, "g {g}: {r:?}");
                assert!(r.iter().all(|&x| (1..=if r8 { 3 } else { 2 }).contains(&x)));
                let most = if r8 { g.div_ceil(3) + 1 } else { g.div_ceil(2) };
                assert!(r.len() as u32 <= most, "g {g} r8 {r8}: {r:?}");
            }
        }
        assert_eq!(global_radices(14, true), [3, 3, 3, 3, 2]);
        assert_eq!(global_radices(12, true), [3, 3, 3, 3]);
        assert_eq!(global_radices(10, true), [3, 3, 2, 2]);
        assert_eq!(global_radices(13, false), [1, 2, 2, 2, 2, 2, 2]);
    }
}
