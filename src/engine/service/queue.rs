//! The run queue: highest priority first, first come first served within one priority.

use std::collections::BTreeMap;

use super::types::Priority;

/// Queued job ids, ordered by (priority, arrival).
#[derive(Default)]
pub struct RunQueue {
    order: BTreeMap<(std::cmp::Reverse<Priority>, u64), String>,
    seq: u64,
}

impl RunQueue {
    /// Queues `id`; returns how many jobs are ahead of it.
    pub fn push(&mut self, id: String, priority: Priority) -> usize {
        self.seq += 1;
        let key = (std::cmp::Reverse(priority), self.seq);
        self.order.insert(key, id);
        self.order.range(..key).count()
    }

    /// The job that runs next, and its priority.
    pub fn head(&self) -> Option<(&str, Priority)> {
        self.order.iter().next().map(|((p, _), id)| (id.as_str(), p.0))
    }

    /// Takes the head off the queue.
    pub fn pop(&mut self) -> Option<String> {
        self.order.pop_first().map(|(_, id)| id)
    }

    /// Takes `id` off the queue (a cancel); whether it was queued.
    pub fn remove(&mut self, id: &str) -> bool {
        let key = self.order.iter().find(|(_, v)| v.as_str() == id).map(|(k, _)| *k);
        key.is_some_and(|k| self.order.remove(&k).is_some())
    }

    /// Jobs ahead of `id` (None: not queued).
    pub fn position(&self, id: &str) -> Option<usize> {
        self.order.values().position(|v| v == id)
    }

    /// Queued jobs.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Takes every queued job off (a shutdown), in run order.
    pub fn drain(&mut self) -> Vec<String> {
        std::mem::take(&mut self.order).into_values().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn priority_then_fifo() {
        let mut q = RunQueue::default();
        assert_eq!(q.push("low".into(), Priority::Low), 0);
        assert_eq!(q.push("n1".into(), Priority::Normal), 0);
        assert_eq!(q.push("n2".into(), Priority::Normal), 1);
        assert_eq!(q.push("crit".into(), Priority::Critical), 0);
        assert_eq!(q.push("high".into(), Priority::High), 1);
        assert_eq!(q.position("low"), Some(4));
        assert!(q.remove("n1"));
        assert!(!q.remove("n1"));
        assert_eq!(q.head(), Some(("crit", Priority::Critical)));
        let order: Vec<String> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order, ["crit", "high", "n2", "low"]);
        assert_eq!(q.len(), 0);
    }
}
