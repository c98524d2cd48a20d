// NTT over BLS12-381's Fr on 2^log_n points, and the pieces of Groth16's compute_h
// (src/backend/gpu/kernels/ntt/mod.rs has the launch sequences). The per-thread bodies are in ntt_stage.cuh
// (element operations, butterflies, stages) and ntt_perm.cuh (the tiled permutations); this file has the
// scheme and the kernels.
// Scheme (all transforms in place, one vector of N = 2^log_n fr_t):
//   * Every transform is decimation in frequency (Gentleman–Sande): natural order in, bit-reversed out.
//     Spans N/2 … 2^SMEM_LOG run as global-memory passes, three stages per pass (radix 8; two for the last
//     four or two, one only when one is left: ntt.rs's global_radices); the last min(log_n, SMEM_LOG) stages
//     (spans 2^(SMEM_LOG−1) … 1) run in
//     one shared-memory kernel, one block per contiguous chunk of 2^SMEM_LOG elements, two stages per barrier
//     in registers (ntt_dif_smem4; ntt_dif_smem, one per barrier, below 4 points),
//     with its own compact twiddle table (LT_BASE below) so that a warp's twiddle reads are contiguous.
//   * The inverse uses the same twiddle table: ω^(−k) = −ω^(N/2 − k) with tw[N/2] = ω^(N/2) = −1, so the
//     inverse butterfly is (x + y, (y − x)·tw[N/2 − k]) — no second table, no extra work.
//   * A final in-place pass swaps i ↔ bitrev(i) (an involution; ntt_bitrev_tile from 2^8, coalesced tiles
//     through shared memory, else ntt_bitrev_scale) and multiplies by c·g^i taken from a two-level table
//     (lo[i mod 2^L]·hi[i >> L], c folded into hi): 1/N, coset shifts g^(±i) are free there.
//   * compute_h, six transforms (H = z·(icoset(A·B) − iNTT(C)), BR2_SUB below): above 2^SMEM_LOG points, for
//     v in a, b: DIF⁻¹'s global passes, ntt_smem_turn (DIF⁻¹'s shared stages, ·n⁻¹·g^i at the bit-reversed
//     index, the forward DIT's shared stages), the DIT's global passes (ntt_dit_r8/r4/r2) [coset evaluations,
//     natural]; DIF⁻¹(c) alone; DIF⁻¹(a) with a·b on its first pass's loads (ntt_dif_r8_inv_mul; ntt_mul
//     before it where that pass is not radix 8); a[i] ← (a·z·g^(−i)/N − c·z/N) at bitrev(i), the one
//     permutation. Up to 2^SMEM_LOG: for v in a, b: DIF⁻¹(v); bitrev + n⁻¹·g^i; DIF(v) [bit-reversed];
//     DIF⁻¹(c); a[i] ← a·b at bitrev(i) (BR2_MUL); DIF⁻¹(a); the BR2_SUB permutation.
// Twiddles: one full table tw[k] = ω^k, k ≤ N/2 (N/2 + 1 entries; 256 MiB at 2^24, 1 GiB at 2^26), expanded on
// the device from a host-computed two-level table by ntt_powers.
//
// Each kernel is a thin wrapper over an HD body taking the thread's index, so cuda/hostcheck/ntt_host.cpp
// runs the same bodies on the CPU (the shared-memory kernel's body is split into phases between
// __syncthreads(), which the host runs for all threads in turn).
//
// nvcc 13.0 -arch=sm_90 -cubin -Xptxas -v: 0 stack, 0 spills in every kernel but the capped ones: ntt_dif_r8,
// _inv and _inv_mul 128 registers (none), ntt_dif_r4 and _inv 64 (none), ntt_dif_smem4 and _inv 64 (4 / 8 B
// stored; + 32768 B static shared each); their DIT twins ntt_dit_r8 128 (36 B spilled), ntt_dit_r4 64 (20 B),
// ntt_smem_turn 64 (60 B stored, 136 B loaded). The radix-4/8 and two-stage shared kernels exist once per
// direction (the direction a compile-time constant drops dif_diff's operand selects). Global fr_t move as two
// 16-byte accesses (ldv/stv), values stay lazy (< 2r) between the stages of one transform (lz_* in
// ntt_stage.cuh), and Fr's reduction rows take their products by p₀ = 1 and p₁ = 2³² − 1 on the ALU
// (field32.cuh): the transforms are bound by the IMAD and ALU pipes together (docs/PERF.md has each step's
// figures). A 2^24 forward transform is about 9 passes over 512 MiB plus twiddle reads. Also compiles under
// NVRTC (--gpu-architecture=sm_90) once field.cuh is pasted in, as compile.rs does. Host check:
// bash cuda/hostcheck/ntt_check.sh
#include "ntt_perm.cuh"

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)

#define TID() (blockIdx.x * blockDim.x + threadIdx.x)

// Buffers are passed as u64 limb arrays (CudaSlice<u64>), viewed as fr_t.
#define FR(p) reinterpret_cast<fr_t *>(p)
#define CFR(p) reinterpret_cast<const fr_t *>(p)

extern "C" __global__ void __launch_bounds__(256) ntt_dif_r2(u64 *a, const u64 *__restrict__ tw, u32 log_h, u32 log_n, u32 inv) {
    u32 t = TID();
    if (t >= (1u << (log_n - 1))) return;
    dif_r2_body(FR(a), CFR(tw), t, log_h, log_n, inv != 0);
}

// At most 64 registers (four blocks per SM; 16 B of spill), as ntt_dif_smem4: 2^24 forward 4.92–4.95 ms
// against 5.02–5.05 with 66 registers and three blocks (docs/PERF.md).
extern "C" __global__ void __launch_bounds__(256, 4) ntt_dif_r4(u64 *a, const u64 *__restrict__ tw, u32 log_h, u32 log_n) {
    u32 t = TID();
    if (t >= (1u << (log_n - 2))) return;
    dif_r4_body(FR(a), CFR(tw), t, log_h, log_n, false);
}
// The inverse as its own kernel: the direction known at compile time folds dif_diff's operand selects away.
extern "C" __global__ void __launch_bounds__(256, 4) ntt_dif_r4_inv(u64 *a, const u64 *__restrict__ tw, u32 log_h, u32 log_n) {
    u32 t = TID();
    if (t >= (1u << (log_n - 2))) return;
    dif_r4_body(FR(a), CFR(tw), t, log_h, log_n, true);
}

// At most 128 registers (two blocks per SM; 8 B of spill): 2^24 forward 5.02 ms against 5.80 at 130 registers
// (one block per SM) and 5.34 with radix-4 passes only (docs/PERF.md).
extern "C" __global__ void __launch_bounds__(256, 2) ntt_dif_r8(u64 *a, const u64 *__restrict__ tw, u32 log_h, u32 log_n) {
    u32 t = TID();
    if (t >= (1u << (log_n - 3))) return;
    dif_r8_body(FR(a), CFR(tw), t, log_h, log_n, false);
}
// The inverse as its own kernel: the direction known at compile time folds dif_diff's operand selects away.
extern "C" __global__ void __launch_bounds__(256, 2) ntt_dif_r8_inv(u64 *a, const u64 *__restrict__ tw, u32 log_h, u32 log_n) {
    u32 t = TID();
    if (t >= (1u << (log_n - 3))) return;
    dif_r8_body(FR(a), CFR(tw), t, log_h, log_n, true);
}

// grid = N >> log_b blocks, block = 2^(log_b − 2) threads (log_b ≥ 2): the last log_b stages two per barrier
// (one radix-2 stage first when log_b is odd, each thread doing two of its butterflies).
// ntt_dif_r8_inv with compute_h's product a·b on the loads (the pass then reads b too; ntt_mul's pass is gone).
extern "C" __global__ void __launch_bounds__(256, 2) ntt_dif_r8_inv_mul(u64 *a, const u64 *__restrict__ b, const u64 *__restrict__ tw, u32 log_h, u32 log_n) {
    u32 t = TID();
    if (t >= (1u << (log_n - 3))) return;
    dif_r8_body(FR(a), CFR(tw), t, log_h, log_n, true, CFR(b));
}

// ntt_dif_smem4's body with the direction known at compile time (dif_diff's operand selects fold away).
template <bool INV> __device__ __forceinline__ void dif_smem4_run(fr_t *sm, u64 *a, const u64 *lt, u32 log_b) {
    u32 tid = threadIdx.x, blk = blockIdx.x;
    smem4_load(sm, CFR(a), blk, tid, log_b);
    __syncthreads();
    int log_h = (int)log_b - 1;
    if (log_b & 1) {
        smem_stage(sm, CFR(lt), tid, (u32)log_h, INV);
        smem_stage(sm, CFR(lt), tid + (1u << (log_b - 2)), (u32)log_h, INV);
        __syncthreads();
        log_h--;
    }
    for (; log_h >= 1; log_h -= 2) {
        smem_stage4(sm, CFR(lt), tid, (u32)log_h, INV);
        __syncthreads();
    }
    smem4_store(sm, FR(a), blk, tid, log_b, true);
}

extern "C" __global__ void __launch_bounds__(256, 4) ntt_dif_smem4(u64 *a, const u64 *__restrict__ lt, u32 log_b) {
    __shared__ fr_t sm[1 << SMEM_LOG];
    dif_smem4_run<false>(sm, a, lt, log_b);
}
extern "C" __global__ void __launch_bounds__(256, 4) ntt_dif_smem4_inv(u64 *a, const u64 *__restrict__ lt, u32 log_b) {
    __shared__ fr_t sm[1 << SMEM_LOG];
    dif_smem4_run<true>(sm, a, lt, log_b);
}

// compute_h's turn, one block per 2^SMEM_LOG contiguous elements (log_n > SMEM_LOG, 256 threads): DIF⁻¹'s last
// SMEM_LOG stages (coefficients, bit-reversed), ·c·g^i at i = bitrev(P) (coset_h: g^i/N), then the forward DIT's
// first SMEM_LOG stages on the same block — the permutation between DIF⁻¹ and the coset transform is never run.
// Four blocks per SM (64 registers, 76 B of spill loads) beat three (80 registers) and two (96, no spill):
// compute_h 2^22 6.20–6.25 against 6.31 and 6.46–6.49 ms (docs/PERF.md).
extern "C" __global__ void __launch_bounds__(256, 4) ntt_smem_turn(u64 *a, const u64 *__restrict__ lt, const u64 *__restrict__ lo, const u64 *__restrict__ hi, u32 log_n, u32 lo_bits) {
    __shared__ fr_t sm[1 << SMEM_LOG];
    u32 tid = threadIdx.x, blk = blockIdx.x;
    smem4_load(sm, CFR(a), blk, tid, SMEM_LOG);
    __syncthreads();
    for (int log_h = SMEM_LOG - 1; log_h >= 1; log_h -= 2) {
        smem_stage4(sm, CFR(lt), tid, (u32)log_h, true);
        __syncthreads();
    }
    smem4_turn_scale(sm, CFR(lo), CFR(hi), blk, tid, SMEM_LOG, log_n, lo_bits);
    __syncthreads();
    for (u32 log_h = 1; log_h < SMEM_LOG; log_h += 2) {
        smem_dit4(sm, CFR(lt), tid, log_h);
        __syncthreads();
    }
    smem4_store(sm, FR(a), blk, tid, SMEM_LOG, false);  // the DIT's global passes follow
}

extern "C" __global__ void __launch_bounds__(256) ntt_dit_r2(u64 *a, const u64 *__restrict__ tw, u32 log_h, u32 log_n) {
    u32 t = TID();
    if (t >= (1u << (log_n - 1))) return;
    dit_r2_body(FR(a), CFR(tw), t, log_h, log_n);
}

// Register caps as the DIF kernels of the same radix.
extern "C" __global__ void __launch_bounds__(256, 4) ntt_dit_r4(u64 *a, const u64 *__restrict__ tw, u32 log_h, u32 log_n) {
    u32 t = TID();
    if (t >= (1u << (log_n - 2))) return;
    dit_r4_body(FR(a), CFR(tw), t, log_h, log_n);
}

extern "C" __global__ void __launch_bounds__(256, 2) ntt_dit_r8(u64 *a, const u64 *__restrict__ tw, u32 log_h, u32 log_n) {
    u32 t = TID();
    if (t >= (1u << (log_n - 3))) return;
    dit_r8_body(FR(a), CFR(tw), t, log_h, log_n);
}

// a[i] ← a[i]·b[i] (compute_h's product of the coset evaluations, natural order).
extern "C" __global__ void __launch_bounds__(256) ntt_mul(u64 *a, const u64 *__restrict__ b, u32 log_n) {
    u32 i = TID();
    if (i >= (1u << log_n)) return;
    FR(a)[i] = FR(a)[i] * CFR(b)[i];
}

// grid = N >> log_b blocks, block = 2^(log_b − 1) threads.
// lt: the compact table (LT_BASE in ntt_stage.cuh; LT_LEN fr_t).
extern "C" __global__ void __launch_bounds__(512) ntt_dif_smem(u64 *a, const u64 *__restrict__ lt, u32 log_b, u32 inv) {
    __shared__ fr_t sm[1 << SMEM_LOG];
    u32 tid = threadIdx.x, blk = blockIdx.x;
    smem_load(sm, CFR(a), blk, tid, log_b);
    __syncthreads();
    for (int log_h = (int)log_b - 1; log_h >= 0; log_h--) {
        smem_stage(sm, CFR(lt), tid, (u32)log_h, inv != 0);
        __syncthreads();
    }
    smem_store(sm, FR(a), blk, tid, log_b);
}

extern "C" __global__ void __launch_bounds__(256) ntt_powers(u64 *out, const u64 *__restrict__ lo, const u64 *__restrict__ hi, u32 count, u32 lo_bits) {
    u32 i = TID();
    if (i >= count) return;
    powers_body(FR(out), CFR(lo), CFR(hi), i, lo_bits);
}

extern "C" __global__ void __launch_bounds__(256) ntt_bitrev_scale(u64 *a, const u64 *__restrict__ lo, const u64 *__restrict__ hi, u32 log_n, u32 lo_bits, u32 scale) {
    u32 i = TID();
    if (i >= (1u << log_n)) return;
    bitrev_scale_body(FR(a), CFR(lo), CFR(hi), i, log_n, lo_bits, scale != 0);
}

extern "C" __global__ void __launch_bounds__(256) ntt_scale(u64 *a, const u64 *__restrict__ lo, const u64 *__restrict__ hi, u32 log_n, u32 lo_bits) {
    u32 i = TID();
    if (i >= (1u << log_n)) return;
    scale_body(FR(a), CFR(lo), CFR(hi), i, lo_bits);
}

extern "C" __global__ void __launch_bounds__(256) ntt_bitrev2(u64 *a, const u64 *__restrict__ b, const u64 *__restrict__ lo, const u64 *__restrict__ hi, const u64 *__restrict__ zn, u32 log_n, u32 lo_bits, u32 mode) {
    u32 i = TID();
    if (i >= (1u << log_n)) return;
    bitrev2_body(FR(a), CFR(b), CFR(lo), CFR(hi), CFR(zn), i, log_n, lo_bits, mode);
}

// grid = 2^(log_n − 2·BR_T) blocks (half exit at once), block = 2^(2·BR_T) threads; log_n ≥ 2·BR_T.
extern "C" __global__ void __launch_bounds__(256) ntt_bitrev_tile(u64 *a, const u64 *__restrict__ lo, const u64 *__restrict__ hi, u32 log_n, u32 lo_bits, u32 scale) {
    __shared__ fr_t sm[2 * BR_ROW << BR_T];
    if (!br_load(sm, CFR(a), blockIdx.x, threadIdx.x, log_n)) return;  // uniform per block
    __syncthreads();
    br_store(sm, FR(a), CFR(lo), CFR(hi), blockIdx.x, threadIdx.x, log_n, lo_bits, scale != 0);
}

// As ntt_bitrev_tile, combining two inputs (bitrev2 in ntt_stage.cuh): grid 2^(log_n − 2·BR_T), 256 threads, log_n ≥ 2·BR_T.
extern "C" __global__ void __launch_bounds__(256) ntt_bitrev_tile2(u64 *a, const u64 *__restrict__ b, const u64 *__restrict__ lo, const u64 *__restrict__ hi, const u64 *__restrict__ zn, u32 log_n, u32 lo_bits, u32 mode) {
    __shared__ fr_t sm[4 * BR_ROW << BR_T];
    if (!br2_load(sm, CFR(a), CFR(b), blockIdx.x, threadIdx.x, log_n)) return;  // uniform per block
    __syncthreads();
    br2_store(sm, FR(a), CFR(lo), CFR(hi), CFR(zn), blockIdx.x, threadIdx.x, log_n, lo_bits, mode);
}

#endif
