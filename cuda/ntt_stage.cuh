// The NTT kernels' element operations and per-thread bodies (cuda/ntt.cu has the scheme and the kernels):
// the lazy form, fr_t's 16-byte global accesses, the radix-2/4/8 DIF and DIT bodies, the shared-memory stages,
// the two-level power tables and the per-element permutations. Plain functions over a thread's index, so
// cuda/hostcheck runs them on the CPU.
#pragma once
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
