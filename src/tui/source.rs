//! Where the console's events come from and its commands go: the in-process worker (`worker`) or a
//! daemon's watch stream (`attach`). The event loop and the model see only this and the [`Msg`]s a
//! source sends; the view sees neither.

use super::state::Command;
#[cfg(doc)]
use super::state::Msg;

/// A source of the console's messages that takes its commands.
pub trait Source {
    /// Hands a command over (ignored once the source is gone).
    fn send(&self, cmd: Command);

    /// What to say in the log when its messages stop.
    fn gone(&self) -> String;
}
