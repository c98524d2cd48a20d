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
//   msm n c lgb    n bases, n scalars (lgb: log2 of the pass budget, 28 as in msm.rs)        → ⌈255/c⌉ window Jacobians (18 u64 each)
//   ba1 / ba2 n    n bases, ⌈n/64⌉ words     → one Jacobian
#include "../msm.cu"
#include "../batch_add.cu"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
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

// The plan msm.rs uses (keep in step with MsmPlan there).
struct Plan {
    u32 c, windows, nb, gmax, seg_len, segs;
};
static Plan plan(u64 n, u32 window, u32 budget_log2 = 28) {
    Plan p;
    p.c = window < 1 ? 1 : window > 20 ? 20 : window;
    p.windows = (255 + p.c - 1) / p.c;
    p.nb = 1u << (p.c - 1);
    u64 g = (1ull << budget_log2) / (n ? n : 1);
    p.gmax = (u32)(g < 1 ? 1 : g > p.windows ? p.windows : g);
    p.seg_len = 1u << (p.c / 2);  // 2^⌈(c−1)/2⌉
    p.segs = p.nb / p.seg_len;
    return p;
}
static const u32 B = 128, SCAN_T = 1024;
static const u32 RANGE_PER = 256, RANGE_K = 32, RANGE_FINAL = 64, MAX_BIG = 64;

// msm.rs `big_buckets`: buckets of more than `big` points go to the range kernels (at most MAX_BIG).
static std::vector<u32> big_buckets(const std::vector<u32> &offs, u32 m, u64 n, u32 nb, u32 &big) {
    u64 b0 = 16 * ((n + nb - 1) / nb);
    big = (u32)(b0 < 4096 ? 4096 : b0);
    std::vector<u32> v, counts;
    for (u32 j = 0; j < m; j++)
        if (offs[j + 1] - offs[j] > big) v.push_back(j);
    if (v.size() > MAX_BIG) {
        for (u32 j : v) counts.push_back(offs[j + 1] - offs[j]);
        std::sort(counts.begin(), counts.end(), [](u32 a, u32 b) { return a > b; });
        big = counts[MAX_BIG];
        std::vector<u32> w;
        for (u32 j : v)
            if (offs[j + 1] - offs[j] > big) w.push_back(j);
        v = w;
    }
    return v;
}

static void msm() {
    u32 n = (u32)rd(), window = (u32)rd(), budget = (u32)rd();
    std::vector<g1_affine_t> bases(n);
    std::vector<fr_t> scalars(n);
    for (auto &b : bases) b = rd_obj<g1_affine_t>();
    for (auto &s : scalars) s = rd_obj<fr_t>();
    Plan p = plan(n, window, budget);
    std::vector<u64> limbs(4 * (size_t)n);
    std::vector<g1_jacobian_t> windows(p.windows);
    launch(cdiv(n, B), 1, B, [&] { msm_prep(scalars.data(), n, limbs.data()); });
    std::vector<u32> keys((size_t)p.gmax * n), ranks((size_t)p.gmax * n), sorted((size_t)p.gmax * n);
    u32 mmax = p.gmax * p.nb;
    std::vector<u32> offsets(mmax + 1), csum(SCAN_T);
    std::vector<g1_xyzz_t> buckets(mmax), segs((size_t)p.gmax * p.segs);
    u32 nn = n ? n : 1, rsa = cdiv(nn, RANGE_PER);  // msm.rs range_parts (n ≥ 1 there)
    std::vector<g1_xyzz_t> ra(rsa), rb(cdiv(rsa, RANGE_K) + 1);
    size_t big_total = 0;
    for (u32 w0 = 0; w0 < p.windows; w0 += p.gmax) {
        u32 gc = p.windows - w0 < p.gmax ? p.windows - w0 : p.gmax;
        u32 m = gc * p.nb;
        u32 len = cdiv(m + 1, SCAN_T), t = cdiv(m + 1, len);
        launch(cdiv(m + 1, B), 1, B, [&] { msm_zero_u32(offsets.data(), m + 1); });
        launch(cdiv(n, B), gc, B,
               [&] { msm_digits(limbs.data(), n, p.c, w0, p.nb, keys.data(), ranks.data(), offsets.data()); });
        launch(cdiv(t, B), 1, B, [&] { msm_scan_a(offsets.data(), m + 1, len, csum.data()); });
        launch(1, 1, 1, [&] { msm_scan_b(csum.data(), t); });
        launch(cdiv(t, B), 1, B, [&] { msm_scan_c(offsets.data(), m + 1, len, csum.data()); });
        launch(cdiv(n, B), gc, B,
               [&] { msm_scatter(keys.data(), ranks.data(), n, p.nb, offsets.data(), sorted.data()); });
        u32 big;
        std::vector<u32> bigs = big_buckets(offsets, m, n, p.nb, big);
        big_total += bigs.size();
        for (u32 j : bigs) {
            u32 a = offsets[j], e = offsets[j + 1], parts = cdiv(e - a, RANGE_PER), pm = parts;
            launch(cdiv(parts, B), 1, B,
                   [&] { msm_g1_range_partial(bases.data(), sorted.data(), a, e, RANGE_PER, ra.data()); });
            std::vector<g1_xyzz_t> *src = &ra, *dst = &rb;
            while (pm > RANGE_FINAL) {
                u32 pm2 = cdiv(pm, RANGE_K);
                launch(cdiv(pm2, B), 1, B, [&] { msm_g1_range_reduce(src->data(), pm, RANGE_K, dst->data()); });
                std::swap(src, dst);
                pm = pm2;
            }
            launch(1, 1, 1, [&] { msm_g1_range_finish(src->data(), pm, buckets.data(), j); });
        }
        launch(cdiv(m, B), 1, B,
               [&] { msm_g1_bucket_sum(bases.data(), sorted.data(), offsets.data(), m, big, buckets.data()); });
        launch(cdiv(p.segs, B), gc, B,
               [&] { msm_g1_bucket_reduce(buckets.data(), p.nb, p.seg_len, p.segs, segs.data()); });
        launch(cdiv(gc, B), 1, B, [&] { msm_g1_window_final(segs.data(), p.segs, gc, w0, windows.data()); });
    }
    fprintf(stderr, "msm n=%u c=%u: %zu large buckets\n", n, p.c, big_total);
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
        else if (c == "msm") msm();
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
