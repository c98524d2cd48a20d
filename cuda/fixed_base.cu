// Fixed-base multiplication: k_i·P for many scalars k_i and one base P (setup's H, L, A, B_G1 and B_G2
// queries), G1 and G2.
//
// The host builds a window table for P (src/backend/gpu/kernels/fixed_base.rs): entry w·(2^c − 1) + (d − 1)
// is d·2^(c·w)·P in affine form (blst layout), for windows w < ⌈255/c⌉ and digits 1 ≤ d < 2^c. Thread i reads
// scalar i as four canonical (not Montgomery) little-endian limbs, splits it into unsigned c-bit windows and
// adds one table entry per non-zero window by a mixed XYZZ addition (curve.cuh handles P + P and P + (−P)),
// then writes k_i·P as Jacobian (blst_p1 / blst_p2 layout; the identity all-zero), which the host normalizes.
// Host check (no GPU needed): python3 cuda/hostcheck/fixed_base_check.py
#include "curve.cuh"

template <class F>
DEV void fixed_base_body(const Affine<F> *table, const u64 *scalars, u32 n, u32 c, u32 windows,
                         Jacobian<F> *out) {
    u32 i = tid_x();
    if (i >= n) return;
    u64 k[4];
    for (int j = 0; j < 4; j++) k[j] = scalars[4 * (u64)i + j];
    u64 per = (1ull << c) - 1;
    Xyzz<F> acc = Xyzz<F>::identity();
    for (u32 w = 0; w < windows; w++) {
        u32 bit = w * c, limb = bit >> 6, off = bit & 63;
        u64 d = k[limb] >> off;
        if (off + c > 64 && limb < 3) d |= k[limb + 1] << (64 - off);
        d &= per;
        if (d) acc.add_affine(table[(u64)w * per + d - 1]);
    }
    out[i] = acc.to_jacobian();
}

extern "C" __global__ void fixed_base_g1(const g1_affine_t *table, const u64 *scalars, u32 n, u32 c, u32 windows,
                                         g1_jacobian_t *out) {
    fixed_base_body<fp_t>(table, scalars, n, c, windows, out);
}
extern "C" __global__ void fixed_base_g2(const g2_affine_t *table, const u64 *scalars, u32 n, u32 c, u32 windows,
                                         g2_jacobian_t *out) {
    fixed_base_body<fp2x_t>(table, scalars, n, c, windows, out);
}
