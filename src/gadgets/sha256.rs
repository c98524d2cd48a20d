//! SHA-256 (FIPS 180-4) as a circuit, plus the native functions its witnesses and tests need.
//!
//! Two styles (`Sha256Style`), counted by `tests/suite/sha256.rs::compression_constraint_count` for one compression
//! with 512 allocated input bits:
//! - `Standard` (what every sample uses): the bellpepper-shaped circuit, three-input XOR as two two-input
//!   XORs — within 5% of bellpepper 0.4 (26,192 with an allocated state, 25,840 with the IV), so sample
//!   constraint counts stay comparable with the production PoRep circuit and with supraseal's numbers.
//! - `Compact`: one-constraint three-input XOR (`Boolean::xor3`) and the last round folded into the final
//!   state addition: **17,756** (allocated state) and 17,561 (IV), −32%. A different circuit (different
//!   params), so it is offered to circuit authors, not swapped in under a production shape.
//!
//! Every bit is big-endian per byte and per word, as in the standard.

use super::boolean::Boolean;
use super::uint32::UInt32;
use crate::cs::ConstraintSystem;

/// The initial hash value H(0): the state every message starts from.
pub const IV: [u32; 8] =
    [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

/// The 64 round constants K: the first 32 bits of the fractional parts of the cube roots of the first primes.
pub const ROUND_CONSTANTS: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

/// The IV as constant circuit words, the `current_hash` of a message's first block.
pub fn sha256_iv() -> Vec<UInt32> {
    IV.iter().map(|&w| UInt32::constant(w)).collect()
}

/// Which SHA-256 circuit to build (see the module doc for the counts).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sha256Style {
    /// Bellpepper-shaped: comparable with the production PoRep circuit.
    Standard,
    /// 32% fewer constraints: one-constraint XOR3 and a folded last round.
    Compact,
}

/// Three-word XOR in the chosen style.
fn xor3<CS: ConstraintSystem>(cs: &mut CS, style: Sha256Style, a: &UInt32, b: &UInt32, c: &UInt32) -> UInt32 {
    match style {
        Sha256Style::Compact => UInt32::xor3(cs, a, b, c),
        Sha256Style::Standard => {
            let ab = a.xor(cs, b);
            ab.xor(cs, c)
        }
    }
}

/// Maj in the chosen style: `Standard` adds the booleanity constraint bellpepper puts on each Maj bit (the
/// one-constraint form already forces a bit, so `Compact` leaves it out).
fn maj<CS: ConstraintSystem>(cs: &mut CS, style: Sha256Style, a: &UInt32, b: &UInt32, c: &UInt32) -> UInt32 {
    let m = UInt32::sha256_maj(cs, a, b, c);
    if style == Sha256Style::Standard {
        for bit in m.bits_le() {
            if let Boolean::Is(x) = bit {
                let v = x.variable();
                cs.enforce(|lc| lc + v, |lc| lc + CS::one() - v, |lc| lc);
            }
        }
    }
    m
}

/// σ0 of the message schedule: ROTR7 ⊕ ROTR18 ⊕ SHR3.
fn small_sigma0<CS: ConstraintSystem>(cs: &mut CS, st: Sha256Style, x: &UInt32) -> UInt32 {
    xor3(cs, st, &x.rotr(7), &x.rotr(18), &x.shr(3))
}

/// σ1 of the message schedule: ROTR17 ⊕ ROTR19 ⊕ SHR10.
fn small_sigma1<CS: ConstraintSystem>(cs: &mut CS, st: Sha256Style, x: &UInt32) -> UInt32 {
    xor3(cs, st, &x.rotr(17), &x.rotr(19), &x.shr(10))
}

/// Σ0 of the rounds: ROTR2 ⊕ ROTR13 ⊕ ROTR22.
fn big_sigma0<CS: ConstraintSystem>(cs: &mut CS, st: Sha256Style, x: &UInt32) -> UInt32 {
    xor3(cs, st, &x.rotr(2), &x.rotr(13), &x.rotr(22))
}

/// Σ1 of the rounds: ROTR6 ⊕ ROTR11 ⊕ ROTR25.
fn big_sigma1<CS: ConstraintSystem>(cs: &mut CS, st: Sha256Style, x: &UInt32) -> UInt32 {
    xor3(cs, st, &x.rotr(6), &x.rotr(11), &x.rotr(25))
}

/// One standard SHA-256 compression: `input` is one 512-bit block (big-endian words), `current_hash` the
/// 8-word state; returns the next state. Constant inputs or state fold, so a constant IV costs fewer
/// constraints.
pub fn sha256_compression_function<CS: ConstraintSystem>(
    cs: &mut CS,
    input: &[Boolean],
    current_hash: &[UInt32],
) -> Vec<UInt32> {
    sha256_compression_styled(cs, Sha256Style::Standard, input, current_hash)
}

/// One compression in the given style.
pub fn sha256_compression_styled<CS: ConstraintSystem>(
    cs: &mut CS,
    style: Sha256Style,
    input: &[Boolean],
    current_hash: &[UInt32],
) -> Vec<UInt32> {
    assert_eq!(input.len(), 512, "a SHA-256 block has 512 bits");
    assert_eq!(current_hash.len(), 8, "a SHA-256 state has 8 words");

    let mut w: Vec<UInt32> = Vec::with_capacity(64);
    w.extend(input.chunks_exact(32).map(UInt32::from_bits_be));
    for t in 16..64 {
        let s0 = small_sigma0(cs, style, &w[t - 15]);
        let s1 = small_sigma1(cs, style, &w[t - 2]);
        let wt = UInt32::addmany(cs, [&w[t - 16], &s0, &w[t - 7], &s1]);
        w.push(wt);
    }

    let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] =
        std::array::from_fn(|i| current_hash[i].clone());
    let folded = style == Sha256Style::Compact;
    let rounds = if folded { 63 } else { 64 };
    for (t, wt) in w.iter().enumerate().take(rounds) {
        let r = RoundTerms::new(cs, style, [&a, &b, &c, &e, &f, &g], ROUND_CONSTANTS[t]);
        let t1 = [&h, &r.s1, &r.ch, &r.k, wt];
        let new_e = UInt32::addmany(cs, t1.into_iter().chain([&d]));
        let new_a = UInt32::addmany(cs, t1.into_iter().chain([&r.s0, &r.maj]));
        h = g;
        g = f;
        f = e;
        e = new_e;
        d = c;
        c = b;
        b = a;
        a = new_a;
    }
    let mut out = Vec::with_capacity(8);
    if !folded {
        for (word, cur) in [&a, &b, &c, &d, &e, &f, &g, &h].into_iter().zip(current_hash) {
            out.push(UInt32::addmany(cs, [cur, word]));
        }
        return out;
    }
    // Compact: the last round's T1 + T2 and d + T1 go straight into the final state addition (one addition
    // each instead of two).
    let r = RoundTerms::new(cs, style, [&a, &b, &c, &e, &f, &g], ROUND_CONSTANTS[63]);
    let t1 = [&h, &r.s1, &r.ch, &r.k, &w[63]];
    let h0 = UInt32::addmany(cs, t1.into_iter().chain([&r.s0, &r.maj, &current_hash[0]]));
    let h4 = UInt32::addmany(cs, t1.into_iter().chain([&d, &current_hash[4]]));
    out.push(h0);
    for (word, cur) in [&a, &b, &c].into_iter().zip(&current_hash[1..4]) {
        out.push(UInt32::addmany(cs, [cur, word]));
    }
    out.push(h4);
    for (word, cur) in [&e, &f, &g].into_iter().zip(&current_hash[5..8]) {
        out.push(UInt32::addmany(cs, [cur, word]));
    }
    out
}

/// The nonlinear terms of one round: Σ1(e), Ch(e, f, g), Σ0(a), Maj(a, b, c) and the round constant.
struct RoundTerms {
    s1: UInt32,
    ch: UInt32,
    s0: UInt32,
    maj: UInt32,
    k: UInt32,
}

impl RoundTerms {
    /// Computes the terms from the working variables `[a, b, c, e, f, g]`.
    fn new<CS: ConstraintSystem>(
        cs: &mut CS,
        st: Sha256Style,
        [a, b, c, e, f, g]: [&UInt32; 6],
        k: u32,
    ) -> Self {
        RoundTerms {
            s1: big_sigma1(cs, st, e),
            ch: UInt32::sha256_ch(cs, e, f, g),
            s0: big_sigma0(cs, st, a),
            maj: maj(cs, st, a, b, c),
            k: UInt32::constant(k),
        }
    }
}

/// SHA-256 of exactly one 512-bit block without padding (the state after compressing it into the IV), as
/// 256 big-endian bits: for callers that lay out their own padding.
pub fn sha256_block_no_padding<CS: ConstraintSystem>(cs: &mut CS, input: &[Boolean]) -> Vec<Boolean> {
    assert_eq!(input.len(), 512, "sha256_block_no_padding takes one 512-bit block");
    let state = sha256_compression_function(cs, input, &sha256_iv());
    state.iter().flat_map(UInt32::bits_be).collect()
}

/// SHA-256 of a bit string (big-endian bits per byte; any length), as 256 big-endian bits. Padding is made
/// of constant bits, so it allocates nothing and folds into the last block's constraints.
pub fn sha256<CS: ConstraintSystem>(cs: &mut CS, input: &[Boolean]) -> Vec<Boolean> {
    let padded_len = (input.len() + 1 + 64).div_ceil(512) * 512;
    let mut padded = Vec::with_capacity(padded_len);
    padded.extend_from_slice(input);
    padded.push(Boolean::Constant(true));
    padded.resize(padded_len - 64, Boolean::Constant(false));
    let len = input.len() as u64;
    padded.extend((0..64).rev().map(|i| Boolean::Constant((len >> i) & 1 == 1)));
    let mut state = sha256_iv();
    for block in padded.chunks_exact(512) {
        state = sha256_compression_function(cs, block, &state);
    }
    state.iter().flat_map(UInt32::bits_be).collect()
}

/// Allocates bytes as private bits, big-endian per byte: the usual way to feed a preimage to `sha256`.
pub fn alloc_bytes_be<CS: ConstraintSystem>(cs: &mut CS, bytes: &[u8]) -> Vec<Boolean> {
    bytes_to_bits_be(bytes).into_iter().map(|v| Boolean::alloc(cs, v)).collect()
}

/// The SHA-256 compression function computed natively, for witness generation and as a test reference.
pub fn compress_native(state: [u32; 8], block: &[u8; 64]) -> [u32; 8] {
    let mut w = [0u32; 64];
    for (t, chunk) in block.chunks_exact(4).enumerate() {
        w[t] = u32::from_be_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
    }
    for t in 16..64 {
        let s0 = w[t - 15].rotate_right(7) ^ w[t - 15].rotate_right(18) ^ (w[t - 15] >> 3);
        let s1 = w[t - 2].rotate_right(17) ^ w[t - 2].rotate_right(19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16].wrapping_add(s0).wrapping_add(w[t - 7]).wrapping_add(s1);
    }
    let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = state;
    for t in 0..64 {
        let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
        let ch = (e & f) ^ (!e & g);
        let t1 = h.wrapping_add(s1).wrapping_add(ch).wrapping_add(ROUND_CONSTANTS[t]).wrapping_add(w[t]);
        let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
        let maj = (a & b) ^ (a & c) ^ (b & c);
        let t2 = s0.wrapping_add(maj);
        h = g;
        g = f;
        f = e;
        e = d.wrapping_add(t1);
        d = c;
        c = b;
        b = a;
        a = t1.wrapping_add(t2);
    }
    let mut out = state;
    for (o, v) in out.iter_mut().zip([a, b, c, d, e, f, g, h]) {
        *o = o.wrapping_add(v);
    }
    out
}

/// SHA-256 of a byte string computed natively with `compress_native` (padding included).
pub fn sha256_native(data: &[u8]) -> [u8; 32] {
    let mut padded = data.to_vec();
    padded.push(0x80);
    padded.resize((data.len() + 9).div_ceil(64) * 64 - 8, 0);
    padded.extend_from_slice(&((data.len() as u64) * 8).to_be_bytes());
    let mut state = IV;
    for block in padded.chunks_exact(64) {
        let mut b = [0u8; 64];
        b.copy_from_slice(block);
        state = compress_native(state, &b);
    }
    let mut out = [0u8; 32];
    for (chunk, word) in out.chunks_exact_mut(4).zip(state) {
        chunk.copy_from_slice(&word.to_be_bytes());
    }
    out
}

/// Bytes to bits, most significant bit of each byte first (SHA-256's bit order).
pub fn bytes_to_bits_be(bytes: &[u8]) -> Vec<bool> {
    bytes.iter().flat_map(|&byte| (0..8).rev().map(move |i| (byte >> i) & 1 == 1)).collect()
}

/// Bits (most significant first per byte) back to bytes; a final partial byte is padded with zero bits.
pub fn bits_to_bytes_be(bits: &[bool]) -> Vec<u8> {
    bits.chunks(8)
        .map(|chunk| chunk.iter().enumerate().fold(0u8, |acc, (i, &bit)| acc | ((bit as u8) << (7 - i))))
        .collect()
}
