//! Long sequential jobs (a circuit's synthesis, a recording pass) run on threads of their own, never as
//! rayon jobs, when the caller is not itself a rayon worker.
//!
//! Why: a rayon worker that waits inside `join` or a parallel iterator steals whatever job is queued, and
//! the frame it was waiting in cannot return until the stolen job ends. A seconds-long synthesis queued in
//! the global pool therefore pins any short parallel step that happens to wait beside it. In session af's
//! 32 GiB sectors (docs/PERF.md, session ag) that is what made a SpMV take 4 s instead of 0.6, the first
//! call's `prep_msm` 7.4 s instead of 0.9, and the second call wait 7 s for a partition being synthesized
//! in the meantime, the GPU idle throughout. Work on threads of their own cannot be stolen, so the prover's
//! short parallel steps only ever pick up short tasks.
//!
//! Inside a rayon pool (a benchmark's one-thread pool, a test's) the jobs stay rayon jobs of that pool, as
//! before: the caller chose the pool, and its thread count is what it measures.

use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

/// Whether the calling thread is a worker of some rayon pool.
fn in_pool() -> bool {
    rayon::current_thread_index().is_some()
}

/// `a()` and `b()` at once: outside a pool `b` on a thread of its own and `a` on the caller's; inside one,
/// `rayon::join`.
pub fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    if in_pool() {
        return rayon::join(a, b);
    }
    std::thread::scope(|s| {
        let hb = s.spawn(b);
        let ra = a();
        (ra, hb.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
    })
}

/// `f(i, &items[i])` for every item, results in order: outside a pool on up to as many threads of their own
/// as the global pool has workers (one item runs on the caller's), each taking the next item when done;
/// inside one, a parallel iterator of that pool.
pub fn map<T, R, F>(items: &[T], f: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(usize, &T) -> R + Sync,
{
    if in_pool() {
        return items.par_iter().enumerate().map(|(i, t)| f(i, t)).collect();
    }
    if items.len() <= 1 {
        return items.iter().enumerate().map(|(i, t)| f(i, t)).collect();
    }
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(t) = items.get(i) else { return done };
            done.push((i, f(i, t)));
        }
    };
    let threads = items.len().min(rayon::current_num_threads().max(1));
    let mut all: Vec<(usize, R)> = std::thread::scope(|s| {
        let helpers: Vec<_> = (1..threads).map(|_| s.spawn(work)).collect();
        let mut all = work();
        for h in helpers {
            all.extend(h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
        }
        all
    });
    all.sort_unstable_by_key(|(i, _)| *i);
    all.into_iter().map(|(_, r)| r).collect()
}

/// [`map`] over the indices `0..n` (a pass number each): `f(i)` for every `i`, results in order.
pub fn map_n<R, F>(n: usize, f: F) -> Vec<R>
where
    R: Send,
    F: Fn(usize) -> R + Sync,
{
    map(&vec![(); n], |i, _| f(i))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Outside a pool no job runs on a rayon worker (so none can be stolen); results keep the items' order.
    #[test]
    fn outside_a_pool_jobs_run_on_threads_of_their_own_in_order() {
        let items: Vec<u64> = (0..37).map(|i| i * 7919 % 101).collect();
        let out = map(&items, |i, &t| {
            assert!(rayon::current_thread_index().is_none(), "item {i} ran on a rayon worker");
            (i, t * 3)
        });
        assert_eq!(out, items.iter().enumerate().map(|(i, &t)| (i, t * 3)).collect::<Vec<_>>());
        let squares = map_n(23, |i| {
            assert!(rayon::current_thread_index().is_none(), "pass {i} ran on a rayon worker");
            i * i
        });
        assert_eq!(squares, (0..23).map(|i| i * i).collect::<Vec<_>>());
        let (a, b) = join(rayon::current_thread_index, rayon::current_thread_index);
        assert_eq!((a, b), (None, None));
    }

    /// Several items of one map run at once outside a pool (every thread waits at a barrier of them all).
    #[test]
    fn outside_a_pool_items_run_concurrently() {
        let n = rayon::current_num_threads().clamp(1, 3);
        if n == 1 {
            eprintln!("NOTE: one rayon thread here: this test cannot show two items at once");
        }
        let barrier = std::sync::Barrier::new(n);
        let items: Vec<usize> = (0..n).collect();
        // Each thread takes one item and waits for the others: with fewer threads this would never return.
        let out = map(&items, |_, &t| {
            barrier.wait();
            t
        });
        assert_eq!(out, items);
    }

    /// Inside a pool the jobs are that pool's (a one-thread pool runs everything on its one worker).
    #[test]
    fn inside_a_pool_jobs_stay_in_it() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("pool");
        let items: Vec<u32> = (0..9).collect();
        let (out, (a, b)) = pool.install(|| {
            (
                map(&items, |_, &t| (t, rayon::current_thread_index())),
                join(rayon::current_thread_index, rayon::current_thread_index),
            )
        });
        assert!(out.iter().all(|&(_, w)| w == Some(0)), "{out:?}");
        assert_eq!(out.iter().map(|p| p.0).collect::<Vec<_>>(), items);
        assert_eq!((a, b), (Some(0), Some(0)));
    }
}
