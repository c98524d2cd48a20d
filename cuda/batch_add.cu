// Batch addition: Σ bases[i] over the set bits i of a bitmap (bit i of word i/64), G1 and G2.
//
// Launch sequence (src/backend/gpu/batch_add.rs; cuda/hostcheck emulates the same), with T = ⌈words / W⌉:
//   1. batch_add_gX_partial<<<⌈T/B⌉, B>>>(bases, bitmap, n, words, W, part)   thread t sums the selected bases
//      of bitmap words [t·W, (t+1)·W) by mixed additions into XYZZ → part[t]
//   2. while m > FINAL: batch_add_gX_reduce<<<⌈m'/B⌉, B>>>(part, m, K, next)  thread t sums part[t·K, t·K+K)
//      → next[t], m' = ⌈m/K⌉ (ping-pong between two buffers)
//   3. batch_add_gX_finish<<<1, 1>>>(part, m, out)                             one thread: Σ part → Jacobian
// Host check (no GPU needed): python3 cuda/hostcheck/check.py
// Bits at or past n are ignored; bases at infinity (all-zero) contribute nothing. No shared memory, no sync:
// every kernel body is a plain per-thread function (performance is the next issue's business).
#include "curve.cuh"

template <class F>
DEV void batch_add_partial(const Affine<F> *bases, const u64 *bitmap, u32 n, u32 words, u32 per_thread,
                           Xyzz<F> *part) {
    u32 t = tid_x();
    u64 w0 = (u64)t * per_thread;
    if (w0 >= words) return;
    u64 w1 = w0 + per_thread < words ? w0 + per_thread : words;
    Xyzz<F> acc = Xyzz<F>::identity();
    for (u64 w = w0; w < w1; w++) {
        u64 bits = bitmap[w];
        u64 base = w * 64;
        if (base + 64 > n) bits &= n > base ? (~0ull >> (64 - (n - base))) : 0;
        while (bits) {
            int j = ctz64(bits);
            bits &= bits - 1;
            acc.add_affine(bases[base + j]);
        }
    }
    part[t] = acc;
}

template <class F> DEV void batch_add_reduce(const Xyzz<F> *in, u32 m, u32 k, Xyzz<F> *out) {
    u32 t = tid_x();
    u64 a = (u64)t * k;
    if (a >= m) return;
    u64 b = a + k < m ? a + k : m;
    Xyzz<F> acc = in[a];
    for (u64 i = a + 1; i < b; i++) acc.add(in[i]);
    out[t] = acc;
}

template <class F> DEV void batch_add_finish(const Xyzz<F> *in, u32 m, Jacobian<F> *out) {
    if (tid_x() != 0) return;
    Xyzz<F> acc = Xyzz<F>::identity();
    for (u32 i = 0; i < m; i++) acc.add(in[i]);
    *out = acc.to_jacobian();
}

extern "C" __global__ void batch_add_g1_partial(const g1_affine_t *bases, const u64 *bitmap, u32 n, u32 words,
                                                u32 per_thread, g1_xyzz_t *part) {
    batch_add_partial<fp_t>(bases, bitmap, n, words, per_thread, part);
}
extern "C" __global__ void batch_add_g1_reduce(const g1_xyzz_t *in, u32 m, u32 k, g1_xyzz_t *out) {
    batch_add_reduce<fp_t>(in, m, k, out);
}
extern "C" __global__ void batch_add_g1_finish(const g1_xyzz_t *in, u32 m, g1_jacobian_t *out) {
    batch_add_finish<fp_t>(in, m, out);
}
extern "C" __global__ void batch_add_g2_partial(const g2_affine_t *bases, const u64 *bitmap, u32 n, u32 words,
                                                u32 per_thread, g2_xyzz_t *part) {
    batch_add_partial<fp2x_t>(bases, bitmap, n, words, per_thread, part);
}
extern "C" __global__ void batch_add_g2_reduce(const g2_xyzz_t *in, u32 m, u32 k, g2_xyzz_t *out) {
    batch_add_reduce<fp2x_t>(in, m, k, out);
}
extern "C" __global__ void batch_add_g2_finish(const g2_xyzz_t *in, u32 m, g2_jacobian_t *out) {
    batch_add_finish<fp2x_t>(in, m, out);
}
