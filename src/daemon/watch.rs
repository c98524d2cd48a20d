//! cuzk's `cuzk.console.v1.Watch` service: the service's numbered events as a server stream (the backlog
//! first, then live), and the console's sample submissions.

use std::pin::Pin;

use tokio_stream::wrappers::errors::BroadcastStreamRecvError;
use tokio_stream::wrappers::BroadcastStream;
use tokio_stream::{Stream, StreamExt};
use tonic::{Request, Response, Status};

use crate::circuits::Sample;
use crate::engine::sample::{self, Overrides};
use crate::engine::service::{
    EventBody, JobKind, JobRequest, Priority, Service, ServiceEvent, ServiceStatus,
};
use crate::vocab::{limits, Toggle};
use crate::wire::console::{self as pb, watch_event::Event, watch_server::Watch};

/// The watch service.
pub struct Watcher {
    /// The service watched.
    pub service: Service,
    /// Flips to true when the daemon stops: every stream ends, so the server can shut down.
    pub stopping: tokio::sync::watch::Receiver<bool>,
}

/// The wire form of a status event.
pub fn status_event(s: &ServiceStatus) -> pb::DaemonStatus {
    pb::DaemonStatus {
        queues: s
            .queues
            .iter()
            .map(|q| pb::QueueDepth {
                kind: q.kind.map_or("unknown", |k| k.name()).into(),
                pending: q.pending,
                running: q.running,
            })
            .collect(),
        gpus: s
            .devices
            .iter()
            .map(|d| pb::GpuState {
                ordinal: d.ordinal,
                name: d.name.clone(),
                mem_total_bytes: d.mem_total,
                mem_free_bytes: d.mem_free,
                current_job_id: d.current_job.clone().unwrap_or_default(),
            })
            .collect(),
        srs: s
            .srs
            .iter()
            .map(|e| pb::SrsState {
                circuit_id: e.circuit_id.clone(),
                tier: e.tier.name().into(),
                size_bytes: e.size_bytes,
                ref_count: e.refs,
            })
            .collect(),
        toggles: Toggle::ALL.iter().map(|t| (t.id().to_string(), s.toggles.on(*t))).collect(),
        batch: s.toggles.batch as u32,
        backend: s.backend.clone(),
        mem_budget_bytes: s.mem_budget,
        mem_in_use_bytes: s.mem_in_use,
        proofs_completed: s.completed,
        proofs_failed: s.failed,
        draining: s.draining,
    }
}

/// One service event on the wire.
pub fn event(e: &ServiceEvent) -> pb::WatchEvent {
    let body = match &e.body {
        EventBody::Phase(p) => Event::Phase(pb::PhaseEvent {
            job_id: p.job_id.clone(),
            phase: p.phase.clone(),
            lane: p.lane.clone(),
            circuit: p.circuit,
            device: p.device,
            start_us: p.start_us,
            dur_us: p.dur_us,
            args: p.args.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            open: p.open,
        }),
        EventBody::Memory(m) => Event::Memory(pb::MemorySample {
            job_id: m.job_id.clone(),
            counter: m.counter.clone(),
            capacity: m.capacity,
            at_us: m.at_us,
            bytes: m.bytes,
        }),
        EventBody::Job(j) => Event::Job(pb::JobEvent {
            job_id: j.job_id.clone(),
            request_id: j.request_id.clone(),
            kind: j.kind.name().into(),
            circuit_id: j.circuit_id.clone(),
            priority: j.priority.name().into(),
            state: j.state.name().into(),
            error: j.error.clone(),
            run_id: j.run_id.clone().unwrap_or_default(),
            queue_wait_ms: j.timings.queue_wait_ms,
            total_ms: j.timings.total_ms,
        }),
        EventBody::Status(s) => Event::Status(status_event(s)),
    };
    pb::WatchEvent { seq: e.seq, t_us: e.t_us, event: Some(body) }
}

type Events = Pin<Box<dyn Stream<Item = Result<pb::WatchEvent, Status>> + Send>>;

#[tonic::async_trait]
impl Watch for Watcher {
    type StreamStream = Events;

    async fn stream(&self, request: Request<pb::WatchRequest>) -> Result<Response<Events>, Status> {
        let no_phases = request.into_inner().no_phases;
        let keep = move |e: &ServiceEvent| !(no_phases && matches!(e.body, EventBody::Phase(_)));
        let (backlog, rx) = self.service.watch();
        let backlog: Vec<_> = backlog.into_iter().filter(|e| keep(e)).map(|e| Ok(event(&e))).collect();
        let live = BroadcastStream::new(rx).filter_map(move |r| match r {
            Ok(e) if keep(&e) => Some(Ok(event(&e))),
            Ok(_) => None,
            // A watcher that fell behind misses events; it is told how many with a status it can act on.
            Err(BroadcastStreamRecvError::Lagged(n)) => Some(Err(Status::data_loss(format!(
                "watch: {n} events were dropped because this client read too slowly; reconnect to resync"
            )))),
        });
        let stop = super::stop::until_stopped(self.stopping.clone());
        let s = futures_util::StreamExt::take_until(tokio_stream::iter(backlog).chain(live), stop);
        Ok(Response::new(Box::pin(s)))
    }

    async fn submit(
        &self,
        request: Request<pb::SubmitSampleRequest>,
    ) -> Result<Response<pb::SubmitSampleResponse>, Status> {
        let r = request.into_inner();
        let priority = if r.priority.trim().is_empty() {
            Priority::Normal
        } else {
            Priority::parse(&r.priority).ok_or_else(|| {
                Status::invalid_argument(format!(
                    "priority: {:?}, expected low, normal, high or critical",
                    r.priority
                ))
            })?
        };
        let sectors = match r.sectors {
            0 => None,
            n => Some(
                limits::SECTORS
                    .check_usize(n as usize)
                    .map_err(|e| Status::invalid_argument(format!("sectors: {e}")))?,
            ),
        };
        let service = self.service.clone();
        let submitted = tokio::task::spawn_blocking(move || {
            let o = Overrides { sectors, ..Overrides::default() };
            let (sample, _): (Sample, _) = sample::load(r.sample.as_ref(), &o)
                .map_err(|e| Status::invalid_argument(format!("sample: {e}")))?;
            let circuit_id = sample.name.clone();
            let job =
                JobRequest { request_id: String::new(), kind: JobKind::Sample, priority, circuit_id, sample };
            service.submit(job).map_err(|e| Status::failed_precondition(e.to_string()))
        })
        .await
        .map_err(|e| Status::internal(format!("submit task: {e}")))??;
        Ok(Response::new(pb::SubmitSampleResponse { job_id: submitted.job_id }))
    }
}
