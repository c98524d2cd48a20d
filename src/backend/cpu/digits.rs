//! Scalar recoding for the windowed algorithms (MSM, fixed-base): canonical limbs, the "use r − s and negate
//! the base" halving, and signed Booth window digits.
//!
//! Window `w` of width `c` reads bits `w·c − 1 ..= w·c + c − 1` and yields
//! `d = v + b_{w·c−1} − 2^c·b_{w·c+c−1}` (v the window's c bits), so Σ_w d_w·2^(w·c) telescopes to the scalar
//! with no carry between windows and |d| ≤ 2^(c−1). Scalars above (r − 1)/2 are replaced by r − s with the
//! base negated, so every value is below 2^254 and ⌈255/c⌉ windows suffice (15 instead of 16 at c = 17).

use blstrs::Scalar;
use ff::PrimeField;

/// Set in limb 3 (bit 255, never part of a value below 2^254) when [`signed_limbs`] replaced s by r − s.
pub const NEGATE_FLAG: u64 = 1 << 63;
/// The scalar field modulus r, little-endian limbs.
const R: [u64; 4] =
    [0xffff_ffff_0000_0001, 0x53bd_a402_fffe_5bfe, 0x3339_d808_09a1_d805, 0x73ed_a753_299d_7d48];
/// (r − 1) / 2: scalars above it are negated.
const HALF_R: [u64; 4] =
    [0x7fff_ffff_8000_0000, 0xa9de_d201_7fff_2dff, 0x199c_ec04_04d0_ec02, 0x39f6_d3a9_94ce_bea4];
/// Bits covered by the windows: values are below 2^254 and Booth recoding needs the bit above the top
/// window to be zero.
const RECODED_BITS: usize = 255;

/// Number of windows of width `c` covering a value from [`signed_limbs`].
pub fn num_windows(c: usize) -> usize {
    RECODED_BITS.div_ceil(c)
}

/// A scalar's canonical (non-Montgomery) value as little-endian 64-bit limbs; done once per scalar.
#[inline]
pub fn scalar_limbs(s: &Scalar) -> [u64; 4] {
    let bytes = s.to_repr();
    let mut out = [0u64; 4];
    for (limb, chunk) in out.iter_mut().zip(bytes.chunks_exact(8)) {
        let mut b = [0u8; 8];
        b.copy_from_slice(chunk);
        *limb = u64::from_le_bytes(b);
    }
    out
}

/// The limbs of min(s, r − s), with [`NEGATE_FLAG`] set when r − s was taken (then s·P = (r − s)·(−P)).
#[inline]
pub fn signed_limbs(s: &Scalar) -> [u64; 4] {
    let l = scalar_limbs(s);
    if !greater(&l, &HALF_R) {
        return l;
    }
    let mut out = [0u64; 4];
    let mut borrow = 0u64;
    for (o, (r, x)) in out.iter_mut().zip(R.iter().zip(&l)) {
        let t = (*r as u128).wrapping_sub(*x as u128 + borrow as u128);
        *o = t as u64;
        borrow = (t >> 127) as u64;
    }
    out[3] |= NEGATE_FLAG;
    out
}

/// a > b for 256-bit little-endian values.
#[inline]
fn greater(a: &[u64; 4], b: &[u64; 4]) -> bool {
    for i in (0..4).rev() {
        if a[i] != b[i] {
            return a[i] > b[i];
        }
    }
    false
}

/// `len` (≤ 32) bits of the 256-bit number `l` starting at bit `pos`; bits past 255 read as zero.
#[inline(always)]
fn bits(l: &[u64; 4], pos: usize, len: usize) -> u64 {
    let limb = pos / 64;
    if limb >= 4 {
        return 0;
    }
    let off = pos % 64;
    let mut v = l[limb] >> off;
    if off + len > 64 && limb + 1 < 4 {
        v |= l[limb + 1] << (64 - off);
    }
    v & ((1u64 << len) - 1)
}

/// The signed digit of window `w` (width `c`) of a value from [`signed_limbs`] (the flag is ignored):
/// Σ_w digit·2^(w·c) over [`num_windows`] windows equals the value; |digit| ≤ 2^(c−1).
#[inline(always)]
pub fn booth_digit(l: &[u64; 4], w: usize, c: usize) -> i32 {
    let l = [l[0], l[1], l[2], l[3] & !NEGATE_FLAG];
    // raw = bits w·c−1 ..= w·c+c−1: bit 0 is the bit below the window (0 for w = 0), bit c the window's top bit.
    let raw = if w == 0 { bits(&l, 0, c) << 1 } else { bits(&l, w * c - 1, c + 1) };
    let top = (raw >> c) & 1;
    ((raw >> 1) + (raw & 1)) as i32 - ((top as i32) << c)
}
