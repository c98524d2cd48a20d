//! One repeat of a job: a sample's sectors proved in calls of `batch` sectors, synthesis of the next call
//! overlapping proving of this one when `pipeline` is on, every proof verified (toggle).

use std::sync::mpsc::sync_channel;
use std::sync::Arc;

use blstrs::Scalar;

use super::EngineError;
use crate::backend::api::Backend;
use crate::circuits::Sample;
use crate::cs::{ProvingAssignment, Shape};
use crate::groth16::prover::{
    check_inputs, prove_assignments, synthesize_with, CallSpec, PceSlot, ProveError,
};
use crate::groth16::verify::{verify_batch, PreparedVerifyingKey};
use crate::groth16::{Parameters, Proof};
use crate::vocab::{Phase, Probe, Site, Toggle, Toggles};

/// What to run.
pub struct JobSpec<'a> {
    /// The sample (its seed is the job seed: witness, params and randomizers).
    pub sample: &'a Sample,
    /// Toggles for this job.
    pub toggles: Toggles,
    /// The backend.
    pub backend: &'a dyn Backend,
    /// The params of the sample's circuit.
    pub params: Arc<Parameters>,
    /// The circuit shape (A2 hint, memory estimate).
    pub shape: Shape,
    /// Bytes the pipeline may hold in synthesized-but-unproved batches.
    pub mem_budget: u64,
    /// The PCE record slot of the circuit's shape (used when the `pce` toggle is on).
    pub pce: Option<&'a PceSlot>,
}

/// What one repeat produced.
#[derive(Debug, Default)]
pub struct JobOutput {
    /// Proofs in circuit order (sector-major, then partition).
    pub proofs: Vec<Proof>,
    /// Each proof's public inputs.
    pub inputs: Vec<Vec<Scalar>>,
    /// Per proof: did it verify (`None` when the verify toggle is off).
    pub verified: Option<Vec<bool>>,
    /// Whether synthesis and proving actually overlapped (pipeline on, more than one call, budget allowing).
    pub pipelined: bool,
}

/// Bytes one synthesized circuit holds until proved: a, b, c per row plus the assignments (32 bytes each).
pub fn bytes_per_circuit(shape: &Shape) -> u64 {
    (32 * (3 * shape.rows() + shape.inputs + shape.aux)) as u64
}

struct Call {
    first: usize,
    inputs: Vec<Vec<Scalar>>,
    asgs: Vec<ProvingAssignment>,
}

fn synthesize_call(
    spec: &JobSpec,
    probe: &Probe,
    sectors: std::ops::Range<usize>,
) -> Result<Call, ProveError> {
    let s = spec.sample;
    let first = sectors.start * s.circuits_per_sector();
    let circuits: Vec<_> = sectors.flat_map(|sec| s.sector_circuits(sec)).collect();
    let inputs: Vec<Vec<Scalar>> = circuits.iter().map(|c| c.public_inputs()).collect();
    let asgs = synthesize_with(probe, &circuits, &spec.toggles, Some(spec.shape), first, spec.pce)?;
    check_inputs(&asgs, &inputs, first)?;
    Ok(Call { first, inputs, asgs })
}

/// Runs one repeat on the calling thread, the rayon pool and (when pipelining) one synthesis thread.
pub fn run_job(spec: &JobSpec, probe: &Probe) -> Result<JobOutput, EngineError> {
    let s = spec.sample;
    let t = &spec.toggles;
    let batch = t.batch.max(1);
    let calls: Vec<_> = (0..s.sectors).step_by(batch).map(|f| f..(f + batch).min(s.sectors)).collect();
    let per_call = bytes_per_circuit(&spec.shape) * (batch * s.circuits_per_sector()) as u64;
    // One call proving and one synthesized ahead must fit; the queue holds what else the budget allows.
    let ahead = (spec.mem_budget / per_call.max(1)).saturating_sub(2).min(4) as usize;
    let pipelined = t.on(Toggle::Pipeline) && calls.len() > 1 && spec.mem_budget >= 2 * per_call;
    let mut out = JobOutput { pipelined, ..JobOutput::default() };
    let prove = |call: Call, out: &mut JobOutput| -> Result<(), EngineError> {
        out.inputs.extend(call.inputs);
        let cs = CallSpec { params: &spec.params, toggles: t, seed: s.seed, first: call.first };
        out.proofs.extend(prove_assignments(probe, spec.backend, cs, call.asgs)?);
        Ok(())
    };
    if pipelined {
        std::thread::scope(|scope| -> Result<(), EngineError> {
            let (tx, rx) = sync_channel::<Result<Call, ProveError>>(ahead);
            let calls = &calls;
            scope.spawn(move || {
                for c in calls {
                    if probe.checkpoint().is_err() {
                        break;
                    }
                    let call = synthesize_call(spec, probe, c.clone());
                    let failed = call.is_err();
                    if tx.send(call).is_err() || failed {
                        break;
                    }
                }
            });
            for call in rx.iter() {
                prove(call?, &mut out)?;
            }
            Ok(())
        })?;
    } else {
        for c in &calls {
            probe.checkpoint().map_err(ProveError::from)?;
            prove(synthesize_call(spec, probe, c.clone())?, &mut out)?;
        }
    }
    probe.checkpoint().map_err(ProveError::from)?;
    if t.on(Toggle::Verify) {
        let _span = probe.open(Site::new(Phase::Verify).arg("proofs", out.proofs.len()));
        let pvk = PreparedVerifyingKey::new(&spec.params.vk);
        out.verified = Some(verify_batch(&pvk, &out.proofs, &out.inputs)?);
    }
    Ok(out)
}
