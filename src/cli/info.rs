//! `cuzk info`: the shape of a sample's circuits beside the real 32 GiB PoRep partition.

use crate::util::digits::group;
use std::time::Instant;

use blstrs::Scalar;
use ff::Field;
use serde::Serialize;

use super::error::CliError;
use crate::circuits::Sample;
use crate::cs::{Pce, ProvingAssignment, Shape, VecStore};
use crate::engine::budget;

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
    /// Percent of aux values equal to 0.
    pub aux_zero_pct: f64,
    /// Percent of aux values equal to 1.
    pub aux_one_pct: f64,
    /// Percent of other aux values.
    pub aux_other_pct: f64,
    /// Bytes of a, b and c together per circuit.
    pub abc_bytes: usize,
    /// Bytes of the aux assignment per circuit.
    pub aux_bytes: usize,
    /// Synthesis time of circuit 0 in milliseconds (one thread).
    pub synthesis_ms: f64,
    /// Its throughput in constraints per second per thread.
    pub constraints_per_sec: f64,
    /// Heap bytes of the circuit's PCE record (toggle `pce`), measured by recording circuit 0.
    pub pce_bytes: usize,
    /// Those bytes per constraint (the figure `--mem-budget` estimates are bounded by).
    pub pce_bytes_per_constraint: f64,
    /// Time to record it in milliseconds (one thread; paid once per shape per process with `pce` on).
    pub pce_record_ms: f64,
    /// What `--backend auto` would pick here and why (GPU name, arch, memory, NVRTC version, or the reason
    /// there is no usable GPU).
    pub gpu: crate::backend::gpu::discover::Discovery,
}

fn pct(n: usize, d: usize) -> f64 {
    if d == 0 {
        0.0
    } else {
        100.0 * n as f64 / d as f64
    }
}

/// What synthesizing circuit 0 for `cuzk info` holds (vectors grown by doubling: up to twice their data).
pub fn memory_estimate(sample: &Sample) -> budget::Estimate {
    let fp = budget::footprint(sample);
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
    memory_estimate(sample).check(&budget::mem_limit()).map_err(|e| CliError::Engine(e.into()))?;
    shape_info(sample)
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
        circuits_per_sector: sample.partitions,
        sectors: sample.sectors,
        constraints: shape.rows(),
        public_inputs: shape.inputs,
        aux,
        domain: shape.domain(),
        a_aux_density_pct: densities.0,
        b_aux_density_pct: densities.1,
        b_input_density_pct: densities.2,
        aux_zero_pct: pct(zeros, aux),
        aux_one_pct: pct(ones, aux),
        aux_other_pct: pct(aux - zeros - ones, aux),
        abc_bytes: 3 * shape.rows() * 32,
        aux_bytes: aux * 32,
        synthesis_ms: secs * 1e3,
        constraints_per_sec: shape.rows() as f64 / secs.max(1e-9),
        pce_bytes: pce.heap_bytes(),
        pce_bytes_per_constraint: pce.bytes_per_constraint(),
        pce_record_ms,
        gpu: crate::backend::gpu::discover::discovery().clone(),
    })
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
        ("aux = 0", format!("{:.1}%", i.aux_zero_pct), "—".into()),
        ("aux = 1", format!("{:.1}%", i.aux_one_pct), "—".into()),
        ("aux other", format!("{:.1}%", i.aux_other_pct), "—".into()),
        ("a+b+c bytes", bytes(i.abc_bytes), bytes(real_abc)),
        ("aux bytes", bytes(i.aux_bytes), bytes(POREP_32G_AUX * 32)),
        ("circuits", format!("{} × {} sectors", i.circuits_per_sector, i.sectors), "10 partitions".into()),
    ];
    let mut out = format!("{:<16} {:>16}   {:>16}\n", "per circuit", i.sample, "32 GiB partition");
    for (k, a, b) in rows {
        out.push_str(&format!("{k:<16} {a:>16}   {b:>16}\n"));
    }
    out.push_str(&format!(
        "synthesis        {:>13.1} ms   ({:.2} M constraints/s, one thread)\n",
        i.synthesis_ms,
        i.constraints_per_sec / 1e6
    ));
    out.push_str(&format!(
        "pce record       {:>13} ({:.1} B/constraint, recorded in {:.1} ms, one thread)\n",
        bytes(i.pce_bytes),
        i.pce_bytes_per_constraint,
        i.pce_record_ms
    ));
    let pick = if i.gpu.usable() { "gpu" } else { "cpu" };
    out.push_str(&format!("backend auto     → {pick}: {}\n", i.gpu.summary()));
    out
}
