// The opt-in strided-pass path's bodies (ntt_pass, CUZK_NTT_PASS=1) and the tiled permutations both paths use
// (ntt_bitrev_tile, ntt_bitrev_tile2, the turn's scaling); cuda/ntt.cu has the kernels.
#pragma once
#include "ntt_stage.cuh"

// ---- Strided multi-stage passes (CUZK_NTT_PASS=1; ntt_stage.cuh's bodies are the default path) ----
// One pass runs log_b ≤ SMEM_LOG radix-2 stages, spans 2^(p_lo+log_b−1) … 2^p_lo, in shared memory. With
// L = 2^p_lo and M = 2^(p_lo+log_b) (the size of the sub-transforms the pass starts), a block holds C = 2^log_c
// columns (consecutive low = P mod L, so C fr_t are contiguous in global memory) of 2^log_b elements each
// (m = (P >> p_lo) mod 2^log_b, stride L). Six-step split of the size-M transform: X[k1 + 2^B·k2] =
// Σ_low ω_L^(low·k2)·ω_M^(low·k1)·Σ_m x[m·L + low]·ω_(2^B)^(m·k1), B = log_b:
//   * DIF (natural → bit-reversed): the 2^B-point DIF of each column (compact twiddles lt), then the "twist"
//     ω_M^(±low·k1) with k1 = bitrev_B(m) on the way out; the remaining passes transform each m-row.
//   * DIT (bit-reversed → natural), the exact reverse: passes in the opposite order, the twist on the way in,
//     then the 2^B-point DIT of each column.
// Twists come from the two-level table of ω_N (tw_lo/tw_hi, exponents < N): no N/2-entry table. The last
// DIF pass / first DIT pass has p_lo = 0 (low = 0, no twist). Optional scaling by c·g^idx (second two-level
// table s_lo/s_hi) on load (idx = P) or on store (idx = P or bitrev_log_n(P)): 1/N and coset shifts.
#define PF_INV 1u         // ω^(−1) (inverse transform)
#define PF_DIT 2u         // decimation in time (bit-reversed in, natural out); else DIF
#define PF_LOAD_SCALE 4u  // x ← x·s(P) after the load
#define PF_STORE_SCALE 8u // x ← x·s(idx) before the store
#define PF_STORE_REV 16u  // the store's idx is bitrev_log_n(P) (the element's natural index in DIF output)
#define PF_LOAD_PW 32u    // x ← x·pw_b[P] on the load (compute_h's product of the coset evaluations, fused)
struct PassArgs {
    const fr_t *lt, *tw_lo, *tw_hi, *s_lo, *s_hi, *pw_b;
    u32 log_n, p_lo, log_b, log_c, lo_bits, flags;
};
// Shared layout: column-major, each column's 2^log_b elements contiguous (a stage's butterflies then read
// consecutive fr_t across a warp), columns padded by one fr_t when C ≤ 32 so that the loads and stores (lanes
// walk the C columns of one m first, for coalesced global access) fall in different banks.
#define SM_PAD_LOG_C 5
#define SM_LEN ((1u << SMEM_LOG) + (1u << SM_PAD_LOG_C))
HD u32 pass_sidx(const PassArgs &p, u32 col, u32 m) {
    u32 pad = p.log_c <= SM_PAD_LOG_C ? 1u : 0u;
    return col * ((1u << p.log_b) + pad) + m;
}
// Global index of flat element e = m·C + col of block blk; col, low and m out.
HD u32 pass_pos(const PassArgs &p, u32 blk, u32 e, u32 &col, u32 &low, u32 &m) {
    col = e & ((1u << p.log_c) - 1);
    m = e >> p.log_c;
    u32 gsh = p.p_lo - p.log_c;  // column groups per m-row: 2^gsh
    u32 lowgrp = blk & ((1u << gsh) - 1);
    u32 hi = blk >> gsh;
    low = (lowgrp << p.log_c) | col;
    return (hi << (p.p_lo + p.log_b)) | (m << p.p_lo) | low;
}
// ω_M^(±low·bitrev_B(m)) as a power of ω_N.
HD fr_t pass_twist(const PassArgs &p, u32 low, u32 m) {
    u32 k1 = brev_bits(m, p.log_b);
    u32 n_mask = (1u << p.log_n) - 1;
    u32 e = (low * k1) << (p.log_n - p.p_lo - p.log_b);
    if (p.flags & PF_INV) e = (0u - e) & n_mask;
    return pow_at(p.tw_lo, p.tw_hi, e, p.lo_bits);
}
// Thread tid of 2^(log_b−1+log_c) loads elements tid and tid + T.
HD void pass_load(fr_t *sm, const fr_t *a, const PassArgs &p, u32 blk, u32 tid) {
    u32 T = 1u << (p.log_b - 1 + p.log_c);
    for (u32 e = tid; e < 2 * T; e += T) {
        u32 col, low, m;
        u32 P = pass_pos(p, blk, e, col, low, m);
        fr_t x = a[P];
        if (p.flags & PF_LOAD_PW) x = x * p.pw_b[P];
        if (p.flags & PF_LOAD_SCALE) x = x * pow_at(p.s_lo, p.s_hi, P, p.lo_bits);
        if ((p.flags & PF_DIT) && p.p_lo > 0) x = x * pass_twist(p, low, m);
        sm[pass_sidx(p, col, m)] = x;
    }
}
// One radix-2 stage of local span 2^ls within every column (DIF or DIT butterfly); thread tid does butterfly
// u of column col (u fastest, so a warp stays in one column once log_b ≥ 6).
HD void pass_stage(fr_t *sm, const PassArgs &p, u32 tid, u32 ls) {
    u32 col = tid >> (p.log_b - 1);
    u32 u = tid & ((1u << (p.log_b - 1)) - 1);
    u32 h = 1u << ls;
    u32 j = u & (h - 1);
    u32 m0 = ((u >> ls) << (ls + 1)) + j;
    u32 i0 = pass_sidx(p, col, m0), i1 = i0 + h;
    bool inv = (p.flags & PF_INV) != 0;
    const fr_t *lt = p.lt + LT_BASE(ls);
    fr_t x = sm[i0], y = sm[i1];
    if (ls == 0) {  // span 1: the twiddle is ±1 and both directions and orders give (x + y, x − y)
        sm[i0] = lz_add(x, y);
        sm[i1] = lz_sub(x, y);
    } else if (p.flags & PF_DIT) {
        // y·ω_2h^(±j); ω_2h^(−j) = −ω_2h^(h−j), so the inverse swaps the sum and the difference.
        fr_t t = lz_mul(y, lt[inv ? h - j : j]);
        fr_t s = lz_add(x, t), d = lz_sub(x, t);
        sm[i0] = inv ? d : s;
        sm[i1] = inv ? s : d;
    } else {
        sm[i0] = lz_add(x, y);
        sm[i1] = dif_diff(x, y, lt, j, h, inv);
    }
}
HD void pass_store(const fr_t *sm, fr_t *a, const PassArgs &p, u32 blk, u32 tid) {
    u32 T = 1u << (p.log_b - 1 + p.log_c);
    for (u32 e = tid; e < 2 * T; e += T) {
        u32 col, low, m;
        u32 P = pass_pos(p, blk, e, col, low, m);
        fr_t x = lz_canon(sm[pass_sidx(p, col, m)]);  // each pass stores canonical values (a path kept simple)
        if (!(p.flags & PF_DIT) && p.p_lo > 0) x = x * pass_twist(p, low, m);
        if (p.flags & PF_STORE_SCALE) {
            u32 idx = (p.flags & PF_STORE_REV) ? brev_bits(P, p.log_n) : P;
            x = x * pow_at(p.s_lo, p.s_hi, idx, p.lo_bits);
        }
        a[P] = x;
    }
}

// Tiled bit reversal (pass path; log_n ≥ 2·BR_T): index i = (h | mid | l) with h, l of BR_T bits. bitrev(i) =
// (rev(l) | rev(mid) | rev(h)), so tile mid (all h, l: 2^BR_T rows of 2^BR_T contiguous fr_t) maps onto tile
// rev(mid), transposed. Block mid ≤ rev(mid) loads both tiles (coalesced 512 B rows), then writes each into
// the other's place, ·c·g^(destination) if scale — in place, blocks disjoint. 2^(2·BR_T) threads per block.
#define BR_T 4
#define BR_ROW ((1u << BR_T) + 1)  // padded row (transposed shared reads spread over the banks)
HD bool br_load(fr_t *sm, const fr_t *a, u32 blk, u32 tid, u32 log_n) {
    u32 mb = log_n - 2 * BR_T, rmid = brev_bits(blk, mb);
    if (blk > rmid) return false;
    u32 h = tid >> BR_T, l = tid & ((1u << BR_T) - 1);
    sm[h * BR_ROW + l] = ldv(a + ((h << (log_n - BR_T)) | (blk << BR_T) | l));
    sm[(BR_ROW << BR_T) + h * BR_ROW + l] = ldv(a + ((h << (log_n - BR_T)) | (rmid << BR_T) | l));
    return true;
}
HD void br_store(const fr_t *sm, fr_t *a, const fr_t *lo, const fr_t *hi, u32 blk, u32 tid, u32 log_n, u32 lo_bits, bool scale) {
    u32 mb = log_n - 2 * BR_T, rmid = brev_bits(blk, mb);
    u32 h = tid >> BR_T, l = tid & ((1u << BR_T) - 1);
    u32 src = brev_bits(l, BR_T) * BR_ROW + brev_bits(h, BR_T);  // the element landing at (h, ·, l)
    for (u32 k = 0; k < 2; k++) {
        if (k == 1 && rmid == blk) break;
        u32 dmid = k == 0 ? rmid : blk;        // tile blk goes to rmid, tile rmid to blk
        u32 idx = (h << (log_n - BR_T)) | (dmid << BR_T) | l;
        fr_t x = sm[(k << BR_T) * BR_ROW + src];
        if (scale) x = x * pow_at(lo, hi, idx, lo_bits);
        stv(a + idx, x);
    }
}

// ntt_smem_turn's middle: ·c·g^i at i = bitrev_log_n(P) for the thread's four elements of block blk.
HD void smem4_turn_scale(fr_t *sm, const fr_t *lo, const fr_t *hi, u32 blk, u32 tid, u32 log_b, u32 log_n, u32 lo_bits) {
    u32 qb = 1u << (log_b - 2);
    for (u32 k = 0; k < 4; k++) {
        u32 l = tid + k * qb;
        sm[l] = lz_mul(sm[l], pow_at(lo, hi, brev_bits((blk << log_b) + l, log_n), lo_bits));
    }
}
// br_load for both of bitrev2's inputs: a's two tiles, then b's.
HD bool br2_load(fr_t *sm, const fr_t *a, const fr_t *b, u32 blk, u32 tid, u32 log_n) {
    if (!br_load(sm, a, blk, tid, log_n)) return false;
    br_load(sm + (2 * BR_ROW << BR_T), b, blk, tid, log_n);
    return true;
}
// br_store with bitrev2's combination (BR2_MUL / BR2_SUB in ntt_stage.cuh) instead of the scale.
HD void br2_store(const fr_t *sm, fr_t *a, const fr_t *lo, const fr_t *hi, const fr_t *zn, u32 blk, u32 tid, u32 log_n, u32 lo_bits, u32 mode) {
    u32 mb = log_n - 2 * BR_T, rmid = brev_bits(blk, mb);
    u32 h = tid >> BR_T, l = tid & ((1u << BR_T) - 1);
    u32 src = brev_bits(l, BR_T) * BR_ROW + brev_bits(h, BR_T);
    for (u32 k = 0; k < 2; k++) {
        if (k == 1 && rmid == blk) break;
        u32 dmid = k == 0 ? rmid : blk;
        u32 idx = (h << (log_n - BR_T)) | (dmid << BR_T) | l;
        u32 at = (k << BR_T) * BR_ROW + src;
        stv(a + idx, br2_op(sm[at], sm[(2 * BR_ROW << BR_T) + at], lo, hi, zn, idx, lo_bits, mode));
    }
}
