//! The service's event stream: every event numbered in the order it is sent, then sent to every watcher.

use tokio::sync::broadcast;

use super::types::{EventBody, ServiceEvent};

/// The stream's sender and the number of the last event (the lock around it orders the events).
pub(super) struct Bus {
    pub(super) seq: u64,
    pub(super) tx: broadcast::Sender<ServiceEvent>,
}

impl Bus {
    /// The next event: numbered after the last one, stamped `t_us` (µs on the service's clock).
    pub(super) fn next(&mut self, t_us: u64, body: EventBody) -> ServiceEvent {
        self.seq += 1;
        ServiceEvent { seq: self.seq, t_us, body }
    }

    /// Sends an event to every watcher (with none watching it is dropped).
    pub(super) fn send(&self, ev: ServiceEvent) {
        let _ = self.tx.send(ev);
    }
}
