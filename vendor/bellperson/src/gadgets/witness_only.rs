//! cuzk patch: a per-thread flag that tells this crate's gadgets their constraint system ignores linear
//! combinations (cuzk's witness-only synthesis), so the SHA-256 adders (`UInt32::addmany`) and `MultiEq`
//! skip building them. Allocations and the sequence of `enforce` calls are unchanged; only the combinations
//! handed to `enforce` are empty, which such a system never reads.

use std::cell::Cell;

thread_local! {
    static ACTIVE: Cell<bool> = const { Cell::new(false) };
}

/// Whether the current thread is synthesizing into a system that ignores linear combinations.
#[inline]
pub fn active() -> bool {
    ACTIVE.with(Cell::get)
}

/// Sets the flag for the current thread until dropped (then restores the previous value).
pub struct Scope {
    previous: bool,
}

impl Scope {
    /// Marks the current thread as synthesizing witness-only (`on`) or not.
    pub fn enter(on: bool) -> Scope {
        Scope { previous: ACTIVE.with(|a| a.replace(on)) }
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        ACTIVE.with(|a| a.set(self.previous));
    }
}
