//! The ground floor: the words every other layer speaks. Phases, toggles, memory counters and backend kinds as
//! typed tables; the probe through which a run reports phases and hears a cancel; the bounds of every count a
//! user gives. Nothing here imports the rest of cuzk.

mod backend_kind;
mod counter;
pub mod limits;
mod phase;
mod probe;
mod toggle;

pub use backend_kind::{BackendKind, UnknownBackend};
pub use counter::Counter;
pub use phase::{
    is_setup_phase, is_sub_phase, phase_order, LaneKind, Phase, PhaseInfo, UnknownPhase, SETUP_LANE,
};
pub use probe::{Args, CancelToken, Cancelled, DeviceTimer, PhaseEvent, PhaseSink, Probe, Site, Span};
pub use toggle::{Applies, Toggle, ToggleError, ToggleInfo, Toggles, BATCH, TOGGLE_KEYS};
