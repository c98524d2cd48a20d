//! The phases of a proof: the names spans, run records, exports, theme files and the console all use. Every
//! fact about a phase (name, order, parent, lane, export color, one-line meaning) is one row of [`phases!`];
//! adding a phase is one row here plus the code that opens it.

use std::fmt;
use std::str::FromStr;

/// Which timeline row a phase instance is drawn on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneKind {
    /// One row per synthesis slot of a call: `synthesis c<slot>`.
    Slot,
    /// The compute lane that ran it: `gpu<device>`, or `cpu` when no device is named.
    Compute,
    /// A row named after the phase itself.
    Own,
    /// A shared row with this name (device copies of the SRS share `srs`).
    Named(&'static str),
    /// The `setup` row: work before a run's proving wall (params generation and loading), never inside it.
    Setup,
}

/// What the table knows about one phase.
#[derive(Clone, Copy, Debug)]
pub struct PhaseInfo {
    /// The name everywhere (spans, records, exports, theme keys, UI).
    pub name: &'static str,
    /// The phase whose time contains this one (sub-phases), if any.
    pub parent: Option<Phase>,
    /// The timeline row.
    pub lane: LaneKind,
    /// Fixed color in SVG exports, so a phase looks the same in every chart.
    pub color: &'static str,
    /// One line: what the phase does.
    pub help: &'static str,
}

macro_rules! phases {
    ($( $var:ident = $name:literal, parent $parent:expr, lane $lane:expr, color $color:literal, help $help:literal; )*) => {
        /// A phase of a proof run, in pipeline order (sub-phases right after their parent).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Phase {
            $( #[doc = $help] $var, )*
        }

        impl Phase {
            /// Every phase in pipeline order.
            pub const ALL: &'static [Phase] = &[$( Phase::$var, )*];

            /// The phase's row of the table.
            pub const fn info(self) -> PhaseInfo {
                match self {
                    $( Phase::$var => PhaseInfo {
                        name: $name,
                        parent: $parent,
                        lane: $lane,
                        color: $color,
                        help: $help,
                    }, )*
                }
            }
        }
    };
}

phases! {
    ParamsGen = "params_gen",
        parent None, lane LaneKind::Setup, color "#637939",
        help "Generate a sample's params from its seed (first use on a machine; cached afterwards).";
    SrsLoad = "srs_load",
        parent None, lane LaneKind::Setup, color "#8c6d31",
        help "Read and validate the params file (once per process per params).";
    SrsUpload = "srs_upload",
        parent None, lane LaneKind::Named("srs"), color "#bd9e39",
        help "Copy the SRS bases to a device (once per process with `srs_resident`).";
    Synthesis = "synthesis",
        parent None, lane LaneKind::Slot, color "#4e79a7",
        help "Run a circuit into a proving assignment (one instance per circuit).";
    PceRecord = "pce_record",
        parent Some(Phase::Synthesis), lane LaneKind::Slot, color "#2c5d8a",
        help "Record the shape's A, B, C as a PCE matrix (pce: first circuit of a shape, inside `synthesis`).";
    Spmv = "spmv",
        parent Some(Phase::Synthesis), lane LaneKind::Slot, color "#86bcb6",
        help "Witness-only synthesis + sparse matrix-vector product from the PCE record (pce, inside `synthesis`).";
    PinAbc = "pin_abc",
        parent None, lane LaneKind::Own, color "#9c755f",
        help "Page-lock a/b/c before their upload (B1, devices only).";
    PrepMsm = "prep_msm",
        parent None, lane LaneKind::Own, color "#f28e2b",
        help "Classify aux scalars into zero / one / tail and gather the tail bases.";
    NttMsmH = "ntt_msm_h",
        parent None, lane LaneKind::Compute, color "#59a14f",
        help "H = (A·B − C)/Z by NTTs, then its MSM (one instance per circuit).";
    NttH = "ntt_h",
        parent Some(Phase::NttMsmH), lane LaneKind::Compute, color "#a0d98f",
        help "The six NTTs and pointwise work of `ntt_msm_h`.";
    MsmH = "msm_h",
        parent Some(Phase::NttMsmH), lane LaneKind::Compute, color "#2f6b2a",
        help "The MSM of H against the H bases, inside `ntt_msm_h`.";
    BatchAdd = "batch_add",
        parent None, lane LaneKind::Compute, color "#b07aa1",
        help "Sums of the bases whose scalar is exactly one (L, A, B_G1).";
    TailMsm = "tail_msm",
        parent None, lane LaneKind::Compute, color "#e15759",
        help "MSMs over the compacted non-0/1 scalars of L, A, B_G1.";
    BG2Msm = "b_g2_msm",
        parent None, lane LaneKind::Own, color "#76b7b2",
        help "The B_G2 sums and MSMs, on the host beside the compute lanes.";
    Assemble = "assemble",
        parent None, lane LaneKind::Own, color "#edc948",
        help "Proof assembly from the MSM results and the randomizers.";
    Verify = "verify",
        parent None, lane LaneKind::Own, color "#ff9da7",
        help "Pairing check of every proof.";
}

impl Phase {
    /// The phase's name.
    pub const fn name(self) -> &'static str {
        self.info().name
    }

    /// The phase with this name.
    pub fn from_name(name: &str) -> Option<Phase> {
        Phase::ALL.iter().copied().find(|p| p.name() == name)
    }

    /// Whether its time lies inside a parent's (tables indent it and do not add it to the parent's).
    pub const fn is_sub(self) -> bool {
        self.info().parent.is_some()
    }

    /// Whether it runs before the proving wall (params generation and loading): tables list it as setup,
    /// never as a share of the wall.
    pub const fn is_setup(self) -> bool {
        matches!(self.info().lane, LaneKind::Setup)
    }

    /// Position in pipeline order.
    pub fn order(self) -> usize {
        self as usize
    }

    /// Every phase name, comma-separated (for "expected one of" messages).
    pub fn names() -> String {
        Phase::ALL.iter().map(|p| p.name()).collect::<Vec<_>>().join(", ")
    }

    /// The timeline row of an instance run in synthesis slot `slot` and/or on device `device`.
    pub fn lane(self, slot: Option<u64>, device: Option<u64>) -> String {
        match self.info().lane {
            LaneKind::Slot => format!("synthesis c{}", slot.unwrap_or(0)),
            LaneKind::Compute => device.map_or_else(|| "cpu".to_string(), |d| format!("gpu{d}")),
            LaneKind::Own => self.name().to_string(),
            LaneKind::Named(n) => n.to_string(),
            LaneKind::Setup => SETUP_LANE.to_string(),
        }
    }
}

/// The timeline row of the setup phases.
pub const SETUP_LANE: &str = "setup";

/// Whether `name` is a known setup phase (outside the proving wall).
pub fn is_setup_phase(name: &str) -> bool {
    Phase::from_name(name).is_some_and(Phase::is_setup)
}

/// Sort key of a phase name in pipeline order; names from other versions sort after, alphabetically.
pub fn phase_order(name: &str) -> (usize, String) {
    (Phase::from_name(name).map_or(Phase::ALL.len(), Phase::order), name.to_string())
}

/// Whether `name` is a known sub-phase.
pub fn is_sub_phase(name: &str) -> bool {
    Phase::from_name(name).is_some_and(Phase::is_sub)
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not a phase.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("unknown phase `{0}` (expected one of {names})", names = Phase::names())]
pub struct UnknownPhase(pub String);

impl FromStr for Phase {
    type Err = UnknownPhase;
    fn from_str(s: &str) -> Result<Phase, UnknownPhase> {
        Phase::from_name(s).ok_or_else(|| UnknownPhase(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_consistent() {
        for (i, p) in Phase::ALL.iter().enumerate() {
            assert_eq!(p.order(), i);
            assert_eq!(Phase::from_name(p.name()), Some(*p));
            assert!(!p.info().help.is_empty(), "{p} has no help line");
            if let Some(parent) = p.info().parent {
                assert!(parent.order() < p.order(), "{p} must follow its parent");
                assert_eq!(parent.info().lane, p.info().lane, "{p} must share its parent's lane");
            }
        }
        let mut names: Vec<_> = Phase::ALL.iter().map(|p| p.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Phase::ALL.len(), "phase names are unique");
    }

    #[test]
    fn lanes() {
        assert_eq!(Phase::Synthesis.lane(Some(3), None), "synthesis c3");
        assert_eq!(Phase::MsmH.lane(None, Some(1)), "gpu1");
        assert_eq!(Phase::TailMsm.lane(None, None), "cpu");
        assert_eq!(Phase::SrsUpload.lane(None, Some(0)), "srs");
        assert_eq!(Phase::ParamsGen.lane(None, None), "setup");
        assert!(Phase::SrsLoad.is_setup() && Phase::ParamsGen.is_setup() && !Phase::SrsUpload.is_setup());
        assert_eq!(Phase::PinAbc.lane(None, Some(0)), "pin_abc");
        assert!(phase_order("ntt_h") < phase_order("batch_add"));
        assert!(phase_order("verify") < phase_order("zzz_unknown"));
    }
}
