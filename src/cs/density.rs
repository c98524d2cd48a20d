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

    /// `head`, then `values[i]` for every set bit i, ascending, on every core: the setup's A and B scalars
    /// are gathered this way (120 M and 43 M of them at 2^27, where one thread's `iter_set` walk sat between
    /// two of the device's fixed-base stages). `values` holds one value per bit.
    pub fn gather<T: Copy + Default + Send + Sync>(&self, head: &[T], values: &[T]) -> Vec<T> {
        use rayon::prelude::*;
        /// Words per task: 2^18 bits, a few hundred tasks at 2^27.
        const WORDS: usize = 1 << 12;
        let counts: Vec<usize> =
            self.words.par_chunks(WORDS).map(|c| c.iter().map(|w| w.count_ones() as usize).sum()).collect();
        let mut out = crate::util::par::filled(head.len() + counts.iter().sum::<usize>(), T::default());
        let (first, rest) = out.split_at_mut(head.len());
        first.copy_from_slice(head);
        let tasks = crate::util::par::pieces(rest, counts);
        tasks.into_par_iter().enumerate().map(|(i, dst)| (i * WORDS, dst)).for_each(|(first, dst)| {
            let mut at = 0;
            for (k, &word) in self.words[first..(first + WORDS).min(self.words.len())].iter().enumerate() {
                let mut w = word;
                while w != 0 {
                    dst[at] = values[(first + k) * 64 + w.trailing_zeros() as usize];
                    at += 1;
                    w &= w - 1;
                }
            }
        });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::Density;

    /// The parallel gather picks what `iter_set` names, in order, across task boundaries (2^18 bits) and at
    /// every density from empty to full.
    #[test]
    fn gather_matches_the_set_bits_walk() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for (len, per_mille) in [(0, 500), (1, 1000), (700, 0), (1000, 1000), (600_001, 360), (530_000, 999)]
        {
            let mut d = Density::with_capacity(len);
            for i in 0..len {
                d.push_clear();
                if next() % 1000 < per_mille {
                    d.set(i);
                }
            }
            let values: Vec<u64> = (0..len).map(|_| next()).collect();
            let want: Vec<u64> = d.iter_set().map(|i| values[i]).collect();
            assert_eq!(want.len(), d.popcount());
            assert_eq!(d.gather(&[], &values), want, "{len} bits, {per_mille}‰ set");
            let head = [7, 8, 9];
            assert_eq!(d.gather(&head, &values), [&head[..], &want].concat(), "{len} bits, a head");
        }
    }
}
