//! `cuzk info`: the shape of a sample's circuits beside the real 32 GiB PoRep partition.

use crate::util::digits::group;
use std::time::Instant;

use blstrs::Scalar;
use ff::Field;
use serde::Serialize;

use super::error::CliError;
use super::progress::with_notice;
use crate::circuits::Sample;
use crate::cs::{Pce, ProvingAssignment, Shape, VecStore};
use crate::engine::{budget, footprint};

/// The 32 GiB PoRep partition (storage-proofs 19.1, counted): constraints including the 328 input constraints.
pub const POREP_32G_CONSTRAINTS: usize = 130_278_869;
/// Its A-aux density.
pub const POREP_32G_A_DENSITY: f64 = 99.7;
/// Its B-aux density.
pub const POREP_32G_B_DENSITY: f64 = 25.4;
/// Its public inputs.
pub const POREP_32G_INPUTS: usize = 328;
/// Its aux variables.
pub const POREP_32G_AUX: usize = 130_169_893;

/// What `cuzk info` reports for one sample (also its `--json` form).
#[derive(Clone, Debug, Serialize)]
pub struct ShapeInfo {
    /// Sample name.
    pub sample: String,
    /// How the shape was reached: `synthesized` (circuit 0 built with its witness: every figure below),
    /// `counted` (its shape counted, no witness figures) or `extrapolated` (counted at 1 and 2 of the scale
    /// knob, as the memory budget does: exact for the sample circuits, `tests/budget.rs`).
    pub method: &'static str,
    /// The two counts an extrapolation started from.
    pub extrapolation: Option<Extrapolation>,
    /// Time to count the shape in milliseconds (the extrapolation's two counts, or the full count).
    pub count_ms: f64,
    /// Circuits per sector.
    pub circuits_per_sector: usize,
    /// Sectors.
    pub sectors: usize,
    /// Constraints per circuit, including one per public input.
    pub constraints: usize,
    /// Public inputs per circuit, including the constant one.
    pub public_inputs: usize,
    /// Aux variables per circuit.
    pub aux: usize,
    /// Evaluation domain (power of two ≥ constraints).
    pub domain: usize,
    /// Percent of aux variables used in A.
    pub a_aux_density_pct: f64,
    /// Percent of aux variables used in B.
    pub b_aux_density_pct: f64,
    /// Percent of inputs used in B.
    pub b_input_density_pct: f64,
    /// Percent of aux values equal to 0 (this and the figures below it: synthesized only).
    pub aux_zero_pct: Option<f64>,
    /// Percent of aux values equal to 1.
    pub aux_one_pct: Option<f64>,
    /// Percent of other aux values.
    pub aux_other_pct: Option<f64>,
    /// Bytes of a, b and c together per circuit.
    pub abc_bytes: usize,
    /// Bytes of the aux assignment per circuit.
    pub aux_bytes: usize,
    /// Synthesis time of circuit 0 in milliseconds (one thread).
    pub synthesis_ms: Option<f64>,
    /// Its throughput in constraints per second per thread.
    pub constraints_per_sec: Option<f64>,
    /// Heap bytes of the circuit's PCE record (toggle `pce`), measured by recording circuit 0.
    pub pce_bytes: Option<usize>,
    /// Those bytes per constraint (the figure `--mem-budget` estimates are bounded by).
    pub pce_bytes_per_constraint: Option<f64>,
    /// Time to record it in milliseconds (one thread; paid once per shape per process with `pce` on).
    pub pce_record_ms: Option<f64>,
    /// What `--backend auto` would pick here and why (GPU name, arch, memory, NVRTC version, or the reason
    /// there is no usable GPU).
    pub gpu: crate::backend::gpu::discover::Discovery,
}

/// The two counts an extrapolated shape comes from: the knob, its value, and constraints at 1 and 2 of it.
#[derive(Clone, Debug, Serialize)]
pub struct Extrapolation {
    /// The scale knob, e.g. `circuit.challenges`.
    pub knob: &'static str,
    /// Its value in the sample.
    pub value: usize,
    /// Constraints (with one per public input) at knob = 1 and 2; the shape is `c1 + (value − 1)·(c2 − c1)`.
    pub constraints_at_1_and_2: [usize; 2],
}

/// How `cuzk info` gets a sample's shape (`--method`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Method {
    /// Synthesize when the circuit is at most [`SYNTHESIZE_MAX_ROWS`], else extrapolate.
    Auto,
    /// Build circuit 0 with its witness and record its PCE (every figure; minutes for a real-size partition).
    Synthesize,
    /// Count circuit 0's whole shape without keeping its constraints (no witness figures).
    Count,
    /// Count at 1 and 2 of the scale knob and extrapolate (seconds at any size).
    Extrapolate,
}

/// The largest circuit `--method auto` synthesizes: 2^22 rows take a few seconds on one thread, the 32 GiB
/// partition (2^27 domain) several minutes, hence the cut.
pub const SYNTHESIZE_MAX_ROWS: usize = 1 << 22;

fn pct(n: usize, d: usize) -> f64 {
    if d == 0 {
        0.0
    } else {
        100.0 * n as f64 / d as f64
    }
}

/// What synthesizing circuit 0 for `cuzk info` holds (vectors grown by doubling: up to twice their data).
pub fn memory_estimate(sample: &Sample) -> budget::Estimate {
    synthesis_estimate(sample, &footprint::footprint(sample))
}

fn synthesis_estimate(sample: &Sample, fp: &budget::Footprint) -> budget::Estimate {
    budget::Estimate {
        what: format!("{}: info (synthesis of one circuit)", sample.name),
        parts: vec![
            ("synthesis".into(), fp.assignment_bytes().saturating_mul(2)),
            ("pce record".into(), fp.pce_bytes()),
        ],
        knob: budget::knob_advice(sample),
    }
}

/// [`shape_info`] after checking that one circuit's synthesis fits in memory (else one line saying so).
pub fn shape_info_checked(sample: &Sample) -> Result<ShapeInfo, CliError> {
    shape_info_by(sample, Method::Auto)
}

/// The shape of `sample`'s circuit 0 by `method`: the extrapolated footprint first (seconds at any size),
/// then a synthesis or full count when asked for (or, with `Auto`, when the circuit is small), each checked
/// against memory first; a step over a second says so on stderr.
pub fn shape_info_by(sample: &Sample, method: Method) -> Result<ShapeInfo, CliError> {
    let (key, value) = budget::scale_knob(&sample.circuit);
    let what = if value > 2 {
        format!("{}: counting at {key} = 1 and 2 to extrapolate to {value}", sample.name)
    } else {
        format!("{}: counting the circuit", sample.name)
    };
    let t = Instant::now();
    let (fp, counts) = with_notice(&what, || footprint::footprint_with_counts(sample));
    let count_ms = t.elapsed().as_secs_f64() * 1e3;
    let method = match method {
        Method::Auto if fp.shape.rows() <= SYNTHESIZE_MAX_ROWS => Method::Synthesize,
        Method::Auto => Method::Extrapolate,
        m => m,
    };
    let engine = |e: Box<budget::MemoryError>| CliError::Engine(e.into());
    match method {
        Method::Synthesize => {
            synthesis_estimate(sample, &fp).check(&budget::mem_limit()).map_err(engine)?;
            let what = format!(
                "{}: synthesizing circuit 0 ({} constraints)",
                sample.name,
                group(fp.shape.rows() as u64)
            );
            let mut i = with_notice(&what, || shape_info(sample))?;
            i.count_ms = count_ms;
            Ok(i)
        }
        Method::Count if counts.is_some() => {
            let est = budget::Estimate {
                what: format!("{}: info (counting one circuit)", sample.name),
                parts: vec![("count".into(), fp.count_bytes())],
                knob: budget::knob_advice(sample),
            };
            est.check(&budget::mem_limit()).map_err(engine)?;
            let what = format!(
                "{}: counting circuit 0 ({} constraints)",
                sample.name,
                group(fp.shape.rows() as u64)
            );
            let t = Instant::now();
            let circuits = sample.sector_circuits(0);
            let full = with_notice(&what, || footprint::count(&circuits[0]))
                .map_err(|e| CliError::Msg(format!("{}: circuit 0: {e}", sample.path.display())))?;
            Ok(from_footprint(sample, &full, "counted", None, t.elapsed().as_secs_f64() * 1e3))
        }
        _ => {
            let ex = counts.map(|[f1, f2]| Extrapolation {
                knob: key,
                value,
                constraints_at_1_and_2: [f1.shape.rows(), f2.shape.rows()],
            });
            let how = if ex.is_some() { "extrapolated" } else { "counted" };
            Ok(from_footprint(sample, &fp, how, ex, count_ms))
        }
    }
}

/// A report from a counted or extrapolated footprint: the shape and densities, no witness figures.
fn from_footprint(
    sample: &Sample,
    fp: &budget::Footprint,
    method: &'static str,
    extrapolation: Option<Extrapolation>,
    count_ms: f64,
) -> ShapeInfo {
    let shape = fp.shape;
    ShapeInfo {
        sample: sample.name.clone(),
        method,
        extrapolation,
        count_ms,
        circuits_per_sector: sample.partitions,
        sectors: sample.sectors,
        constraints: shape.rows(),
        public_inputs: shape.inputs,
        aux: shape.aux,
        domain: shape.domain(),
        a_aux_density_pct: pct(fp.a_aux, shape.aux),
        b_aux_density_pct: pct(fp.b_aux, shape.aux),
        b_input_density_pct: pct(fp.b_input, shape.inputs),
        aux_zero_pct: None,
        aux_one_pct: None,
        aux_other_pct: None,
        abc_bytes: 3 * shape.rows() * 32,
        aux_bytes: shape.aux * 32,
        synthesis_ms: None,
        constraints_per_sec: None,
        pce_bytes: None,
        pce_bytes_per_constraint: None,
        pce_record_ms: None,
        gpu: crate::backend::gpu::discover::discovery().clone(),
    }
}

/// Synthesizes circuit 0 of sector 0 and measures its shape.
pub fn shape_info(sample: &Sample) -> Result<ShapeInfo, CliError> {
    let circuits = sample.sector_circuits(0);
    let t = Instant::now();
    let asg = ProvingAssignment::synthesize::<VecStore, _>(&circuits[0], None)
        .map_err(|e| CliError::Msg(format!("{}: circuit 0: {e}", sample.path.display())))?;
    let secs = t.elapsed().as_secs_f64();
    let aux = asg.aux_assignment.len();
    let zeros = asg.aux_assignment.iter().filter(|v| bool::from(v.is_zero())).count();
    let ones = asg.aux_assignment.iter().filter(|v| **v == Scalar::ONE).count();
    let shape = Shape {
        constraints: asg.a.len() - asg.input_assignment.len(),
        inputs: asg.input_assignment.len(),
        aux,
    };
    let densities = (
        pct(asg.a_aux_density.popcount(), aux),
        pct(asg.b_aux_density.popcount(), aux),
        pct(asg.b_input_density.popcount(), shape.inputs),
    );
    drop(asg);
    let t = Instant::now();
    let (pce, _) = Pce::record(&circuits[0])
        .map_err(|e| CliError::Msg(format!("{}: circuit 0: PCE record: {e}", sample.path.display())))?;
    let pce_record_ms = t.elapsed().as_secs_f64() * 1e3;
    Ok(ShapeInfo {
        sample: sample.name.clone(),
        method: "synthesized",
        extrapolation: None,
        count_ms: 0.0,
        circuits_per_sector: sample.partitions,
        sectors: sample.sectors,
        constraints: shape.rows(),
        public_inputs: shape.inputs,
        aux,
        domain: shape.domain(),
        a_aux_density_pct: densities.0,
        b_aux_density_pct: densities.1,
        b_input_density_pct: densities.2,
        aux_zero_pct: Some(pct(zeros, aux)),
        aux_one_pct: Some(pct(ones, aux)),
        aux_other_pct: Some(pct(aux - zeros - ones, aux)),
        abc_bytes: 3 * shape.rows() * 32,
        aux_bytes: aux * 32,
        synthesis_ms: Some(secs * 1e3),
        constraints_per_sec: Some(shape.rows() as f64 / secs.max(1e-9)),
        pce_bytes: Some(pce.heap_bytes()),
        pce_bytes_per_constraint: Some(pce.bytes_per_constraint()),
        pce_record_ms: Some(pce_record_ms),
        gpu: crate::backend::gpu::discover::discovery().clone(),
    })
}

fn opt_pct(p: Option<f64>) -> String {
    p.map_or("—".into(), |p| format!("{p:.1}%"))
}

/// Human-readable bytes.
pub fn bytes(n: usize) -> String {
    let n = n as f64;
    if n >= 1024.0 * 1024.0 * 1024.0 {
        format!("{:.2} GiB", n / (1024.0 * 1024.0 * 1024.0))
    } else if n >= 1024.0 * 1024.0 {
        format!("{:.1} MiB", n / (1024.0 * 1024.0))
    } else {
        format!("{:.1} KiB", n / 1024.0)
    }
}

/// The table `cuzk info` prints.
pub fn render(i: &ShapeInfo) -> String {
    let real_abc = 3 * POREP_32G_CONSTRAINTS * 32;
    let rows: Vec<(&str, String, String)> = vec![
        ("constraints", group(i.constraints as u64), group(POREP_32G_CONSTRAINTS as u64)),
        ("public inputs", group(i.public_inputs as u64), group(POREP_32G_INPUTS as u64)),
        ("aux variables", group(i.aux as u64), group(POREP_32G_AUX as u64)),
        ("domain", format!("2^{}", i.domain.trailing_zeros()), "2^27".into()),
        ("A-aux density", format!("{:.1}%", i.a_aux_density_pct), format!("{POREP_32G_A_DENSITY}%")),
        ("B-aux density", format!("{:.1}%", i.b_aux_density_pct), format!("{POREP_32G_B_DENSITY}%")),
        ("B-input density", format!("{:.1}%", i.b_input_density_pct), "—".into()),
        ("aux = 0", opt_pct(i.aux_zero_pct), "—".into()),
        ("aux = 1", opt_pct(i.aux_one_pct), "—".into()),
        ("aux other", opt_pct(i.aux_other_pct), "—".into()),
        ("a+b+c bytes", bytes(i.abc_bytes), bytes(real_abc)),
        ("aux bytes", bytes(i.aux_bytes), bytes(POREP_32G_AUX * 32)),
        ("circuits", format!("{} × {} sectors", i.circuits_per_sector, i.sectors), "10 partitions".into()),
    ];
    let mut out = format!("{:<16} {:>16}   {:>16}\n", "per circuit", i.sample, "32 GiB partition");
    for (k, a, b) in rows {
        out.push_str(&format!("{k:<16} {a:>16}   {b:>16}\n"));
    }
    match (&i.extrapolation, i.synthesis_ms, i.constraints_per_sec) {
        (Some(x), _, _) => out.push_str(&format!(
            "shape            extrapolated from {} = 1 ({}) and 2 ({}) to {}, counted in {:.1} s \
             (`--method synthesize` for the witness figures)\n",
            x.knob,
            group(x.constraints_at_1_and_2[0] as u64),
            group(x.constraints_at_1_and_2[1] as u64),
            x.value,
            i.count_ms / 1e3
        )),
        (None, Some(ms), Some(rate)) => out.push_str(&format!(
            "synthesis        {ms:>13.1} ms   ({:.2} M constraints/s, one thread)\n",
            rate / 1e6
        )),
        _ => out.push_str(&format!(
            "shape            counted in {:.1} s (no witness figures)\n",
            i.count_ms / 1e3
        )),
    }
    if let (Some(b), Some(per), Some(ms)) = (i.pce_bytes, i.pce_bytes_per_constraint, i.pce_record_ms) {
        out.push_str(&format!(
            "pce record       {:>13} ({per:.1} B/constraint, recorded in {ms:.1} ms, one thread)\n",
            bytes(b)
        ));
    }
    let pick = if i.gpu.usable() { "gpu" } else { "cpu" };
    out.push_str(&format!("backend auto     → {pick}: {}\n", i.gpu.summary()));
    out
}
