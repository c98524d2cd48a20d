//! Small mechanisms every layer may use and that know nothing of proofs: the allocator, atomic file writes,
//! cache folders, digit grouping, /proc memory facts, page-cache residency, the removal of temp files that
//! killed processes left, the median, unpoisoned locks, this build's identity, process milestones, large
//! vectors kept between a run's circuits, vectors filled and cut for parallel writers, long jobs kept off
//! rayon's workers, the `on`/`off` environment switches.

pub mod alloc;
pub mod atomic;
pub mod build;
pub mod digits;
pub mod dirs;
pub mod log;
pub mod long;
pub mod marks;
pub mod median;
pub mod mem;
pub mod meminfo;
pub mod pagecache;
pub mod par;
pub mod recycle;
pub mod stale;
pub mod switch;
pub mod sync;

pub use atomic::{publish_dir, write_atomic, write_atomic_new, write_atomic_with};
pub use sync::lock;
