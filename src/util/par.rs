//! Vectors written by many threads at once: filled on every core (their fresh pages mapped in parallel:
//! at 2^27 a 4.3 GB vector took one thread seconds), and cut into disjoint consecutive pieces, one per
//! writer.

use rayon::prelude::*;

/// `n` copies of `value`, written on every core.
pub fn filled<T: Clone + Send + Sync>(n: usize, value: T) -> Vec<T> {
    let mut v = Vec::with_capacity(n);
    v.par_extend(rayon::iter::repeat_n(value, n));
    v
}

/// `slice` cut into consecutive pieces of `lens` (each cut short where the slice ends); the pieces go to
/// separate writers.
pub fn pieces<T>(mut slice: &mut [T], lens: impl IntoIterator<Item = usize>) -> Vec<&mut [T]> {
    let mut out = Vec::new();
    for len in lens {
        let n = len.min(slice.len());
        let (piece, rest) = std::mem::take(&mut slice).split_at_mut(n);
        out.push(piece);
        slice = rest;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filled_and_cut_into_pieces() {
        let mut v = filled(10, 7u8);
        assert_eq!(v, [7; 10]);
        let p = pieces(&mut v, [3, 0, 4, 9]);
        assert_eq!(p.iter().map(|s| s.len()).collect::<Vec<_>>(), [3, 0, 4, 3], "the last cut short");
        for (i, s) in p.into_iter().enumerate() {
            s.fill(i as u8);
        }
        assert_eq!(v, [0, 0, 0, 2, 2, 2, 2, 3, 3, 3]);
    }
}
