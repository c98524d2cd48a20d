// The NTT's tiled permutations (ntt_bitrev_tile, ntt_bitrev_tile2) and the turn's scaling; cuda/ntt.cu has
// the kernels.
#pragma once
#include "ntt_stage.cuh"

// Tiled bit reversal (log_n ≥ 2·BR_T): index i = (h | mid | l) with h, l of BR_T bits. bitrev(i) =
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
