//! One repeat of a job: a sample's sectors proved in calls of `batch` sectors (or of some partitions of one,
//! when the memory plan cannot hold a whole sector), synthesis of the next call overlapping proving of this
//! one when `pipeline` is on, every proof verified (toggle).

use std::sync::Arc;

use blstrs::Scalar;

use super::error::EngineError;
use super::gate::DeviceClaim;
use crate::backend::api::Backend;
use crate::circuits::{Sample, SampleCircuit};
use crate::cs::{HostBlock, HostPool, ProvingAssignment, Shape};
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
    /// The params of the sample's circuit (perhaps still loading beside the first call's synthesis).
    pub params: JobParams<'a>,
    /// The circuit shape (A2 hint, memory estimate).
    pub shape: Shape,
    /// Bytes the pipeline may hold in synthesized-but-unproved batches.
    pub mem_budget: u64,
    /// The PCE record slot of the circuit's shape (used when the `pce` toggle is on).
    pub pce: Option<&'a PceSlot>,
    /// The device gate this job's proof calls take turns at (`None`: the job is alone on the device).
    pub device: Option<DeviceClaim<'a>>,
    /// Circuits per proof call (the plan's): `batch` sectors' worth, or some partitions of one sector.
    pub circuits_per_call: usize,
}

/// The params a job proves with: at hand, or read from disk by another thread while the first call
/// synthesizes (a fresh process's `srs_load`, 0.9 s for the real 2 KiB C2 on h200-16c, runs under its
/// synthesis, docs/PERF.md).
#[derive(Clone, Copy)]
pub enum JobParams<'a> {
    /// Loaded.
    Ready(&'a Arc<Parameters>),
    /// Being loaded: the cell is set once the load ends, `None` when it failed (the loader reports why).
    Loading(&'a std::sync::OnceLock<Option<Arc<Parameters>>>),
}

impl JobParams<'_> {
    /// The params, waiting for the load; an error when it failed.
    fn get(&self) -> Result<Arc<Parameters>, EngineError> {
        let p = match *self {
            JobParams::Ready(p) => Some(p.clone()),
            JobParams::Loading(cell) => cell.wait().clone(),
        };
        p.ok_or(EngineError::ParamsUnavailable)
    }
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

/// The circuits of the sectors a job's calls draw from, each sector built once: a porep sector's witness is
/// built whole (porep-32g: 1.2–1.4 s on dev-2c), which calls of one partition would otherwise pay once per
/// partition. Holds the two latest sectors (two workers may straddle a sector boundary).
struct Sectors<'a> {
    sample: &'a Sample,
    built: std::sync::Mutex<Vec<(usize, Arc<Vec<SampleCircuit>>)>>,
}

impl<'a> Sectors<'a> {
    fn new(sample: &'a Sample) -> Self {
        Sectors { sample, built: Default::default() }
    }

    fn get(&self, sector: usize) -> Arc<Vec<SampleCircuit>> {
        let lock = || crate::util::lock(&self.built);
        if let Some((_, c)) = lock().iter().find(|(s, _)| *s == sector) {
            return c.clone();
        }
        // Built outside the lock; two workers building one sector at once waste only the time.
        let c = Arc::new(self.sample.sector_circuits(sector));
        let mut built = lock();
        built.push((sector, c.clone()));
        if built.len() > 2 {
            built.remove(0);
        }
        c
    }
}

/// The backend's pool lending within a job's window: the bytes of a/b/c its calls in flight hold at once,
/// which the memory plan already counts (so a pool capped below them may still lend them).
struct Windowed<'a> {
    pool: &'a dyn HostPool,
    window: u64,
}

impl HostPool for Windowed<'_> {
    fn lend(&self, scalars: usize) -> Option<Box<dyn HostBlock>> {
        self.pool.lend_within(scalars, self.window)
    }
}

/// Bytes of a/b/c that `calls` calls of `k` circuits hold at once (the blocks a pool lends them).
fn abc_window(shape: &Shape, k: usize, calls: usize) -> u64 {
    (3 * 32 * shape.rows() as u64).saturating_mul((k * calls) as u64)
}

fn synthesize_call(
    spec: &JobSpec,
    probe: &Probe,
    sectors: &Sectors,
    circuits: std::ops::Range<usize>,
    held: usize,
) -> Result<Call, ProveError> {
    let s = spec.sample;
    let per = s.circuits_per_sector().max(1);
    let first = circuits.start;
    let circuits: Vec<SampleCircuit> = (circuits.start / per..circuits.end.div_ceil(per))
        .flat_map(|sec| {
            let all = sectors.get(sec);
            let (lo, hi) =
                (circuits.start.max(sec * per) - sec * per, circuits.end.min((sec + 1) * per) - sec * per);
            all[lo..hi.min(all.len())].to_vec()
        })
        .collect();
    let inputs: Vec<Vec<Scalar>> = circuits.iter().map(|c| c.public_inputs()).collect();
    let t = &spec.toggles;
    // B2 (and not B1, which wins): a/b/c go into the backend's page-locked pool, if it has one.
    let pool = spec.backend.host_pool().filter(|_| t.on(Toggle::B2) && !t.on(Toggle::B1));
    let pool = pool
        .map(|pool| Windowed { pool, window: abc_window(&spec.shape, spec.circuits_per_call.max(1), held) });
    let pool = pool.as_ref().map(|w| w as &dyn HostPool);
    let asgs = synthesize_with(probe, &circuits, t, Some(spec.shape), first, spec.pce, pool)?;
    check_inputs(&asgs, &inputs, first)?;
    Ok(Call { first, inputs, asgs })
}

/// The job's calls as ranges of circuit indices (sector-major), `k` circuits each (the last may hold fewer).
fn call_ranges(total: usize, k: usize) -> Vec<std::ops::Range<usize>> {
    let k = k.max(1);
    (0..total).step_by(k).map(|f| f..(f + k).min(total)).collect()
}

/// Synthesis workers of a pipelined job: one per 32 host threads (one on the 16-core H200 host), at most the
/// budget's window and the number of calls; `CUZK_SYNTH_WORKERS` overrides it (still bounded by the window).
/// A second worker on that host made eight 2^20 GPU proofs ~13% slower: the host's prep_msm and b_g2_msm
/// share those cores (docs/PERF.md, session d).
fn synth_workers(window: usize, calls: usize) -> usize {
    let by_cores = (rayon::current_num_threads() / 32).max(1);
    let want =
        std::env::var("CUZK_SYNTH_WORKERS").ok().and_then(|v| v.trim().parse().ok()).unwrap_or(by_cores);
    want.clamp(1, window.max(1)).min(calls.max(1))
}

/// Hands out call indices to synthesis workers in order, at most `window` calls held at once (handed out and
/// not yet proved), so the synthesized data held stays within the memory budget.
struct Gate {
    state: std::sync::Mutex<GateState>,
    moved: std::sync::Condvar,
    window: usize,
}

#[derive(Default)]
struct GateState {
    next: usize,
    proved: usize,
    stopped: bool,
}

impl Gate {
    fn new(window: usize) -> Gate {
        Gate { state: Default::default(), moved: Default::default(), window: window.max(1) }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, GateState> {
        crate::util::lock(&self.state)
    }

    /// The next call to synthesize, waiting while the window is full; `None` when all are handed out or
    /// the job stopped.
    fn next(&self, calls: usize) -> Option<usize> {
        let mut g = self.lock();
        while !g.stopped && g.next < calls && g.next >= g.proved + self.window {
            g = self.moved.wait(g).unwrap_or_else(|p| p.into_inner());
        }
        if g.stopped || g.next >= calls {
            return None;
        }
        g.next += 1;
        Some(g.next - 1)
    }

    /// One more call proved: the window moves on.
    fn proved(&self) {
        self.lock().proved += 1;
        self.moved.notify_all();
    }

    /// No more calls are handed out (failure, cancel, or the prover gave up).
    fn stop(&self) {
        self.lock().stopped = true;
        self.moved.notify_all();
    }
}

struct StopOnDrop<'a>(&'a Gate);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.stop();
    }
}

/// Runs one repeat on the calling thread, the rayon pool and (when pipelining) the synthesis workers.
pub fn run_job(spec: &JobSpec, probe: &Probe) -> Result<JobOutput, EngineError> {
    let s = spec.sample;
    let t = &spec.toggles;
    let k = spec.circuits_per_call.max(1);
    let calls = call_ranges(s.sectors * s.circuits_per_sector(), k);
    let sectors = Sectors::new(s);
    let per_call = bytes_per_circuit(&spec.shape) * k as u64;
    // One call proving and one synthesized ahead must fit; the queue holds what else the budget allows.
    let ahead = (spec.mem_budget / per_call.max(1)).saturating_sub(2).min(4) as usize;
    let pipelined = t.on(Toggle::Pipeline) && calls.len() > 1 && spec.mem_budget >= 2 * per_call;
    let mut out = JobOutput { pipelined, ..JobOutput::default() };
    let prove = |call: Call, out: &mut JobOutput| -> Result<(), EngineError> {
        out.inputs.extend(call.inputs);
        let params = spec.params.get()?;
        let cs = CallSpec { params: &params, toggles: t, seed: s.randomizer_seed(), first: call.first };
        // Other jobs' synthesis goes on while this call holds the device; their proof calls wait here.
        let _turn = match spec.device {
            Some(d) => {
                Some(d.gate.enter(d.priority, d.label, probe.cancel_token()).map_err(ProveError::from)?)
            }
            None => None,
        };
        out.proofs.extend(prove_assignments(probe, spec.backend, cs, call.asgs)?);
        Ok(())
    };
    if pipelined {
        // The window: calls held at once, the one proving included (as many as the budget holds).
        let window = ahead + 2;
        let workers = synth_workers(window, calls.len());
        let gate = Gate::new(window);
        std::thread::scope(|scope| -> Result<(), EngineError> {
            let (tx, rx) = std::sync::mpsc::channel::<(usize, Result<Call, ProveError>)>();
            for w in 0..workers {
                let (tx, gate, calls, sectors) = (tx.clone(), &gate, &calls, &sectors);
                let probe = probe.with_slot_base(w * k);
                scope.spawn(move || {
                    while let Some(i) = gate.next(calls.len()) {
                        if probe.checkpoint().is_err() {
                            break;
                        }
                        let call = synthesize_call(spec, &probe, sectors, calls[i].clone(), window);
                        let failed = call.is_err();
                        if tx.send((i, call)).is_err() || failed {
                            break;
                        }
                    }
                    // A worker that stops early stops the others: the prover then sees the channel close.
                    gate.stop();
                });
            }
            drop(tx);
            // Stop the workers on every way out (an error in proving included).
            let _stop = StopOnDrop(&gate);
            let mut done: std::collections::BTreeMap<usize, Result<Call, ProveError>> = Default::default();
            for i in 0..calls.len() {
                let call = loop {
                    if let Some(c) = done.remove(&i) {
                        break Some(c);
                    }
                    match rx.recv() {
                        Ok((k, c)) => {
                            done.insert(k, c);
                        }
                        Err(_) => break None,
                    }
                };
                let Some(call) = call else { break };
                prove(call?, &mut out)?;
                gate.proved();
            }
            Ok(())
        })?;
    } else {
        for c in &calls {
            probe.checkpoint().map_err(ProveError::from)?;
            prove(synthesize_call(spec, probe, &sectors, c.clone(), 1)?, &mut out)?;
        }
    }
    probe.checkpoint().map_err(ProveError::from)?;
    if t.on(Toggle::Verify) {
        let _span = probe.open(Site::new(Phase::Verify).arg("proofs", out.proofs.len()));
        let pvk = PreparedVerifyingKey::new(&spec.params.get()?.vk);
        out.verified = Some(verify_batch(&pvk, &out.proofs, &out.inputs)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::Gate;
    use std::sync::mpsc::{channel, RecvTimeoutError};
    use std::time::Duration;

    /// The window a job lends within is every held call's a, b and c: three calls of one 2^27 partition
    /// (130.3 M rows) need 37.5 GB, past a quarter of the 128 GiB host (the pool's own cap).
    #[test]
    fn the_window_counts_every_held_calls_abc() {
        let shape = crate::cs::Shape { constraints: 130_278_869, inputs: 1, aux: 0 };
        let w = super::abc_window(&shape, 1, 3);
        assert_eq!(w, 9 * 32 * 130_278_870);
        assert!(w > (128u64 << 30) / 4);
        assert_eq!(super::abc_window(&shape, 2, 3), 2 * w);
    }

    #[test]
    fn calls_cover_every_circuit_once_in_order() {
        assert_eq!(super::call_ranges(10, 10), vec![0..10]);
        assert_eq!(super::call_ranges(30, 4).len(), 8);
        assert_eq!(super::call_ranges(30, 4).last(), Some(&(28..30)));
        let flat: Vec<usize> = super::call_ranges(23, 3).into_iter().flatten().collect();
        assert_eq!(flat, (0..23).collect::<Vec<_>>());
    }

    #[test]
    fn gate_hands_out_calls_in_order_within_the_window() {
        let gate = Gate::new(2);
        assert_eq!((gate.next(5), gate.next(5)), (Some(0), Some(1)));
        std::thread::scope(|s| {
            let (tx, rx) = channel();
            let g = &gate;
            s.spawn(move || {
                let _ = tx.send(g.next(5));
            });
            // Two calls held and none proved: the third waits.
            assert_eq!(rx.recv_timeout(Duration::from_millis(100)), Err(RecvTimeoutError::Timeout));
            gate.proved();
            assert_eq!(rx.recv_timeout(Duration::from_secs(10)), Ok(Some(2)));
        });
        gate.proved();
        gate.proved();
        assert_eq!((gate.next(5), gate.next(5), gate.next(5)), (Some(3), Some(4), None));
        let stopped = Gate::new(3);
        stopped.stop();
        assert_eq!(stopped.next(5), None);
    }
}
