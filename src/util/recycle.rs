//! Large scalar vectors kept between the circuits of one run, so the next witness is written into pages
//! already mapped.
//!
//! Why: a fresh vector's pages are zeroed by the kernel as they are mapped; for the real 2 KiB C2's 86 MB
//! witness that zeroing was about a third of witness-only synthesis on h200-16c, and a porep-32g partition
//! maps 4.2 GB of witness (docs/PERF.md). mimalloc, which keeps freed memory, made witness-only synthesis
//! 1.3–1.5× faster there but grew in the soak (session aa); this keeps only these vectors, a few at a time,
//! and the engine empties it when a run ends ([`trim`]), so nothing is held between runs (with runs at once
//! in one process, a run's end also drops what the others kept: they map afresh, nothing else changes).

use blstrs::Scalar;
use std::sync::Mutex;

/// Bytes from which a vector is kept: below, mapping it afresh costs little (16 MiB: ~1 ms).
const MIN_BYTES: usize = 16 << 20;
/// Vectors kept at most: a run's synthesis workers rarely exceed three (`CUZK_SYNTH_WORKERS`), and each
/// takes one back as it starts its next circuit.
const MAX_KEPT: usize = 4;

static KEPT: Mutex<Vec<Vec<Scalar>>> = Mutex::new(Vec::new());

/// An empty vector with room for at least `len` scalars from those kept, when one fits without wasting more
/// than its size again (the smallest such); `None`: allocate afresh.
pub fn take(len: usize) -> Option<Vec<Scalar>> {
    if len.saturating_mul(std::mem::size_of::<Scalar>()) < MIN_BYTES {
        return None;
    }
    let mut kept = super::lock(&KEPT);
    let fits = |v: &Vec<Scalar>| v.capacity() >= len && v.capacity() / 2 <= len;
    let best = kept.iter().enumerate().filter(|(_, v)| fits(v)).min_by_key(|(_, v)| v.capacity())?.0;
    let mut v = kept.swap_remove(best);
    v.clear();
    Some(v)
}

/// Keeps `v` for a later [`take`] (its contents are dropped then), unless it is small or `MAX_KEPT` are
/// kept already (then the smallest kept is dropped, if smaller than `v`).
pub fn give(v: Vec<Scalar>) {
    if v.capacity().saturating_mul(std::mem::size_of::<Scalar>()) < MIN_BYTES {
        return;
    }
    let mut kept = super::lock(&KEPT);
    if kept.len() < MAX_KEPT {
        kept.push(v);
        return;
    }
    if let Some((i, _)) = kept.iter().enumerate().min_by_key(|(_, k)| k.capacity()) {
        if kept[i].capacity() < v.capacity() {
            let smaller = std::mem::replace(&mut kept[i], v);
            drop(kept);
            drop(smaller);
        }
    }
}

/// Drops every kept vector (the engine calls this when a run ends); the bytes released.
pub fn trim() -> usize {
    let all = std::mem::take(&mut *super::lock(&KEPT));
    all.iter().map(|v| v.capacity() * std::mem::size_of::<Scalar>()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One test for the whole pool (it is process-wide): small vectors are never kept, a kept vector comes
    /// back empty for a length it fits (not for one it would waste, not for a larger one), at most
    /// `MAX_KEPT` are kept, and `trim` empties the pool.
    #[test]
    fn keeps_large_vectors_and_hands_back_the_smallest_that_fits() {
        let n = MIN_BYTES / std::mem::size_of::<Scalar>();
        trim();
        give(Vec::with_capacity(n - 1));
        assert_eq!(take(n - 1), None, "below MIN_BYTES nothing is kept or taken");
        assert_eq!(trim(), 0);

        let mut v = vec![Scalar::from(7u64); 3];
        v.reserve_exact(2 * n);
        let cap = v.capacity();
        give(v);
        assert!(take(cap + 1).is_none(), "too small for the request");
        assert!(take(cap / 2 - 1).is_none(), "would waste more than its size again");
        let got = take(cap / 2 + 1).expect("fits");
        assert!(got.is_empty() && got.capacity() == cap, "handed back empty, capacity kept");

        for k in 1..=MAX_KEPT + 2 {
            give(Vec::with_capacity(n * (1 + k)));
        }
        let kept = trim();
        let want: usize =
            (3..=MAX_KEPT + 2).map(|k| n * (1 + k)).sum::<usize>() * std::mem::size_of::<Scalar>();
        assert!(kept >= want, "the {MAX_KEPT} largest kept: {kept} bytes, at least {want}");
        assert_eq!(take(n), None, "trim emptied the pool");

        // Witness synthesis takes a given-back vector (same allocation) and overwrites what it held.
        use crate::cs::{test_circuit::Mixed, ShapeCounter, WitnessOnly};
        let c = Mixed(n + 1000);
        let shape = ShapeCounter::count(&c).expect("count");
        let fresh = WitnessOnly::synthesize(&c, Some(shape)).expect("witness");
        let want = fresh.aux.clone();
        let mut poisoned = fresh.aux;
        poisoned.iter_mut().for_each(|v| *v = Scalar::from(99u64));
        let at = poisoned.as_ptr();
        give(poisoned);
        let again = WitnessOnly::synthesize(&c, Some(shape)).expect("witness");
        assert_eq!(again.aux.as_ptr(), at, "the kept vector was taken");
        assert_eq!(again.aux, want);
        trim();
    }
}
