//! What the service keeps of each running job's live feed: the tap that reads it, the spans already
//! announced, and the job's events so far for watchers who join mid-job.

use std::collections::{BTreeMap, BTreeSet};

use super::types::ServiceEvent;
use crate::timeline::{LiveFeed, LiveTap};

/// One running job's feed and what was sent of it.
pub(super) struct LiveJob {
    /// Reads the job's feed.
    pub(super) tap: LiveTap,
    /// The job's capture origin on the service's clock, µs (known from the first poll).
    pub(super) origin_us: Option<u64>,
    /// Open spans already announced (phase, lane, circuit, start).
    pub(super) open: BTreeSet<(String, String, Option<u64>, u64)>,
    /// Closed spans sent so far (phase, circuit, start).
    pub(super) closed_sent: BTreeSet<(String, Option<u64>, u64)>,
    /// The job's events so far, for watchers who join mid-job.
    pub(super) backlog: Vec<ServiceEvent>,
}

/// The feeds of the running jobs.
#[derive(Default)]
pub(super) struct LiveJobs {
    /// By job id.
    pub(super) jobs: BTreeMap<String, LiveJob>,
}

impl LiveJobs {
    /// A job starts: watch its feed.
    pub(super) fn add(&mut self, id: &str, feed: LiveFeed) {
        let job = LiveJob {
            tap: LiveTap::new(feed),
            origin_us: None,
            open: BTreeSet::new(),
            closed_sent: BTreeSet::new(),
            backlog: Vec::new(),
        };
        self.jobs.insert(id.to_string(), job);
    }

    /// Every running job's events so far, oldest job first.
    pub(super) fn backlog(&self) -> Vec<ServiceEvent> {
        self.jobs.values().flat_map(|j| j.backlog.iter().cloned()).collect()
    }
}
