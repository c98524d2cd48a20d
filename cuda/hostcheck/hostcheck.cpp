// Host emulation of the MSM / batch-addition kernels (cuda/msm.cu, cuda/batch_add.cu compiled as host C++).
//
// Rerun the whole host check (builds this with g++, feeds it points and scalars, checks against an
// independent Python big-int model of BLS12-381 G1/G2):
//     python3 cuda/hostcheck/check.py            (from the repository root; ~1–2 minutes)
//
// Every kernel is an `extern "C" __global__` function whose body reads its thread index through tid_x() /
// tid_y() (curve.cuh); here `launch` runs the "threads" of a grid one after another, so the same bodies that
// run on the GPU run here, in the launch sequence src/backend/gpu/{msm,batch_add}.rs use (plan mirrored below).
//
// Protocol (stdin → stdout, one command per line, numbers in hex, limbs whitespace-separated):
//   g1ops / g2ops  P Q (affine limbs)        → 10 Jacobian results (see ops<F>)
//   msm n c lgb acc var  n bases, n scalars (lgb: log2 of the pass budget, 28 as in msm.rs; acc: log2 of the
//                    level-1 accumulation threads aimed at, 19 as in msm.rs; smaller gives longer slices;
//                    var: bit 3 shifted bases (msm_shift_bases, then the folded sequence); bits 8+ the passes
//                    wanted (as the MSM's `passes` argument; 0 as 1))   → ⌈255/c⌉ window Jacobians (18 u64
//                    each); folded,
//                    pass k's sum in slot k and the identity after (the host adds them, no Horner)
//   msm2 n c lgb acc var  as msm over G2 (msm_g2.cu's steps 5–7; no shifted bases), then n indices: the MSM's
//                    bases are msm_g2_gather's bases[idx[i]]  → ⌈255/c⌉ window Jacobians (36 u64 each)
//   ba1 / ba2 n    n bases, ⌈n/64⌉ words     → one Jacobian
#include "../msm.cu"
#include "../msm_g2.cu"
#include "../batch_add.cu"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

static u64 rd() {
    unsigned long long v;
    if (scanf("%llx", &v) != 1) {
        fprintf(stderr, "hostcheck: bad input\n");
        exit(2);
    }
    return v;
}
template <class T> static T rd_obj() {
    T t;
    u64 *p = (u64 *)&t;
    for (size_t i = 0; i < sizeof(T) / 8; i++) p[i] = rd();
    return t;
}
template <class T> static void wr_obj(const T &t) {
    const u64 *p = (const u64 *)&t;
    for (size_t i = 0; i < sizeof(T) / 8; i++) printf("%llx ", (unsigned long long)p[i]);
    printf("\n");
}

// Runs grid (gx, gy) × block b "threads" of a kernel body sequentially.
static void launch(u32 gx, u32 gy, u32 b, const std::function<void()> &k) {
    for (u32 y = 0; y < gy; y++)
        for (u32 x = 0; x < gx * b; x++) {
            hostcheck_tid_x = x;
            hostcheck_tid_y = y;
            k();
        }
}
static u32 cdiv(u64 a, u64 b) { return (u32)((a + b - 1) / b); }

template <class F> static void ops() {
    Affine<F> P = rd_obj<Affine<F>>(), Q = rd_obj<Affine<F>>();
    typedef Xyzz<F> X;
    X a = X::from_affine(P);
    a.add_affine(Q);  // P + Q
    wr_obj(a.to_jacobian());
    X b = X::from_affine(P);
    b.add_affine(P);  // 2P
    wr_obj(b.to_jacobian());
    X c = X::from_affine(P);
    c.add_affine(P.neg());  // O
    wr_obj(c.to_jacobian());
    X d = X::from_affine(Q);
    d.add_affine(P);  // Q + P, ZZ ≠ 1 differently
    X e = a;
    e.add(b);  // 3P + Q
    wr_obj(e.to_jacobian());
    X f = a;
    f.add(d);  // 2(P + Q), through add's doubling branch
    wr_obj(f.to_jacobian());
    X g = a;
    g.add(d.neg());  // O
    wr_obj(g.to_jacobian());
    wr_obj(a.dbl().to_jacobian());         // 2P + 2Q
    wr_obj(a.mul_small(12345).to_jacobian());  // 12345(P + Q)
    X h = X::identity();
    h.add_affine(Affine<F>{F::zero(), F::zero()});
    h.add_affine(P);
    h.add_affine(Affine<F>{F::zero(), F::zero()});
    h.add(X::identity());
    wr_obj(h.to_jacobian());  // P
    X k = X::identity();
    k.add(a);
    k.add(X::from_affine(Q.neg()));
    wr_obj(k.to_jacobian());  // P
}

// The plan msm.rs uses (keep in step with Plan / plan there).
struct Plan {
    u32 c, windows, nb, gmax, seg_len, segs, k1;
    std::vector<u32> levels;
};
static const u64 K1_MIN = 8, K1_LONG = 32;
static const u32 KR = 16, REDUCE_THREADS = 1u << 15;
static u32 pow2_ceil(u32 v) {
    u32 r = 1;
    while (r < v) r <<= 1;
    return r;
}
// split: passes wanted at least (the MSM's default split or its `passes` argument); the kernels see only gmax.
static Plan plan(u64 n, u32 window, u32 budget_log2, u32 accum_log2, u32 split, bool fold) {
    const u64 ACCUM_THREADS = 1ull << accum_log2;  // msm.rs: 2^19
    Plan p;
    p.c = window < 1 ? 1 : window > 22 ? 22 : window;  // msm.rs MIN_WINDOW, MAX_WINDOW
    p.windows = (255 + p.c - 1) / p.c;
    p.nb = 1u << (p.c - 1);
    u64 nn = n ? n : 1;
    u64 g = (1ull << budget_log2) / nn;
    u32 budget = (u32)(g < 1 ? 1 : g > p.windows ? p.windows : g);
    u32 sp = split < 1 ? 1 : split > p.windows ? p.windows : split;
    p.gmax = std::min(budget, (p.windows + sp - 1) / sp);
    // segments per window as without the split; folded, one window's
    u32 segs = pow2_ceil(std::max(REDUCE_THREADS / (fold ? 1 : budget), 1u));
    p.segs = std::min(segs, p.nb);
    p.seg_len = p.nb / p.segs;
    u64 entries = p.gmax * nn;
    u64 k1 = std::max((entries + ACCUM_THREADS - 1) / ACCUM_THREADS, K1_MIN);
    u64 half = std::max(ACCUM_THREADS / 2, (u64)1);
    if (k1 >= K1_LONG) k1 = (entries + half - 1) / half;  // msm.rs: half the threads for long slices
    p.k1 = (u32)k1;
    p.levels.push_back((u32)((entries + p.k1 - 1) / p.k1));
    while (p.levels.back() > 1) p.levels.push_back((2 * p.levels.back() + KR - 1) / KR);
    return p;
}
static const u32 B = 128, SCAN_T = 1024;

// Steps 5–7 of group F: msm.cu's G1 kernels or msm_g2.cu's G2 ones (the same templated bodies).
template <class F> struct Steps;
template <> struct Steps<fp_t> {
    static const u32 FIN = MSM_FINAL_T;
    static void flat(const g1_affine_t *b, const u32 *s, const u32 *o, u32 m, u32 k1, g1_xyzz_t *bk, g1_xyzz_t *pa,
                     u32 *key) {
        msm_g1_accum_flat(b, s, o, m, k1, bk, pa, key);
    }
    static void fix(const u32 *o, u32 m, u32 k1, const u32 *key, const g1_xyzz_t *pa, g1_xyzz_t *bk) {
        msm_g1_accum_fix(o, m, k1, key, pa, bk);
    }
    static void parts(const u32 *o, u32 m, u32 l, u32 k1, u32 kr, const g1_xyzz_t *src, g1_xyzz_t *bk, g1_xyzz_t *dst) {
        msm_g1_accum_parts(o, m, l, k1, kr, src, bk, dst);
    }
    static void reduce(const g1_xyzz_t *bk, u32 nb, u32 len, u32 segs, g1_xyzz_t *out) {
        msm_g1_bucket_reduce(bk, nb, len, segs, out);
    }
};
template <> struct Steps<fp2x_t> {
    static const u32 FIN = MSM_G2_FINAL_T;
    static void flat(const g2_affine_t *b, const u32 *s, const u32 *o, u32 m, u32 k1, g2_xyzz_t *bk, g2_xyzz_t *pa,
                     u32 *key) {
        msm_g2_accum_flat(b, s, o, m, k1, bk, pa, key);
    }
    static void fix(const u32 *o, u32 m, u32 k1, const u32 *key, const g2_xyzz_t *pa, g2_xyzz_t *bk) {
        msm_g2_accum_fix(o, m, k1, key, pa, bk);
    }
    static void parts(const u32 *o, u32 m, u32 l, u32 k1, u32 kr, const g2_xyzz_t *src, g2_xyzz_t *bk, g2_xyzz_t *dst) {
        msm_g2_accum_parts(o, m, l, k1, kr, src, bk, dst);
    }
    static void reduce(const g2_xyzz_t *bk, u32 nb, u32 len, u32 segs, g2_xyzz_t *out) {
        msm_g2_bucket_reduce(bk, nb, len, segs, out);
    }
};

template <class F> static void msm() {
    typedef Affine<F> A;
    typedef Xyzz<F> X;
    typedef Jacobian<F> J;
    const bool g2 = std::is_same<F, fp2x_t>::value;
    u32 n = (u32)rd(), window = (u32)rd(), budget = (u32)rd(), accum = (u32)rd(), var = (u32)rd();
    bool fold = !g2 && (var & 8);  // shifted bases: G1 only
    std::vector<A> bases(n);
    std::vector<fr_t> scalars(n);
    for (auto &b : bases) b = rd_obj<A>();
    for (auto &s : scalars) s = rd_obj<fr_t>();
    if (g2) {  // the MSM's bases gathered from the given ones (the prover's B_G2 positions)
        std::vector<u32> idx(n);
        for (auto &i : idx) i = (u32)rd();
        std::vector<g2_affine_t> out(n);
        launch(cdiv(n, B), 1, B,
               [&] { msm_g2_gather((const g2_affine_t *)bases.data(), idx.data(), n, out.data()); });
        memcpy((void *)bases.data(), out.data(), sizeof(A) * n);
    }
    Plan p = plan(n, window, budget, accum, std::max(var >> 8, 1u), fold);
    u32 groups = fold ? 1 : p.gmax, fold32 = fold ? n : 0;
    if (fold) {
        std::vector<g1_affine_t> shifted((size_t)p.windows * n);
        launch(cdiv(n, B), 1, B,
               [&] { msm_shift_bases((const g1_affine_t *)bases.data(), n, p.c, p.windows, shifted.data()); });
        bases.resize(shifted.size());
        memcpy((void *)bases.data(), shifted.data(), sizeof(A) * shifted.size());
    }
    std::vector<u64> limbs(4 * (size_t)n);
    // Folded (msm.rs Plan::slots): F window-sum blocks per pass, slots [pass·F, pass·F + F).
    u32 fin = fold ? std::min(64u, p.segs) : 1;  // msm.rs FOLD_FINAL
    u32 passes = (p.windows + p.gmax - 1) / p.gmax;
    std::vector<J> windows(fold ? std::max(p.windows, passes * fin) : p.windows);
    launch(cdiv(n, B), 1, B, [&] { msm_prep(scalars.data(), n, limbs.data()); });
    std::vector<u32> keys((size_t)p.gmax * n), ranks((size_t)p.gmax * n), sorted((size_t)p.gmax * n);
    u32 mmax = groups * p.nb;
    std::vector<u32> offsets(mmax + 1), csum(SCAN_T);
    std::vector<X> buckets(mmax), segs(2 * (size_t)groups * p.segs);
    // msm.rs part_slots: A holds 2 per level-1 thread, B 2 per level-2 thread (same sizes, so ASAN=1 catches
    // an overrun).
    std::vector<X> pa(2 * (size_t)p.levels[0]), pb(p.levels.size() > 1 ? 2 * (size_t)p.levels[1] : 1);
    std::vector<u32> bkey(p.levels[0]);
    for (u32 w0 = 0, pass = 0; w0 < p.windows; w0 += p.gmax, pass++) {
        u32 gc = p.windows - w0 < p.gmax ? p.windows - w0 : p.gmax;
        u32 gr = fold ? 1 : gc;  // bucket groups of the pass
        u32 m = gr * p.nb;
        u32 len = cdiv(m + 1, SCAN_T), t = cdiv(m + 1, len);
        launch(cdiv(m + 1, B), 1, B, [&] { msm_zero_u32(offsets.data(), m + 1); });
        std::fill(buckets.begin(), buckets.end(), X::identity());  // memset_zeros
        launch(cdiv(n, B), 1, B, [&] {
            msm_digits(limbs.data(), n, p.c, w0, p.nb, gc, fold32, keys.data(), ranks.data(), offsets.data());
        });
        launch(cdiv(t, B), 1, B, [&] { msm_scan_a(offsets.data(), m + 1, len, csum.data()); });
        launch(1, 1, 1, [&] { msm_scan_b(csum.data(), t); });
        launch(cdiv(t, B), 1, B, [&] { msm_scan_c(offsets.data(), m + 1, len, csum.data()); });
        launch(cdiv(n, B), gc, B,
               [&] { msm_scatter(keys.data(), ranks.data(), n, p.nb, w0, fold32, offsets.data(), sorted.data()); });
        launch(cdiv(p.levels[0], B), 1, B, [&] {
            Steps<F>::flat(bases.data(), sorted.data(), offsets.data(), m, p.k1, buckets.data(), pa.data(),
                           bkey.data());
        });
        launch(cdiv(p.levels[0], B), 1, B,
               [&] { Steps<F>::fix(offsets.data(), m, p.k1, bkey.data(), pa.data(), buckets.data()); });
        for (u32 i = 1; i < p.levels.size(); i++) {
            u32 level = i + 1;
            auto &src = level % 2 == 0 ? pa : pb;
            auto &dst = level % 2 == 0 ? pb : pa;
            launch(cdiv(p.levels[i], B), 1, B, [&] {
                Steps<F>::parts(offsets.data(), m, level, p.k1, KR, src.data(), buckets.data(), dst.data());
            });
        }
        launch(cdiv(p.segs, B), gr, B,
               [&] { Steps<F>::reduce(buckets.data(), p.nb, p.seg_len, p.segs, segs.data()); });
        // msm_gX_window_final: one block of FIN threads per window, its phases run for all threads in turn.
        u32 slot = fold ? pass * fin : w0, fsegs = fold ? p.segs / fin : p.segs;
        for (u32 g = 0; g < (fold ? fin : gc); g++) {
            const u32 FIN = Steps<F>::FIN;
            std::vector<X> sm(FIN);
            for (u32 tid = 0; tid < FIN; tid++)
                msm_final_sum<F, FIN>(segs.data(), fsegs, p.seg_len, g, fold32, tid, sm.data());
            for (u32 h = FIN / 2; h > 0; h /= 2)
                for (u32 tid = 0; tid < FIN; tid++) msm_final_tree(sm.data(), tid, h);
            for (u32 tid = 0; tid < FIN; tid++) msm_final_out(sm.data(), tid, g, slot, windows.data());
        }
    }
    fprintf(stderr, "msm%s n=%u c=%u var=%u: k1=%u, %zu accumulation levels\n", g2 ? "2" : "", n, p.c, var, p.k1, p.levels.size());
    if (fold) {  // the host's sum of the slots (as Jacobian → XYZZ: ZZ = z², ZZZ = z³), into slot 0
        X acc = X::identity();
        for (auto &w : windows) acc.add({w.x, w.y, w.z.sqr(), w.z.sqr() * w.z});
        windows.assign(p.windows, J{});
        windows[0] = acc.to_jacobian();
    }
    for (auto &w : windows) wr_obj(w);
}

// The batch-addition launch sequence of batch_add.rs (keep in step: W words per thread, K per reduce thread).
static const u32 BA_W = 1, BA_K = 8, BA_FINAL = 8;
template <class F> static void ba(bool g1) {
    u32 n = (u32)rd();
    u32 words = cdiv(n, 64);
    std::vector<Affine<F>> bases(n);
    std::vector<u64> bitmap(words);
    for (auto &b : bases) b = rd_obj<Affine<F>>();
    for (auto &w : bitmap) w = rd();
    u32 t = cdiv(words, BA_W);
    if (t == 0) t = 1;  // msm.rs/batch_add.rs return the identity for n = 0 without launching; emulate that
    // Same buffer sizes as batch_add.rs, so the AddressSanitizer build catches any overrun.
    std::vector<Xyzz<F>> a(t), b2(cdiv(t, BA_K) ? cdiv(t, BA_K) : 1);
    Jacobian<F> out;
    if (n == 0) {
        out = Xyzz<F>::identity().to_jacobian();
        wr_obj(out);
        return;
    }
    launch(cdiv(t, B), 1, B, [&] { batch_add_partial<F>(bases.data(), bitmap.data(), n, words, BA_W, a.data()); });
    u32 m = t;
    while (m > BA_FINAL) {
        u32 m2 = cdiv(m, BA_K);
        launch(cdiv(m2, B), 1, B, [&] { batch_add_reduce<F>(a.data(), m, BA_K, b2.data()); });
        std::swap(a, b2);
        m = m2;
    }
    launch(1, 1, 1, [&] { batch_add_finish<F>(a.data(), m, &out); });
    (void)g1;
    wr_obj(out);
}

int main() {
    char cmd[16];
    while (scanf("%15s", cmd) == 1) {
        std::string c(cmd);
        if (c == "g1ops") ops<fp_t>();
        else if (c == "g2ops") ops<fp2x_t>();
        else if (c == "msm") msm<fp_t>();
        else if (c == "msm2") msm<fp2x_t>();
        else if (c == "ba1") ba<fp_t>(true);
        else if (c == "ba2") ba<fp2x_t>(false);
        else {
            fprintf(stderr, "hostcheck: unknown command %s\n", cmd);
            return 2;
        }
        fflush(stdout);
    }
    return 0;
}
