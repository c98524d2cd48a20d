//! The one way cuzk takes a mutex: a holder that panicked does not poison it for everyone else, because every
//! update under cuzk's locks replaces whole values and leaves the state consistent.

use std::sync::{Mutex, MutexGuard};

/// Locks `m`, a panicked holder notwithstanding.
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
