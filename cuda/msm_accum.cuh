// The MSM's bucket accumulation, bucket reduction and window sums (steps 5–7 of cuda/msm.cu's launch
// sequence), templated over the coordinate field F of the points (fp_t: G1 in msm.cu, fp2x_t: G2 in
// msm_g2.cu), so both groups run the same walk over the same counting-sort output (msm.cu's steps 1–4 are
// group-free and shared). Compiles as host C++ too (cuda/hostcheck).
//
// ---- Bucket accumulation: even split of the sorted entries, whatever the bucket sizes ----
//
// Level 1: thread t sums entries [t·k1, t·k1 + k1) of `sorted` (all windows of the pass, bucket after
// bucket). A bucket whose entries lie wholly in the slice is written to buckets[b]; the run at the slice's
// start that began earlier goes to slot 2t of the partial sums ("A"), a run that starts inside and continues
// past the end to slot 2t + 1 ("B"); a thread whose whole slice is one run writes the identity to B. So a
// bucket b cut at level 1 over threads ts < te leaves its partial sums in slots 2·ts + 1 and 2t' (ts < t' ≤ te).
// Fix-up (msm_gX_accum_fix): a bucket cut over at most MSM_SPAN_MAX + 1 threads (every bucket, for random
// scalars) is finished by one thread, ≤ MSM_SPAN_MAX additions. Longer ones (repeated scalars: one bucket
// takes most entries of its window) go through levels 2, 3, …: the same walk over slot ranges
// [2·ts + 1, 2·te + 1) (msm_range), kr items per thread, until no bucket is cut (the host launches enough
// levels for the worst case, every entry in one bucket). Every chain is ≤ k1 mixed additions (level 1) or
// ≤ kr or MSM_SPAN_MAX XYZZ additions, so random scalars, all-equal scalars and runs of ±1 cost about the same.
// Buckets nothing reaches stay as zeroed by the host (XYZZ identity).
#pragma once
#include "curve.cuh"

#define MSM_NONE 0xffffffffu
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
template <class F, class Item>
DEV void msm_accum_walk(const u32 *off, u32 m, u32 level, u32 k1, u32 kr, u32 t, Xyzz<F> *buckets,
                        Xyzz<F> *part_out, u32 *b_key, Item item) {
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
            Xyzz<F> acc = Xyzz<F>::identity();
            for (u32 p = a; p < z; p++) item(p, acc);
            if (s >= p0 && e <= p1) {
                buckets[b] = acc;
            } else if (s < p0) {
                part_out[2 * (u64)t] = acc;
                if (e > p1) part_out[2 * (u64)t + 1] = Xyzz<F>::identity();
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
// round as long as its longest lane: 1.37× k1 at 2^24 by simulation). Every lane runs exactly its k1
// iterations; a bucket end is a short divergent branch (store the sum, step to the next bucket, whose end was
// loaded one bucket ahead). With `Prefetch` the next entry's index and base are loaded before the current
// addition (software prefetch, G1: 178 registers against 174, still two 128-thread blocks per SM); G2's points
// are twice as large and its walk loads at use. The base is read as 16-byte loads through the read-only cache
// (points 16-byte aligned: every bases buffer is a whole allocation or a view at a point boundary), the sign
// applied by a select rather than a branch.
template <class F> HD Affine<F> msm_load_base(const Affine<F> *bases, u32 i) {
#if defined(__CUDA_ARCH__)
    constexpr int L = sizeof(Affine<F>) / 8;
    u64 v[L];
    const u64 *src = (const u64 *)(bases + i);
#pragma unroll
    for (int k = 0; k < L / 4; k++) {  // x and y interleaved
        asm("ld.global.nc.v2.u64 {%0, %1}, [%2];" : "=l"(v[2 * k]), "=l"(v[2 * k + 1]) : "l"(src + 2 * k));
        asm("ld.global.nc.v2.u64 {%0, %1}, [%2];"
            : "=l"(v[L / 2 + 2 * k]), "=l"(v[L / 2 + 2 * k + 1])
            : "l"(src + L / 2 + 2 * k));
    }
    Affine<F> q;
    u64 *d = (u64 *)&q;
#pragma unroll
    for (int k = 0; k < L; k++) d[k] = v[k];
    return q;
#else
    return bases[i];
#endif
}

// (x, y) or (x, −y) without a branch: −y is computed either way and chosen limb by limb.
template <class F> HD Affine<F> msm_signed(const Affine<F> &q, u32 neg) {
    constexpr int L = sizeof(F) / 8;
    F ny = q.y.neg();
    Affine<F> r = q;
    u64 mask = 0 - (u64)(neg & 1);
    const u64 *a = (const u64 *)&ny, *b = (const u64 *)&q.y;
    u64 *o = (u64 *)&r.y;
#pragma unroll
    for (int k = 0; k < L; k++) o[k] = (a[k] & mask) | (b[k] & ~mask);
    return r;
}

// Bucket b = [s, e) ends within or after thread t's slice [p0, p0 + k1); acc is its part inside the slice.
// Writes it where msm_accum_walk writes it (bucket, A slot, or B slot and b_key).
template <class F>
HD void msm_flat_flush(u32 t, u32 p0, u32 k1, u32 b, u32 s, u32 e, const Xyzz<F> &acc, Xyzz<F> *buckets,
                       Xyzz<F> *part_out, u32 *b_key) {
    u64 p1 = (u64)p0 + k1;
    if (s >= p0 && e <= p1) {
        buckets[b] = acc;
    } else if (s < p0) {
        part_out[2 * (u64)t] = acc;
        if (e > p1) part_out[2 * (u64)t + 1] = Xyzz<F>::identity();
    } else {
        part_out[2 * (u64)t + 1] = acc;
        b_key[t] = b;
    }
}

template <class F, bool Prefetch>
HD void msm_flat_body(const Affine<F> *bases, const u32 *sorted, const u32 *offsets, u32 m, u32 k1,
                      Xyzz<F> *buckets, Xyzz<F> *part_out, u32 *b_key) {
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
    Xyzz<F> acc = Xyzz<F>::identity();
    u32 en = sorted[p0];
    Affine<F> q;
    if (Prefetch) q = msm_load_base(bases, en >> 1);
    for (u32 p = p0; p < p1; p++) {
        u32 pn = p + 1 < p1 ? p + 1 : p;  // the last iteration reloads its own entry (never used)
        u32 en_n = sorted[pn];
        if (Prefetch) {
            Affine<F> q_n = msm_load_base(bases, en_n >> 1);
            acc.add_affine(msm_signed(q, en));
            q = q_n;
        } else {
            acc.add_affine(msm_signed(msm_load_base(bases, en >> 1), en));
        }
        if (p + 1 == e || p + 1 == p1) {
            msm_flat_flush(t, p0, k1, b, s, e, acc, buckets, part_out, b_key);
            acc = Xyzz<F>::identity();
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
    }
}

// Fix-up of level 1, thread t < T1: the bucket b whose B slot thread t wrote (b starts in slice t and
// continues past it; b_key[t], NONE if none), when b ends within MSM_SPAN_MAX further slices:
// buckets[b] = B[t] + Σ A[t'], t < t' ≤ te.
template <class F>
HD void msm_fix_body(const u32 *offsets, u32 m, u32 k1, const u32 *b_key, const Xyzz<F> *part_in,
                     Xyzz<F> *buckets) {
    u32 t = tid_x();
    if ((u64)t * k1 + k1 >= offsets[m]) return;  // nothing continues past the end of the entries
    u32 b = b_key[t];
    if (b == MSM_NONE) return;
    u32 te = (offsets[b + 1] - 1) / k1;
    if (te - t > MSM_SPAN_MAX) return;
    Xyzz<F> acc = part_in[2 * (u64)t + 1];
    for (u32 u = t + 1; u <= te; u++) acc.add(part_in[2 * (u64)u]);
    buckets[b] = acc;
}

// Level ≥ 2: items are the previous level's partial sums.
template <class F>
DEV void msm_parts_body(const u32 *offsets, u32 m, u32 level, u32 k1, u32 kr, const Xyzz<F> *part_in,
                        Xyzz<F> *buckets, Xyzz<F> *part_out) {
    u32 t = tid_x();
    msm_accum_walk<F>(offsets, m, level, k1, kr, t, buckets, part_out, (u32 *)nullptr,
                      [&](u32 p, Xyzz<F> &acc) { acc.add(part_in[p]); });
}

// Segment s of window g: buckets [lo, hi) with lo = s·L → Σ_{b=lo}^{hi−1} (b + 1)·B_b.
template <class F>
HD void msm_reduce_body(const Xyzz<F> *buckets, u32 nb, u32 seg_len, u32 segs, Xyzz<F> *seg_out) {
    u32 s = tid_x();
    u32 g = tid_y();
    if (s >= segs) return;
    u32 lo = s * seg_len;
    u32 hi = lo + seg_len < nb ? lo + seg_len : nb;
    const Xyzz<F> *bk = buckets + (u64)g * nb;
    Xyzz<F> run = Xyzz<F>::identity(), acc = Xyzz<F>::identity();
    for (u32 b = hi; b > lo; b--) {
        run.add(bk[b - 1]);
        acc.add(run);  // Σ (b − lo + 1)·B_b
    }
    // The lo·run term waits for msm_final_sum, which weighs all segments' runs at once (a scalar
    // multiplication by lo here cost ~24 group operations per segment against the 2·seg_len above).
    seg_out[2 * ((u64)g * segs + s)] = acc;
    seg_out[2 * ((u64)g * segs + s) + 1] = run;
}

// Window sums: one block of T threads per window g of the pass (G1: MSM_FINAL_T; G2: MSM_G2_FINAL_T, its
// 384-byte points keeping the block's shared memory at 24 KiB). Phases (the host check runs each for all
// threads in turn): thread t sums segments t, t + T, …; then a tree in shared memory; thread 0 converts to
// Jacobian (blst layout) into windows[w0 + g]. Folded (fold ≠ 0), block g takes the g-th run of `segs`
// segments of the pass's one bucket set (segment numbers offset by g·segs) and the host adds the blocks'
// results: one block over all 2^15 segments took 11 ms per pass at 2^24 (H200, docs/PERF.md).
#define MSM_FINAL_T 128
#define MSM_G2_FINAL_T 64
template <class F, u32 T>
HD void msm_final_sum(const Xyzz<F> *segs_in, u32 segs, u32 seg_len, u32 g, u32 fold, u32 tid, Xyzz<F> *sm) {
    // Thread t takes segments s = t + k·T, k = 0 … K − 1, and returns its share of
    // Σ_s (acc_s + (o + s)·L·run_s) = Σ acc + L·((o + t)·Σ_k run + T·Σ_k k·run) (o = g·segs folded, else 0);
    // Σ_k k·run_k by running sums, k descending.
    Xyzz<F> a = Xyzz<F>::identity(), r = Xyzz<F>::identity(), q = Xyzz<F>::identity();
    u32 K = tid < segs ? (segs - tid + T - 1) / T : 0;
    for (u32 k = K; k-- > 0;) {
        const Xyzz<F> *p = segs_in + 2 * ((u64)g * segs + tid + k * T);
        a.add(p[0]);
        r.add(p[1]);
        if (k > 0) q.add(r);
    }
    Xyzz<F> w = r.mul_small(tid + (fold ? g * segs : 0));
    w.add(q.mul_small(T));
    a.add(w.mul_small(seg_len));
    sm[tid] = a;
}
template <class F> HD void msm_final_tree(Xyzz<F> *sm, u32 tid, u32 h) {
    if (tid < h) sm[tid].add(sm[tid + h]);
}
template <class F> HD void msm_final_out(const Xyzz<F> *sm, u32 tid, u32 g, u32 w0, Jacobian<F> *windows) {
    if (tid == 0) windows[w0 + g] = sm[0].to_jacobian();
}

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
template <class F, u32 T>
DEV void msm_window_final_body(const Xyzz<F> *segs_in, u32 segs, u32 seg_len, u32 w0, u32 fold,
                               Jacobian<F> *windows) {
    __shared__ Xyzz<F> sm[T];
    u32 tid = threadIdx.x, g = blockIdx.x;
    msm_final_sum<F, T>(segs_in, segs, seg_len, g, fold, tid, sm);
    __syncthreads();
    for (u32 h = T / 2; h > 0; h /= 2) {
        msm_final_tree(sm, tid, h);
        __syncthreads();
    }
    msm_final_out(sm, tid, g, w0, windows);
}
#endif
