//! The running jobs' live feeds turned into the service's events: phase spans as they open and close and
//! memory samples, on the service's clock, each job's kept as a backlog for watchers who join mid-job; and
//! a status event about once a second.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::feeds::{LiveJob, LiveJobs};
use super::inner::{lock, Inner};
use super::types::{EventBody, MemoryEvent, PhaseEvent};
use crate::engine::events::{live_event, open_event};
use crate::timeline::record::RunRecord;

/// How often the running jobs' feeds are read.
const POLL: Duration = Duration::from_millis(50);
/// How often a status event goes out when nothing else happens.
const STATUS_EVERY: Duration = Duration::from_secs(1);
/// Events kept per running job for late watchers (a 32 GiB PoRep C2 has a few thousand).
const BACKLOG_MAX: usize = 1 << 16;

impl LiveJobs {
    /// A job ended: send the spans its feed closed after the last poll (from its record, when it has one:
    /// the capture is gone by then), then forget it.
    pub(super) fn remove(&mut self, inner: &Inner, id: &str, record: Option<&RunRecord>) {
        let Some(mut j) = self.jobs.remove(id) else { return };
        let (Some(rec), Some(origin)) = (record, j.origin_us) else { return };
        let sent = std::mem::take(&mut j.closed_sent);
        for e in rec.events.iter().filter(|e| !sent.contains(&(e.phase.clone(), e.circuit, e.start_us))) {
            let p = PhaseEvent {
                job_id: id.to_string(),
                phase: e.phase.clone(),
                lane: e.lane.clone(),
                circuit: e.circuit,
                device: e.device,
                start_us: origin + e.start_us,
                dur_us: e.dur_us,
                args: e.args.clone(),
                open: false,
            };
            send(inner, &mut j, EventBody::Phase(p));
        }
    }
}

/// Sends one event of a job and keeps it in the job's backlog (the caller holds the live lock).
fn send(inner: &Inner, j: &mut LiveJob, body: EventBody) {
    let mut bus = lock(&inner.bus);
    let ev = bus.next(inner.now_us(), body);
    if j.backlog.len() < BACKLOG_MAX {
        j.backlog.push(ev.clone());
    }
    bus.send(ev);
}

fn poll_one(inner: &Inner, id: &str, j: &mut LiveJob) {
    let Some(p) = j.tap.poll() else { return };
    let origin = *j.origin_us.get_or_insert_with(|| inner.now_us().saturating_sub(p.now_us));
    let phase = |e: crate::timeline::record::RecordEvent, open: bool| PhaseEvent {
        job_id: id.to_string(),
        phase: e.phase,
        lane: e.lane,
        circuit: e.circuit,
        device: e.device,
        start_us: origin + e.start_us,
        dur_us: if open { 0 } else { e.dur_us },
        args: e.args,
        open,
    };
    for o in &p.open {
        let key = (o.site.phase.name().to_string(), String::new(), o.site.circuit, o.start_us);
        if j.open.insert(key) {
            let mut e = open_event(o, p.now_us);
            e.args.remove("running");
            send(inner, j, EventBody::Phase(phase(e, true)));
        }
    }
    for c in &p.closed {
        j.closed_sent.insert((c.site.phase.name().to_string(), c.site.circuit, c.start_us));
        j.open.remove(&(c.site.phase.name().to_string(), String::new(), c.site.circuit, c.start_us));
        send(inner, j, EventBody::Phase(phase(live_event(c), false)));
    }
    for series in p.counters {
        for (t, bytes) in series.samples {
            let m = MemoryEvent {
                job_id: id.to_string(),
                counter: series.name.clone(),
                capacity: series.capacity,
                at_us: origin + t,
                bytes,
            };
            send(inner, j, EventBody::Memory(m));
        }
    }
}

/// The pump's loop: read the feeds every [`POLL`], a status every [`STATUS_EVERY`]; ends with the service.
pub(super) fn pump(inner: &Arc<Inner>) {
    let mut last_status = Instant::now();
    loop {
        if lock(&inner.state).shutdown {
            return;
        }
        {
            let mut live = lock(&inner.live);
            let ids: Vec<String> = live.jobs.keys().cloned().collect();
            for id in ids {
                if let Some(j) = live.jobs.get_mut(&id) {
                    poll_one(inner, &id, j);
                }
            }
        }
        if last_status.elapsed() >= STATUS_EVERY {
            last_status = Instant::now();
            let status = {
                let st = lock(&inner.state);
                inner.status_of(&st)
            };
            inner.emit(EventBody::Status(Box::new(status)));
        }
        std::thread::sleep(POLL);
    }
}
