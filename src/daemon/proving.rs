//! Curio's `cuzk.v1.ProvingEngine` over the service: requests mapped field by field, parsing off the async
//! threads, waits that end with the job or the caller's timeout (a caller that goes away leaves its job
//! running).

use std::sync::Arc;
use std::time::Duration;

use tonic::{Request, Response, Status};

use super::request::{self, Refusal};
use crate::engine::service::{JobKind, JobState, Outcome, Service, SrsError, SubmitError, Tier};
use crate::wire::v1::{self as pb, await_proof_response, proving_engine_server::ProvingEngine};

/// The service behind Curio's API.
pub struct Proving {
    /// The service.
    pub service: Service,
    /// Every job's params seed (the config's `seed`, else the default).
    pub params_seed: u64,
}

fn submit_error(e: SubmitError) -> Status {
    match e {
        SubmitError::Draining => Status::unavailable(e.to_string()),
        SubmitError::Memory(m) => Status::resource_exhausted(m),
        SubmitError::Invalid(m) => Status::invalid_argument(m),
    }
}

fn srs_error(e: SrsError) -> Status {
    match e {
        SrsError::Unknown(m) => Status::invalid_argument(m),
        SrsError::NotSupported(m) => Status::unimplemented(m),
        SrsError::InUse(m) | SrsError::NoParams(m) => Status::failed_precondition(m),
        SrsError::Load(m) => Status::internal(m),
    }
}

/// The wire's name of a job kind's queue.
pub fn queue_name(k: JobKind) -> &'static str {
    match k {
        JobKind::Porep => "POREP_SEAL_COMMIT",
        JobKind::Snap => "SNAP_DEALS_UPDATE",
        JobKind::WindowPost => "WINDOW_POST_PARTITION",
        JobKind::WinningPost => "WINNING_POST",
        JobKind::Sample => "CUZK_SAMPLE",
    }
}

/// A job's outcome as Curio reads it.
pub fn response(job_id: &str, o: &Outcome) -> pb::AwaitProofResponse {
    use await_proof_response::Status as S;
    let status = match o.state {
        JobState::Completed => S::Completed,
        JobState::Failed => S::Failed,
        JobState::Cancelled => S::Cancelled,
        JobState::Queued | JobState::Running => S::Unknown,
    };
    let t = o.timings;
    pb::AwaitProofResponse {
        job_id: job_id.to_string(),
        status: status as i32,
        proof: o.proof.clone(),
        error_message: o.error.clone(),
        queue_wait_ms: t.queue_wait_ms,
        srs_load_ms: t.srs_load_ms,
        synthesis_ms: t.synthesis_ms,
        gpu_compute_ms: t.gpu_compute_ms,
        total_ms: t.total_ms,
    }
}

impl Proving {
    async fn submit(&self, req: pb::SubmitProofRequest) -> Result<pb::SubmitProofResponse, Status> {
        let (service, seed) = (self.service.clone(), self.params_seed);
        let submitted = tokio::task::spawn_blocking(move || match request::to_job(&req, seed) {
            Ok(job) => service.submit(job).map_err(submit_error),
            Err(Refusal::Invalid(m)) => Err(Status::invalid_argument(m)),
            Err(Refusal::Unsupported { kind, circuit_id, why }) => {
                let priority =
                    request::priority_of(&req, kind).map_err(|_| Status::invalid_argument("priority"))?;
                Ok(service.reject(&req.request_id, kind, priority, &circuit_id, &why))
            }
        })
        .await
        .map_err(|e| Status::internal(format!("request task: {e}")))??;
        Ok(pb::SubmitProofResponse {
            job_id: submitted.job_id,
            queue_position: submitted.queue_position,
            assigned_gpu: String::new(),
        })
    }

    async fn await_job(&self, job_id: &str, timeout_ms: u64) -> Result<pb::AwaitProofResponse, Status> {
        let mut rx = self.service.outcome(job_id).ok_or_else(|| {
            Status::not_found(format!("job_id: no job {job_id:?} (unknown, or finished long ago)"))
        })?;
        let wait = rx.wait_for(|o| o.is_some());
        let got = if timeout_ms == 0 {
            wait.await.ok().and_then(|o| o.clone())
        } else {
            match tokio::time::timeout(Duration::from_millis(timeout_ms), wait).await {
                Ok(r) => r.ok().and_then(|o| o.clone()),
                Err(_) => {
                    return Ok(pb::AwaitProofResponse {
                        job_id: job_id.to_string(),
                        status: await_proof_response::Status::Timeout as i32,
                        error_message: format!("not finished within timeout_ms {timeout_ms}"),
                        ..Default::default()
                    })
                }
            }
        };
        let o: Arc<Outcome> = got.ok_or_else(|| Status::internal("the job's outcome was lost"))?;
        Ok(response(job_id, &o))
    }
}

#[tonic::async_trait]
impl ProvingEngine for Proving {
    async fn submit_proof(
        &self,
        request: Request<pb::SubmitProofRequest>,
    ) -> Result<Response<pb::SubmitProofResponse>, Status> {
        Ok(Response::new(self.submit(request.into_inner()).await?))
    }

    async fn await_proof(
        &self,
        request: Request<pb::AwaitProofRequest>,
    ) -> Result<Response<pb::AwaitProofResponse>, Status> {
        let r = request.into_inner();
        Ok(Response::new(self.await_job(&r.job_id, r.timeout_ms).await?))
    }

    async fn prove(&self, request: Request<pb::ProveRequest>) -> Result<Response<pb::ProveResponse>, Status> {
        let submit =
            request.into_inner().submit.ok_or_else(|| Status::invalid_argument("submit: missing"))?;
        let s = self.submit(submit).await?;
        let result = self.await_job(&s.job_id, 0).await?;
        Ok(Response::new(pb::ProveResponse { result: Some(result) }))
    }

    async fn cancel_proof(
        &self,
        request: Request<pb::CancelProofRequest>,
    ) -> Result<Response<pb::CancelProofResponse>, Status> {
        let id = request.into_inner().job_id;
        let was_running =
            self.service.cancel(&id).ok_or_else(|| Status::not_found(format!("job_id: no job {id:?}")))?;
        Ok(Response::new(pb::CancelProofResponse { was_running }))
    }

    async fn get_status(
        &self,
        _request: Request<pb::GetStatusRequest>,
    ) -> Result<Response<pb::GetStatusResponse>, Status> {
        let service = self.service.clone();
        let s = tokio::task::spawn_blocking(move || service.status())
            .await
            .map_err(|e| Status::internal(format!("status task: {e}")))?;
        let tier = |t: Tier| match t {
            Tier::Hot => pb::srs_status::Tier::Hot,
            Tier::Warm => pb::srs_status::Tier::Warm,
            Tier::Cold => pb::srs_status::Tier::Cold,
        } as i32;
        Ok(Response::new(pb::GetStatusResponse {
            gpus: s
                .devices
                .iter()
                .map(|d| pb::GpuStatus {
                    ordinal: d.ordinal,
                    name: d.name.clone(),
                    vram_total_bytes: d.mem_total,
                    vram_free_bytes: d.mem_free,
                    current_job_id: d.current_job.clone().unwrap_or_default(),
                    current_proof_kind: d.current_kind.map(queue_name).unwrap_or_default().to_string(),
                })
                .collect(),
            loaded_srs: s
                .srs
                .iter()
                .map(|e| pb::SrsStatus {
                    circuit_id: e.circuit_id.clone(),
                    tier: tier(e.tier),
                    size_bytes: e.size_bytes,
                    ref_count: e.refs,
                })
                .collect(),
            queues: s
                .queues
                .iter()
                .filter_map(|q| {
                    let k = q.kind?;
                    // cuzk's own sample jobs appear only while there are some.
                    (k != JobKind::Sample || q.pending + q.running > 0).then(|| pb::QueueStatus {
                        proof_kind: queue_name(k).into(),
                        pending: q.pending,
                        in_progress: q.running,
                    })
                })
                .collect(),
            total_proofs_completed: s.completed,
            total_proofs_failed: s.failed,
            uptime_seconds: s.uptime_s,
            pinned_memory_bytes: s.pinned_bytes,
            pinned_memory_limit_bytes: 0,
        }))
    }

    async fn get_metrics(
        &self,
        _request: Request<pb::GetMetricsRequest>,
    ) -> Result<Response<pb::GetMetricsResponse>, Status> {
        let service = self.service.clone();
        let text = tokio::task::spawn_blocking(move || super::prometheus::render(&service))
            .await
            .map_err(|e| Status::internal(format!("metrics task: {e}")))?;
        Ok(Response::new(pb::GetMetricsResponse { prometheus_text: text }))
    }

    async fn preload_srs(
        &self,
        request: Request<pb::PreloadSrsRequest>,
    ) -> Result<Response<pb::PreloadSrsResponse>, Status> {
        let (service, id) = (self.service.clone(), request.into_inner().circuit_id);
        let (already_loaded, load_time_ms) = tokio::task::spawn_blocking(move || service.preload(&id))
            .await
            .map_err(|e| Status::internal(format!("preload task: {e}")))?
            .map_err(srs_error)?;
        Ok(Response::new(pb::PreloadSrsResponse { already_loaded, load_time_ms }))
    }

    async fn evict_srs(
        &self,
        request: Request<pb::EvictSrsRequest>,
    ) -> Result<Response<pb::EvictSrsResponse>, Status> {
        let (service, id) = (self.service.clone(), request.into_inner().circuit_id);
        let (was_loaded, freed_bytes) = tokio::task::spawn_blocking(move || service.evict(&id))
            .await
            .map_err(|e| Status::internal(format!("evict task: {e}")))?
            .map_err(srs_error)?;
        Ok(Response::new(pb::EvictSrsResponse { was_loaded, freed_bytes }))
    }
}
