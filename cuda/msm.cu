// Pippenger MSM for G1: Σ sᵢ·Pᵢ with signed (Booth) window digits and buckets filled by a counting sort.
//
// Scalar recoding is the CPU's (src/backend/cpu/digits.rs): s (Montgomery) → canonical; if s > (r − 1)/2 use
// r − s and flag the point as negated (bit 63 of limb 3), so values are < 2^254 and ⌈255/c⌉ windows suffice;
// window w's digit d = v + b_{wc−1} − 2^c·b_{wc+c−1} ∈ [−2^(c−1), 2^(c−1)], no carry between windows.
// Digit d ≠ 0 puts ±P in bucket |d| − 1 of its window (nb = 2^(c−1) buckets per window).
//
// Launch sequence (src/backend/gpu/msm.rs; cuda/hostcheck emulates exactly this), B = block size:
//   msm_prep<<<⌈n/B⌉, B>>>(scalars, n, limbs)                       once: recoded limbs (4 u64 per scalar)
//   then per pass over windows [w0, w0 + G) (G windows at once, G·n ≤ 2^28 — see msm.rs):
//   1. msm_zero_u32<<<⌈(M+1)/B⌉, B>>>(offsets, M + 1)               M = G·nb bucket counters
//   2. msm_digits<<<(⌈n/B⌉, G), B>>>(limbs, n, c, w0, nb, keys, ranks, offsets)
//        key = bucket << 1 | negate (or NONE), rank = atomicAdd(counter[g·nb + bucket], 1)
//   3. msm_scan_a<<<⌈T/B⌉, B>>>(offsets, M + 1, len, csum)          T = ⌈(M+1)/len⌉ chunk sums
//      msm_scan_b<<<1, 1>>>(csum, T)                                exclusive scan of the chunk sums
//      msm_scan_c<<<⌈T/B⌉, B>>>(offsets, M + 1, len, csum)          counters → exclusive offsets (offsets[M] = total)
//   4. msm_scatter<<<(⌈n/B⌉, G), B>>>(keys, ranks, n, nb, offsets, sorted)   sorted[off + rank] = i << 1 | negate
//   5. host reads the offsets back (one 4·(M+1)-byte copy per pass); buckets of more than `big` points
//      (big = max(256, 4·⌈n/nb⌉, 65th largest count), msm.rs `big_buckets`) are each summed by
//        msm_g1_range_partial<<<⌈P/B⌉, B>>>(bases, sorted, a, b, 256, parts)   P = ⌈(b − a)/256⌉ threads
//        msm_g1_range_reduce (32 per thread) while more than 64 remain, msm_g1_range_finish<<<1, 1>>> → buckets[j]
//      msm_g1_bucket_sum<<<⌈M/B⌉, B>>>(bases, sorted, offsets, M, big, buckets)  one thread per other bucket
//   6. msm_g1_bucket_reduce<<<(⌈S/B⌉, G), B>>>(buckets, nb, L, S, segs)     S segments of L buckets per window:
//        Σ_{b∈seg} (b+1)·B_b = (running sum of running sums) + lo·(Σ B_b)
//   7. msm_g1_window_final<<<⌈G/B⌉, B>>>(segs, S, G, w0, windows)          Σ segments → Jacobian windows[w0 + g]
//   host: Horner over the windows with blstrs (⌈255/c⌉ windows, c doublings each).
//
// Device memory per pass (bytes): keys, ranks, sorted 3·4·G·n; offsets 4·(M + 1); csum 4·T;
// buckets 192·M; segments 192·G·S; plus limbs 32·n, windows 144·⌈255/c⌉ and the large-bucket partial sums
// 192·(⌈n/256⌉ + ⌈n/8192⌉ + 1) once. scratch_bytes() in msm.rs
// computes exactly this.
//
// Host check (no GPU needed; runs these kernel bodies on the CPU in this launch sequence):
//   python3 cuda/hostcheck/check.py
//
// Known limitations (next issue): one thread per ordinary bucket (up to `big` points serially); each large
// bucket costs a few launches, so at most 64 per pass go that way (the largest; `big` rises to the 65th
// largest count); the window's S = 2^(⌈c/2⌉−1) segment sums (128 at c = 16) are added by one thread per
// window, the scan's chunk sums by one thread. No shared memory or warp cooperation yet.
//
// Registers / spills (nvcc 13.0 -arch=sm_90 -cubin -Xptxas -v; no spills anywhere):
//   msm_g1_bucket_sum 166 regs (96 B stack: the out-of-line doubling call), msm_g1_bucket_reduce 178 regs
//   (768 B stack), msm_g1_window_final 176 regs (192 B stack), msm_g1_range_partial/reduce/finish 180/186/170
//   (96/192/192 B stack), msm_prep 32, msm_scan_a/b/c 18/30/32,
//   msm_digits 18 (32 B stack: the limb array), msm_scatter 14, msm_zero_u32 8.
//   cuda/batch_add.cu: g1 partial 168, reduce 252, finish 178; g2 partial 248, reduce 232, finish 222
//   (G2: 1.3–1.7 KB stack frames from out-of-line Fp2 multiplication).
// ptxas time is dominated by the inlined G1 XYZZ formulas: ~1–2 min CPU per module on the 2-core dev machine
// (NVRTC: msm.cu ~2 min wall there under load); the cubin cache makes it once per machine.
#include "curve.cuh"

#define MSM_NONE 0xffffffffu

// r and (r − 1)/2, little-endian limbs (digits.rs R / HALF_R).
HD u64 msm_r(int i) {
    switch (i) {
    case 0: return 0xffffffff00000001ull;
    case 1: return 0x53bda402fffe5bfeull;
    case 2: return 0x3339d80809a1d805ull;
    default: return 0x73eda753299d7d48ull;
    }
}
HD u64 msm_half_r(int i) {
    switch (i) {
    case 0: return 0x7fffffff80000000ull;
    case 1: return 0xa9ded2017fff2dffull;
    case 2: return 0x199cec0404d0ec02ull;
    default: return 0x39f6d3a994cebea4ull;
    }
}

// `len` (≤ 32) bits of the 256-bit l starting at `pos`; bits past 255 read as zero (digits.rs `bits`).
HD u32 msm_bits(const u64 *l, u32 pos, u32 len) {
    u32 limb = pos / 64;
    if (limb >= 4) return 0;
    u32 off = pos % 64;
    u64 v = l[limb] >> off;
    if (off + len > 64 && limb + 1 < 4) v |= l[limb + 1] << (64 - off);
    return (u32)(v & ((1ull << len) - 1));
}

// Booth digit of window w, width c (digits.rs `booth_digit`); l[3]'s flag bit must be cleared.
HD i32 msm_booth_digit(const u64 *l, u32 w, u32 c) {
    u32 raw = w == 0 ? msm_bits(l, 0, c) << 1 : msm_bits(l, w * c - 1, c + 1);
    u32 top = (raw >> c) & 1;
    return (i32)((raw >> 1) + (raw & 1)) - (i32)(top << c);
}

extern "C" __global__ void msm_prep(const fr_t *scalars, u32 n, u64 *limbs) {
    u32 i = tid_x();
    if (i >= n) return;
    fr_t s = scalars[i].from_mont();
    // s > (r − 1)/2 ?
    bool gt = false, decided = false;
#pragma unroll
    for (int k = 3; k >= 0; k--) {
        if (!decided && s.v[k] != msm_half_r(k)) {
            gt = s.v[k] > msm_half_r(k);
            decided = true;
        }
    }
    u64 out[4];
    if (gt) {
        u64 borrow = 0;
#pragma unroll
        for (int k = 0; k < 4; k++) out[k] = sbb(msm_r(k), s.v[k], borrow);
        out[3] |= 1ull << 63;
    } else {
#pragma unroll
        for (int k = 0; k < 4; k++) out[k] = s.v[k];
    }
#pragma unroll
    for (int k = 0; k < 4; k++) limbs[4 * (u64)i + k] = out[k];
}

extern "C" __global__ void msm_zero_u32(u32 *p, u32 m) {
    u32 i = tid_x();
    if (i < m) p[i] = 0;
}

extern "C" __global__ void msm_digits(const u64 *limbs, u32 n, u32 c, u32 w0, u32 nb, u32 *keys, u32 *ranks,
                                      u32 *counts) {
    u32 i = tid_x();
    u32 g = tid_y();
    if (i >= n) return;
    u64 l[4];
#pragma unroll
    for (int k = 0; k < 4; k++) l[k] = limbs[4 * (u64)i + k];
    bool flag = (l[3] >> 63) != 0;
    l[3] &= ~(1ull << 63);
    i32 d = msm_booth_digit(l, w0 + g, c);
    u64 at = (u64)g * n + i;
    if (d == 0) {
        keys[at] = MSM_NONE;
        return;
    }
    u32 b = (u32)(d < 0 ? -d : d) - 1;
    u32 neg = (u32)((d < 0) != flag);
    keys[at] = (b << 1) | neg;
    ranks[at] = atomic_inc_u32(&counts[(u64)g * nb + b]);
}

// Chunk t of the m counters: csum[t] = Σ counts[t·len, t·len + len).
extern "C" __global__ void msm_scan_a(const u32 *counts, u32 m, u32 len, u32 *csum) {
    u32 t = tid_x();
    u64 a = (u64)t * len;
    if (a >= m) return;
    u64 b = a + len < m ? a + len : m;
    u32 s = 0;
    for (u64 i = a; i < b; i++) s += counts[i];
    csum[t] = s;
}

// Exclusive scan of the t chunk sums, one thread.
extern "C" __global__ void msm_scan_b(u32 *csum, u32 t) {
    if (tid_x() != 0) return;
    u32 run = 0;
    for (u32 i = 0; i < t; i++) {
        u32 v = csum[i];
        csum[i] = run;
        run += v;
    }
}

// Chunk t: counters → exclusive prefix sums, starting from the chunk's scanned csum[t].
extern "C" __global__ void msm_scan_c(u32 *counts, u32 m, u32 len, const u32 *csum) {
    u32 t = tid_x();
    u64 a = (u64)t * len;
    if (a >= m) return;
    u64 b = a + len < m ? a + len : m;
    u32 run = csum[t];
    for (u64 i = a; i < b; i++) {
        u32 v = counts[i];
        counts[i] = run;
        run += v;
    }
}

extern "C" __global__ void msm_scatter(const u32 *keys, const u32 *ranks, u32 n, u32 nb, const u32 *offsets,
                                       u32 *sorted) {
    u32 i = tid_x();
    u32 g = tid_y();
    if (i >= n) return;
    u64 at = (u64)g * n + i;
    u32 key = keys[at];
    if (key == MSM_NONE) return;
    sorted[offsets[(u64)g * nb + (key >> 1)] + ranks[at]] = (i << 1) | (key & 1);
}

// Bucket j (of M = G·nb): Σ ±bases over sorted[offsets[j], offsets[j+1]). Buckets of more than `big`
// points are left to the msm_g1_range_* kernels (launched by the host for each of them).
extern "C" __global__ void msm_g1_bucket_sum(const g1_affine_t *bases, const u32 *sorted, const u32 *offsets,
                                             u32 m, u32 big, g1_xyzz_t *buckets) {
    u32 j = tid_x();
    if (j >= m) return;
    u32 a = offsets[j], b = offsets[j + 1];
    if (b - a > big) return;
    g1_xyzz_t acc = g1_xyzz_t::identity();
    for (u32 k = a; k < b; k++) {
        u32 e = sorted[k];
        g1_affine_t p = bases[e >> 1];
        if (e & 1) p = p.neg();
        acc.add_affine(p);
    }
    buckets[j] = acc;
}

// A large bucket, sorted[a, b), summed by many threads: thread t takes `per` entries → parts[t].
extern "C" __global__ void msm_g1_range_partial(const g1_affine_t *bases, const u32 *sorted, u32 a, u32 b,
                                                u32 per, g1_xyzz_t *parts) {
    u32 t = tid_x();
    u64 lo = a + (u64)t * per;
    if (lo >= b) return;
    u64 hi = lo + per < b ? lo + per : b;
    g1_xyzz_t acc = g1_xyzz_t::identity();
    for (u64 k = lo; k < hi; k++) {
        u32 e = sorted[k];
        g1_affine_t p = bases[e >> 1];
        if (e & 1) p = p.neg();
        acc.add_affine(p);
    }
    parts[t] = acc;
}

// Thread t: out[t] = Σ in[t·k, t·k + k) (of m).
extern "C" __global__ void msm_g1_range_reduce(const g1_xyzz_t *in, u32 m, u32 k, g1_xyzz_t *out) {
    u32 t = tid_x();
    u64 a = (u64)t * k;
    if (a >= m) return;
    u64 b = a + k < m ? a + k : m;
    g1_xyzz_t acc = in[a];
    for (u64 i = a + 1; i < b; i++) acc.add(in[i]);
    out[t] = acc;
}

// One thread: buckets[j] = Σ in[0, m).
extern "C" __global__ void msm_g1_range_finish(const g1_xyzz_t *in, u32 m, g1_xyzz_t *buckets, u32 j) {
    if (tid_x() != 0) return;
    g1_xyzz_t acc = g1_xyzz_t::identity();
    for (u32 i = 0; i < m; i++) acc.add(in[i]);
    buckets[j] = acc;
}

// Segment s of window g: buckets [lo, hi) with lo = s·L → Σ_{b=lo}^{hi−1} (b + 1)·B_b.
extern "C" __global__ void msm_g1_bucket_reduce(const g1_xyzz_t *buckets, u32 nb, u32 seg_len, u32 segs,
                                                g1_xyzz_t *seg_out) {
    u32 s = tid_x();
    u32 g = tid_y();
    if (s >= segs) return;
    u32 lo = s * seg_len;
    u32 hi = lo + seg_len < nb ? lo + seg_len : nb;
    const g1_xyzz_t *bk = buckets + (u64)g * nb;
    g1_xyzz_t run = g1_xyzz_t::identity(), acc = g1_xyzz_t::identity();
    for (u32 b = hi; b > lo; b--) {
        run.add(bk[b - 1]);
        acc.add(run);  // Σ (b − lo + 1)·B_b
    }
    if (lo != 0) acc.add(run.mul_small(lo));
    seg_out[(u64)g * segs + s] = acc;
}

extern "C" __global__ void msm_g1_window_final(const g1_xyzz_t *segs_in, u32 segs, u32 gcount, u32 w0,
                                               g1_jacobian_t *windows) {
    u32 g = tid_x();
    if (g >= gcount) return;
    g1_xyzz_t acc = g1_xyzz_t::identity();
    for (u32 s = 0; s < segs; s++) acc.add(segs_in[(u64)g * segs + s]);
    windows[w0 + g] = acc.to_jacobian();
}
