// NTT over BLS12-381's Fr on 2^log_n points, and the pieces of Groth16's compute_h (src/backend/gpu/ntt.rs).
//
// Two paths (src/backend/gpu/ntt.rs's header has the launch sequences): the old scheme that follows, the
// default, and the strided multi-stage passes (ntt_pass; described where ntt_pass's bodies
// start below) under CUZK_NTT_PASS=1.
// Old scheme (all transforms in place, one vector of N = 2^log_n fr_t):
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
// stored; + 32768 B static shared each). The radix-4/8 and two-stage shared kernels exist once per direction: with
// the direction a compile-time constant (dif_diff's operand selects gone) 2^22 forward went 1.200 → 1.16 ms and
// compute_h 2^22 6.38 → 6.17 (docs/PERF.md).
// Registers of the others: ntt_dif_r2 46, ntt_dif_smem 54, ntt_bitrev_scale 64,
// ntt_scale 40, ntt_bitrev2 74, ntt_powers 38, ntt_pass 58 (+ 33792 B static shared), ntt_bitrev_tile 60
// (+ 17408 B static shared), ntt_bitrev_tile2 48 (+ 34816 B), ntt_mul 38, ntt_dit_r2 46; capped as their DIF
// twins: ntt_dit_r8 128 (36 B spilled), ntt_dit_r4 64 (20 B), ntt_smem_turn 64 (60 B stored, 136 B loaded).
// Global fr_t move as two 16-byte accesses (ldv/stv): ntt_dif_r8_inv 32 LDG.64 + 28 twiddle LDG.64 + 32 STG.64 →
// 16 + 14 + 16 at 128 bits; that took 2^22 forward 1.14 → 1.01 ms, 2^24 4.65 → 4.10 and compute_h 2^22 6.06–6.13
// → 5.69–5.74 (docs/PERF.md).
// SASS per fr_t multiplication: 112 IMAD.WIDE.U32[.X] + 5 IMAD on the IMAD pipe, 93 IADD3 (field32.cuh: Fr's
// p₀ = 1, p₁ = 2³² − 1 and −p⁻¹ = 2³² − 1 take three of each reduction row's products off the IMAD pipe;
// 122 + 17 and 38 before). With the lazy form (lz_* below) that took 2^22 forward 1.16 → 1.14 ms, 2^24 4.77 →
// 4.65 and compute_h 2^22 6.17 → 6.07; either change alone measured no gain or a loss (docs/PERF.md): the
// transforms are bound by the IMAD and ALU pipes together, and were by the load/store instructions until ldv/stv.
// The old path 2^24 forward is about 9 passes over
// 512 MiB plus twiddle reads. Also compiles under NVRTC
// (--gpu-architecture=sm_90) once field.cuh is pasted in, as compile.rs does. Host check: bash cuda/hostcheck/ntt_check.sh
#include "field.cuh"

#define SMEM_LOG 10  // elements per shared-memory block: 2^10 fr_t = 32 KiB, 512 threads

HD u32 brev_bits(u32 i, u32 bits) {
    if (bits == 0) return 0;
#if defined(__CUDA_ARCH__)
    return __brev(i) >> (32 - bits);
#else
    u32 r = 0;
    for (u32 b = 0; b < 32; b++) r |= ((i >> b) & 1u) << (31 - b);
    return r >> (32 - bits);
#endif
}

// fr_t through global memory as two 16-byte accesses: with fr_t's 8-byte alignment the compiler issues four
// 8-byte ones, so this halves the transforms' load/store instructions. Every fr_t in global memory starts at a
// multiple of 32 bytes of a whole allocation, which CUDA aligns for any type (ntt.rs's check_args says more).
HD fr_t ldv(const fr_t *p) {
#if defined(__CUDA_ARCH__)
    const ulonglong2 *q = reinterpret_cast<const ulonglong2 *>(p);
    ulonglong2 u = q[0], w = q[1];
    fr_t r;
    r.v[0] = u.x;
    r.v[1] = u.y;
    r.v[2] = w.x;
    r.v[3] = w.y;
    return r;
#else
    return *p;
#endif
}
HD void stv(fr_t *p, const fr_t &x) {
#if defined(__CUDA_ARCH__)
    ulonglong2 u, w;
    u.x = x.v[0];
    u.y = x.v[1];
    w.x = x.v[2];
    w.y = x.v[3];
    ulonglong2 *q = reinterpret_cast<ulonglong2 *>(p);
    q[0] = u;
    q[1] = w;
#else
    *p = x;
#endif
}

// The transforms' lazy form: between stages (in registers, shared memory and global memory between passes of one
// transform) values are < 2r, not < r; the butterflies skip the multiplication's final subtraction and each
// transform's last store reduces (lz_canon). Twiddles, scale tables and lz_mul's second operand stay canonical:
// w < r is field32.cuh's mont_mul_fr_lz bound.
HD fr_t lz_add(const fr_t &x, const fr_t &y) {
    fr_t r;
    add_fr_lz(x.v, y.v, r.v);
    return r;
}
HD fr_t lz_sub(const fr_t &x, const fr_t &y) {
    fr_t r;
    sub_fr_lz(x.v, y.v, r.v);
    return r;
}
// x·w·R⁻¹ for x < 2r and a canonical w (< r): < 2r.
HD fr_t lz_mul(const fr_t &x, const fr_t &w) {
    fr_t r;
    mont_mul_fr_lz(w.v, x.v, r.v);
    return r;
}
HD fr_t lz_canon(const fr_t &x) {
    fr_t r;
    reduce_fr_lz(x.v, r.v);
    return r;
}
// lz_canon where the transform ends (`canon`), else the lazy value as it is.
HD fr_t lz_store(const fr_t &x, bool canon) { return canon ? lz_canon(x) : x; }
// A DIT global pass whose largest span is 2^log_h ends the transform when that span is N/2: it stores canonical.
HD bool dit_ends(u32 log_h, u32 log_n) { return log_h == log_n - 1; }

// DIF butterfly output for the lower half: (x − y)·ω^k (forward) or (x − y)·ω^(−k) = (y − x)·tw[N/2 − k].
// Operands are selected first so that only one multiplication is compiled (no code duplication per branch).
// Lazy in and out (x, y < 2r).
HD fr_t dif_diff(const fr_t &x, const fr_t &y, const fr_t *tw, u32 k, u32 half, bool inv) {
    fr_t p, q;
#pragma unroll
    for (int l = 0; l < 4; l++) {
        p.v[l] = inv ? y.v[l] : x.v[l];
        q.v[l] = inv ? x.v[l] : y.v[l];
    }
    return lz_mul(lz_sub(p, q), ldv(tw + (inv ? half - k : k)));
}

// One radix-2 DIF stage of span h = 2^log_h over the whole vector; thread t < N/2 does one butterfly.
HD void dif_r2_body(fr_t *a, const fr_t *tw, u32 t, u32 log_h, u32 log_n, bool inv) {
    u32 h = 1u << log_h;
    u32 j = t & (h - 1);
    u64 i0 = ((u64)(t >> log_h) << (log_h + 1)) + j;
    fr_t x = a[i0], y = a[i0 + h];
    u32 k = j << (log_n - 1 - log_h);  // ω_2h^j = ω^(j·N/2h)
    a[i0] = lz_add(x, y);
    a[i0 + h] = dif_diff(x, y, tw, k, 1u << (log_n - 1), inv);
}

// Two DIF stages, spans h = 2^log_h and h/2, in one pass; thread t < N/4 does one quartet (as the CPU's
// radix4_pass): elements base + {0, q, h, h + q}, q = h/2.
HD void dif_r4_body(fr_t *a, const fr_t *tw, u32 t, u32 log_h, u32 log_n, bool inv) {
    u32 log_q = log_h - 1;
    u32 q = 1u << log_q, h = 1u << log_h;
    u32 j = t & (q - 1);
    u64 base = ((u64)(t >> log_q) << (log_h + 1)) + j;
    u32 sh = log_n - 1 - log_h;  // s = N/2h
    u32 half = 1u << (log_n - 1);
    fr_t a0 = ldv(a + base), a1 = ldv(a + base + q), a2 = ldv(a + base + h), a3 = ldv(a + base + h + q);
    fr_t b0 = lz_add(a0, a2), b2 = dif_diff(a0, a2, tw, j << sh, half, inv);
    fr_t b1 = lz_add(a1, a3), b3 = dif_diff(a1, a3, tw, (j + q) << sh, half, inv);
    u32 k2 = j << (sh + 1);  // ω_h^j
    stv(a + base, lz_add(b0, b1));
    stv(a + base + q, dif_diff(b0, b1, tw, k2, half, inv));
    stv(a + base + h, lz_add(b2, b3));
    stv(a + base + h + q, dif_diff(b2, b3, tw, k2, half, inv));
}

// Three DIF stages, spans h = 2^log_h, h/2 and h/4, in one pass; thread t < N/8 does one octet: elements
// base + m·e, e = h/4, m = 0 … 7 (the CPU's radix-4 quartets nested once more). An element's twiddle at span H
// is ω_2H^p for its offset p in its half-block of 2H: ω^(p·N/2H) = tw[p << (log_n − 1 − log_H)].
// `mul` (compute_h's last DIF⁻¹, first pass): each element times mul[i] on the load (the coset product, fused;
// mul is b's finished, canonical coset evaluations, as lz_mul needs).
HD void dif_r8_body(fr_t *a, const fr_t *tw, u32 t, u32 log_h, u32 log_n, bool inv, const fr_t *mul = nullptr) {
    u32 log_e = log_h - 2;
    u32 e = 1u << log_e;
    u32 j = t & (e - 1);
    u64 base = ((u64)(t >> log_e) << (log_h + 1)) + j;
    u32 sh = log_n - 1 - log_h;
    u32 half = 1u << (log_n - 1);
    fr_t x[8];
#pragma unroll
    for (u32 m = 0; m < 8; m++) x[m] = mul ? lz_mul(ldv(a + base + (u64)m * e), ldv(mul + base + (u64)m * e)) : ldv(a + base + (u64)m * e);
#pragma unroll
    for (u32 m = 0; m < 4; m++) {  // span h: pairs (m, m + 4) at offset j + m·e
        fr_t s = lz_add(x[m], x[m + 4]);
        x[m + 4] = dif_diff(x[m], x[m + 4], tw, (j + m * e) << sh, half, inv);
        x[m] = s;
    }
#pragma unroll
    for (u32 g = 0; g < 8; g += 4) {  // span h/2: pairs (g + m, g + m + 2) at offset j + m·e
#pragma unroll
        for (u32 m = 0; m < 2; m++) {
            fr_t s = lz_add(x[g + m], x[g + m + 2]);
            x[g + m + 2] = dif_diff(x[g + m], x[g + m + 2], tw, (j + m * e) << (sh + 1), half, inv);
            x[g + m] = s;
        }
    }
#pragma unroll
    for (u32 g = 0; g < 8; g += 2) {  // span h/4: pairs (g, g + 1) at offset j
        fr_t s = lz_add(x[g], x[g + 1]);
        x[g + 1] = dif_diff(x[g], x[g + 1], tw, j << (sh + 2), half, inv);
        x[g] = s;
    }
#pragma unroll
    for (u32 m = 0; m < 8; m++) stv(a + base + (u64)m * e, x[m]);
}

// ---- DIT (Cooley–Tukey, bit-reversed in, natural out), forward only: compute_h's coset transforms of a and b
// from the bit-reversed coefficients DIF⁻¹ leaves, so no permutation sits between the two (ntt_smem_turn below).
// Butterfly of span h at offset j: t = y·ω_2h^j, (x + t, x − t); the twiddle indices mirror the DIF bodies'.
HD void dit_r2_body(fr_t *a, const fr_t *tw, u32 t, u32 log_h, u32 log_n) {
    u32 h = 1u << log_h;
    u32 j = t & (h - 1);
    u64 i0 = ((u64)(t >> log_h) << (log_h + 1)) + j;
    fr_t x = a[i0], y = lz_mul(a[i0 + h], tw[j << (log_n - 1 - log_h)]);
    bool last = dit_ends(log_h, log_n);
    a[i0] = lz_store(lz_add(x, y), last);
    a[i0 + h] = lz_store(lz_sub(x, y), last);
}
// Spans h/2 then h: elements base + {0, q, h, h + q} (dif_r4_body's quartet, stages in the other order).
HD void dit_r4_body(fr_t *a, const fr_t *tw, u32 t, u32 log_h, u32 log_n) {
    u32 log_q = log_h - 1;
    u32 q = 1u << log_q, h = 1u << log_h;
    u32 j = t & (q - 1);
    u64 base = ((u64)(t >> log_q) << (log_h + 1)) + j;
    u32 sh = log_n - 1 - log_h;
    fr_t a0 = ldv(a + base), a1 = ldv(a + base + q), a2 = ldv(a + base + h), a3 = ldv(a + base + h + q);
    fr_t w = ldv(tw + (j << (sh + 1)));  // ω_h^j (span q)
    fr_t t1 = lz_mul(a1, w), t3 = lz_mul(a3, w);
    fr_t b0 = lz_add(a0, t1), b1 = lz_sub(a0, t1), b2 = lz_add(a2, t3), b3 = lz_sub(a2, t3);
    fr_t u2 = lz_mul(b2, ldv(tw + (j << sh))), u3 = lz_mul(b3, ldv(tw + ((j + q) << sh)));  // ω_2h^j, ω_2h^(j+q) (span h)
    bool last = dit_ends(log_h, log_n);
    stv(a + base, lz_store(lz_add(b0, u2), last));
    stv(a + base + h, lz_store(lz_sub(b0, u2), last));
    stv(a + base + q, lz_store(lz_add(b1, u3), last));
    stv(a + base + h + q, lz_store(lz_sub(b1, u3), last));
}
// Spans h/4, h/2, h: elements base + m·e, e = h/4 (dif_r8_body's octet, stages in the other order).
HD void dit_r8_body(fr_t *a, const fr_t *tw, u32 t, u32 log_h, u32 log_n) {
    u32 log_e = log_h - 2;
    u32 e = 1u << log_e;
    u32 j = t & (e - 1);
    u64 base = ((u64)(t >> log_e) << (log_h + 1)) + j;
    u32 sh = log_n - 1 - log_h;
    fr_t x[8];
#pragma unroll
    for (u32 m = 0; m < 8; m++) x[m] = ldv(a + base + (u64)m * e);
    fr_t w = ldv(tw + (j << (sh + 2)));
#pragma unroll
    for (u32 g = 0; g < 8; g += 2) {  // span h/4: pairs (g, g + 1) at offset j
        fr_t y = lz_mul(x[g + 1], w);
        x[g + 1] = lz_sub(x[g], y);
        x[g] = lz_add(x[g], y);
    }
#pragma unroll
    for (u32 g = 0; g < 8; g += 4) {  // span h/2: pairs (g + m, g + m + 2) at offset j + m·e
#pragma unroll
        for (u32 m = 0; m < 2; m++) {
            fr_t y = lz_mul(x[g + m + 2], ldv(tw + ((j + m * e) << (sh + 1))));
            x[g + m + 2] = lz_sub(x[g + m], y);
            x[g + m] = lz_add(x[g + m], y);
        }
    }
#pragma unroll
    for (u32 m = 0; m < 4; m++) {  // span h: pairs (m, m + 4) at offset j + m·e
        fr_t y = lz_mul(x[m + 4], ldv(tw + ((j + m * e) << sh)));
        x[m + 4] = lz_sub(x[m], y);
        x[m] = lz_add(x[m], y);
    }
    bool last = dit_ends(log_h, log_n);
#pragma unroll
    for (u32 m = 0; m < 8; m++) stv(a + base + (u64)m * e, lz_store(x[m], last));
}

// Shared-memory DIF: a block of 2^log_b elements (log_b ≤ SMEM_LOG), 2^(log_b−1) threads, all stages with span
// below 2^log_b. Phases: load; stage(log_h) for log_h = log_b−1 … 0 (sync between); store.
HD void smem_load(fr_t *sm, const fr_t *a, u32 blk, u32 tid, u32 log_b) {
    u64 off = (u64)blk << log_b;
    u32 half_b = 1u << (log_b - 1);
    sm[tid] = a[off + tid];
    sm[tid + half_b] = a[off + tid + half_b];
}
// Compact twiddles for the shared-memory stages (coalesced reads): span h = 2^log_h uses
// lt[LT_BASE(log_h) + j] = ω_2h^j for j ≤ h (h + 1 entries; ω_2h^h = −1 serves the inverse as tw[N/2] does).
// ω_2h is the primitive 2h-th root of unity, independent of N. 1033 entries for spans up to 2^9.
#define LT_BASE(log_h) ((1u << (log_h)) - 1 + (log_h))
#define LT_LEN (LT_BASE(SMEM_LOG - 1) + (1u << (SMEM_LOG - 1)) + 1)
HD void smem_stage(fr_t *sm, const fr_t *lt, u32 tid, u32 log_h, bool inv) {
    u32 h = 1u << log_h;
    u32 j = tid & (h - 1);
    u32 i0 = ((tid >> log_h) << (log_h + 1)) + j;
    fr_t x = sm[i0], y = sm[i0 + h];
    sm[i0] = lz_add(x, y);
    // Span 1: the twiddle is ω^0 = 1 forward and −1 on the inverse's (y − x) form, so x − y either way: no
    // multiplication (one stage of ten here, a tenth of the kernel's; the branch is uniform per block).
    if (log_h == 0)
        sm[i0 + h] = lz_sub(x, y);
    else
        sm[i0 + h] = dif_diff(x, y, lt + LT_BASE(log_h), j, h, inv);
}
// Two stages (spans h = 2^log_h and h/2) of a shared-memory block in registers, as dif_r4_body with the compact
// twiddles: thread t < 2^(log_b − 2) does one quartet. Half the barriers and shared traffic of two smem_stage.
HD void smem_stage4(fr_t *sm, const fr_t *lt, u32 tid, u32 log_h, bool inv) {
    u32 log_q = log_h - 1;
    u32 q = 1u << log_q, h = 1u << log_h;
    u32 j = tid & (q - 1);
    u32 base = ((tid >> log_q) << (log_h + 1)) + j;
    const fr_t *t1 = lt + LT_BASE(log_h), *t2 = lt + LT_BASE(log_q);
    fr_t a0 = sm[base], a1 = sm[base + q], a2 = sm[base + h], a3 = sm[base + h + q];
    // Spans 2 and 1 (log_h = 1): j = 0, so b2's twiddle is ω^0 (x − y either way, as in smem_stage).
    fr_t b0 = lz_add(a0, a2), b2 = log_q == 0 ? lz_sub(a0, a2) : dif_diff(a0, a2, t1, j, h, inv);
    fr_t b1 = lz_add(a1, a3), b3 = dif_diff(a1, a3, t1, j + q, h, inv);
    sm[base] = lz_add(b0, b1);
    sm[base + h] = lz_add(b2, b3);
    if (log_q == 0) {  // span 1: x − y either way (smem_stage)
        sm[base + q] = lz_sub(b0, b1);
        sm[base + h + q] = lz_sub(b2, b3);
    } else {
        sm[base + q] = dif_diff(b0, b1, t2, j, q, inv);
        sm[base + h + q] = dif_diff(b2, b3, t2, j, q, inv);
    }
}
// smem_stage4's DIT counterpart (forward): spans h/2 then h, compact twiddles; span 1 and j = 0 multiply by nothing.
HD void smem_dit4(fr_t *sm, const fr_t *lt, u32 tid, u32 log_h) {
    u32 log_q = log_h - 1;
    u32 q = 1u << log_q, h = 1u << log_h;
    u32 j = tid & (q - 1);
    u32 base = ((tid >> log_q) << (log_h + 1)) + j;
    fr_t a0 = sm[base], a1 = sm[base + q], a2 = sm[base + h], a3 = sm[base + h + q];
    if (log_q > 0) {
        fr_t w = ldv(lt + LT_BASE(log_q) + j);
        a1 = lz_mul(a1, w);
        a3 = lz_mul(a3, w);
    }
    fr_t b0 = lz_add(a0, a1), b1 = lz_sub(a0, a1), b2 = lz_add(a2, a3), b3 = lz_sub(a2, a3);
    if (log_q > 0) b2 = lz_mul(b2, ldv(lt + LT_BASE(log_h) + j));  // span 2 (log_q = 0): j = 0, ω^0
    b3 = lz_mul(b3, ldv(lt + LT_BASE(log_h) + j + q));
    sm[base] = lz_add(b0, b2);
    sm[base + h] = lz_sub(b0, b2);
    sm[base + q] = lz_add(b1, b3);
    sm[base + h + q] = lz_sub(b1, b3);
}
// Loads/stores of the radix-4 shared kernel: 4 elements per thread, 2^(log_b − 2) threads.
HD void smem4_load(fr_t *sm, const fr_t *a, u32 blk, u32 tid, u32 log_b) {
    u64 off = (u64)blk << log_b;
    u32 qb = 1u << (log_b - 2);
    for (u32 k = 0; k < 4; k++) sm[tid + k * qb] = ldv(a + off + tid + k * qb);
}
// `canon`: the transform ends here (the DIF kernels), so the lazy values are reduced; the turn stores them lazy.
HD void smem4_store(const fr_t *sm, fr_t *a, u32 blk, u32 tid, u32 log_b, bool canon) {
    u64 off = (u64)blk << log_b;
    u32 qb = 1u << (log_b - 2);
    for (u32 k = 0; k < 4; k++) stv(a + off + tid + k * qb, lz_store(sm[tid + k * qb], canon));
}
HD void smem_store(const fr_t *sm, fr_t *a, u32 blk, u32 tid, u32 log_b) {
    u64 off = (u64)blk << log_b;
    u32 half_b = 1u << (log_b - 1);
    a[off + tid] = lz_canon(sm[tid]);
    a[off + tid + half_b] = lz_canon(sm[tid + half_b]);
}

// c·g^i from the two-level table: lo[i mod 2^lo_bits] · hi[i >> lo_bits] (c folded into hi).
HD fr_t pow_at(const fr_t *lo, const fr_t *hi, u32 i, u32 lo_bits) {
    return ldv(lo + (i & ((1u << lo_bits) - 1))) * ldv(hi + (i >> lo_bits));
}

// out[i] = lo·hi powers, i < count (twiddle table expansion).
HD void powers_body(fr_t *out, const fr_t *lo, const fr_t *hi, u32 i, u32 lo_bits) {
    out[i] = pow_at(lo, hi, i, lo_bits);
}

// In-place a[i] ← a[bitrev(i)]·(c·g^i if scale) for thread i < N (threads with i > bitrev(i) idle).
HD void bitrev_scale_body(fr_t *a, const fr_t *lo, const fr_t *hi, u32 i, u32 log_n, u32 lo_bits, bool scale) {
    u32 r = brev_bits(i, log_n);
    if (i > r) return;
    fr_t x = a[i], y = a[r];
    if (scale) {
        y = y * pow_at(lo, hi, i, lo_bits);
        x = x * pow_at(lo, hi, r, lo_bits);
    }
    a[i] = y;
    if (i != r) a[r] = x;
}

// a[i] ← a[i]·c·g^i (coset shift before a forward transform).
HD void scale_body(fr_t *a, const fr_t *lo, const fr_t *hi, u32 i, u32 lo_bits) {
    a[i] = a[i] * pow_at(lo, hi, i, lo_bits);
}

// compute_h's two combining permutations, in place on a (both inputs bit-reversed, a natural out), r = bitrev(i):
//   BR2_MUL: a[i] ← a[r]·b[r]              (the coset evaluations' product, before the last DIF⁻¹)
//   BR2_SUB: a[i] ← a[r]·s(i) − b[r]·zn    (s(i) = z·g^(−i)/N, zn = z/N, b = DIF⁻¹(c), z = 1/(g^N − 1))
// BR2_SUB is H = z·(icoset(A·B) − iNTT(C)): the inverse coset transform is linear and icoset(coset(C)) = iNTT(C),
// so C needs one transform instead of three (cpu/ntt.rs's compute_h derives it).
#define BR2_MUL 0u
#define BR2_SUB 1u
HD fr_t br2_op(const fr_t &x, const fr_t &y, const fr_t *lo, const fr_t *hi, const fr_t *zn, u32 idx, u32 lo_bits, u32 mode) {
    if (mode == BR2_MUL) return x * y;
    return x * pow_at(lo, hi, idx, lo_bits) - y * zn[0];
}
HD void bitrev2_body(fr_t *a, const fr_t *b, const fr_t *lo, const fr_t *hi, const fr_t *zn, u32 i, u32 log_n, u32 lo_bits, u32 mode) {
    u32 r = brev_bits(i, log_n);
    if (i > r) return;
    fr_t xi = a[i], xr = a[r], yi = b[i], yr = b[r];
    a[i] = br2_op(xr, yr, lo, hi, zn, i, lo_bits, mode);
    if (i != r) a[r] = br2_op(xi, yi, lo, hi, zn, r, lo_bits, mode);
}

// ---- Strided multi-stage passes (CUZK_NTT_PASS=1; the kernels above are the default path) ----
// One pass runs log_b ≤ SMEM_LOG radix-2 stages, spans 2^(p_lo+log_b−1) … 2^p_lo, in shared memory. With
// L = 2^p_lo and M = 2^(p_lo+log_b) (the size of the sub-transforms the pass starts), a block holds C = 2^log_c
// columns (consecutive low = P mod L, so C fr_t are contiguous in global memory) of 2^log_b elements each
// (m = (P >> p_lo) mod 2^log_b, stride L). Six-step split of the size-M transform: X[k1 + 2^B·k2] =
// Σ_low ω_L^(low·k2)·ω_M^(low·k1)·Σ_m x[m·L + low]·ω_(2^B)^(m·k1), B = log_b:
//   * DIF (natural → bit-reversed): the 2^B-point DIF of each column (compact twiddles lt), then the "twist"
//     ω_M^(±low·k1) with k1 = bitrev_B(m) on the way out; the remaining passes transform each m-row.
//   * DIT (bit-reversed → natural), the exact reverse: passes in the opposite order, the twist on the way in,
//     then the 2^B-point DIT of each column.
// Twists come from the two-level table of ω_N (tw_lo/tw_hi, exponents < N): no N/2-entry table. The last
// DIF pass / first DIT pass has p_lo = 0 (low = 0, no twist). Optional scaling by c·g^idx (second two-level
// table s_lo/s_hi) on load (idx = P) or on store (idx = P or bitrev_log_n(P)): 1/N and coset shifts.
#define PF_INV 1u         // ω^(−1) (inverse transform)
#define PF_DIT 2u         // decimation in time (bit-reversed in, natural out); else DIF
#define PF_LOAD_SCALE 4u  // x ← x·s(P) after the load
#define PF_STORE_SCALE 8u // x ← x·s(idx) before the store
#define PF_STORE_REV 16u  // the store's idx is bitrev_log_n(P) (the element's natural index in DIF output)
#define PF_LOAD_PW 32u    // x ← x·pw_b[P] on the load (compute_h's product of the coset evaluations, fused)
struct PassArgs {
    const fr_t *lt, *tw_lo, *tw_hi, *s_lo, *s_hi, *pw_b;
    u32 log_n, p_lo, log_b, log_c, lo_bits, flags;
};
// Shared layout: column-major, each column's 2^log_b elements contiguous (a stage's butterflies then read
// consecutive fr_t across a warp), columns padded by one fr_t when C ≤ 32 so that the loads and stores (lanes
// walk the C columns of one m first, for coalesced global access) fall in different banks.
#define SM_PAD_LOG_C 5
#define SM_LEN ((1u << SMEM_LOG) + (1u << SM_PAD_LOG_C))
HD u32 pass_sidx(const PassArgs &p, u32 col, u32 m) {
    u32 pad = p.log_c <= SM_PAD_LOG_C ? 1u : 0u;
    return col * ((1u << p.log_b) + pad) + m;
}
// Global index of flat element e = m·C + col of block blk; col, low and m out.
HD u32 pass_pos(const PassArgs &p, u32 blk, u32 e, u32 &col, u32 &low, u32 &m) {
    col = e & ((1u << p.log_c) - 1);
    m = e >> p.log_c;
    u32 gsh = p.p_lo - p.log_c;  // column groups per m-row: 2^gsh
    u32 lowgrp = blk & ((1u << gsh) - 1);
    u32 hi = blk >> gsh;
    low = (lowgrp << p.log_c) | col;
    return (hi << (p.p_lo + p.log_b)) | (m << p.p_lo) | low;
}
// ω_M^(±low·bitrev_B(m)) as a power of ω_N.
HD fr_t pass_twist(const PassArgs &p, u32 low, u32 m) {
    u32 k1 = brev_bits(m, p.log_b);
    u32 n_mask = (1u << p.log_n) - 1;
    u32 e = (low * k1) << (p.log_n - p.p_lo - p.log_b);
    if (p.flags & PF_INV) e = (0u - e) & n_mask;
    return pow_at(p.tw_lo, p.tw_hi, e, p.lo_bits);
}
// Thread tid of 2^(log_b−1+log_c) loads elements tid and tid + T.
HD void pass_load(fr_t *sm, const fr_t *a, const PassArgs &p, u32 blk, u32 tid) {
    u32 T = 1u << (p.log_b - 1 + p.log_c);
    for (u32 e = tid; e < 2 * T; e += T) {
        u32 col, low, m;
        u32 P = pass_pos(p, blk, e, col, low, m);
        fr_t x = a[P];
        if (p.flags & PF_LOAD_PW) x = x * p.pw_b[P];
        if (p.flags & PF_LOAD_SCALE) x = x * pow_at(p.s_lo, p.s_hi, P, p.lo_bits);
        if ((p.flags & PF_DIT) && p.p_lo > 0) x = x * pass_twist(p, low, m);
        sm[pass_sidx(p, col, m)] = x;
    }
}
// One radix-2 stage of local span 2^ls within every column (DIF or DIT butterfly); thread tid does butterfly
// u of column col (u fastest, so a warp stays in one column once log_b ≥ 6).
HD void pass_stage(fr_t *sm, const PassArgs &p, u32 tid, u32 ls) {
    u32 col = tid >> (p.log_b - 1);
    u32 u = tid & ((1u << (p.log_b - 1)) - 1);
    u32 h = 1u << ls;
    u32 j = u & (h - 1);
    u32 m0 = ((u >> ls) << (ls + 1)) + j;
    u32 i0 = pass_sidx(p, col, m0), i1 = i0 + h;
    bool inv = (p.flags & PF_INV) != 0;
    const fr_t *lt = p.lt + LT_BASE(ls);
    fr_t x = sm[i0], y = sm[i1];
    if (ls == 0) {  // span 1: the twiddle is ±1 and both directions and orders give (x + y, x − y)
        sm[i0] = lz_add(x, y);
        sm[i1] = lz_sub(x, y);
    } else if (p.flags & PF_DIT) {
        // y·ω_2h^(±j); ω_2h^(−j) = −ω_2h^(h−j), so the inverse swaps the sum and the difference.
        fr_t t = lz_mul(y, lt[inv ? h - j : j]);
        fr_t s = lz_add(x, t), d = lz_sub(x, t);
        sm[i0] = inv ? d : s;
        sm[i1] = inv ? s : d;
    } else {
        sm[i0] = lz_add(x, y);
        sm[i1] = dif_diff(x, y, lt, j, h, inv);
    }
}
HD void pass_store(const fr_t *sm, fr_t *a, const PassArgs &p, u32 blk, u32 tid) {
    u32 T = 1u << (p.log_b - 1 + p.log_c);
    for (u32 e = tid; e < 2 * T; e += T) {
        u32 col, low, m;
        u32 P = pass_pos(p, blk, e, col, low, m);
        fr_t x = lz_canon(sm[pass_sidx(p, col, m)]);  // each pass stores canonical values (a path kept simple)
        if (!(p.flags & PF_DIT) && p.p_lo > 0) x = x * pass_twist(p, low, m);
        if (p.flags & PF_STORE_SCALE) {
            u32 idx = (p.flags & PF_STORE_REV) ? brev_bits(P, p.log_n) : P;
            x = x * pow_at(p.s_lo, p.s_hi, idx, p.lo_bits);
        }
        a[P] = x;
    }
}

// Tiled bit reversal (pass path; log_n ≥ 2·BR_T): index i = (h | mid | l) with h, l of BR_T bits. bitrev(i) =
// (rev(l) | rev(mid) | rev(h)), so tile mid (all h, l: 2^BR_T rows of 2^BR_T contiguous fr_t) maps onto tile
// rev(mid), transposed. Block mid ≤ rev(mid) loads both tiles (coalesced 512 B rows), then writes each into
// the other's place, ·c·g^(destination) if scale — in place, blocks disjoint. 2^(2·BR_T) threads per block.
#define BR_T 4
#define BR_ROW ((1u << BR_T) + 1)  // padded row (transposed shared reads spread over the banks)
HD bool br_load(fr_t *sm, const fr_t *a, u32 blk, u32 tid, u32 log_n) {
    u32 mb = log_n - 2 * BR_T, rmid = brev_bits(blk, mb);
    if (blk > rmid) return false;
    u32 h = tid >> BR_T, l = tid & ((1u << BR_T) - 1);
    sm[h * BR_ROW + l] = ldv(a + ((h << (log_n - BR_T)) | (blk << BR_T) | l));
    sm[(BR_ROW << BR_T) + h * BR_ROW + l] = ldv(a + ((h << (log_n - BR_T)) | (rmid << BR_T) | l));
    return true;
}
HD void br_store(const fr_t *sm, fr_t *a, const fr_t *lo, const fr_t *hi, u32 blk, u32 tid, u32 log_n, u32 lo_bits, bool scale) {
    u32 mb = log_n - 2 * BR_T, rmid = brev_bits(blk, mb);
    u32 h = tid >> BR_T, l = tid & ((1u << BR_T) - 1);
    u32 src = brev_bits(l, BR_T) * BR_ROW + brev_bits(h, BR_T);  // the element landing at (h, ·, l)
    for (u32 k = 0; k < 2; k++) {
        if (k == 1 && rmid == blk) break;
        u32 dmid = k == 0 ? rmid : blk;        // tile blk goes to rmid, tile rmid to blk
        u32 idx = (h << (log_n - BR_T)) | (dmid << BR_T) | l;
        fr_t x = sm[(k << BR_T) * BR_ROW + src];
        if (scale) x = x * pow_at(lo, hi, idx, lo_bits);
        stv(a + idx, x);
    }
}

// ntt_smem_turn's middle: ·c·g^i at i = bitrev_log_n(P) for the thread's four elements of block blk.
HD void smem4_turn_scale(fr_t *sm, const fr_t *lo, const fr_t *hi, u32 blk, u32 tid, u32 log_b, u32 log_n, u32 lo_bits) {
    u32 qb = 1u << (log_b - 2);
    for (u32 k = 0; k < 4; k++) {
        u32 l = tid + k * qb;
        sm[l] = lz_mul(sm[l], pow_at(lo, hi, brev_bits((blk << log_b) + l, log_n), lo_bits));
    }
}
// br_load for both of bitrev2's inputs: a's two tiles, then b's.
HD bool br2_load(fr_t *sm, const fr_t *a, const fr_t *b, u32 blk, u32 tid, u32 log_n) {
    if (!br_load(sm, a, blk, tid, log_n)) return false;
    br_load(sm + (2 * BR_ROW << BR_T), b, blk, tid, log_n);
    return true;
}
// br_store with bitrev2's combination (BR2_MUL / BR2_SUB above) instead of the scale.
HD void br2_store(const fr_t *sm, fr_t *a, const fr_t *lo, const fr_t *hi, const fr_t *zn, u32 blk, u32 tid, u32 log_n, u32 lo_bits, u32 mode) {
    u32 mb = log_n - 2 * BR_T, rmid = brev_bits(blk, mb);
    u32 h = tid >> BR_T, l = tid & ((1u << BR_T) - 1);
    u32 src = brev_bits(l, BR_T) * BR_ROW + brev_bits(h, BR_T);
    for (u32 k = 0; k < 2; k++) {
        if (k == 1 && rmid == blk) break;
        u32 dmid = k == 0 ? rmid : blk;
        u32 idx = (h << (log_n - BR_T)) | (dmid << BR_T) | l;
        u32 at = (k << BR_T) * BR_ROW + src;
        stv(a + idx, br2_op(sm[at], sm[(2 * BR_ROW << BR_T) + at], lo, hi, zn, idx, lo_bits, mode));
    }
}

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
// lt: the compact table above (LT_LEN fr_t).
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

// grid = N >> (log_b + log_c) blocks, block = 2^(log_b − 1 + log_c) ≤ 512 threads (log_b + log_c ≤ SMEM_LOG).
extern "C" __global__ void __launch_bounds__(512) ntt_pass(u64 *a, const u64 *__restrict__ lt, const u64 *__restrict__ tw_lo, const u64 *__restrict__ tw_hi, const u64 *__restrict__ s_lo, const u64 *__restrict__ s_hi, const u64 *__restrict__ pw_b, u32 log_n, u32 p_lo, u32 log_b, u32 log_c, u32 lo_bits, u32 flags) {
    __shared__ fr_t sm[SM_LEN];
    PassArgs p = {CFR(lt), CFR(tw_lo), CFR(tw_hi), CFR(s_lo), CFR(s_hi), CFR(pw_b), log_n, p_lo, log_b, log_c, lo_bits, flags};
    u32 tid = threadIdx.x, blk = blockIdx.x;
    pass_load(sm, CFR(a), p, blk, tid);
    __syncthreads();
    if (flags & PF_DIT) {
        for (u32 ls = 0; ls < log_b; ls++) {
            pass_stage(sm, p, tid, ls);
            __syncthreads();
        }
    } else {
        for (int ls = (int)log_b - 1; ls >= 0; ls--) {
            pass_stage(sm, p, tid, (u32)ls);
            __syncthreads();
        }
    }
    pass_store(sm, FR(a), p, blk, tid);
}

// grid = 2^(log_n − 2·BR_T) blocks (half exit at once), block = 2^(2·BR_T) threads; log_n ≥ 2·BR_T.
extern "C" __global__ void __launch_bounds__(256) ntt_bitrev_tile(u64 *a, const u64 *__restrict__ lo, const u64 *__restrict__ hi, u32 log_n, u32 lo_bits, u32 scale) {
    __shared__ fr_t sm[2 * BR_ROW << BR_T];
    if (!br_load(sm, CFR(a), blockIdx.x, threadIdx.x, log_n)) return;  // uniform per block
    __syncthreads();
    br_store(sm, FR(a), CFR(lo), CFR(hi), blockIdx.x, threadIdx.x, log_n, lo_bits, scale != 0);
}

// As ntt_bitrev_tile, combining two inputs (bitrev2 above): grid 2^(log_n − 2·BR_T), 256 threads, log_n ≥ 2·BR_T.
extern "C" __global__ void __launch_bounds__(256) ntt_bitrev_tile2(u64 *a, const u64 *__restrict__ b, const u64 *__restrict__ lo, const u64 *__restrict__ hi, const u64 *__restrict__ zn, u32 log_n, u32 lo_bits, u32 mode) {
    __shared__ fr_t sm[4 * BR_ROW << BR_T];
    if (!br2_load(sm, CFR(a), CFR(b), blockIdx.x, threadIdx.x, log_n)) return;  // uniform per block
    __syncthreads();
    br2_store(sm, FR(a), CFR(lo), CFR(hi), CFR(zn), blockIdx.x, threadIdx.x, log_n, lo_bits, mode);
}

#endif
