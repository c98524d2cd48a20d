//! Which backend a user asks for: parsed from `--backend`, sample files and the console, resolved by the
//! backend layer.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The backend a user asks for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BackendKind {
    /// The GPU when one is usable, else the CPU.
    #[default]
    Auto,
    /// The CPU backend.
    Cpu,
    /// The CUDA backend.
    Gpu,
}

impl BackendKind {
    /// Every kind, in `--help` order.
    pub const ALL: [BackendKind; 3] = [BackendKind::Auto, BackendKind::Cpu, BackendKind::Gpu];

    /// The name on the command line and in records.
    pub const fn name(self) -> &'static str {
        match self {
            BackendKind::Auto => "auto",
            BackendKind::Cpu => "cpu",
            BackendKind::Gpu => "gpu",
        }
    }
}

impl fmt::Display for BackendKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not a backend.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("unknown backend `{0}` (expected auto, cpu or gpu)")]
pub struct UnknownBackend(pub String);

impl FromStr for BackendKind {
    type Err = UnknownBackend;
    fn from_str(s: &str) -> Result<BackendKind, UnknownBackend> {
        BackendKind::ALL.into_iter().find(|k| k.name() == s).ok_or_else(|| UnknownBackend(s.to_string()))
    }
}
