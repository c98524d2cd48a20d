// BLS12-381 G1 (over fp_t, y^2 = x^3 + 4) and G2 (over fp2_t, y^2 = x^3 + 4(u + 1)) point arithmetic for the
// MSM and batch-addition kernels.
//
// - Affine points in blst's layout (x then y; G1 12 u64, G2 24 u64); the identity is all-zero limbs ((0, 0) is
//   on neither curve, since 0 ≠ b).
// - Accumulators in XYZZ coordinates (x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2); the identity has ZZ = ZZZ = 0 (kept
//   all-zero). Formulas: EFD "xyzz" short Weierstrass with a = 0 — madd-2008-s, mdbl-2008-s, add-2008-s,
//   dbl-2008-s — with the exceptional cases (identity operands, P + P, P + (−P)) handled explicitly.
// - Results leave as Jacobian in blst's layout (blst_p1 / blst_p2: x, y, z; x = X/Z^2, y = Y/Z^3), without an
//   inversion: Z = ZZ·ZZZ, X = X·ZZ·ZZZ^2, Y = Y·ZZ^3·ZZZ^2; the identity becomes all-zero (z = 0 is blst's
//   "is_inf" test for Jacobian points).
//
// Templated over the coordinate field F (fp_t, or fp2x_t below for G2): F needs +, −, *, sqr, dbl, neg, is_zero, zero, one.
// The curve constant b never appears (a = 0 formulas do not use it). Compiles as host C++ (see field.cuh);
// the host-emulation helpers at the bottom let cuda/hostcheck run the kernels' bodies on the CPU.
#pragma once
#include "field.cuh"

// Cold paths (doubling, XYZZ + XYZZ, small multiples, the Jacobian conversion) are not inlined on the device:
// they run rarely (P + P in a bucket) or only in the reduction kernels, and inlining them made ptxas take
// minutes per module and pushed the hot mixed-addition loop's register use up. The hot path, add_affine's
// generic case, stays inline.
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define HD_COLD __host__ __device__ __noinline__
#else
#define HD_COLD inline
#endif

template <class F> struct Affine {
    F x, y;
    HD bool is_inf() const { return x.is_zero() && y.is_zero(); }
    HD Affine neg() const { return {x, y.neg()}; }  // −O = O since neg(0) = 0
};

template <class F> struct Jacobian {
    F x, y, z;
};

template <class F> struct Xyzz {
    F X, Y, ZZ, ZZZ;

    static HD Xyzz identity() { return {F::zero(), F::zero(), F::zero(), F::zero()}; }
    HD bool is_inf() const { return ZZ.is_zero(); }
    static HD Xyzz from_affine(const Affine<F> &p) {
        if (p.is_inf()) return identity();
        return {p.x, p.y, F::one(), F::one()};
    }
    HD Xyzz neg() const { return {X, Y.neg(), ZZ, ZZZ}; }

    // 2·(x, y) for an affine point (mdbl-2008-s): U = 2y, V = U^2, W = U·V, S = x·V, M = 3x^2,
    // X3 = M^2 − 2S, Y3 = M(S − X3) − W·y, ZZ3 = V, ZZZ3 = W. y = 0 gives V = 0, i.e. the identity.
    static HD_COLD Xyzz dbl_affine(const Affine<F> &p) {
        F U = p.y.dbl();
        F V = U.sqr();
        F W = U * V;
        F S = p.x * V;
        F xx = p.x.sqr();
        F M = xx.dbl() + xx;
        F X3 = M.sqr() - S.dbl();
        F Y3 = M * (S - X3) - W * p.y;
        return {X3, Y3, V, W};
    }

    // 2·this (dbl-2008-s): as above with ZZ3 = V·ZZ1, ZZZ3 = W·ZZZ1; the identity stays the identity.
    HD_COLD Xyzz dbl() const {
        F U = Y.dbl();
        F V = U.sqr();
        F W = U * V;
        F S = X * V;
        F xx = X.sqr();
        F M = xx.dbl() + xx;
        F X3 = M.sqr() - S.dbl();
        F Y3 = M * (S - X3) - W * Y;
        return {X3, Y3, V * ZZ, W * ZZZ};
    }

    // this + q for an affine q (madd-2008-s): U2 = x2·ZZ1, S2 = y2·ZZZ1, P = U2 − X1, R = S2 − Y1,
    // PP = P^2, PPP = P·PP, Q = X1·PP, X3 = R^2 − PPP − 2Q, Y3 = R(Q − X3) − Y1·PPP, ZZ3 = ZZ1·PP,
    // ZZZ3 = ZZZ1·PPP. P = 0: same x, so q = this (R = 0: double) or q = −this (identity).
    HD void add_affine(const Affine<F> &q) {
        if (q.is_inf()) return;
        if (is_inf()) {
            *this = from_affine(q);
            return;
        }
        F U2 = q.x * ZZ;
        F S2 = q.y * ZZZ;
        F P = U2 - X;
        F R = S2 - Y;
        if (P.is_zero()) {
            *this = R.is_zero() ? dbl_affine(q) : identity();
            return;
        }
        F PP = P.sqr();
        F PPP = P * PP;
        F Q = X * PP;
        F X3 = R.sqr() - PPP - Q.dbl();
        F Y3 = R * (Q - X3) - Y * PPP;
        ZZ = ZZ * PP;
        ZZZ = ZZZ * PPP;
        X = X3;
        Y = Y3;
    }

    // this + q (add-2008-s): U1 = X1·ZZ2, U2 = X2·ZZ1, S1 = Y1·ZZZ2, S2 = Y2·ZZZ1, P = U2 − U1, R = S2 − S1,
    // PP = P^2, PPP = P·PP, Q = U1·PP, X3 = R^2 − PPP − 2Q, Y3 = R(Q − X3) − S1·PPP, ZZ3 = ZZ1·ZZ2·PP,
    // ZZZ3 = ZZZ1·ZZZ2·PPP.
    HD_COLD void add(const Xyzz &q) {
        if (q.is_inf()) return;
        if (is_inf()) {
            *this = q;
            return;
        }
        F U1 = X * q.ZZ;
        F U2 = q.X * ZZ;
        F S1 = Y * q.ZZZ;
        F S2 = q.Y * ZZZ;
        F P = U2 - U1;
        F R = S2 - S1;
        if (P.is_zero()) {
            *this = R.is_zero() ? dbl() : identity();
            return;
        }
        F PP = P.sqr();
        F PPP = P * PP;
        F Q = U1 * PP;
        F X3 = R.sqr() - PPP - Q.dbl();
        F Y3 = R * (Q - X3) - S1 * PPP;
        ZZ = ZZ * q.ZZ * PP;
        ZZZ = ZZZ * q.ZZZ * PPP;
        X = X3;
        Y = Y3;
    }

    // k·this for a small public k (double-and-add from the top bit).
    HD_COLD Xyzz mul_small(u32 k) const {
        Xyzz acc = identity();
        for (int b = 31; b >= 0; b--) {
            if (!acc.is_inf()) acc = acc.dbl();
            if ((k >> b) & 1) acc.add(*this);
        }
        return acc;
    }

    // Jacobian (blst layout) without inversion: Z = ZZ·ZZZ, X' = X·ZZ·ZZZ^2, Y' = Y·ZZ^3·ZZZ^2.
    // The identity (ZZ = ZZZ = 0) maps to all-zero.
    HD_COLD Jacobian<F> to_jacobian() const {
        if (is_inf()) return {F::zero(), F::zero(), F::zero()};
        F z = ZZ * ZZZ;      // ZZ·ZZZ
        F zzz2 = ZZZ.sqr();  // ZZZ^2
        F x = X * ZZ * zzz2;
        F y = Y * ZZ.sqr() * ZZ * zzz2;
        return {x, y, z};
    }
};

// Fp2 with its multiplication and squaring out of line on the device (same layout as fp2_t): G2 formulas
// inline three Fp multiplications per Fp2 one, and fully inlined G2 kernels took ptxas many minutes.
struct fp2x_t {
    fp2_t a;
    static HD fp2x_t zero() { return {fp2_t::zero()}; }
    static HD fp2x_t one() { return {fp2_t::one()}; }
    HD bool is_zero() const { return a.is_zero(); }
    HD bool operator==(const fp2x_t &o) const { return a == o.a; }
    HD fp2x_t operator+(const fp2x_t &o) const { return {a + o.a}; }
    HD fp2x_t operator-(const fp2x_t &o) const { return {a - o.a}; }
    HD fp2x_t neg() const { return {a.neg()}; }
    HD fp2x_t dbl() const { return {a.dbl()}; }
    HD_COLD fp2x_t operator*(const fp2x_t &o) const { return {a * o.a}; }
    HD_COLD fp2x_t sqr() const { return {a.sqr()}; }
};

typedef Affine<fp_t> g1_affine_t;    // 12 u64 = blst_p1_affine / blstrs::G1Affine
typedef Affine<fp2x_t> g2_affine_t;  // 24 u64 = blst_p2_affine / blstrs::G2Affine
typedef Jacobian<fp_t> g1_jacobian_t;  // 18 u64 = blst_p1 / blstrs::G1Projective
typedef Jacobian<fp2x_t> g2_jacobian_t; // 36 u64 = blst_p2 / blstrs::G2Projective
typedef Xyzz<fp_t> g1_xyzz_t;        // 24 u64
typedef Xyzz<fp2x_t> g2_xyzz_t;      // 48 u64

// Thread indices and counter atomics, so kernel bodies also run on the host (cuda/hostcheck): there the
// emulator sets hostcheck_tid_x / _y before each call and runs the "threads" one after another.
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
DEV u32 tid_x() { return blockIdx.x * blockDim.x + threadIdx.x; }
DEV u32 tid_y() { return blockIdx.y; }
DEV u32 atomic_inc_u32(u32 *p) { return atomicAdd(p, 1u); }
DEV int ctz64(u64 w) { return __ffsll((long long)w) - 1; }
#else
static u32 hostcheck_tid_x, hostcheck_tid_y;
inline u32 tid_x() { return hostcheck_tid_x; }
inline u32 tid_y() { return hostcheck_tid_y; }
inline u32 atomic_inc_u32(u32 *p) { return (*p)++; }
inline int ctz64(u64 w) { return __builtin_ctzll(w); }
#endif
