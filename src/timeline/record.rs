//! Run records (schema `cuzk.run/1`): everything one run measured, as saved in the run store and exported.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::vocab::{Phase, Site, Toggles};

/// The schema tag every record carries; readers reject others.
pub const SCHEMA: &str = "cuzk.run/1";

/// One phase instance on the timeline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordEvent {
    /// Phase name (a [`Phase`] name; records of other versions may hold others).
    pub phase: String,
    /// Timeline row (`synthesis c0`, `prep_msm`, `gpu0`, `cpu`, `b_g2_msm`, `assemble`, `verify`, `srs`).
    pub lane: String,
    /// Circuit index in the job, if the phase is per circuit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub circuit: Option<u64>,
    /// GPU index, if on a GPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<u64>,
    /// Proof call (batch) index within the repeat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<u64>,
    /// Repeat index (0-based).
    pub repeat: u32,
    /// Start in µs from the run's start.
    pub start_us: u64,
    /// Duration in µs.
    pub dur_us: u64,
    /// Sizes, popcounts and other span fields.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub args: BTreeMap<String, String>,
}

/// Per-phase totals of one repeat.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PhaseTotals {
    /// Instances.
    pub count: u64,
    /// Sum of durations in µs.
    pub sum_us: u64,
    /// Time the phase was running at all (union of its intervals) in µs: its share of the critical path.
    pub span_us: u64,
}

/// One repeat's measurements.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RepeatSummary {
    /// Wall time in µs.
    pub wall_us: u64,
    /// Totals per phase name.
    pub phases: BTreeMap<String, PhaseTotals>,
}

/// The sample a run proved.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SampleInfo {
    /// Sample name.
    pub name: String,
    /// Sample file path as given.
    pub path: String,
    /// Constraints per circuit (including input constraints).
    pub constraints: u64,
    /// Circuits per repeat (sectors × partitions).
    pub circuits: u64,
    /// Seed.
    pub seed: u64,
}

/// The machine a run ran on.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HostInfo {
    /// CPU model name.
    pub cpu: String,
    /// Worker threads.
    pub threads: u64,
    /// Physical memory in bytes.
    pub memory_bytes: u64,
}

/// One proof and whether it verified.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProofEntry {
    /// The 192-byte proof, hex.
    pub hex: String,
    /// Verification result (`None` when verification was off).
    pub verified: Option<bool>,
}

/// A run: one sample × toggles × repeats.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// Always `cuzk.run/1`.
    pub schema: String,
    /// Unique id (sortable: start time then random suffix).
    pub id: String,
    /// Start time, RFC 3339 UTC.
    pub started: String,
    /// What was proved.
    pub sample: SampleInfo,
    /// Toggles of the run.
    pub toggles: Toggles,
    /// Backend name (`cpu`, `gpu`).
    pub backend: String,
    /// Devices used (descriptions).
    pub devices: Vec<String>,
    /// The machine.
    pub host: HostInfo,
    /// Phase events of every repeat.
    pub events: Vec<RecordEvent>,
    /// Per-repeat totals (the statistics of compare and ablate use these).
    pub repeats: Vec<RepeatSummary>,
    /// Wall time of the whole run in µs.
    pub wall_us: u64,
    /// Peak resident memory of the process in bytes (0 where unknown).
    pub peak_rss_bytes: u64,
    /// Events the capture dropped (never blocks the prover).
    pub dropped_events: u64,
    /// Proofs of the last repeat with their verification flags.
    pub proofs: Vec<ProofEntry>,
    /// cuzk version.
    pub version: String,
}

impl RunRecord {
    /// Lanes in display order: srs, synthesis rows, pin_abc, prep_msm, compute rows, b_g2_msm, assemble, verify.
    pub fn lanes(&self) -> Vec<String> {
        let mut lanes: Vec<String> = Vec::new();
        for e in &self.events {
            if !lanes.contains(&e.lane) {
                lanes.push(e.lane.clone());
            }
        }
        lanes.sort_by_key(|l| lane_order(l));
        lanes
    }

    /// Whether every proof verified (false when any failed or verification was off).
    pub fn all_verified(&self) -> bool {
        !self.proofs.is_empty() && self.proofs.iter().all(|p| p.verified == Some(true))
    }
}

/// Sort key of a lane name: its group, then the number in it.
pub fn lane_order(lane: &str) -> (u8, u64, String) {
    let num = |s: &str| s.chars().filter(char::is_ascii_digit).collect::<String>().parse().unwrap_or(0);
    let group = match lane {
        "srs" => 0,
        l if l.starts_with("synthesis") => 1,
        "pin_abc" => 2,
        "prep_msm" => 3,
        l if l.starts_with("gpu") || l == "cpu" => 4,
        "b_g2_msm" => 5,
        "assemble" => 6,
        "verify" => 7,
        _ => 8,
    };
    (group, num(lane), lane.to_string())
}

impl RecordEvent {
    /// The record form of a phase instance at `site` (lane from the phase's table; batch and repeat unknown).
    pub fn from_site(site: &Site, start_us: u64, dur_us: u64) -> RecordEvent {
        RecordEvent {
            phase: site.phase.name().to_string(),
            lane: site.phase.lane(site.slot, site.device),
            circuit: site.circuit,
            device: site.device,
            batch: None,
            repeat: 0,
            start_us,
            dur_us,
            args: site.args.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(),
        }
    }

    /// The phase, when the name is one this version knows.
    pub fn known_phase(&self) -> Option<Phase> {
        Phase::from_name(&self.phase)
    }
}
