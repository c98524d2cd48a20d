//! The toggles of DESIGN.md §4: switches that change how fast a run is, never what it computes.

use serde::{Deserialize, Serialize};

/// Every run-time switch of the prover and engine; the same seed gives the same proofs for any combination.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Toggles {
    /// A1: linear-combination terms in `SmallVec` instead of `Vec`.
    pub a1: bool,
    /// A2: reserve synthesis vectors from the circuit's shape.
    pub a2: bool,
    /// A4: prove the circuits' B_G2 MSMs in parallel rather than one after another.
    pub a4: bool,
    /// B1: page-lock a/b/c before upload (GPU only).
    pub b1: bool,
    /// D4: each tail MSM picks its window from its own size.
    pub d4: bool,
    /// Overlap synthesis of the next batch with proving of this one.
    pub pipeline: bool,
    /// Sectors per proof call.
    pub batch: usize,
    /// Keep SRS bases on the GPU across calls (GPU only).
    pub srs_resident: bool,
    /// Pairing-check every proof after proving.
    pub verify: bool,
}

impl Default for Toggles {
    fn default() -> Self {
        Toggles {
            a1: false,
            a2: false,
            a4: true,
            b1: false,
            d4: true,
            pipeline: true,
            batch: 1,
            srs_resident: true,
            verify: true,
        }
    }
}

/// The boolean toggles in display order: (id, short description).
pub const BOOL_TOGGLES: [(&str, &str); 8] = [
    ("a1", "SmallVec LC terms"),
    ("a2", "pre-size synthesis vectors"),
    ("a4", "parallel B_G2 MSMs"),
    ("b1", "pin a/b/c before upload"),
    ("d4", "per-MSM tail windows"),
    ("pipeline", "overlap synthesis and proving"),
    ("srs_resident", "keep SRS on the GPU"),
    ("verify", "verify proofs"),
];

/// Why a `--set` string was rejected.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ToggleError {
    /// The id is not a toggle.
    #[error(
        "unknown toggle `{0}` (expected one of a1, a2, a4, b1, d4, pipeline, srs_resident, verify, batch)"
    )]
    Unknown(String),
    /// The value does not fit the toggle.
    #[error("toggle `{id}`: `{value}` is not {expected}")]
    BadValue {
        /// The toggle id.
        id: String,
        /// The value given.
        value: String,
        /// What was expected.
        expected: &'static str,
    },
}

impl Toggles {
    /// Reads a boolean toggle by id.
    pub fn get(&self, id: &str) -> Option<bool> {
        Some(match id {
            "a1" => self.a1,
            "a2" => self.a2,
            "a4" => self.a4,
            "b1" => self.b1,
            "d4" => self.d4,
            "pipeline" => self.pipeline,
            "srs_resident" => self.srs_resident,
            "verify" => self.verify,
            _ => return None,
        })
    }

    /// Sets a boolean toggle by id; false if the id is unknown.
    pub fn set(&mut self, id: &str, on: bool) -> bool {
        let slot = match id {
            "a1" => &mut self.a1,
            "a2" => &mut self.a2,
            "a4" => &mut self.a4,
            "b1" => &mut self.b1,
            "d4" => &mut self.d4,
            "pipeline" => &mut self.pipeline,
            "srs_resident" => &mut self.srs_resident,
            "verify" => &mut self.verify,
            _ => return false,
        };
        *slot = on;
        true
    }

    /// Applies a `--set` list such as `a1=on,d4=off,batch=2`.
    pub fn apply_set(&mut self, spec: &str) -> Result<(), ToggleError> {
        for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (id, value) = item.split_once('=').unwrap_or((item, "on"));
            let (id, value) = (id.trim(), value.trim());
            if id == "batch" {
                self.batch = value.parse().ok().filter(|&n| n >= 1).ok_or_else(|| ToggleError::BadValue {
                    id: id.into(),
                    value: value.into(),
                    expected: "an integer ≥ 1",
                })?;
                continue;
            }
            let on = match value {
                "on" | "true" | "1" | "yes" => true,
                "off" | "false" | "0" | "no" => false,
                _ => {
                    return Err(ToggleError::BadValue {
                        id: id.into(),
                        value: value.into(),
                        expected: "on/off",
                    })
                }
            };
            if !self.set(id, on) {
                return Err(ToggleError::Unknown(id.into()));
            }
        }
        Ok(())
    }

    /// Compact form for tables, e.g. `a1 a4 d4 pipe b=1` (only the toggles that are on).
    pub fn compact(&self) -> String {
        let mut parts: Vec<String> = BOOL_TOGGLES
            .iter()
            .filter(|(id, _)| self.get(id) == Some(true))
            .map(|(id, _)| id.to_string())
            .collect();
        parts.push(format!("batch={}", self.batch));
        parts.join(" ")
    }
}
