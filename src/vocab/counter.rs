//! The memory counters a run samples: their names everywhere (records, Chrome-trace counter events, CSV rows,
//! the console's counter lanes) come from here.

use std::fmt;

/// A sampled memory counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Counter {
    /// Resident set of the process (host memory in use).
    HostRss,
    /// Host memory page-locked for device transfers (B1's a/b/c, pinned pools).
    HostPinned,
    /// Memory in use on device `d` (all processes, as `cuMemGetInfo` reports it).
    DeviceMem(u64),
}

impl Counter {
    /// The name in records and exports: `host_rss`, `host_pinned`, `gpu<d>_mem`.
    pub fn name(self) -> String {
        match self {
            Counter::HostRss => "host_rss".into(),
            Counter::HostPinned => "host_pinned".into(),
            Counter::DeviceMem(d) => format!("gpu{d}_mem"),
        }
    }

    /// The counter with this name.
    pub fn from_name(name: &str) -> Option<Counter> {
        match name {
            "host_rss" => Some(Counter::HostRss),
            "host_pinned" => Some(Counter::HostPinned),
            n => n.strip_prefix("gpu")?.strip_suffix("_mem")?.parse().ok().map(Counter::DeviceMem),
        }
    }

    /// Short label for a timeline row: `rss`, `pinned`, `gpu0 mem`.
    pub fn label(self) -> String {
        match self {
            Counter::HostRss => "mem rss".into(),
            Counter::HostPinned => "mem pinned".into(),
            Counter::DeviceMem(d) => format!("mem gpu{d}"),
        }
    }
}

impl fmt::Display for Counter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::Counter;

    #[test]
    fn names_round_trip() {
        for c in [Counter::HostRss, Counter::HostPinned, Counter::DeviceMem(3)] {
            assert_eq!(Counter::from_name(&c.name()), Some(c));
        }
        assert_eq!(Counter::from_name("gpux_mem"), None);
    }
}
