// Machine floors for `cuzk bench floor` (src/backend/gpu/floor.rs): the device's peak rate of full 64×64→128-bit
// integer multiplies (the unit every field multiplication is counted in) and its memory bandwidth.
//
//   floor_mul64<<<grid, 256>>>(iters, seed, out): each thread steps 8 independent chains x = lo(x·K) ^ hi(x·K)
//     `iters` times (8 full products per step: mul.lo + mul.hi each), then writes their xor so nothing is
//     optimized away. Rate = threads · iters · 8 / time.
//   floor_copy<<<grid, 256>>>(src, dst, n): grid-stride copy of n u64; bandwidth = 2 · 8n bytes / time.
// Kept deliberately simple: a floor is what plain code reaches at full occupancy, not a tuned kernel.

typedef unsigned long long u64;

extern "C" __global__ void floor_mul64(u64 iters, u64 seed, u64 *out) {
    u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    const u64 K = 0xD1B54A32D192ED03ull;
    u64 x[8];
#pragma unroll
    for (int i = 0; i < 8; i++) x[i] = seed ^ (t * 0x9E3779B97F4A7C15ull + (u64)i * 0xBF58476D1CE4E5B9ull);
    for (u64 k = 0; k < iters; k++) {
#pragma unroll
        for (int i = 0; i < 8; i++) {
            u64 lo = x[i] * K;
            u64 hi = __umul64hi(x[i], K);
            x[i] = lo ^ hi;
        }
    }
    u64 acc = 0;
#pragma unroll
    for (int i = 0; i < 8; i++) acc ^= x[i];
    out[t] = acc;
}

extern "C" __global__ void floor_copy(const u64 *src, u64 *dst, u64 n) {
    u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) dst[i] = src[i];
}
