// Montgomery arithmetic over BLS12-381's Fr (255-bit, 4 limbs) and Fp (381-bit, 6 limbs).
//
// Layout is blst's: little-endian 64-bit limbs, Montgomery form (x·R mod m, R = 2^(64·N)), always fully
// reduced below the modulus. So blstrs' Scalar / Fp / affine points reach the device without conversion
// (docs/ARCHITECTURE.md). Self-contained: no system headers (NVRTC here has no include path). The same code compiles
// as host C++ (g++) so the arithmetic can be checked on a machine without a GPU.
//
// First version: 64-bit CIOS multiplication. On the device, adc/sbb/mac use PTX carry flags (add.cc/addc,
// mad.lo.cc/madc.hi): 656 instead of 768 SASS instructions per Fr product and 1368 instead of 1712 per Fp
// product (nvcc 13.0, sm_90, cuobjdump). The host (g++) path keeps the portable code the host checks run.
// Whole-row carry chains with 32-bit limbs are the next issue's business.
#pragma once

typedef unsigned long long u64;
typedef unsigned int u32;
typedef int i32;

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define DEV __device__ __forceinline__
#define HD __host__ __device__ __forceinline__
#else
#define DEV inline
#define HD inline
#define __global__
#define __device__
#define __shared__
#endif

HD u64 mul_hi(u64 a, u64 b) {
#if defined(__CUDA_ARCH__)
    return __umul64hi(a, b);
#else
    return (u64)(((unsigned __int128)a * b) >> 64);
#endif
}

// a + b + carry_in; carry_out in {0, 1}.
HD u64 adc(u64 a, u64 b, u64 &carry) {
#if defined(__CUDA_ARCH__)
    u64 r, c;
    asm("add.cc.u64 %0, %2, %3;\n\taddc.u64 %1, 0, 0;\n\tadd.cc.u64 %0, %0, %4;\n\taddc.u64 %1, %1, 0;"
        : "=l"(r), "=l"(c) : "l"(a), "l"(b), "l"(carry));
    carry = c;
    return r;
#else
    u64 s = a + b;
    u64 c1 = s < a;
    u64 r = s + carry;
    u64 c2 = r < s;
    carry = c1 + c2;
    return r;
#endif
}

// a − b − borrow_in; borrow_out in {0, 1}.
HD u64 sbb(u64 a, u64 b, u64 &borrow) {
#if defined(__CUDA_ARCH__)
    u64 r, c;
    asm("sub.cc.u64 %0, %2, %3;\n\tsubc.u64 %1, 0, 0;\n\tsub.cc.u64 %0, %0, %4;\n\tsubc.u64 %1, %1, 0;"
        : "=l"(r), "=l"(c) : "l"(a), "l"(b), "l"(borrow));
    borrow = 0 - c;
    return r;
#else
    u64 d = a - b;
    u64 b1 = a < b;
    u64 r = d - borrow;
    u64 b2 = d < borrow;
    borrow = b1 + b2;
    return r;
#endif
}

// a + b·c + carry_in → low word; carry_out = high word (never overflows: (2^64−1)^2 + 2·(2^64−1) < 2^128).
HD u64 mac(u64 a, u64 b, u64 c, u64 &carry) {
#if defined(__CUDA_ARCH__)
    u64 lo, hi;
    asm("mad.lo.cc.u64 %0, %2, %3, %4;\n\tmadc.hi.u64 %1, %2, %3, 0;\n\tadd.cc.u64 %0, %0, %5;\n\taddc.u64 %1, %1, 0;"
        : "=l"(lo), "=l"(hi) : "l"(b), "l"(c), "l"(a), "l"(carry));
    carry = hi;
    return lo;
#else
    u64 lo = b * c;
    u64 hi = mul_hi(b, c);
    lo += a;
    hi += lo < a;
    lo += carry;
    hi += lo < carry;
    carry = hi;
    return lo;
#endif
}

// Field constants. Accessors use switches so that, once loops are unrolled, every constant folds into an
// immediate on both host and device (no constant-memory loads, no host-array ODR issues under NVRTC).
struct FrCfg {
    enum { N = 4 };
    static HD u64 p(int i) {
        switch (i) {
        case 0: return 0xffffffff00000001ull;
        case 1: return 0x53bda402fffe5bfeull;
        case 2: return 0x3339d80809a1d805ull;
        default: return 0x73eda753299d7d48ull;
        }
    }
    static HD u64 r(int i) {  // R mod r: Montgomery one
        switch (i) {
        case 0: return 0x00000001fffffffeull;
        case 1: return 0x5884b7fa00034802ull;
        case 2: return 0x998c4fefecbc4ff5ull;
        default: return 0x1824b159acc5056full;
        }
    }
    static HD u64 r2(int i) {  // R^2 mod r: to_mont multiplier
        switch (i) {
        case 0: return 0xc999e990f3f29c6dull;
        case 1: return 0x2b6cedcb87925c23ull;
        case 2: return 0x05d314967254398full;
        default: return 0x0748d9d99f59ff11ull;
        }
    }
    static HD u64 inv() { return 0xfffffffeffffffffull; }  // −m^(−1) mod 2^64
};

struct FpCfg {
    enum { N = 6 };
    static HD u64 p(int i) {
        switch (i) {
        case 0: return 0xb9feffffffffaaabull;
        case 1: return 0x1eabfffeb153ffffull;
        case 2: return 0x6730d2a0f6b0f624ull;
        case 3: return 0x64774b84f38512bfull;
        case 4: return 0x4b1ba7b6434bacd7ull;
        default: return 0x1a0111ea397fe69aull;
        }
    }
    static HD u64 r(int i) {
        switch (i) {
        case 0: return 0x760900000002fffdull;
        case 1: return 0xebf4000bc40c0002ull;
        case 2: return 0x5f48985753c758baull;
        case 3: return 0x77ce585370525745ull;
        case 4: return 0x5c071a97a256ec6dull;
        default: return 0x15f65ec3fa80e493ull;
        }
    }
    static HD u64 r2(int i) {
        switch (i) {
        case 0: return 0xf4df1f341c341746ull;
        case 1: return 0x0a76e6a609d104f1ull;
        case 2: return 0x8de5476c4c95b6d5ull;
        case 3: return 0x67eb88a9939d83c0ull;
        case 4: return 0x9a793e85b519952dull;
        default: return 0x11988fe592cae3aaull;
        }
    }
    static HD u64 inv() { return 0x89f3fffcfffcfffdull; }
};

// A field element: exactly N limbs, no padding (sizeof = 8·N), so arrays of them alias blst's arrays.
template <class C> struct Fe {
    u64 v[C::N];

    static HD Fe zero() {
        Fe r;
#pragma unroll
        for (int i = 0; i < C::N; i++) r.v[i] = 0;
        return r;
    }
    static HD Fe one() {
        Fe r;
#pragma unroll
        for (int i = 0; i < C::N; i++) r.v[i] = C::r(i);
        return r;
    }
    HD bool is_zero() const {
        u64 acc = 0;
#pragma unroll
        for (int i = 0; i < C::N; i++) acc |= v[i];
        return acc == 0;
    }
    HD bool operator==(const Fe &o) const {
        u64 acc = 0;
#pragma unroll
        for (int i = 0; i < C::N; i++) acc |= v[i] ^ o.v[i];
        return acc == 0;
    }
    HD bool operator!=(const Fe &o) const { return !(*this == o); }

    // Subtracts the modulus when t (with extra top word `top`) is ≥ m.
    static HD Fe reduce_once(const u64 *t, u64 top) {
        Fe d;
        u64 borrow = 0;
#pragma unroll
        for (int i = 0; i < C::N; i++) d.v[i] = sbb(t[i], C::p(i), borrow);
        // t ≥ m iff the subtraction did not borrow past the top word.
        bool use_d = top != 0 || borrow == 0;
        Fe r;
#pragma unroll
        for (int i = 0; i < C::N; i++) r.v[i] = use_d ? d.v[i] : t[i];
        return r;
    }

    HD Fe operator+(const Fe &o) const {
        u64 s[C::N];
        u64 carry = 0;
#pragma unroll
        for (int i = 0; i < C::N; i++) s[i] = adc(v[i], o.v[i], carry);
        return reduce_once(s, carry);
    }

    HD Fe operator-(const Fe &o) const {
        Fe d;
        u64 borrow = 0;
#pragma unroll
        for (int i = 0; i < C::N; i++) d.v[i] = sbb(v[i], o.v[i], borrow);
        // On borrow add m back (mask keeps it branch-free).
        u64 mask = 0 - borrow;
        u64 carry = 0;
#pragma unroll
        for (int i = 0; i < C::N; i++) d.v[i] = adc(d.v[i], C::p(i) & mask, carry);
        return d;
    }

    HD Fe neg() const { return zero() - *this; }
    HD Fe dbl() const { return *this + *this; }

    // Montgomery product a·b·R^(−1) mod m (CIOS).
    HD Fe operator*(const Fe &o) const {
        u64 t[C::N + 2];
#pragma unroll
        for (int i = 0; i < C::N + 2; i++) t[i] = 0;
#pragma unroll
        for (int i = 0; i < C::N; i++) {
            u64 carry = 0;
#pragma unroll
            for (int j = 0; j < C::N; j++) t[j] = mac(t[j], v[j], o.v[i], carry);
            u64 c2 = 0;
            t[C::N] = adc(t[C::N], carry, c2);
            t[C::N + 1] = c2;
            u64 m = t[0] * C::inv();
            carry = 0;
            (void)mac(t[0], m, C::p(0), carry);
#pragma unroll
            for (int j = 1; j < C::N; j++) t[j - 1] = mac(t[j], m, C::p(j), carry);
            u64 c3 = 0;
            t[C::N - 1] = adc(t[C::N], carry, c3);
            t[C::N] = t[C::N + 1] + c3;
        }
        return reduce_once(t, t[C::N]);
    }

    HD Fe sqr() const { return *this * *this; }

    // Montgomery → canonical integer (limbs of x, not x·R).
    HD Fe from_mont() const {
        Fe one_raw = zero();
        one_raw.v[0] = 1;
        return *this * one_raw;
    }
    // Canonical integer → Montgomery.
    HD Fe to_mont() const {
        Fe r2;
#pragma unroll
        for (int i = 0; i < C::N; i++) r2.v[i] = C::r2(i);
        return *this * r2;
    }

    // x^e for a small public exponent given as 64-bit words (little-endian), square-and-multiply.
    HD Fe pow(const u64 *e, int words) const {
        Fe acc = one();
        for (int w = words - 1; w >= 0; w--) {
            for (int b = 63; b >= 0; b--) {
                acc = acc.sqr();
                if ((e[w] >> b) & 1) acc = acc * *this;
            }
        }
        return acc;
    }
};

typedef Fe<FrCfg> fr_t;  // 32 bytes, blst_fr / blstrs::Scalar
typedef Fe<FpCfg> fp_t;  // 48 bytes, blst_fp

// Fp2 = Fp[u]/(u^2 + 1), blst_fp2 layout (c0 then c1).
struct fp2_t {
    fp_t c0, c1;

    static HD fp2_t zero() { return {fp_t::zero(), fp_t::zero()}; }
    static HD fp2_t one() { return {fp_t::one(), fp_t::zero()}; }
    HD bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
    HD bool operator==(const fp2_t &o) const { return c0 == o.c0 && c1 == o.c1; }
    HD bool operator!=(const fp2_t &o) const { return !(*this == o); }
    HD fp2_t operator+(const fp2_t &o) const { return {c0 + o.c0, c1 + o.c1}; }
    HD fp2_t operator-(const fp2_t &o) const { return {c0 - o.c0, c1 - o.c1}; }
    HD fp2_t neg() const { return {c0.neg(), c1.neg()}; }
    HD fp2_t dbl() const { return {c0.dbl(), c1.dbl()}; }
    // (a0 + a1 u)(b0 + b1 u) = a0 b0 − a1 b1 + ((a0 + a1)(b0 + b1) − a0 b0 − a1 b1) u  (Karatsuba, 3 mults).
    HD fp2_t operator*(const fp2_t &o) const {
        fp_t t0 = c0 * o.c0;
        fp_t t1 = c1 * o.c1;
        fp_t t2 = (c0 + c1) * (o.c0 + o.c1);
        return {t0 - t1, t2 - t0 - t1};
    }
    // (a0 + a1 u)^2 = (a0 + a1)(a0 − a1) + 2 a0 a1 u.
    HD fp2_t sqr() const {
        fp_t t = c0 * c1;
        return {(c0 + c1) * (c0 - c1), t.dbl()};
    }
};
