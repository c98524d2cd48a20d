//! Density bitmaps: which variables a query (A over aux, B over inputs and aux) actually uses.

/// A growable bitmap with one bit per variable; set bits are the variables a query touches.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Density {
    words: Vec<u64>,
    len: usize,
}

impl Density {
    /// An empty bitmap with room for `n` bits (A2 pre-sizing).
    pub fn with_capacity(n: usize) -> Self {
        Density { words: Vec::with_capacity(n.div_ceil(64)), len: 0 }
    }

    /// A bitmap from its raw words and length (for deserialization): `None` unless there are exactly
    /// ⌈len/64⌉ words and no bit at or beyond `len` is set, so equal bitmaps stay equal after a round trip.
    pub fn from_words(words: Vec<u64>, len: usize) -> Option<Self> {
        if words.len() != len.div_ceil(64) {
            return None;
        }
        let tail = len % 64;
        if tail != 0 && words.last().is_some_and(|w| w >> tail != 0) {
            return None;
        }
        Some(Density { words, len })
    }

    /// Appends one clear bit (a newly allocated variable).
    #[inline]
    pub fn push_clear(&mut self) {
        if self.len.is_multiple_of(64) {
            self.words.push(0);
        }
        self.len += 1;
    }

    /// Marks variable `i` as used.
    #[inline]
    pub fn set(&mut self, i: usize) {
        debug_assert!(i < self.len);
        self.words[i / 64] |= 1u64 << (i % 64);
    }

    /// Whether variable `i` is used.
    #[inline]
    pub fn get(&self, i: usize) -> bool {
        i < self.len && (self.words[i / 64] >> (i % 64)) & 1 == 1
    }

    /// Number of bits.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no bits.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Sets every bit set in `other` (a bitmap of the same variables), for marks made by several passes.
    pub fn union_with(&mut self, other: &Density) {
        debug_assert_eq!(self.len, other.len);
        for (w, o) in self.words.iter_mut().zip(&other.words) {
            *w |= o;
        }
    }

    /// Number of set bits.
    pub fn popcount(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// The raw 64-bit words (bit i of the map is bit i%64 of word i/64).
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// Indices of the set bits, ascending.
    pub fn iter_set(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.len).filter(move |&i| self.get(i))
    }
}
