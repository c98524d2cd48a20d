// Host check of cuda/ntt.cu without a GPU: runs the kernels' HD bodies over every (block, thread) index in
// the same launch sequences as src/backend/gpu/kernels/ntt/, and compares with a naive O(N^2) DFT in fr_t for
// log_n = 0..12 (several shared-memory block sizes, so the radix-2/radix-4 global passes are exercised at
// small N too). Writes small cases (canonical hex) to stdout for ntt_check.py, which recomputes them with
// Python big ints from the constants alone (r, g = 7, ω = 7^((r−1)/2^32)^(2^(32−log_n))).
// Larger sizes up to 2^16: outputs spot-checked by direct evaluation at a few points; compute_h against
// the composition of the checked transforms.
// Run: bash cuda/hostcheck/ntt_check.sh
#include "../ntt.cu"
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>

typedef std::vector<fr_t> Vec;

static u64 rng_state = 0x9e3779b97f4a7c15ull;
static u64 rnd() {
    rng_state ^= rng_state << 13; rng_state ^= rng_state >> 7; rng_state ^= rng_state << 17;
    return rng_state;
}
static fr_t rand_fr() {  // any value < r is a valid Montgomery residue
    fr_t x;
    for (int i = 0; i < 4; i++) x.v[i] = rnd();
    x.v[3] &= 0x3fffffffffffffffull;
    return x;
}
static fr_t from_u64(u64 v) { fr_t x = fr_t::zero(); x.v[0] = v; return x.to_mont(); }
static fr_t inverse(const fr_t &x) {  // x^(r−2)
    const u64 e[4] = {0xfffffffeffffffffull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull, 0x73eda753299d7d48ull};
    return x.pow(e, 4);
}
static fr_t pow_u64(const fr_t &x, u64 e) { return x.pow(&e, 1); }

// The domain's constants, as src/backend/gpu/ntt.rs builds them (there from blstrs).
struct Dom {
    u32 log_n; u64 n;
    fr_t omega, g, g_inv, n_inv, z_inv;
    Vec tw;                       // ω^k, k ≤ N/2
    Vec lt;                       // compact shared-stage twiddles (LT_BASE in ntt_stage.cuh)
    u32 lo_bits;                  // two-level power tables: lo[i mod 2^L], hi[i >> L] (c folded into hi)
    Vec cf_lo, cf_hi, h1_lo, h1_hi, ci_lo, ci_hi, in_lo, in_hi, ho_lo, ho_hi;
    Vec zn;  // z/N, one fr_t
};
static void pow_table(fr_t c, fr_t x, u32 lo_bits, u64 count, Vec &lo, Vec &hi) {
    lo.assign(1ull << lo_bits, fr_t::zero());
    fr_t cur = fr_t::one();
    for (auto &v : lo) { v = cur; cur = cur * x; }
    u64 nh = ((count - 1) >> lo_bits) + 1;
    hi.assign(nh, fr_t::zero());
    fr_t step = cur;  // x^(2^L)
    cur = c;
    for (auto &v : hi) { v = cur; cur = cur * step; }
}
static Dom make_dom(u32 log_n) {
    Dom d; d.log_n = log_n; d.n = 1ull << log_n;
    d.g = from_u64(7);
    const u64 t[4] = {0xfffe5bfeffffffffull, 0x09a1d80553bda402ull, 0x299d7d483339d808ull, 0x0000000073eda753ull};  // (r−1)>>32
    fr_t rou = d.g.pow(t, 4);
    d.omega = rou;
    for (u32 i = log_n; i < 32; i++) d.omega = d.omega.sqr();
    // lt, as ntt.rs builds it: for span h = 2^lh, ω_2h^j (j ≤ h), ω_2h = rou^(2^(31 − lh)).
    for (u32 lh = 0; lh < SMEM_LOG; lh++) {
        fr_t w = rou;
        for (u32 i = lh + 1; i < 32; i++) w = w.sqr();
        if (d.lt.size() != LT_BASE(lh)) { fprintf(stderr, "LT_BASE mismatch\n"); exit(1); }
        fr_t cur = fr_t::one();
        for (u32 j = 0; j <= (1u << lh); j++) { d.lt.push_back(cur); cur = cur * w; }
    }
    if (d.lt.size() != LT_LEN) { fprintf(stderr, "LT_LEN mismatch\n"); exit(1); }
    d.g_inv = inverse(d.g);
    d.n_inv = inverse(from_u64(d.n));
    d.z_inv = inverse(pow_u64(d.g, d.n) - fr_t::one());
    // Twiddles expanded "on the device" by powers_body from a two-level table, as the Rust side does.
    u32 tl = log_n < 12 ? log_n : 12;
    Vec lo, hi;
    u64 cnt = d.n / 2 + 1;
    pow_table(fr_t::one(), d.omega, tl, cnt, lo, hi);
    d.tw.assign(cnt, fr_t::zero());
    for (u64 i = 0; i < cnt; i++) powers_body(d.tw.data(), lo.data(), hi.data(), (u32)i, tl);
    d.lo_bits = tl;
    pow_table(fr_t::one(), d.g, tl, d.n, d.cf_lo, d.cf_hi);
    pow_table(d.n_inv, d.g, tl, d.n, d.h1_lo, d.h1_hi);
    pow_table(d.n_inv, d.g_inv, tl, d.n, d.ci_lo, d.ci_hi);
    pow_table(d.z_inv * d.n_inv, d.g_inv, tl, d.n, d.ho_lo, d.ho_hi);
    d.zn = Vec(1, d.z_inv * d.n_inv);
    pow_table(d.n_inv, fr_t::one(), tl, d.n, d.in_lo, d.in_hi);
    return d;
}

// ---- launch sequences (mirror src/backend/gpu/kernels/ntt/) ----
static u32 SMEM = SMEM_LOG;
// `mul`: compute_h's product on the first pass's loads (ntt_dif_r8_inv_mul; the caller checks it is radix 8).
static void dif(const Dom &d, Vec &a, bool inv, bool with_smem = true, const Vec *mul = nullptr) {
    u32 log_n = d.log_n;
    if (log_n == 0) return;  // one point: the transform is the identity
    u32 log_b = log_n < SMEM ? log_n : SMEM;
    u32 global = log_n - log_b;
    int log_h = (int)log_n - 1;
    // global_radices: three stages per pass, two for four or two left, one only for one.
    for (u32 g = global; g > 0;) {
        u32 r = g == 1 ? 1 : (g == 2 || g == 4) ? 2 : 3;
        for (u64 t = 0; t < (d.n >> r); t++) {
            if (r == 3) dif_r8_body(a.data(), d.tw.data(), (u32)t, log_h, log_n, inv, mul ? mul->data() : nullptr);
            else if (r == 2) dif_r4_body(a.data(), d.tw.data(), (u32)t, log_h, log_n, inv);
            else dif_r2_body(a.data(), d.tw.data(), (u32)t, log_h, log_n, inv);
        }
        log_h -= (int)r;
        g -= r;
        mul = nullptr;
    }
    if (!with_smem) return;
    // shared-memory kernel: blocks × phases × threads (ntt_dif_smem4 from log_b = 2, as the device runs it)
    std::vector<fr_t> sm(1u << SMEM_LOG);
    if (log_b >= 2) {
        u32 threads = 1u << (log_b - 2);
        for (u64 blk = 0; blk < (d.n >> log_b); blk++) {
            for (u32 tid = 0; tid < threads; tid++) smem4_load(sm.data(), a.data(), (u32)blk, tid, log_b);
            int lh = (int)log_b - 1;
            if (log_b & 1) {
                for (u32 tid = 0; tid < 2 * threads; tid++) smem_stage(sm.data(), d.lt.data(), tid, lh, inv);
                lh--;
            }
            for (; lh >= 1; lh -= 2)
                for (u32 tid = 0; tid < threads; tid++) smem_stage4(sm.data(), d.lt.data(), tid, lh, inv);
            for (u32 tid = 0; tid < threads; tid++) smem4_store(sm.data(), a.data(), (u32)blk, tid, log_b, true);
        }
        return;
    }
    u32 threads = 1u << (log_b - 1);
    for (u64 blk = 0; blk < (d.n >> log_b); blk++) {
        for (u32 tid = 0; tid < threads; tid++) smem_load(sm.data(), a.data(), (u32)blk, tid, log_b);
        for (int lh = (int)log_b - 1; lh >= 0; lh--)
            for (u32 tid = 0; tid < threads; tid++) smem_stage(sm.data(), d.lt.data(), tid, lh, inv);
        for (u32 tid = 0; tid < threads; tid++) smem_store(sm.data(), a.data(), (u32)blk, tid, log_b);
    }
}
// The permutation with an optional scale: ntt_bitrev_tile (blocks × phases × threads) from 2^(2·BR_T), else
// the per-element ntt_bitrev_scale (as bitrev_scale in ntt/mod.rs).
static void bitrev_scale(const Dom &d, Vec &a, const Vec *lo, const Vec *hi) {
    if (d.log_n < 2 * BR_T) {
        for (u64 i = 0; i < d.n; i++)
            bitrev_scale_body(a.data(), lo ? lo->data() : nullptr, hi ? hi->data() : nullptr, (u32)i, d.log_n, d.lo_bits, lo != nullptr);
        return;
    }
    std::vector<fr_t> sm(2 * BR_ROW << BR_T);
    for (u64 blk = 0; blk < (d.n >> (2 * BR_T)); blk++) {
        bool go = true;
        for (u32 t = 0; t < (1u << 2 * BR_T); t++) go = br_load(sm.data(), a.data(), (u32)blk, t, d.log_n);
        if (!go) continue;
        for (u32 t = 0; t < (1u << 2 * BR_T); t++)
            br_store(sm.data(), a.data(), lo ? lo->data() : nullptr, hi ? hi->data() : nullptr, (u32)blk, t,
                     d.log_n, d.lo_bits, lo != nullptr);
    }
}
enum Dir { FWD, INV, CFWD, CINV };
static void gpu_ntt(const Dom &d, Vec &a, Dir dir) {
    switch (dir) {
    case FWD: dif(d, a, false); bitrev_scale(d, a, nullptr, nullptr); break;
    case INV: dif(d, a, true); bitrev_scale(d, a, &d.in_lo, &d.in_hi); break;
    case CFWD:
        for (u64 i = 0; i < d.n; i++) scale_body(a.data(), d.cf_lo.data(), d.cf_hi.data(), (u32)i, d.lo_bits);
        dif(d, a, false); bitrev_scale(d, a, nullptr, nullptr); break;
    case CINV: dif(d, a, true); bitrev_scale(d, a, &d.ci_lo, &d.ci_hi); break;
    }
}
// compute_h's combining permutations (BR2_MUL / BR2_SUB): ntt_bitrev_tile2 from 2^(2·BR_T), else ntt_bitrev2.
static void bitrev_combine(const Dom &d, Vec &a, const Vec &b, u32 mode) {
    if (d.log_n < 2 * BR_T) {
        for (u64 i = 0; i < d.n; i++)
            bitrev2_body(a.data(), b.data(), d.ho_lo.data(), d.ho_hi.data(), d.zn.data(), (u32)i, d.log_n, d.lo_bits, mode);
        return;
    }
    std::vector<fr_t> sm(4 * BR_ROW << BR_T);
    for (u64 blk = 0; blk < (d.n >> (2 * BR_T)); blk++) {
        bool go = true;
        for (u32 t = 0; t < (1u << 2 * BR_T); t++) go = br2_load(sm.data(), a.data(), b.data(), (u32)blk, t, d.log_n);
        if (!go) continue;
        for (u32 t = 0; t < (1u << 2 * BR_T); t++)
            br2_store(sm.data(), a.data(), d.ho_lo.data(), d.ho_hi.data(), d.zn.data(), (u32)blk, t, d.log_n, d.lo_bits, mode);
    }
}
// ntt/turn.rs's to_coset: DIF⁻¹'s global passes, ntt_smem_turn (here for any even block size SMEM), the forward
// DIT's global passes (DIF's radices reversed).
static void to_coset(const Dom &d, Vec &a) {
    u32 log_b = SMEM, log_n = d.log_n, threads = 1u << (log_b - 2);
    dif(d, a, true, false);
    std::vector<fr_t> sm(1u << SMEM_LOG);
    for (u64 blk = 0; blk < (d.n >> log_b); blk++) {
        for (u32 t = 0; t < threads; t++) smem4_load(sm.data(), a.data(), (u32)blk, t, log_b);
        for (int lh = (int)log_b - 1; lh >= 1; lh -= 2)
            for (u32 t = 0; t < threads; t++) smem_stage4(sm.data(), d.lt.data(), t, (u32)lh, true);
        for (u32 t = 0; t < threads; t++)
            smem4_turn_scale(sm.data(), d.h1_lo.data(), d.h1_hi.data(), (u32)blk, t, log_b, log_n, d.lo_bits);
        for (u32 lh = 1; lh < log_b; lh += 2)
            for (u32 t = 0; t < threads; t++) smem_dit4(sm.data(), d.lt.data(), t, lh);
        for (u32 t = 0; t < threads; t++) smem4_store(sm.data(), a.data(), (u32)blk, t, log_b, false);
    }
    std::vector<u32> radices;
    for (u32 g = log_n - log_b; g > 0;) {
        u32 r = g == 1 ? 1 : (g == 2 || g == 4) ? 2 : 3;
        radices.push_back(r);
        g -= r;
    }
    u32 low = log_b;
    for (auto it = radices.rbegin(); it != radices.rend(); ++it) {
        u32 r = *it, log_h = low + r - 1;
        for (u64 t = 0; t < (d.n >> r); t++) {
            if (r == 3) dit_r8_body(a.data(), d.tw.data(), (u32)t, log_h, log_n);
            else if (r == 2) dit_r4_body(a.data(), d.tw.data(), (u32)t, log_h, log_n);
            else dit_r2_body(a.data(), d.tw.data(), (u32)t, log_h, log_n);
        }
        low += r;
    }
}
// As ntt/quotient.rs's compute_h: a, b to the coset (DIF⁻¹, bitrev·g^i/N, DIF), c through DIF⁻¹ only; the
// product permuted to natural order, DIF⁻¹, combined with c into H.
static void gpu_compute_h(const Dom &d, Vec &a, Vec &b, Vec &c) {
    // The turn above the shared block (ntt.rs: log_n > SMEM_LOG; here any even block size, to reach the DIT
    // passes' radix mixes at small N).
    bool turn = d.log_n > SMEM && SMEM % 2 == 0;
    for (Vec *v : {&a, &b}) {
        if (turn) { to_coset(d, *v); continue; }
        dif(d, *v, true);
        bitrev_scale(d, *v, &d.h1_lo, &d.h1_hi);
        dif(d, *v, false);
    }
    dif(d, c, true);
    u32 global = d.log_n > SMEM ? d.log_n - SMEM : 0;
    if (turn && (global == 3 || global > 4)) {  // the first global pass is radix 8: the product rides on it
        dif(d, a, true, true, &b);
    } else {
        if (turn) for (u64 i = 0; i < d.n; i++) a[i] = a[i] * b[i];  // ntt_mul
        else bitrev_combine(d, a, b, BR2_MUL);
        dif(d, a, true);
    }
    bitrev_combine(d, a, c, BR2_SUB);
}

// ---- naive reference ----
static Vec naive(const Dom &d, const Vec &x, Dir dir) {
    u64 n = d.n;
    Vec wp(n), gp(n);
    fr_t w = (dir == FWD || dir == CFWD) ? d.omega : inverse(d.omega);
    fr_t cur = fr_t::one();
    for (u64 i = 0; i < n; i++) { wp[i] = cur; cur = cur * w; }
    fr_t gg = dir == CFWD ? d.g : d.g_inv;
    cur = fr_t::one();
    for (u64 i = 0; i < n; i++) { gp[i] = cur; cur = cur * gg; }
    Vec in = x;
    if (dir == CFWD) for (u64 i = 0; i < n; i++) in[i] = in[i] * gp[i];
    Vec out(n, fr_t::zero());
    for (u64 k = 0; k < n; k++) {
        fr_t acc = fr_t::zero();
        for (u64 j = 0; j < n; j++) acc = acc + in[j] * wp[(j * k) & (n - 1)];
        out[k] = acc;
    }
    if (dir == INV || dir == CINV) for (u64 i = 0; i < n; i++) out[i] = out[i] * d.n_inv;
    if (dir == CINV) for (u64 i = 0; i < n; i++) out[i] = out[i] * gp[i];
    return out;
}
static Vec naive_h(const Dom &d, Vec a, Vec b, Vec c) {
    a = naive(d, naive(d, a, INV), CFWD);
    b = naive(d, naive(d, b, INV), CFWD);
    c = naive(d, naive(d, c, INV), CFWD);
    for (u64 i = 0; i < d.n; i++) a[i] = (a[i] * b[i] - c[i]) * d.z_inv;
    return naive(d, a, CINV);
}

static void dump(const char *tag, const Vec &v) {
    printf("%s", tag);
    for (auto &x : v) { fr_t y = x.from_mont(); printf(" %016llx%016llx%016llx%016llx", y.v[3], y.v[2], y.v[1], y.v[0]); }
    printf("\n");
}

int main(int argc, char **argv) {
    int max_log = argc > 1 ? atoi(argv[1]) : 12;
    int dump_max = 6, fails = 0, checks = 0;
    const char *names[4] = {"fwd", "inv", "cfwd", "cinv"};
    for (int log_n = 0; log_n <= max_log; log_n++) {
        Dom d = make_dom(log_n);
        // tw[N/2] must be −1 (the inverse butterfly relies on it); ω^N = 1, ω^(N/2) ≠ 1.
        if (log_n > 0 && d.tw[d.n / 2] != fr_t::one().neg()) { fprintf(stderr, "tw[N/2] != -1 at 2^%d\n", log_n); fails++; }
        Vec x(d.n), y(d.n), z(d.n);
        for (auto &e : x) e = rand_fr();
        for (auto &e : y) e = rand_fr();
        for (auto &e : z) e = rand_fr();
        if (log_n >= 3) for (u64 i = d.n - d.n / 4; i < d.n; i++) z[i] = fr_t::zero();  // a zero-padded tail
        if (log_n <= dump_max) { printf("case %d\n", log_n); dump("x", x); dump("y", y); dump("z", z); }
        Vec refs[4];
        for (int dir = 0; dir < 4; dir++) refs[dir] = naive(d, x, (Dir)dir);
        Vec href = naive_h(d, x, y, z);
        for (u32 sm : {10u, 7u, 5u, 4u, 3u, 2u, 1u}) {
            if (sm > (u32)log_n && sm != 10) continue;
            SMEM = sm;
            for (int dir = 0; dir < 4; dir++) {
                Vec a = x;
                gpu_ntt(d, a, (Dir)dir);
                checks++;
                if (a != refs[dir]) { fprintf(stderr, "FAIL %s 2^%d smem %u\n", names[dir], log_n, sm); fails++; }
                if (sm == 10 && log_n <= dump_max) dump(names[dir], a);
            }
            Vec a = x, b = y, c = z;
            gpu_compute_h(d, a, b, c);
            checks++;
            if (a != href) { fprintf(stderr, "FAIL compute_h 2^%d smem %u\n", log_n, sm); fails++; }
            if (sm == 10 && log_n <= dump_max) dump("h", a);
        }
        fprintf(stderr, "2^%d done\n", log_n);
    }
    // Larger sizes (argv[2], default 16): spot-check transform outputs at a few points by direct O(N)
    // evaluation, and compute_h's fused sequence against the composition of the checked transforms.
    int big = argc > 2 ? atoi(argv[2]) : 16;
    for (int log_n = max_log + 1; log_n <= big; log_n++) {
        Dom d = make_dom(log_n);
        SMEM = SMEM_LOG;
        Vec x(d.n), y(d.n), z(d.n);
        for (auto &e : x) e = rand_fr();
        for (auto &e : y) e = rand_fr();
        for (auto &e : z) e = rand_fr();
        const char *names2[4] = {"fwd", "inv", "cfwd", "cinv"};
        for (int dir = 0; dir < 4; dir++) {
            Vec a = x;
            gpu_ntt(d, a, (Dir)dir);
            bool fw = dir == FWD || dir == CFWD;
            fr_t w = fw ? d.omega : inverse(d.omega);
            for (int s = 0; s < 6; s++) {
                u64 k = s == 0 ? 0 : s == 1 ? d.n - 1 : rnd() & (d.n - 1);
                // Σ_j x_j·(gc^j)·w^(jk)·(scale): Horner over j with point p = gc·w^k.
                fr_t p = pow_u64(w, k);
                if (dir == CFWD) p = p * d.g;
                fr_t acc = fr_t::zero();
                for (u64 j = d.n; j-- > 0;) acc = acc * p + x[j];
                if (!fw) acc = acc * d.n_inv;
                if (dir == CINV) acc = acc * pow_u64(d.g_inv, k);
                checks++;
                if (acc != a[k]) { fprintf(stderr, "FAIL %s 2^%d at %llu\n", names2[dir], log_n, k); fails++; }
            }
        }
        Vec a = x, b = y, c = z;
        gpu_compute_h(d, a, b, c);
        Vec ea = x, eb = y, ec = z;
        for (Vec *v : {&ea, &eb, &ec}) { gpu_ntt(d, *v, INV); gpu_ntt(d, *v, CFWD); }
        for (u64 i = 0; i < d.n; i++) ea[i] = (ea[i] * eb[i] - ec[i]) * d.z_inv;
        gpu_ntt(d, ea, CINV);
        checks++;
        if (a != ea) { fprintf(stderr, "FAIL compute_h 2^%d vs composed transforms\n", log_n); fails++; }
        fprintf(stderr, "2^%d done (spot checks)\n", log_n);
    }
    fprintf(stderr, "%d checks, %d failures\n", checks, fails);
    return fails != 0;
}
