// Pippenger MSM for G1: Σ sᵢ·Pᵢ with signed (Booth) window digits and buckets filled by a counting sort.
// Steps 1–4 below are group-free and serve G2 too; steps 5–7 are templated over the point type in
// msm_accum.cuh, instantiated here for G1 and in msm_g2.cu for G2 (B_G2, toggle `g2d`).
//
// Scalar recoding is the CPU's (src/backend/cpu/digits.rs): s (Montgomery) → canonical; if s > (r − 1)/2 use
// r − s and flag the point as negated (bit 63 of limb 3), so values are < 2^254 and ⌈255/c⌉ windows suffice;
// window w's digit d = v + b_{wc−1} − 2^c·b_{wc+c−1} ∈ [−2^(c−1), 2^(c−1)], no carry between windows.
// Digit d ≠ 0 puts ±P in bucket |d| − 1 of its window (nb = 2^(c−1) buckets per window).
//
// Launch sequence (src/backend/gpu/msm.rs; cuda/hostcheck emulates exactly this), B = block size:
//   msm_prep<<<⌈n/B⌉, B>>>(scalars, n, limbs)                       once: recoded limbs (4 u64 per scalar)
//   then per pass over windows [w0, w0 + G) (G windows at once, G·n ≤ 2^28, and from 2^22 points half the
//   windows — see msm.rs split_for):
//   1. msm_zero_u32<<<⌈(M+1)/B⌉, B>>>(offsets, M + 1)               M = G·nb bucket counters; buckets zeroed
//   2. msm_digits<<<⌈n/B⌉, B>>>(limbs, n, c, w0, nb, G, fold, keys, ranks, offsets)   one read of the limbs,
//        all G windows: key = bucket << 1 | negate (or NONE), rank = atomicAdd(counter[g·nb + bucket], 1)
//   3. msm_scan_a<<<⌈T/B⌉, B>>>(offsets, M + 1, len, csum)          T = ⌈(M+1)/len⌉ chunk sums
//      msm_scan_b<<<1, 1>>>(csum, T)                                exclusive scan of the chunk sums
//      msm_scan_c<<<⌈T/B⌉, B>>>(offsets, M + 1, len, csum)          counters → exclusive offsets (offsets[M] = total)
//   4. msm_scatter<<<(⌈n/B⌉, G), B>>>(keys, ranks, n, nb, w0, fold, offsets, sorted)
//        sorted[off + rank] = i << 1 | negate
//   5. msm_g1_accum_flat<<<⌈T1/B⌉, B>>>(bases, sorted, offsets, M, k1, buckets, partsA, bkey)    level 1
//      msm_g1_accum_fix<<<⌈T1/B⌉, B>>>(offsets, M, k1, bkey, partsA, buckets)   buckets cut over ≤ 9 slices
//      msm_g1_accum_parts<<<⌈Tl/B⌉, B>>>(offsets, M, l, k1, kr, parts, buckets, parts')  levels l = 2 … L,
//        ping-pong between partsA and partsB; L and the Tl from the worst case (msm.rs Plan::levels)
//   6. msm_g1_bucket_reduce<<<(⌈S/B⌉, G), B>>>(buckets, nb, L, S, segs)     S segments of L buckets per window:
//        acc_s = Σ_{b∈seg} (b − lo + 1)·B_b (running sum of running sums) and run_s = Σ_{b∈seg} B_b
//   7. msm_g1_window_final<<<G, 128>>>(segs, S, L, w0, fold, windows)   per window: Σ_s acc_s + L·Σ_s s·run_s,
//        each thread over a strided set of segments, then a shared-memory tree
//   host: Horner over the windows with blstrs (⌈255/c⌉ windows, c doublings each).
// Shifted bases (fold = stride S ≥ n; bases = msm_shift_bases' W·S points, 2^(c·j)·P_i at j·S + i): M = nb
// (the pass's windows share one bucket set), counters at [bucket], entries name base (w0 + g)·S + i, step 6
// runs one window (G = 1), step 7 F blocks over F runs of the segments (msm.rs FOLD_FINAL) into slots
// [pass·F, pass·F + F); the host adds the slots (no doublings).
// No host round trip inside a pass. With two passes or more and two buffer sets (keys, ranks, sorted,
// offsets, buckets), steps 1–4 of pass k + 1 and 6–7 of pass k run on a second stream while step 5 of pass
// k runs (msm.rs; the kernels are the same, only the streams differ). The segments per window S stay those
// of the unsplit pass.
//
// Device memory per pass (bytes): keys, ranks, sorted 3·4·G·n; offsets 4·(M + 1); csum 4·T; buckets 192·M
// (these five twice with two sets); partial sums 192·2·(T1 + T2) and their bucket keys 4·T1; segments 2·192·G·S;
// plus limbs 32·n and windows 144·⌈255/c⌉. scratch_bytes() in msm.rs computes exactly this.
//
// Host check (no GPU needed; runs these kernel bodies on the CPU in this launch sequence):
//   python3 cuda/hostcheck/check.py
//
// Registers / spills (nvcc 13.0 -arch=sm_90 -cubin -Xptxas -v): msm_g1_accum_flat 178 registers, no spills (96 B
// of stack for the out-of-line doubling and XYZZ addition calls), so two 128-thread blocks per SM; the
// accumulation is bound by the IMAD.WIDE pipe, not by latency (a 128-register cap, four blocks per SM, measured
// no faster). Level-1 accumulation is ~80% of an MSM's device time at 2^24 (106.5 of 131 ms, every stage on one
// stream; docs/PERF.md, "The MSM's passes on two streams").
#include "msm_accum.cuh"

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

// Thread i reads scalar i's recoded limbs once and files its digit in every window g < gcount of the pass.
// fold ≠ 0 (shifted bases, see msm_shift_bases): the pass's windows share one set of nb counters.
extern "C" __global__ void msm_digits(const u64 *limbs, u32 n, u32 c, u32 w0, u32 nb, u32 gcount, u32 fold,
                                      u32 *keys, u32 *ranks, u32 *counts) {
    u32 i = tid_x();
    if (i >= n) return;
    u64 l[4];
#pragma unroll
    for (int k = 0; k < 4; k++) l[k] = limbs[4 * (u64)i + k];
    bool flag = (l[3] >> 63) != 0;
    l[3] &= ~(1ull << 63);
    for (u32 g = 0; g < gcount; g++) {
        i32 d = msm_booth_digit(l, w0 + g, c);
        u64 at = (u64)g * n + i;
        if (d == 0) {
            keys[at] = MSM_NONE;
            continue;
        }
        u32 b = (u32)(d < 0 ? -d : d) - 1;
        u32 neg = (u32)((d < 0) != flag);
        keys[at] = (b << 1) | neg;
        ranks[at] = atomic_inc_u32(&counts[(fold ? 0 : (u64)g * nb) + b]);
    }
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

// fold ≠ 0: one bucket set for the pass, and the entry names base (w0 + g)·fold + i, i.e. 2^(c·(w0 + g))·P_i
// (fold: the shifted copies' stride, msm_shift_bases' n).
extern "C" __global__ void msm_scatter(const u32 *keys, const u32 *ranks, u32 n, u32 nb, u32 w0, u32 fold,
                                       const u32 *offsets, u32 *sorted) {
    u32 i = tid_x();
    u32 g = tid_y();
    if (i >= n) return;
    u64 at = (u64)g * n + i;
    u32 key = keys[at];
    if (key == MSM_NONE) return;
    u32 idx = fold ? (w0 + g) * fold + i : i;  // < 2^31 (msm.rs checks windows·fold)
    sorted[offsets[(fold ? 0 : (u64)g * nb) + (key >> 1)] + ranks[at]] = (idx << 1) | (key & 1);
}

// ---- Shifted bases (resident SRS, msm_shift.rs) ----
//
// out[j·n + i] = 2^(c·j)·P_i in affine (blst layout; the identity stays all-zero) for j < windows, so that an
// MSM over them needs no per-window buckets: every window's digit of s_i files base (j, i) into one shared
// bucket set (fold), and there is no Horner combination. Thread i doubles P_i in XYZZ; every MSM_SHIFT_CH
// windows share one inversion (Montgomery's trick over the thread's own points: d = ZZ·ZZZ = Z^5, then
// 1/ZZ = ZZZ/d and 1/ZZZ = ZZ/d). X and Y wait in `out` for their inverse.
#define MSM_SHIFT_CH 8
// a^(p − 2), a ≠ 0. Loops kept rolled: Fe::pow's unrolled 384 steps made NVRTC take 140 s for this module
// instead of ~15.
HD_COLD fp_t msm_fp_inv(const fp_t &a) {
    const u64 e[6] = {0xb9feffffffffaaa9ull, 0x1eabfffeb153ffffull, 0x6730d2a0f6b0f624ull,
                      0x64774b84f38512bfull, 0x4b1ba7b6434bacd7ull, 0x1a0111ea397fe69aull};
    fp_t acc = fp_t::one();
#pragma unroll 1
    for (int w = 5; w >= 0; w--) {
#pragma unroll 1
        for (int b = 63; b >= 0; b--) {
            acc = acc.sqr();
            if ((e[w] >> b) & 1) acc = acc * a;
        }
    }
    return acc;
}
extern "C" __global__ void msm_shift_bases(const g1_affine_t *bases, u32 n, u32 c, u32 windows, g1_affine_t *out) {
    u32 i = tid_x();
    if (i >= n) return;
    g1_affine_t p = bases[i];
    out[i] = p;
    if (p.is_inf()) {
        for (u32 j = 1; j < windows; j++) out[(u64)j * n + i] = p;
        return;
    }
    g1_xyzz_t q = g1_xyzz_t::from_affine(p);
    fp_t zz[MSM_SHIFT_CH], zzz[MSM_SHIFT_CH], pre[MSM_SHIFT_CH];
    for (u32 j0 = 1; j0 < windows; j0 += MSM_SHIFT_CH) {
        u32 cnt = windows - j0 < MSM_SHIFT_CH ? windows - j0 : MSM_SHIFT_CH;
        fp_t run = fp_t::one();
#pragma unroll 1
        for (u32 k = 0; k < cnt; k++) {
            for (u32 b = 0; b < c; b++) q = q.dbl();  // never the identity: 2^k·P ≠ O for P of prime order r
            out[(u64)(j0 + k) * n + i] = {q.X, q.Y};
            zz[k] = q.ZZ;
            zzz[k] = q.ZZZ;
            run = run * (q.ZZ * q.ZZZ);
            pre[k] = run;
        }
        fp_t inv = msm_fp_inv(run);  // 1 / Π d_k
#pragma unroll 1
        for (u32 k = cnt; k-- > 0;) {
            fp_t d_inv = k > 0 ? inv * pre[k - 1] : inv;  // 1 / d_k
            inv = inv * (zz[k] * zzz[k]);
            g1_affine_t &o = out[(u64)(j0 + k) * n + i];
            g1_affine_t a = o;
            o = {a.x * (d_inv * zzz[k]), a.y * (d_inv * zz[k])};
        }
    }
}

// ---- Steps 5–7 for G1: the templated bodies of msm_accum.cuh ----

extern "C" __global__ void msm_g1_accum_flat(const g1_affine_t *bases, const u32 *sorted, const u32 *offsets,
                                             u32 m, u32 k1, g1_xyzz_t *buckets, g1_xyzz_t *part_out,
                                             u32 *b_key) {
    msm_flat_body<fp_t, true>(bases, sorted, offsets, m, k1, buckets, part_out, b_key);
}

extern "C" __global__ void msm_g1_accum_fix(const u32 *offsets, u32 m, u32 k1, const u32 *b_key,
                                            const g1_xyzz_t *part_in, g1_xyzz_t *buckets) {
    msm_fix_body<fp_t>(offsets, m, k1, b_key, part_in, buckets);
}

extern "C" __global__ void msm_g1_accum_parts(const u32 *offsets, u32 m, u32 level, u32 k1, u32 kr,
                                              const g1_xyzz_t *part_in, g1_xyzz_t *buckets,
                                              g1_xyzz_t *part_out) {
    msm_parts_body<fp_t>(offsets, m, level, k1, kr, part_in, buckets, part_out);
}

extern "C" __global__ void msm_g1_bucket_reduce(const g1_xyzz_t *buckets, u32 nb, u32 seg_len, u32 segs,
                                                g1_xyzz_t *seg_out) {
    msm_reduce_body<fp_t>(buckets, nb, seg_len, segs, seg_out);
}

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
extern "C" __global__ void __launch_bounds__(MSM_FINAL_T) msm_g1_window_final(const g1_xyzz_t *segs_in, u32 segs,
                                                                               u32 seg_len, u32 w0, u32 fold,
                                                                               g1_jacobian_t *windows) {
    msm_window_final_body<fp_t, MSM_FINAL_T>(segs_in, segs, seg_len, w0, fold, windows);
}
#endif
