//! The device gate: jobs running side by side (the daemon's workers) take turns at the proving step, the
//! highest priority first, FIFO within one, while their synthesis runs beside the turn of another. One proof
//! call holds the turn from its first lane phase to its proofs, so a critical job waits at most one call.

use std::collections::BTreeSet;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

use crate::vocab::{CancelToken, Cancelled};

/// How often a waiter looks at its cancel token.
const CANCEL_POLL: Duration = Duration::from_millis(50);

/// A priority lock over the device(s): [`DeviceGate::enter`] waits for the turn.
#[derive(Default)]
pub struct DeviceGate {
    state: Mutex<State>,
    moved: Condvar,
}

#[derive(Default)]
struct State {
    held: bool,
    /// Who holds the turn (the job's label).
    holder: Option<String>,
    /// Waiters by (higher priority first, then arrival).
    waiting: BTreeSet<(std::cmp::Reverse<u8>, u64)>,
    seq: u64,
}

/// A run's claim on a gate: which gate and at what priority (higher goes first).
#[derive(Clone, Copy)]
pub struct DeviceClaim<'a> {
    /// The gate shared by every job of the process.
    pub gate: &'a DeviceGate,
    /// The job's priority.
    pub priority: u8,
    /// Who is asking (the daemon's job id), shown while it holds the turn.
    pub label: &'a str,
}

/// The turn: the device is this call's until it is dropped.
pub struct DeviceTurn<'a> {
    gate: &'a DeviceGate,
}

impl DeviceGate {
    /// A gate nobody holds.
    pub fn new() -> DeviceGate {
        DeviceGate::default()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        crate::util::lock(&self.state)
    }

    /// Waits for the turn, ahead of every waiter of lower priority and behind those of higher or equal
    /// priority that came first; gives up when `cancel` is cancelled.
    pub fn enter(
        &self,
        priority: u8,
        label: &str,
        cancel: &CancelToken,
    ) -> Result<DeviceTurn<'_>, Cancelled> {
        let mut g = self.lock();
        g.seq += 1;
        let me = (std::cmp::Reverse(priority), g.seq);
        g.waiting.insert(me);
        loop {
            if cancel.is_cancelled() {
                g.waiting.remove(&me);
                self.moved.notify_all();
                return Err(Cancelled);
            }
            if !g.held && g.waiting.first() == Some(&me) {
                g.waiting.remove(&me);
                g.held = true;
                g.holder = Some(label.to_string());
                return Ok(DeviceTurn { gate: self });
            }
            g = self.moved.wait_timeout(g, CANCEL_POLL).map(|(g, _)| g).unwrap_or_else(|p| p.into_inner().0);
        }
    }

    /// Whether a call holds the turn now.
    pub fn is_held(&self) -> bool {
        self.lock().held
    }

    /// The label of the run holding the turn now.
    pub fn holder(&self) -> Option<String> {
        self.lock().holder.clone()
    }
}

impl Drop for DeviceTurn<'_> {
    fn drop(&mut self) {
        let mut g = self.gate.lock();
        g.held = false;
        g.holder = None;
        drop(g);
        self.gate.moved.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::channel;

    /// Waiters get the turn by priority, then arrival; a cancelled waiter leaves the line.
    #[test]
    fn turns_go_by_priority_then_arrival() {
        let owned = DeviceGate::new();
        let gate = &owned;
        let none = CancelToken::new();
        let first = gate.enter(1, "first", &none).expect("free gate");
        let (tx, rx) = channel();
        std::thread::scope(|s| {
            let cancelled = CancelToken::new();
            for (i, (name, prio)) in
                [("low", 1u8), ("normal-a", 2), ("critical", 4), ("normal-b", 2)].into_iter().enumerate()
            {
                let (tx, none) = (tx.clone(), none.clone());
                s.spawn(move || {
                    let turn = gate.enter(prio, name, &none).expect("not cancelled");
                    let _ = tx.send(name);
                    drop(turn);
                });
                // Arrival order is the spawn order: each waiter is in line before the next starts.
                while gate.lock().waiting.len() < i + 1 {
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
            let c = cancelled.clone();
            let gone = s.spawn(move || gate.enter(9, "gone", &c).is_err());
            while gate.lock().waiting.len() < 5 {
                std::thread::sleep(Duration::from_millis(1));
            }
            cancelled.cancel();
            assert!(gone.join().unwrap_or(false), "a cancelled waiter gives up");
            drop(first);
        });
        drop(tx);
        let order: Vec<&str> = rx.iter().collect();
        assert_eq!(order, ["critical", "normal-a", "normal-b", "low"]);
        assert!(!gate.is_held());
    }
}
