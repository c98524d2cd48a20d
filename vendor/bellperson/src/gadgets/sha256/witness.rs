//! cuzk patch: SHA-256's compression function for witness generators, lean.
//!
//! `sha256_compression_function` takes this path when its constraint system says it is a witness generator
//! (`is_witness_generator()`, cuzk's witness-only synthesis) and every input bit has its value. It makes
//! exactly the allocations (same values, same order) and the same sequence of `enforce` and
//! `MultiEq::enforce_equal` calls as the gadget, with empty linear combinations, which a witness generator
//! ignores. The gadget's `Boolean`/`UInt32` values are replaced by plain copies (a bit's kind and value,
//! 32 of them in an array of 64 bytes), so no vector is built per 32-bit operation and no value is wrapped
//! in `Option`. Every case of `Boolean::xor`, `Boolean::and`, `Boolean::sha256_ch`, `Boolean::sha256_maj`
//! and `UInt32::addmany` is mirrored arm for arm, constants included (the IV, padding blocks, shifts).
//! Only the eight output words are real `UInt32`s, their bits allocated through `AllocatedBit::alloc` as
//! `UInt32::addmany` does.

use ff::PrimeField;

use crate::gadgets::boolean::{AllocatedBit, Boolean};
use crate::gadgets::multieq::MultiEq;
use crate::gadgets::uint32::UInt32;
use bellpepper_core::{ConstraintSystem, LinearCombination, SynthesisError};

/// One bit: a constant, or an allocated bit taken as is or negated. Only kinds and values are kept: the
/// combinations that would name the variables are never built, so which variable a bit is never matters.
#[derive(Clone, Copy)]
enum Bit {
    Const(bool),
    /// The allocated bit itself; the bool is its value.
    Is(bool),
    /// The negation of an allocated bit; the bool is the allocated bit's value (not the negation's).
    Not(bool),
}

impl Bit {
    fn of(b: &Boolean) -> Option<Bit> {
        Some(match b {
            Boolean::Constant(c) => Bit::Const(*c),
            Boolean::Is(a) => Bit::Is(a.get_value()?),
            Boolean::Not(a) => Bit::Not(a.get_value()?),
        })
    }

    fn value(self) -> bool {
        match self {
            Bit::Const(c) | Bit::Is(c) => c,
            Bit::Not(c) => !c,
        }
    }

    fn not(self) -> Bit {
        match self {
            Bit::Const(c) => Bit::Const(!c),
            Bit::Is(c) => Bit::Not(c),
            Bit::Not(c) => Bit::Is(c),
        }
    }

    fn is_const(self) -> bool {
        matches!(self, Bit::Const(_))
    }
}

/// A 32-bit word, least significant bit first, with its value.
#[derive(Clone, Copy)]
pub(super) struct Word {
    bits: [Bit; 32],
    value: u32,
}

impl Word {
    fn constant(value: u32) -> Word {
        Word { bits: std::array::from_fn(|i| Bit::Const((value >> i) & 1 == 1)), value }
    }

    fn from_bits(bits: [Bit; 32]) -> Word {
        let value = bits.iter().rev().fold(0u32, |v, b| (v << 1) | u32::from(b.value()));
        Word { bits, value }
    }

    fn rotr(&self, by: usize) -> Word {
        Word { bits: std::array::from_fn(|i| self.bits[(i + by) % 32]), value: self.value.rotate_right(by as u32) }
    }

    fn shr(&self, by: usize) -> Word {
        let bits = std::array::from_fn(|i| if i + by < 32 { self.bits[i + by] } else { Bit::Const(false) });
        Word { bits, value: self.value >> by }
    }
}

/// The input block's sixteen words and the state's eight, or `None` when a bit has no value.
pub(super) fn words(input: &[Boolean], state: &[UInt32]) -> Option<([Word; 16], [Word; 8])> {
    let mut w = [Word::constant(0); 16];
    for (word, chunk) in w.iter_mut().zip(input.chunks(32)) {
        let mut bits = [Bit::Const(false); 32];
        // Big-endian input: the chunk's last bit is the word's least significant.
        for (bit, b) in bits.iter_mut().zip(chunk.iter().rev()) {
            *bit = Bit::of(b)?;
        }
        *word = Word::from_bits(bits);
    }
    let mut h = [Word::constant(0); 8];
    for (word, u) in h.iter_mut().zip(state) {
        let mut bits = [Bit::Const(false); 32];
        for (bit, b) in bits.iter_mut().zip(u.clone().into_bits().iter()) {
            *bit = Bit::of(b)?;
        }
        *word = Word::from_bits(bits);
    }
    Some((w, h))
}

/// The constraint system, with the gadget's steps on plain bits.
struct Lean<Scalar: PrimeField, CS: ConstraintSystem<Scalar>> {
    cs: MultiEq<Scalar, CS>,
}

impl<Scalar: PrimeField, CS: ConstraintSystem<Scalar>> Lean<Scalar, CS> {
    /// One allocation and the one constraint after it: `AllocatedBit::{alloc, xor, and, and_not, nor}`.
    fn gate(&mut self, value: bool) -> Result<bool, SynthesisError> {
        self.alloc(value)?;
        self.enforce();
        Ok(value)
    }

    fn alloc(&mut self, value: bool) -> Result<(), SynthesisError> {
        self.cs.alloc(|| "", || Ok(if value { Scalar::ONE } else { Scalar::ZERO }))?;
        Ok(())
    }

    fn enforce(&mut self) {
        self.cs.enforce(|| "", |lc| lc, |lc| lc, |lc| lc);
    }

    /// `Boolean::xor`.
    fn xor(&mut self, a: Bit, b: Bit) -> Result<Bit, SynthesisError> {
        Ok(match (a, b) {
            (Bit::Const(false), x) | (x, Bit::Const(false)) => x,
            (Bit::Const(true), x) | (x, Bit::Const(true)) => x.not(),
            // a XOR (NOT b) = NOT(a XOR b): the allocated xor of the two bits, negated.
            (Bit::Is(x), Bit::Not(y)) | (Bit::Not(y), Bit::Is(x)) => Bit::Not(self.gate(x ^ y)?),
            (Bit::Is(x), Bit::Is(y)) | (Bit::Not(x), Bit::Not(y)) => Bit::Is(self.gate(x ^ y)?),
        })
    }

    /// `Boolean::and`.
    fn and(&mut self, a: Bit, b: Bit) -> Result<Bit, SynthesisError> {
        Ok(match (a, b) {
            (Bit::Const(false), _) | (_, Bit::Const(false)) => Bit::Const(false),
            (Bit::Const(true), x) | (x, Bit::Const(true)) => x,
            // AllocatedBit::and_not(is, not)
            (Bit::Is(i), Bit::Not(n)) | (Bit::Not(n), Bit::Is(i)) => Bit::Is(self.gate(i & !n)?),
            // AllocatedBit::nor
            (Bit::Not(x), Bit::Not(y)) => Bit::Is(self.gate(!x & !y)?),
            (Bit::Is(x), Bit::Is(y)) => Bit::Is(self.gate(x & y)?),
        })
    }

    /// `Boolean::sha256_ch`: (a and b) xor ((not a) and c).
    fn ch(&mut self, a: Bit, b: Bit, c: Bit) -> Result<Bit, SynthesisError> {
        let value = (a.value() & b.value()) ^ (!a.value() & c.value());
        match (a, b, c) {
            (Bit::Const(_), Bit::Const(_), Bit::Const(_)) => return Ok(Bit::Const(value)),
            (Bit::Const(false), _, c) => return Ok(c),
            (a, Bit::Const(false), c) => return self.and(a.not(), c),
            (a, b, Bit::Const(false)) => return self.and(a, b),
            (a, b, Bit::Const(true)) => return Ok(self.and(a, b.not())?.not()),
            (a, Bit::Const(true), c) => return Ok(self.and(a.not(), c.not())?.not()),
            _ => {}
        }
        Ok(Bit::Is(self.gate(value)?))
    }

    /// `Boolean::sha256_maj`: (a and b) xor (a and c) xor (b and c).
    fn maj(&mut self, a: Bit, b: Bit, c: Bit) -> Result<Bit, SynthesisError> {
        let (x, y, z) = (a.value(), b.value(), c.value());
        let value = (x & y) ^ (x & z) ^ (y & z);
        match (a, b, c) {
            (Bit::Const(_), Bit::Const(_), Bit::Const(_)) => return Ok(Bit::Const(value)),
            (Bit::Const(false), b, c) => return self.and(b, c),
            (a, Bit::Const(false), c) => return self.and(a, c),
            (a, b, Bit::Const(false)) => return self.and(a, b),
            (a, b, Bit::Const(true)) => return Ok(self.and(a.not(), b.not())?.not()),
            (a, Bit::Const(true), c) => return Ok(self.and(a.not(), c.not())?.not()),
            (Bit::Const(true), b, c) => return Ok(self.and(b.not(), c.not())?.not()),
            _ => {}
        }
        // The gadget allocates maj, then b AND c, then constrains maj.
        self.alloc(value)?;
        self.and(b, c)?;
        self.enforce();
        Ok(Bit::Is(value))
    }

    fn xor_word(&mut self, a: &Word, b: &Word) -> Result<Word, SynthesisError> {
        let mut bits = [Bit::Const(false); 32];
        for (i, bit) in bits.iter_mut().enumerate() {
            *bit = self.xor(a.bits[i], b.bits[i])?;
        }
        Ok(Word { bits, value: a.value ^ b.value })
    }

    fn triop(
        &mut self,
        a: &Word,
        b: &Word,
        c: &Word,
        op: impl Fn(&mut Self, Bit, Bit, Bit) -> Result<Bit, SynthesisError>,
        value: u32,
    ) -> Result<Word, SynthesisError> {
        let mut bits = [Bit::Const(false); 32];
        for (i, bit) in bits.iter_mut().enumerate() {
            *bit = op(self, a.bits[i], b.bits[i], c.bits[i])?;
        }
        Ok(Word { bits, value })
    }

    /// `UInt32::addmany`: a constant when every operand bit is constant, else the sum's bits (as many as
    /// the largest possible sum needs), each allocated and constrained boolean, then one
    /// `enforce_equal` of that many bits. `out` receives the low 32 bits as `AllocatedBit`s when given
    /// (the compression's output words).
    fn addmany(&mut self, ops: &[Word], mut out: Option<&mut Vec<Boolean>>) -> Result<Word, SynthesisError> {
        let sum: u64 = ops.iter().map(|w| u64::from(w.value)).sum();
        if ops.iter().all(|w| w.bits.iter().all(|b| b.is_const())) {
            return Ok(Word::constant(sum as u32));
        }
        let mut bits = [Bit::Const(false); 32];
        let mut max_value = (ops.len() as u64) * u64::from(u32::MAX);
        let mut i = 0;
        while max_value != 0 {
            let bit = (sum >> i) & 1 == 1;
            match out.as_deref_mut() {
                Some(out) => {
                    let b = AllocatedBit::alloc(&mut self.cs, Some(bit))?;
                    if i < 32 {
                        out.push(Boolean::from(b));
                    }
                }
                None => {
                    self.gate(bit)?;
                }
            }
            if i < 32 {
                bits[i] = Bit::Is(bit);
            }
            max_value >>= 1;
            i += 1;
        }
        self.cs.enforce_equal(i, &LinearCombination::zero(), &LinearCombination::zero());
        Ok(Word { bits, value: sum as u32 })
    }

    /// An output word of the compression, as the `UInt32` the gadget returns.
    fn output(&mut self, ops: &[Word]) -> Result<UInt32, SynthesisError> {
        let mut out = Vec::with_capacity(32);
        let w = self.addmany(ops, Some(&mut out))?;
        if out.is_empty() {
            return Ok(UInt32::constant(w.value));
        }
        Ok(UInt32::from_bits(&out))
    }
}

/// A working variable the gadget adds up only when it is next read.
enum Maybe {
    Deferred(Vec<Word>),
    Concrete(Word),
}

/// `sha256_compression_function` on the words from [`words`].
pub(super) fn compress<Scalar, CS>(cs: CS, input: [Word; 16], state: [Word; 8]) -> Result<Vec<UInt32>, SynthesisError>
where
    Scalar: PrimeField,
    CS: ConstraintSystem<Scalar>,
{
    let mut lean = Lean { cs: MultiEq::new(cs) };
    let mut w: Vec<Word> = Vec::with_capacity(64);
    w.extend_from_slice(&input);
    for i in 16..64 {
        let s0 = lean.xor_word(&w[i - 15].rotr(7), &w[i - 15].rotr(18))?;
        let s0 = lean.xor_word(&s0, &w[i - 15].shr(3))?;
        let s1 = lean.xor_word(&w[i - 2].rotr(17), &w[i - 2].rotr(19))?;
        let s1 = lean.xor_word(&s1, &w[i - 2].shr(10))?;
        let tmp = lean.addmany(&[w[i - 16], s0, w[i - 7], s1], None)?;
        w.push(tmp);
    }

    let compute = |lean: &mut Lean<Scalar, CS>, m: Maybe| match m {
        Maybe::Concrete(v) => Ok(v),
        Maybe::Deferred(v) => lean.addmany(&v, None),
    };
    let mut a = Maybe::Concrete(state[0]);
    let (mut b, mut c, mut d) = (state[1], state[2], state[3]);
    let mut e = Maybe::Concrete(state[4]);
    let (mut f, mut g, mut h) = (state[5], state[6], state[7]);
    for (i, wi) in w.iter().enumerate() {
        let new_e = compute(&mut lean, e)?;
        let s1 = lean.xor_word(&new_e.rotr(6), &new_e.rotr(11))?;
        let s1 = lean.xor_word(&s1, &new_e.rotr(25))?;
        let ch_value = (new_e.value & f.value) ^ (!new_e.value & g.value);
        let ch = lean.triop(&new_e, &f, &g, Lean::ch, ch_value)?;
        let temp1 = [h, s1, ch, Word::constant(super::ROUND_CONSTANTS[i]), *wi];

        let new_a = compute(&mut lean, a)?;
        let s0 = lean.xor_word(&new_a.rotr(2), &new_a.rotr(13))?;
        let s0 = lean.xor_word(&s0, &new_a.rotr(22))?;
        let maj_value = (new_a.value & b.value) ^ (new_a.value & c.value) ^ (b.value & c.value);
        let maj = lean.triop(&new_a, &b, &c, Lean::maj, maj_value)?;

        h = g;
        g = f;
        f = new_e;
        let mut e_ops = temp1.to_vec();
        e_ops.push(d);
        e = Maybe::Deferred(e_ops);
        d = c;
        c = b;
        b = new_a;
        let mut a_ops = temp1.to_vec();
        a_ops.extend([s0, maj]);
        a = Maybe::Deferred(a_ops);
    }

    // After 64 rounds a and e are sums still to be added; the gadget adds the state word to them.
    let (Maybe::Deferred(mut a_ops), Maybe::Deferred(mut e_ops)) = (a, e) else {
        return Err(SynthesisError::Unsatisfiable);
    };
    a_ops.push(state[0]);
    e_ops.push(state[4]);
    Ok(vec![
        lean.output(&a_ops)?,
        lean.output(&[state[1], b])?,
        lean.output(&[state[2], c])?,
        lean.output(&[state[3], d])?,
        lean.output(&e_ops)?,
        lean.output(&[state[5], f])?,
        lean.output(&[state[6], g])?,
        lean.output(&[state[7], h])?,
    ])
}
