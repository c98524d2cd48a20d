//! Where a circuit's a, b, c evaluations live: an ordinary heap vector, or a block of host memory a backend
//! lent for them (on the CUDA backend page-locked memory from its pool, so synthesis writes a/b/c where the
//! copy engine reads them and the upload is one DMA, with no host copy; toggle B2). Either way the prover
//! sees a `[Scalar]`; the block goes back to its pool when the evaluations are dropped.

use std::mem::MaybeUninit;
use std::ops::{Deref, DerefMut};

use blstrs::Scalar;

/// Host memory lent for one vector of evaluations; dropping it returns it to its pool.
pub trait HostBlock: Send + Sync {
    /// The block's first scalar; valid for [`HostBlock::capacity`] scalars while the block lives.
    fn ptr(&self) -> *mut Scalar;
    /// Scalars the block holds.
    fn capacity(&self) -> usize;
    /// Whether the block is page-locked (a device copies it without a host bounce).
    fn page_locked(&self) -> bool {
        false
    }
}

/// A backend's lender of host blocks (the CUDA backend's page-locked pool).
pub trait HostPool: Send + Sync {
    /// A block of at least `scalars` scalars, or `None` (then synthesis uses the heap).
    fn lend(&self, scalars: usize) -> Option<Box<dyn HostBlock>>;

    /// A block for a run whose memory plan holds `window` bytes of lent a/b/c at once: a pool capped below
    /// that may lend up to it, since the plan already counts those bytes. Without a cap, [`HostPool::lend`].
    fn lend_within(&self, scalars: usize, _window: u64) -> Option<Box<dyn HostBlock>> {
        self.lend(scalars)
    }
}

/// A lent block and how many of its scalars are written.
pub struct Lent {
    block: Box<dyn HostBlock>,
    len: usize,
}

impl Lent {
    /// The block itself (the CUDA backend reads it straight into device memory).
    pub fn block(&self) -> &dyn HostBlock {
        &*self.block
    }
}

/// One vector of evaluations (a, b or c of one circuit).
pub enum Evals {
    /// On the heap (synthesis without a lender, the CPU backend, tests).
    Heap(Vec<Scalar>),
    /// In a block a backend lent.
    Lent(Lent),
}

impl Evals {
    /// Empty evaluations in `block` (its capacity is the most they hold before spilling to the heap).
    pub fn lent(block: Box<dyn HostBlock>) -> Evals {
        Evals::Lent(Lent { block, len: 0 })
    }

    /// Whether the values live in a lent block.
    pub fn is_lent(&self) -> bool {
        matches!(self, Evals::Lent(_))
    }

    /// Room for `n` more values; a lent block too small is given up for the heap.
    pub fn reserve_exact(&mut self, n: usize) {
        match self {
            Evals::Heap(v) => v.reserve_exact(n),
            Evals::Lent(l) if l.len + n <= l.block.capacity() => {}
            Evals::Lent(_) => {
                let mut v = self.to_vec();
                v.reserve_exact(n);
                *self = Evals::Heap(v);
            }
        }
    }

    /// Appends `x` (a full lent block spills to the heap). The heap grows as `Vec::push` does, amortized:
    /// growing by exactly one (`reserve_exact(1)`) reallocated every few pushes, and unsized (A2 off)
    /// synthesis of the real 2 KiB C2 took 4.9 s instead of 2.6 on one thread of CI's machine (docs/PERF.md).
    #[inline]
    pub fn push(&mut self, x: Scalar) {
        match self {
            Evals::Heap(v) => v.push(x),
            Evals::Lent(l) if l.len < l.block.capacity() => {
                // SAFETY: len < capacity, checked by the guard.
                unsafe { l.block.ptr().add(l.len).write(x) };
                l.len += 1;
            }
            Evals::Lent(_) => {
                let mut v = self.to_vec();
                v.push(x);
                *self = Evals::Heap(v);
            }
        }
    }

    /// The slots past the values, up to the capacity (to be written, then claimed by [`Evals::set_len`]).
    pub fn spare_capacity_mut(&mut self) -> &mut [MaybeUninit<Scalar>] {
        match self {
            Evals::Heap(v) => v.spare_capacity_mut(),
            Evals::Lent(l) => {
                let spare = l.block.capacity() - l.len;
                // SAFETY: the block holds `capacity` scalars, owned by this value while it lives; the slots
                // past `len` are not part of any other slice.
                unsafe { std::slice::from_raw_parts_mut(l.block.ptr().add(l.len).cast(), spare) }
            }
        }
    }

    /// Sets the length.
    ///
    /// # Safety
    /// `len` ≤ capacity and the first `len` slots are initialized (as `Vec::set_len`).
    pub unsafe fn set_len(&mut self, len: usize) {
        match self {
            Evals::Heap(v) => v.set_len(len),
            Evals::Lent(l) => l.len = len,
        }
    }

    /// Empties the values, keeping the memory.
    pub fn clear(&mut self) {
        // SAFETY: length 0 claims nothing.
        unsafe { self.set_len(0) }
    }

    /// The values as a heap vector (moved when on the heap, copied out of a lent block, which then returns).
    pub fn into_vec(self) -> Vec<Scalar> {
        match self {
            Evals::Heap(v) => v,
            Evals::Lent(_) => self.to_vec(),
        }
    }
}

impl Deref for Evals {
    type Target = [Scalar];
    fn deref(&self) -> &[Scalar] {
        match self {
            Evals::Heap(v) => v,
            // SAFETY: the first `len` scalars of the block are initialized (push / set_len).
            Evals::Lent(l) => unsafe { std::slice::from_raw_parts(l.block.ptr(), l.len) },
        }
    }
}

impl DerefMut for Evals {
    fn deref_mut(&mut self) -> &mut [Scalar] {
        match self {
            Evals::Heap(v) => v,
            // SAFETY: as in `deref`; `&mut self` makes the access exclusive.
            Evals::Lent(l) => unsafe { std::slice::from_raw_parts_mut(l.block.ptr(), l.len) },
        }
    }
}

impl<'a> IntoIterator for &'a Evals {
    type Item = &'a Scalar;
    type IntoIter = std::slice::Iter<'a, Scalar>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl Default for Evals {
    fn default() -> Evals {
        Evals::Heap(Vec::new())
    }
}

impl From<Vec<Scalar>> for Evals {
    fn from(v: Vec<Scalar>) -> Evals {
        Evals::Heap(v)
    }
}

/// A copy on the heap (a lent block is not duplicated).
impl Clone for Evals {
    fn clone(&self) -> Evals {
        Evals::Heap(self.to_vec())
    }
}

impl std::fmt::Debug for Evals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let place = if self.is_lent() { "lent" } else { "heap" };
        write!(f, "Evals({place}, {} values)", self.len())
    }
}

/// Equal values, wherever they live.
impl PartialEq for Evals {
    fn eq(&self, o: &Evals) -> bool {
        **self == **o
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ff::Field;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    /// A heap-backed block that counts its returns.
    struct Boxed(Box<[MaybeUninit<Scalar>]>, Arc<AtomicUsize>);
    impl HostBlock for Boxed {
        fn ptr(&self) -> *mut Scalar {
            self.0.as_ptr() as *mut Scalar
        }
        fn capacity(&self) -> usize {
            self.0.len()
        }
    }
    impl Drop for Boxed {
        fn drop(&mut self) {
            self.1.fetch_add(1, Ordering::Relaxed);
        }
    }

    #[test]
    fn lent_values_behave_as_a_vector_and_spill_when_full() {
        let back = Arc::new(AtomicUsize::new(0));
        let block = Boxed(vec![MaybeUninit::uninit(); 3].into_boxed_slice(), back.clone());
        let mut e = Evals::lent(Box::new(block));
        let mut rng = rand::thread_rng();
        let xs: Vec<Scalar> = (0..5).map(|_| Scalar::random(&mut rng)).collect();
        for x in &xs[..3] {
            e.push(*x);
        }
        assert!(e.is_lent() && *e == xs[..3] && back.load(Ordering::Relaxed) == 0);
        e[1] = xs[4];
        assert_eq!(e.clone().into_vec(), vec![xs[0], xs[4], xs[2]]);
        // The fourth value does not fit: the values move to the heap and the block goes back.
        e.push(xs[3]);
        assert!(!e.is_lent() && *e == [xs[0], xs[4], xs[2], xs[3]]);
        assert_eq!(back.load(Ordering::Relaxed), 1);
        assert_eq!(e, Evals::from(vec![xs[0], xs[4], xs[2], xs[3]]));
    }

    #[test]
    fn spare_capacity_then_set_len_claims_the_written_slots() {
        let back = Arc::new(AtomicUsize::new(0));
        let block = Boxed(vec![MaybeUninit::uninit(); 4].into_boxed_slice(), back.clone());
        let mut e = Evals::lent(Box::new(block));
        e.push(Scalar::ONE);
        let spare = e.spare_capacity_mut();
        assert_eq!(spare.len(), 3);
        spare[0].write(Scalar::from(7u64));
        spare[1].write(Scalar::from(9u64));
        // SAFETY: slots 0..3 are written.
        unsafe { e.set_len(3) };
        assert_eq!(*e, [Scalar::ONE, Scalar::from(7u64), Scalar::from(9u64)]);
        drop(e);
        assert_eq!(back.load(Ordering::Relaxed), 1);
    }
}
