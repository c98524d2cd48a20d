// Pippenger MSM for G1: Σ sᵢ·Pᵢ with signed (Booth) window digits and buckets filled by a counting sort.
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

// ---- Bucket accumulation: even split of the sorted entries, whatever the bucket sizes ----
//
// Level 1: thread t sums entries [t·k1, t·k1 + k1) of `sorted` (all windows of the pass, bucket after
// bucket). A bucket whose entries lie wholly in the slice is written to buckets[b]; the run at the slice's
// start that began earlier goes to slot 2t of the partial sums ("A"), a run that starts inside and continues
// past the end to slot 2t + 1 ("B"); a thread whose whole slice is one run writes the identity to B. So a
// bucket b cut at level 1 over threads ts < te leaves its partial sums in slots 2·ts + 1 and 2t' (ts < t' ≤ te).
// Fix-up (msm_g1_accum_fix): a bucket cut over at most MSM_SPAN_MAX + 1 threads (every bucket, for random
// scalars) is finished by one thread, ≤ MSM_SPAN_MAX additions. Longer ones (repeated scalars: one bucket
// takes most entries of its window) go through levels 2, 3, …: the same walk over slot ranges
// [2·ts + 1, 2·te + 1) (msm_range), kr items per thread, until no bucket is cut (the host launches enough
// levels for the worst case, every entry in one bucket). Every chain is ≤ k1 mixed additions (level 1) or
// ≤ kr or MSM_SPAN_MAX XYZZ additions, so random scalars, all-equal scalars and runs of ±1 cost about the same.
// Buckets nothing reaches stay as zeroed by the host (XYZZ identity).
#define MSM_SPAN_MAX 8

// Bucket b's range of items at `level` (1: its entries in `sorted`): [s, e). Cut ranges map to their
// partial slots; uncut ones, those the fix-up finishes (level 2) and empty ones to an empty range at the same
// place, so s and e never decrease in b.
HD void msm_range(const u32 *off, u32 b, u32 level, u32 k1, u32 kr, u32 &s, u32 &e) {
    s = off[b];
    e = off[b + 1];
    for (u32 l = 1; l < level; l++) {
        u32 k = l == 1 ? k1 : kr;
        u32 ts = s / k, te = s == e ? ts : (e - 1) / k;
        s = 2 * ts + 1;
        e = ts == te || (l == 1 && te - ts <= MSM_SPAN_MAX) ? s : 2 * te + 1;
    }
}

// The first bucket b' ≥ b (of m) whose range ends after position q (m if none): b itself when it does, else
// a binary search (ranges' ends never decrease in b).
HD u32 msm_next(const u32 *off, u32 m, u32 level, u32 k1, u32 kr, u32 b, u32 q) {
    u32 s, e;
    if (b >= m) return m;
    msm_range(off, b, level, k1, kr, s, e);
    if (e > q) return b;
    u32 lo = b + 1, hi = m;
    while (lo < hi) {
        u32 mid = lo + (hi - lo) / 2;
        msm_range(off, mid, level, k1, kr, s, e);
        if (e > q)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

// Thread t's walk over its slice [t·k, t·k + k) at `level`; `item(p, acc)` adds item p to acc.
template <class Item>
DEV void msm_accum_walk(const u32 *off, u32 m, u32 level, u32 k1, u32 kr, u32 t, g1_xyzz_t *buckets,
                        g1_xyzz_t *part_out, u32 *b_key, Item item) {
    u32 k = level == 1 ? k1 : kr;
    u32 p0 = t * k, p1 = p0 + k;
    u32 q = p0;
    u32 b = msm_next(off, m, level, k1, kr, 0, q);
    while (b < m) {
        u32 s, e;
        msm_range(off, b, level, k1, kr, s, e);
        if (s >= p1) break;
        if (s < e) {
            u32 a = s > p0 ? s : p0, z = e < p1 ? e : p1;
            g1_xyzz_t acc = g1_xyzz_t::identity();
            for (u32 p = a; p < z; p++) item(p, acc);
            if (s >= p0 && e <= p1) {
                buckets[b] = acc;
            } else if (s < p0) {
                part_out[2 * (u64)t] = acc;
                if (e > p1) part_out[2 * (u64)t + 1] = g1_xyzz_t::identity();
            } else {
                part_out[2 * (u64)t + 1] = acc;
                if (b_key) b_key[t] = b;
            }
        }
        if (e >= p1) break;
        q = e;
        b = msm_next(off, m, level, k1, kr, b + 1, q);
    }
}

// Level 1: entries are `index << 1 | negate` into `bases`; b_key[t]: the bucket whose partial sum thread t
// left in its B slot, or NONE (for the fix-up).
//
// The flat walk: one loop over the slice's k1 entries, not a loop over buckets with an inner loop over their
// entries (there the lanes of a warp leave their inner loops at different entries, so a warp runs each bucket
// round as long as its longest lane: 1.37× k1 at 2^24 by simulation). Every lane runs exactly its k1 iterations; a bucket end is a short
// divergent branch (store the sum, step to the next bucket, whose end was loaded one bucket ahead). The next
// entry's index and base are loaded before the current addition (software prefetch: 178 registers against
// 174, still two 128-thread blocks per SM), the base as six 16-byte loads through the read-only cache (96-byte
// points, 16-byte aligned: every bases buffer is a whole allocation or a view at a point boundary), the sign applied by a select rather than a branch.
HD g1_affine_t msm_load_base(const g1_affine_t *bases, u32 i) {
#if defined(__CUDA_ARCH__)
    g1_affine_t q;
    const u64 *src = (const u64 *)(bases + i);
#pragma unroll
    for (int k = 0; k < 3; k++) {
        asm("ld.global.nc.v2.u64 {%0, %1}, [%2];" : "=l"(q.x.v[2 * k]), "=l"(q.x.v[2 * k + 1]) : "l"(src + 2 * k));
        asm("ld.global.nc.v2.u64 {%0, %1}, [%2];"
            : "=l"(q.y.v[2 * k]), "=l"(q.y.v[2 * k + 1])
            : "l"(src + 6 + 2 * k));
    }
    return q;
#else
    return bases[i];
#endif
}

// (x, y) or (x, −y) without a branch: −y is computed either way and chosen limb by limb.
HD g1_affine_t msm_signed(const g1_affine_t &q, u32 neg) {
    fp_t ny = q.y.neg();
    g1_affine_t r = q;
    u64 mask = 0 - (u64)(neg & 1);
#pragma unroll
    for (int k = 0; k < 6; k++) r.y.v[k] = (ny.v[k] & mask) | (q.y.v[k] & ~mask);
    return r;
}

// Bucket b = [s, e) ends within or after thread t's slice [p0, p0 + k1); acc is its part inside the slice.
// Writes it where msm_accum_walk writes it (bucket, A slot, or B slot and b_key).
HD void msm_flat_flush(u32 t, u32 p0, u32 k1, u32 b, u32 s, u32 e, const g1_xyzz_t &acc, g1_xyzz_t *buckets,
                       g1_xyzz_t *part_out, u32 *b_key) {
    u64 p1 = (u64)p0 + k1;
    if (s >= p0 && e <= p1) {
        buckets[b] = acc;
    } else if (s < p0) {
        part_out[2 * (u64)t] = acc;
        if (e > p1) part_out[2 * (u64)t + 1] = g1_xyzz_t::identity();
    } else {
        part_out[2 * (u64)t + 1] = acc;
        b_key[t] = b;
    }
}

HD void msm_flat_body(const g1_affine_t *bases, const u32 *sorted, const u32 *offsets, u32 m, u32 k1,
                      g1_xyzz_t *buckets, g1_xyzz_t *part_out, u32 *b_key) {
    u32 t = tid_x();
    u32 total = offsets[m];
    if ((u64)t * k1 >= total) return;
    b_key[t] = MSM_NONE;
    u32 p0 = t * k1;
    u32 p1 = (u64)p0 + k1 < total ? p0 + k1 : total;
    // The bucket holding entry p0 (first whose range ends after p0), its range, and the next bucket's end.
    u32 b = msm_next(offsets, m, 1, k1, 1, 0, p0);
    u32 s = offsets[b], e = offsets[b + 1];
    u32 e2 = b + 1 < m ? offsets[b + 2] : e;
    g1_xyzz_t acc = g1_xyzz_t::identity();
    u32 en = sorted[p0];
    g1_affine_t q = msm_load_base(bases, en >> 1);
    for (u32 p = p0; p < p1; p++) {
        u32 pn = p + 1 < p1 ? p + 1 : p;  // the last iteration reloads its own entry (never used)
        u32 en_n = sorted[pn];
        g1_affine_t q_n = msm_load_base(bases, en_n >> 1);
        acc.add_affine(msm_signed(q, en));
        if (p + 1 == e || p + 1 == p1) {
            msm_flat_flush(t, p0, k1, b, s, e, acc, buckets, part_out, b_key);
            acc = g1_xyzz_t::identity();
            if (p + 1 < p1) {  // then p + 1 == e: step to the bucket holding entry e
                if (e2 > e) {
                    b = b + 1;
                } else {
                    b = msm_next(offsets, m, 1, k1, 1, b + 1, e);
                }
                s = offsets[b];
                e = offsets[b + 1];
                e2 = b + 1 < m ? offsets[b + 2] : e;
            }
        }
        en = en_n;
        q = q_n;
    }
}

extern "C" __global__ void msm_g1_accum_flat(const g1_affine_t *bases, const u32 *sorted, const u32 *offsets,
                                             u32 m, u32 k1, g1_xyzz_t *buckets, g1_xyzz_t *part_out,
                                             u32 *b_key) {
    msm_flat_body(bases, sorted, offsets, m, k1, buckets, part_out, b_key);
}

// Fix-up of level 1, thread t < T1: the bucket b whose B slot thread t wrote (b starts in slice t and
// continues past it; b_key[t], NONE if none), when b ends within MSM_SPAN_MAX further slices:
// buckets[b] = B[t] + Σ A[t'], t < t' ≤ te.
extern "C" __global__ void msm_g1_accum_fix(const u32 *offsets, u32 m, u32 k1, const u32 *b_key,
                                            const g1_xyzz_t *part_in, g1_xyzz_t *buckets) {
    u32 t = tid_x();
    if ((u64)t * k1 + k1 >= offsets[m]) return;  // nothing continues past the end of the entries
    u32 b = b_key[t];
    if (b == MSM_NONE) return;
    u32 te = (offsets[b + 1] - 1) / k1;
    if (te - t > MSM_SPAN_MAX) return;
    g1_xyzz_t acc = part_in[2 * (u64)t + 1];
    for (u32 u = t + 1; u <= te; u++) acc.add(part_in[2 * (u64)u]);
    buckets[b] = acc;
}

// Level ≥ 2: items are the previous level's partial sums.
extern "C" __global__ void msm_g1_accum_parts(const u32 *offsets, u32 m, u32 level, u32 k1, u32 kr,
                                              const g1_xyzz_t *part_in, g1_xyzz_t *buckets,
                                              g1_xyzz_t *part_out) {
    u32 t = tid_x();
    msm_accum_walk(offsets, m, level, k1, kr, t, buckets, part_out, (u32 *)nullptr,
                   [&](u32 p, g1_xyzz_t &acc) { acc.add(part_in[p]); });
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
    // The lo·run term waits for msm_final_sum, which weighs all segments' runs at once (a scalar
    // multiplication by lo here cost ~24 group operations per segment against the 2·seg_len above).
    seg_out[2 * ((u64)g * segs + s)] = acc;
    seg_out[2 * ((u64)g * segs + s) + 1] = run;
}

// Window sums: one block of MSM_FINAL_T threads per window g of the pass. Phases (the host check runs each
// for all threads in turn): thread t sums segments t, t + T, …; then a tree in shared memory; thread 0
// converts to Jacobian (blst layout) into windows[w0 + g]. Folded (fold ≠ 0), block g takes the g-th run of
// `segs` segments of the pass's one bucket set (segment numbers offset by g·segs) and the host adds the
// blocks' results: one block over all 2^15 segments took 11 ms per pass at 2^24 (H200, docs/PERF.md).
#define MSM_FINAL_T 128
HD void msm_final_sum(const g1_xyzz_t *segs_in, u32 segs, u32 seg_len, u32 g, u32 fold, u32 tid, g1_xyzz_t *sm) {
    // Thread t takes segments s = t + k·T, k = 0 … K − 1, and returns its share of
    // Σ_s (acc_s + (o + s)·L·run_s) = Σ acc + L·((o + t)·Σ_k run + T·Σ_k k·run) (o = g·segs folded, else 0);
    // Σ_k k·run_k by running sums, k descending.
    const u32 T = MSM_FINAL_T;
    g1_xyzz_t a = g1_xyzz_t::identity(), r = g1_xyzz_t::identity(), q = g1_xyzz_t::identity();
    u32 K = tid < segs ? (segs - tid + T - 1) / T : 0;
    for (u32 k = K; k-- > 0;) {
        const g1_xyzz_t *p = segs_in + 2 * ((u64)g * segs + tid + k * T);
        a.add(p[0]);
        r.add(p[1]);
        if (k > 0) q.add(r);
    }
    g1_xyzz_t w = r.mul_small(tid + (fold ? g * segs : 0));
    w.add(q.mul_small(T));
    a.add(w.mul_small(seg_len));
    sm[tid] = a;
}
HD void msm_final_tree(g1_xyzz_t *sm, u32 tid, u32 h) {
    if (tid < h) sm[tid].add(sm[tid + h]);
}
HD void msm_final_out(const g1_xyzz_t *sm, u32 tid, u32 g, u32 w0, g1_jacobian_t *windows) {
    if (tid == 0) windows[w0 + g] = sm[0].to_jacobian();
}

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
extern "C" __global__ void __launch_bounds__(MSM_FINAL_T) msm_g1_window_final(const g1_xyzz_t *segs_in, u32 segs,
                                                                               u32 seg_len, u32 w0, u32 fold,
                                                                               g1_jacobian_t *windows) {
    __shared__ g1_xyzz_t sm[MSM_FINAL_T];
    u32 tid = threadIdx.x, g = blockIdx.x;
    msm_final_sum(segs_in, segs, seg_len, g, fold, tid, sm);
    __syncthreads();
    for (u32 h = MSM_FINAL_T / 2; h > 0; h /= 2) {
        msm_final_tree(sm, tid, h);
        __syncthreads();
    }
    msm_final_out(sm, tid, g, w0, windows);
}
#endif
