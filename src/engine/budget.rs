//! Memory before it is spent: every command estimates what it will hold (synthesis, setup, params, proof
//! calls, the pipeline's queue, benchmark data) and refuses with one line — the estimate, the limit and the
//! knob to change — instead of dying in the allocator (`memory allocation of N bytes failed`, exit 134).
//!
//! A circuit's size is known without building it: the sample circuits are affine in one knob (porep's
//! `challenges`, sha256-chain's `compressions`, poseidon-merkle's `paths`), so counting the circuit at 1 and
//! 2 of that knob (cheap) gives the exact constraints, variables and query densities at any value
//! (`tests/budget.rs` checks this against full counts).
//!
//! The limit is the memory this process can still get: `MemAvailable` plus what the process already holds
//! (the allocator reuses it, and params kept from an earlier run are counted in the estimate), capped by a
//! cgroup's `memory.max`; `CUZK_MEM_LIMIT=8G` sets it instead (`off` disables the check).

use super::host;
use crate::circuits::{CircuitSpec, Sample};
use crate::cs::Shape;

/// The environment variable that sets the memory limit (`8G`, `512M`, bytes, or `off`).
pub const LIMIT_ENV: &str = "CUZK_MEM_LIMIT";

/// Bytes of a scalar.
pub const FR: u64 = 32;
/// Bytes of an affine G1 point in memory.
pub const G1: u64 = 96;
/// Bytes of an affine G2 point in memory.
pub const G2: u64 = 192;
/// Bytes of a projective G1 point.
pub const G1P: u64 = 144;
/// Bytes of a projective G2 point.
pub const G2P: u64 = 288;

/// A fixed-base table for `n` multiples (`backend::cpu::fixed_base`): window c = clamp(log2 n − 2, 2, 16),
/// ⌈256/c⌉ + 1 windows of 2^(c−1) points, built projective (`point` is projective + affine bytes).
pub fn fixed_base_table_bytes(n: u64, point: u64) -> u64 {
    let lg = u64::from(u64::BITS - n.max(1).leading_zeros());
    let c = lg.saturating_sub(3).clamp(2, 16);
    mul(mul(256u64.div_ceil(c) + 1, 1 << (c - 1)), point)
}

/// Upper bound of a PCE record's heap bytes per constraint (exact record, every C row stored), for estimates
/// made before any recording: measured (`cuzk info`, docs/PERF.md) 49.1 for sha256-chain and porep-1m, 79.1
/// for poseidon-merkle, 88.4 for porep-tiny (its Poseidon rounds are dense); 96 covers them all.
pub const PCE_BYTES_PER_CONSTRAINT: u64 = 96;

/// A circuit's size as memory sees it: its shape and how many variables its A and B queries use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Footprint {
    /// Constraints, inputs (with the constant one), aux.
    pub shape: Shape,
    /// Aux variables in some A combination.
    pub a_aux: usize,
    /// Inputs in some B combination.
    pub b_input: usize,
    /// Aux variables in some B combination.
    pub b_aux: usize,
}

/// Saturating arithmetic for estimates: a sum past 2^64 is "more than any machine", never a wrap.
fn mul(a: u64, b: u64) -> u64 {
    a.saturating_mul(b)
}

impl Footprint {
    fn rows(&self) -> u64 {
        (self.shape.constraints as u64).saturating_add(self.shape.inputs as u64)
    }

    fn vars(&self) -> u64 {
        (self.shape.inputs as u64).saturating_add(self.shape.aux as u64)
    }

    /// The evaluation domain (power of two ≥ rows; saturates instead of overflowing).
    pub fn domain(&self) -> u64 {
        self.rows().checked_next_power_of_two().unwrap_or(u64::MAX)
    }

    /// The PCE record of this shape (toggle `pce`), held by the engine for as long as it lives: at most
    /// [`PCE_BYTES_PER_CONSTRAINT`] per constraint.
    pub fn pce_bytes(&self) -> u64 {
        mul(PCE_BYTES_PER_CONSTRAINT, self.shape.constraints as u64)
    }

    /// One synthesized circuit until it is proved: a, b, c per row and the assignments, 32 bytes each.
    pub fn assignment_bytes(&self) -> u64 {
        mul(FR, mul(3, self.rows()).saturating_add(self.vars()))
    }

    /// The params in memory: IC, H, L, A, B in G1 and B in G2.
    pub fn params_bytes(&self) -> u64 {
        let (inputs, aux) = (self.shape.inputs as u64, self.shape.aux as u64);
        let b = (self.b_input as u64).saturating_add(self.b_aux as u64);
        let g1 = [inputs, self.domain().saturating_sub(1), aux, inputs.saturating_add(self.a_aux as u64), b]
            .into_iter()
            .fold(0u64, u64::saturating_add);
        mul(G1, g1).saturating_add(mul(G2, b))
    }

    /// A seeded setup's peak beside the params it returns: the QAP evaluations (three scalars per variable),
    /// the largest scalar list of a fixed-base pass and the largest fixed-base table (measured: bench setup
    /// 2^18 peaks at 447 MB, this model says 510 MB).
    pub fn setup_extra_bytes(&self) -> u64 {
        let b = (self.b_input as u64).saturating_add(self.b_aux as u64);
        let table = fixed_base_table_bytes(self.domain().max(self.vars()), G1P + G1)
            .max(fixed_base_table_bytes(b, G2P + G2));
        mul(3 * FR, self.vars()).saturating_add(mul(FR, self.domain().max(self.vars()))).saturating_add(table)
    }

    /// Counting a circuit's shape (the params key): its witness values, with vector growth.
    pub fn count_bytes(&self) -> u64 {
        mul(2 * FR, self.vars())
    }
}

/// One estimate: what for, its parts, and the knob that shrinks it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Estimate {
    /// What the memory is for, e.g. `porep-mini: proving`.
    pub what: String,
    /// The parts, largest first in messages.
    pub parts: Vec<(String, u64)>,
    /// The knob to change, e.g. "lower `circuit.challenges` (now 64) in samples/x.toml".
    pub knob: String,
}

/// The process itself: binary, thread stacks, allocator slack (measured: a porep-tiny run peaks at 23–29 MiB
/// of which its data are under 18 MiB).
pub const BASE_BYTES: u64 = 64 << 20;

impl Estimate {
    /// The sum of the parts plus [`BASE_BYTES`].
    pub fn total(&self) -> u64 {
        self.parts.iter().map(|(_, b)| *b).fold(BASE_BYTES, u64::saturating_add)
    }

    /// Fails with one line when the total is over `limit`.
    pub fn check(&self, limit: &MemLimit) -> Result<(), Box<MemoryError>> {
        match limit.bytes {
            Some(l) if self.total() > l => {
                Err(Box::new(MemoryError { estimate: self.clone(), limit: limit.clone() }))
            }
            _ => Ok(()),
        }
    }
}

/// How much memory a command may use, and where that figure comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemLimit {
    /// The bytes (`None`: not known or checking is off).
    pub bytes: Option<u64>,
    /// Where it comes from, e.g. `available memory` or `CUZK_MEM_LIMIT`.
    pub source: String,
}

/// A command refused because its estimate is over the limit: one line with both and the knob.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{} needs about {} ({}), more than the {} {}; {} (or set {LIMIT_ENV})",
    estimate.what, human(estimate.total()), parts(&estimate.parts), human(limit.bytes.unwrap_or(0)),
    limit.source, estimate.knob)]
pub struct MemoryError {
    /// What was estimated.
    pub estimate: Estimate,
    /// The limit it exceeded.
    pub limit: MemLimit,
}

fn parts(p: &[(String, u64)]) -> String {
    let base = ("cuzk itself".to_string(), BASE_BYTES);
    let mut v: Vec<&(String, u64)> = p.iter().chain([&base]).filter(|(_, b)| *b > 0).collect();
    v.sort_by_key(|p| std::cmp::Reverse(p.1));
    v.iter().map(|(n, b)| format!("{n} {}", human(*b))).collect::<Vec<_>>().join(", ")
}

/// Bytes for people: `1.5 GiB`, `310 MiB`, `12 KiB`, `1 EiB+` for the saturated.
pub fn human(n: u64) -> String {
    if n == u64::MAX {
        return "more than 16 EiB".into();
    }
    let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < units.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", units[u])
    }
}

/// The limit now: `CUZK_MEM_LIMIT` when set, else what the machine can still give this process.
pub fn mem_limit() -> MemLimit {
    if let Some(v) = std::env::var_os(LIMIT_ENV).filter(|v| !v.is_empty()) {
        let v = v.to_string_lossy();
        if v.trim().eq_ignore_ascii_case("off") {
            return MemLimit { bytes: None, source: format!("{LIMIT_ENV}=off") };
        }
        if let Ok(b) = parse_bytes(&v) {
            return MemLimit { bytes: Some(b), source: format!("{LIMIT_ENV}={}", v.trim()) };
        }
    }
    match host::available_bytes() {
        0 => MemLimit { bytes: None, source: "unknown memory".into() },
        a => MemLimit {
            bytes: Some(a.saturating_add(host::rss_bytes())),
            source: "memory available to this process".into(),
        },
    }
}

/// Parses `123`, `512K`, `64M`, `8G`, `2T` into bytes; products past 2^64 − 1 are errors.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let (num, mul) = match s.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let mul: u64 = match c.to_ascii_uppercase() {
                'K' => 1 << 10,
                'M' => 1 << 20,
                'G' => 1 << 30,
                'T' => 1 << 40,
                _ => return Err(format!("`{s}`: unknown unit `{c}` (expected K, M, G or T)")),
            };
            (&s[..i], mul)
        }
        _ => (s, 1),
    };
    let n = num.trim().parse::<u64>().map_err(|_| format!("`{s}` is not a byte count such as 8G or 512M"))?;
    n.checked_mul(mul).ok_or_else(|| format!("`{s}` is more than 2^64 − 1 bytes"))
}

/// The knob a circuit kind scales with: its key and value.
pub fn scale_knob(spec: &CircuitSpec) -> (&'static str, usize) {
    match spec {
        CircuitSpec::Porep(k) => ("circuit.challenges", k.challenges),
        CircuitSpec::Sha256Chain { compressions } => ("circuit.compressions", *compressions),
        CircuitSpec::PoseidonMerkle { paths, .. } => ("circuit.paths", *paths),
        // A real circuit's size is fixed by its sector size: counted directly (scale 1).
        CircuitSpec::Filecoin { .. } => ("circuit.file", 1),
    }
}

/// `spec` with its scale knob set to `n`.
pub(super) fn with_scale(spec: &CircuitSpec, n: usize) -> CircuitSpec {
    let mut s = spec.clone();
    match &mut s {
        CircuitSpec::Porep(k) => k.challenges = n,
        CircuitSpec::Sha256Chain { compressions } => *compressions = n,
        CircuitSpec::PoseidonMerkle { paths, .. } => *paths = n,
        CircuitSpec::Filecoin { .. } => {}
    }
    s
}

/// "lower `circuit.challenges` (now 64) in samples/x.toml".
pub fn knob_advice(sample: &Sample) -> String {
    if let CircuitSpec::Filecoin { file } = &sample.circuit {
        return format!(
            "{}: a real circuit's size is fixed by its sector size; use a larger machine",
            file.display()
        );
    }
    let (key, now) = scale_knob(&sample.circuit);
    format!("lower `{key}` (now {now}) in {}", sample.path.display())
}

/// Vectors grown by doubling (A2 off) hold up to twice their length; measured peak RSS of porep-mini and
/// porep-tiny runs stays under the estimate with this factor (see `tests/budget.rs`).
fn growth(presized: bool, bytes: u64) -> u64 {
    if presized {
        bytes
    } else {
        mul(bytes, 2)
    }
}

/// What a job may hold at once: how many calls' synthesized data, and whether the pipeline runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Calls whose synthesized data may be held at once (1 without the pipeline; proving + queued + one
    /// being synthesized with it).
    pub in_flight: u64,
    /// Whether synthesis overlaps proving.
    pub pipelined: bool,
    /// The pipeline budget the job runs under: `in_flight` calls' synthesized data.
    pub budget: u64,
    /// Why the pipeline was turned off, when it was asked for but does not fit.
    pub note: Option<String>,
    /// The estimate of the whole run at this plan.
    pub estimate: Estimate,
    /// Circuits each proof call holds: `batch` sectors' worth, or fewer partitions of one sector when a whole
    /// sector does not fit.
    pub circuits_per_call: usize,
}

impl Plan {
    /// A line for the run's notes when a sector's partitions are proved in several calls.
    pub fn split_note(&self, sample: &Sample) -> Option<String> {
        let per = sample.circuits_per_sector();
        (self.circuits_per_call < per).then(|| {
            format!(
                "a sector's {per} partitions do not fit in memory at once: proved in calls of {} ({} in flight)",
                self.circuits_per_call, self.in_flight
            )
        })
    }
}

/// What the plan of a run needs to know.
pub struct RunShape<'a> {
    /// The sample (its sectors, partitions and knobs).
    pub sample: &'a Sample,
    /// Its circuit's footprint.
    pub fp: Footprint,
    /// The toggles asked for.
    pub toggles: crate::vocab::Toggles,
    /// Compute lanes of the backend (each pads one circuit's a/b/c to the domain at a time).
    pub lanes: usize,
    /// `--mem-budget`: bytes of synthesized data the pipeline may hold.
    pub mem_budget: u64,
    /// Whether the params are already in this process (then setup is not needed).
    pub params_held: bool,
}

/// Why a run cannot be planned: over the machine's memory, or a budget below one call.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// The run needs more than the machine has.
    #[error(transparent)]
    Memory(#[from] Box<MemoryError>),
    /// `--mem-budget` is below one call's synthesized data: the message names the smallest budget that runs.
    #[error("{0}")]
    Budget(String),
}

/// A byte count as `--mem-budget` takes it (rounded up to whole MiB).
pub fn flag_bytes(n: u64) -> String {
    format!("{}M", n.div_ceil(1 << 20))
}

/// Plans a run within `limit` and the pipeline budget; refuses with one line when even one call does not fit.
///
/// A call proves `batch` sectors' circuits at once. When one sector's circuits do not fit (a 32 GiB sector's
/// ten 2^27 partitions need ~300 GiB at once), a call proves the most partitions that do, as
/// [`Plan::circuits_per_call`] says; two such calls in flight (the pipeline) are preferred to one larger call.
/// Proofs do not depend on the grouping: each circuit's randomizers come from its index in the job.
pub fn plan_run(r: &RunShape, limit: &MemLimit) -> Result<Plan, PlanError> {
    let t = &r.toggles;
    let per = r.sample.circuits_per_sector();
    let whole = t.batch.max(1).saturating_mul(per);
    let split = |k: usize| plan_calls(r, limit, k);
    if t.batch > 1 || per <= 1 {
        return split(whole);
    }
    match split(whole) {
        Err(e) => {
            let fits = |k: usize, pipelined: bool| split(k).ok().filter(|p| p.pipelined || !pipelined);
            let best = (1..per)
                .rev()
                .find_map(|k| fits(k, t.on(crate::vocab::Toggle::Pipeline)))
                .or_else(|| (1..per).rev().find_map(|k| fits(k, false)));
            // Not even one partition fits: say what that one needs.
            best.ok_or_else(|| split(1).err().unwrap_or(e))
        }
        ok => ok,
    }
}

/// [`plan_run`] for calls of `k` circuits.
fn plan_calls(r: &RunShape, limit: &MemLimit, k: usize) -> Result<Plan, PlanError> {
    use crate::vocab::Toggle;
    let s = r.sample;
    let (fp, t) = (&r.fp, &r.toggles);
    // Pre-sized vectors: A2's capacity hint, or `pce`, whose witness-only synthesis is given the recorded shape
    // and whose SpMV writes a/b/c into exact-size buffers.
    let presized = t.on(Toggle::A2) || t.on(Toggle::Pce);
    let per = s.circuits_per_sector();
    let circuits = k;
    let k = k as u64;
    let calls = (s.sectors.saturating_mul(per)).div_ceil(circuits.max(1)) as u64;
    let call_nominal = mul(k, fp.assignment_bytes());
    let call_peak = growth(presized, call_nominal);
    let (aux, a_aux, b_aux) = (fp.shape.aux as u64, fp.a_aux as u64, fp.b_aux as u64);
    let tails = aux.saturating_add(a_aux).saturating_add(b_aux);
    // Per lane: a/b/c padded to the domain and one reallocation's copy. prep_msm: copies of the A and B
    // scalars per circuit; when it splits a query (at most half its scalars are neither 0 nor 1) the tail
    // scalars per circuit and the gathered tail bases, at most half of each.
    let lane = mul(FR, mul(4, fp.domain()).saturating_sub(mul(3, fp.rows())));
    let prove_extra = mul(r.lanes.max(1) as u64, lane)
        .saturating_add(mul(G1, tails).saturating_add(mul(G2, b_aux)) / 2)
        .saturating_add(mul(k, mul(FR, a_aux.saturating_add(b_aux))))
        .saturating_add(mul(k, mul(FR, tails)) / 2);
    let params = if r.params_held { 0 } else { fp.params_bytes() };
    let setup = if r.params_held { 0 } else { fp.setup_extra_bytes().saturating_add(fp.count_bytes()) };
    let estimate = |flight: u64| {
        let calls_part = mul(flight, call_peak);
        let mut parts = vec![("params".to_string(), params)];
        if t.on(Toggle::Pce) {
            parts.push(("pce record".to_string(), fp.pce_bytes()));
        }
        // Setup runs before any call is synthesized: the peak is the larger of the two phases.
        if setup > calls_part.saturating_add(prove_extra) {
            parts.push(("setup".to_string(), setup));
        } else {
            let of =
                if circuits < per { format!("{k} of {per} partitions") } else { format!("{k} circuits") };
            let label =
                if flight == 1 { format!("1 call of {of}") } else { format!("{flight} calls of {of}") };
            parts.push((label, calls_part));
            parts.push(("proving work".to_string(), prove_extra));
        }
        let knob = if t.batch > 1 {
            format!("lower `batch` (now {}) or {}", t.batch, knob_advice(s))
        } else {
            knob_advice(s)
        };
        Estimate { what: format!("{}: proving", s.name), parts, knob }
    };
    let one = estimate(1);
    one.check(limit)?;
    let want_pipe = t.on(Toggle::Pipeline) && calls > 1;
    if r.mem_budget < call_nominal {
        let pipe = if want_pipe {
            format!(" ({} with the pipeline)", flag_bytes(mul(2, call_nominal)))
        } else {
            String::new()
        };
        let held = if circuits < per {
            format!("{k} of a sector's {per} partitions")
        } else {
            format!("batch {} × {per} circuits", t.batch.max(1))
        };
        return Err(PlanError::Budget(format!(
            "--mem-budget {}: one proof call of {} holds {} of synthesized data ({held}); \
             the smallest budget that runs is {}{pipe}",
            flag_bytes_exact(r.mem_budget),
            s.name,
            human(call_nominal),
            flag_bytes(call_nominal),
        )));
    }
    let by_budget = r.mem_budget / call_nominal.max(1);
    let by_machine = match limit.bytes {
        Some(l) => l.saturating_sub(one.total().saturating_sub(call_peak)) / call_peak.max(1),
        None => u64::MAX,
    };
    let flight = by_budget.min(by_machine).clamp(1, 6);
    if !want_pipe || flight < 2 {
        let note = (want_pipe).then(|| {
            let why = if by_budget < 2 {
                format!(
                    "--mem-budget {} holds fewer than two calls ({} needed)",
                    flag_bytes_exact(r.mem_budget),
                    flag_bytes(mul(2, call_nominal))
                )
            } else {
                format!(
                    "two calls in flight need about {}, more than the {} {}",
                    human(estimate(2).total()),
                    human(limit.bytes.unwrap_or(0)),
                    limit.source
                )
            };
            format!("pipeline off: {why}")
        });
        return Ok(Plan {
            in_flight: 1,
            pipelined: false,
            budget: call_nominal,
            note,
            estimate: one,
            circuits_per_call: circuits,
        });
    }
    Ok(Plan {
        circuits_per_call: circuits,
        in_flight: flight,
        pipelined: true,
        budget: mul(flight, call_nominal),
        note: None,
        estimate: estimate(flight),
    })
}

/// A byte count as given: `512M` when it is whole MiB, else bytes.
fn flag_bytes_exact(n: u64) -> String {
    if n.is_multiple_of(1 << 20) && n > 0 {
        format!("{}M", n >> 20)
    } else {
        format!("{n}")
    }
}
