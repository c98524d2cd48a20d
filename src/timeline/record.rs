//! Run records (schema `cuzk.run/1`): everything one run measured, as saved in the run store and exported.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::util::median::median;
use crate::vocab::{is_setup_phase, Phase, Site, Toggles};

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
    /// The environment settings that can change speed, as set for the run (name → value; unset ones are
    /// absent, so two runs differ here exactly when their settings do). Absent in records before it existed.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub settings: BTreeMap<String, String>,
}

impl HostInfo {
    /// The settings that differ between `self` and `other`: (name, this value, the other's), `-` for unset.
    pub fn settings_diff(&self, other: &HostInfo) -> Vec<(String, String, String)> {
        let names: std::collections::BTreeSet<&String> =
            self.settings.keys().chain(other.settings.keys()).collect();
        let get = |h: &HostInfo, k: &str| h.settings.get(k).cloned().unwrap_or_else(|| "-".into());
        names
            .into_iter()
            .filter(|k| self.settings.get(*k) != other.settings.get(*k))
            .map(|k| (k.clone(), get(self, k), get(other, k)))
            .collect()
    }
}

/// One proof and whether it verified.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProofEntry {
    /// The 192-byte proof, hex.
    pub hex: String,
    /// Verification result (`None` when verification was off).
    pub verified: Option<bool>,
}

/// One memory counter sampled while a run proceeds (host RSS, pinned host bytes, a device's memory in use):
/// a step function of time, kept as the samples where its value changed (plus the first and last).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CounterSeries {
    /// The counter's name ([`crate::vocab::Counter`]'s: `host_rss`, `host_pinned`, `gpu0_mem`, …).
    pub name: String,
    /// What bounds it (the device's memory, the host's), bytes; 0 where unknown.
    #[serde(default)]
    pub capacity: u64,
    /// (µs from the run's start, bytes), in time order.
    pub samples: Vec<(u64, u64)>,
}

impl CounterSeries {
    /// The largest value sampled within `[start, end]` µs (the value holding at `start` included).
    pub fn peak_in(&self, start: u64, end: u64) -> Option<u64> {
        let before = self.samples.iter().take_while(|s| s.0 <= start).last().map(|s| s.1);
        let during = self.samples.iter().filter(|s| s.0 > start && s.0 <= end).map(|s| s.1).max();
        before.into_iter().chain(during).max()
    }

    /// The largest value sampled.
    pub fn peak(&self) -> u64 {
        self.samples.iter().map(|s| s.1).max().unwrap_or(0)
    }
}

/// How a run ended. Records written before this existed hold completed runs only, so an absent field reads as
/// [`RunOutcome::Completed`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunOutcome {
    /// Every repeat ran to its proofs.
    #[default]
    Completed,
    /// An error stopped it: its timeline ends at the failure.
    Failed,
    /// A cancel stopped it after the phase under way.
    Cancelled,
}

impl RunOutcome {
    /// The name records, tables and JSON use: `completed`, `failed`, `cancelled`.
    pub fn name(self) -> &'static str {
        match self {
            RunOutcome::Completed => "completed",
            RunOutcome::Failed => "failed",
            RunOutcome::Cancelled => "cancelled",
        }
    }
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
    /// Elapsed time of the whole run in µs, setup (params generation and loading) included. The run's *wall*
    /// is not this but the median of its repeats' walls ([`RunRecord::wall_median_us`]).
    pub wall_us: u64,
    /// Peak resident memory of the process in bytes (0 where unknown).
    pub peak_rss_bytes: u64,
    /// Events the capture dropped (never blocks the prover).
    pub dropped_events: u64,
    /// Proofs of the last repeat with their verification flags (none when the run stopped before them).
    pub proofs: Vec<ProofEntry>,
    /// How the run ended; a run stopped by an error or a cancel holds the phases up to its end and its
    /// finished repeats.
    #[serde(default)]
    pub outcome: RunOutcome,
    /// Why the run did not complete, one line (the error, or the proof that did not verify); empty when it
    /// completed.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub error: String,
    /// Memory counters sampled during the run (absent in records before they existed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub counters: Vec<CounterSeries>,
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

    /// The proving wall: the median of the repeats' wall times in µs (setup excluded), or the whole run's
    /// elapsed time for a record without repeats. Every table, log line and export reports this one.
    pub fn wall_median_us(&self) -> u64 {
        let walls: Vec<f64> = self.repeats.iter().map(|r| r.wall_us as f64).collect();
        median(&walls).map_or(self.wall_us, |m| m.round() as u64)
    }

    /// Time spent before the proving wall (params generation and loading), µs.
    pub fn setup_us(&self) -> u64 {
        self.events.iter().filter(|e| is_setup_phase(&e.phase)).map(|e| e.dur_us).sum()
    }

    /// Per repeat, per proof call (in call order): the time from the call's last witness being ready (the end
    /// of its last `synthesis`) to its proof bytes (the end of its `assemble`), µs: what the proving engine
    /// adds after synthesis, the figure to hold against supraseal-c2's. Calls without both are left out.
    pub fn after_synthesis_us(&self) -> Vec<Vec<u64>> {
        let repeats = self.repeats.len().max(1) as u32;
        (0..repeats)
            .map(|r| {
                let mut calls: BTreeMap<u64, (u64, Option<u64>)> = BTreeMap::new();
                for e in self.events.iter().filter(|e| e.repeat == r) {
                    let (Some(call), end) = (e.batch, e.start_us + e.dur_us) else { continue };
                    let slot = calls.entry(call).or_insert((0, None));
                    match e.phase.as_str() {
                        "synthesis" => slot.0 = slot.0.max(end),
                        "assemble" => slot.1 = Some(slot.1.map_or(end, |a: u64| a.max(end))),
                        _ => {}
                    }
                }
                calls
                    .into_values()
                    .filter_map(|(ready, done)| done.filter(|_| ready > 0).map(|d| d.saturating_sub(ready)))
                    .collect()
            })
            .collect()
    }

    /// Per device compute lane (`gpu<d>`, in order): per repeat, the ms its spans cover (their union) and the
    /// ms between its first span's start and its last span's end that none covers (0 for a repeat without
    /// the lane). The idle time is the device waiting inside the run, for a call's synthesis, its host steps
    /// or the memory window (a 32 GiB sector's lane idled 8 of 24 s: docs/PERF.md session ag).
    pub fn device_lanes_ms(&self) -> Vec<(String, Vec<f64>, Vec<f64>)> {
        let repeats = self.repeats.len().max(1);
        let mut spans: BTreeMap<u64, Vec<Vec<(u64, u64)>>> = BTreeMap::new();
        for e in &self.events {
            match e.device {
                Some(d) if e.lane == format!("gpu{d}") && (e.repeat as usize) < repeats => {
                    spans.entry(d).or_insert_with(|| vec![Vec::new(); repeats])[e.repeat as usize]
                        .push((e.start_us, e.start_us + e.dur_us))
                }
                _ => {}
            }
        }
        spans
            .into_iter()
            .map(|(d, per)| {
                let (busy, idle) = per
                    .into_iter()
                    .map(|s| {
                        let (covered, span) = union_us(s);
                        (covered as f64 / 1e3, (span - covered) as f64 / 1e3)
                    })
                    .unzip();
                (format!("gpu{d}"), busy, idle)
            })
            .collect()
    }

    /// Per setup phase in pipeline order: its name and summed time in µs.
    pub fn setup_phases(&self) -> Vec<(String, u64)> {
        let mut out: Vec<(String, u64)> = Vec::new();
        for e in self.events.iter().filter(|e| is_setup_phase(&e.phase)) {
            match out.iter_mut().find(|(n, _)| *n == e.phase) {
                Some((_, us)) => *us += e.dur_us,
                None => out.push((e.phase.clone(), e.dur_us)),
            }
        }
        out.sort_by_key(|(n, _)| crate::vocab::phase_order(n));
        out
    }

    /// Whether `other` proved the same circuit shape (constraints per circuit and circuits per repeat), the
    /// condition for comparing their times.
    pub fn same_shape(&self, other: &RunRecord) -> bool {
        (self.sample.constraints, self.sample.circuits) == (other.sample.constraints, other.sample.circuits)
    }

    /// Appends `next` (a later run of the same configuration) as further repeats: its events move after this
    /// record's end and are renumbered, its repeats follow this record's, its setup (none after the first run
    /// of a process) is dropped. How an interleaved ablation builds one record per configuration.
    pub fn append(&mut self, next: RunRecord) {
        let (offset, first) = (self.wall_us, self.repeats.len() as u32);
        self.events.extend(next.events.into_iter().filter(|e| !is_setup_phase(&e.phase)).map(|mut e| {
            e.start_us += offset;
            e.repeat += first;
            e
        }));
        self.repeats.extend(next.repeats);
        for c in next.counters {
            let moved = c.samples.iter().map(|&(t, v)| (t + offset, v));
            match self.counters.iter_mut().find(|s| s.name == c.name) {
                Some(s) => s.samples.extend(moved),
                None => self.counters.push(CounterSeries { samples: moved.collect(), ..c }),
            }
        }
        self.wall_us += next.wall_us;
        self.peak_rss_bytes = self.peak_rss_bytes.max(next.peak_rss_bytes);
        self.dropped_events += next.dropped_events;
        self.proofs = next.proofs;
        if next.outcome != RunOutcome::Completed {
            (self.outcome, self.error) = (next.outcome, next.error);
        }
    }

    /// Whether the run completed (its phases are whole, so its times compare with another run's).
    pub fn completed(&self) -> bool {
        self.outcome == RunOutcome::Completed
    }

    /// One line saying that the run did not complete and why, or `None` when it did.
    pub fn incomplete_line(&self) -> Option<String> {
        let why = if self.error.is_empty() { String::new() } else { format!(": {}", self.error) };
        (!self.completed())
            .then(|| format!("run {} {}{why}; its timeline is partial", self.id, self.outcome.name()))
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
        "setup" | "srs" => 0,
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

/// The union of intervals `[start, end)` (µs): (time covered, first start to last end).
fn union_us(mut spans: Vec<(u64, u64)>) -> (u64, u64) {
    spans.sort_unstable();
    let (first, last) = match (spans.first(), spans.iter().map(|s| s.1).max()) {
        (Some(f), Some(l)) => (f.0, l),
        _ => return (0, 0),
    };
    let (mut covered, mut reach) = (0, first);
    for (a, b) in spans {
        let a = a.max(reach);
        if b > a {
            covered += b - a;
            reach = b;
        }
    }
    (covered, last - first)
}
