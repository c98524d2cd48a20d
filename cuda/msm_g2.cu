// Pippenger MSM for G2 (B_G2 on the device, toggle `g2d`): steps 5–7 of cuda/msm.cu's launch sequence over
// G2 points (affine 192 B, XYZZ 384 B, Jacobian 288 B in blst's layout), the same templated bodies as G1's
// (msm_accum.cuh). Steps 1–4 (scalar recoding, digits, the counting sort) are group-free: the host launches
// msm.cu's kernels for them on the same buffers (src/backend/gpu/kernels/msm/stages.rs). A module of its own
// so that its compile runs beside msm.cu's and G1's cubin does not grow.
//
// Launch sequence per pass, as msm.cu's with msm_g2_* for steps 5–7; msm_g2_window_final runs MSM_G2_FINAL_T
// threads per block. Before it, for the prover's B_G2 (the resident query, the MSM's bases at positions idx):
//   msm_g2_gather<<<⌈n/B⌉, B>>>(bases, idx, n, out)      out[i] = bases[idx[i]]
// Host check (no GPU needed): python3 cuda/hostcheck/check.py
//
// Registers / spills (nvcc 13.0 -arch=sm_90 -cubin -Xptxas -v): see the figures at each kernel's launch
// configuration in stages.rs; the walk loads each base at use (no prefetch: a G2 base is 48 registers).
#include "msm_accum.cuh"

extern "C" __global__ void msm_g2_gather(const g2_affine_t *bases, const u32 *idx, u32 n, g2_affine_t *out) {
    u32 i = tid_x();
    if (i < n) out[i] = bases[idx[i]];
}

extern "C" __global__ void msm_g2_accum_flat(const g2_affine_t *bases, const u32 *sorted, const u32 *offsets,
                                             u32 m, u32 k1, g2_xyzz_t *buckets, g2_xyzz_t *part_out,
                                             u32 *b_key) {
    msm_flat_body<fp2x_t, false>(bases, sorted, offsets, m, k1, buckets, part_out, b_key);
}

extern "C" __global__ void msm_g2_accum_fix(const u32 *offsets, u32 m, u32 k1, const u32 *b_key,
                                            const g2_xyzz_t *part_in, g2_xyzz_t *buckets) {
    msm_fix_body<fp2x_t>(offsets, m, k1, b_key, part_in, buckets);
}

extern "C" __global__ void msm_g2_accum_parts(const u32 *offsets, u32 m, u32 level, u32 k1, u32 kr,
                                              const g2_xyzz_t *part_in, g2_xyzz_t *buckets,
                                              g2_xyzz_t *part_out) {
    msm_parts_body<fp2x_t>(offsets, m, level, k1, kr, part_in, buckets, part_out);
}

extern "C" __global__ void msm_g2_bucket_reduce(const g2_xyzz_t *buckets, u32 nb, u32 seg_len, u32 segs,
                                                g2_xyzz_t *seg_out) {
    msm_reduce_body<fp2x_t>(buckets, nb, seg_len, segs, seg_out);
}

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
extern "C" __global__ void __launch_bounds__(MSM_G2_FINAL_T) msm_g2_window_final(const g2_xyzz_t *segs_in,
                                                                                  u32 segs, u32 seg_len, u32 w0,
                                                                                  u32 fold, g2_jacobian_t *windows) {
    msm_window_final_body<fp2x_t, MSM_G2_FINAL_T>(segs_in, segs, seg_len, w0, fold, windows);
}
#endif
