//! What the views and the model share about the screen: the panels, where the last frame drew them
//! ([`Drawn`]) and how far each is scrolled ([`Scrolls`]). The views write `Drawn`; keys and clicks read it.

use ratatui::layout::Rect;

/// A panel keys can scroll and `e` can maximize.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Panel {
    /// The Live timeline (lanes and the block cursor).
    Timeline,
    /// The Live phase table.
    Phases,
    /// The Live log.
    Log,
    /// The toggle list (clicks flip; nothing scrolls).
    Toggles,
    /// The History table.
    History,
    /// The Compare bars.
    Compare,
    /// The Ablation matrix.
    Ablation,
    /// The Help text.
    Help,
}

impl Panel {
    /// Every panel, in [`Drawn`]'s order.
    pub const ALL: [Panel; 8] = [
        Panel::Timeline,
        Panel::Phases,
        Panel::Log,
        Panel::Toggles,
        Panel::History,
        Panel::Compare,
        Panel::Ablation,
        Panel::Help,
    ];

    /// Position in [`Panel::ALL`].
    pub fn idx(self) -> usize {
        Panel::ALL.iter().position(|p| *p == self).unwrap_or(0)
    }
}

/// What the last frame drew where: the layout clicks are matched against and the scroll limits.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Drawn {
    /// Each panel's area (by [`Panel::idx`]); zero-sized when not drawn.
    pub panels: [Rect; 8],
    /// Largest useful scroll offset of each panel (by [`Panel::idx`]).
    pub max: [usize; 8],
    /// Rows one page scrolls (the focused table's height).
    pub page: usize,
    /// The row of view tabs and each tab's columns `[x0, x1)`.
    pub tab_y: u16,
    /// Columns of the five tabs.
    pub tabs: [(u16, u16); 5],
    /// The timeline's lane rows (bars start at `bars_x`).
    pub lanes: Rect,
    /// First column of the bars.
    pub bars_x: u16,
    /// Index of the lane drawn in the first row.
    pub first_lane: usize,
    /// Time window of the bars, µs.
    pub window: (u64, u64),
    /// The History table's first data row and the position (in the filtered rows) drawn there.
    pub history_y: u16,
    /// Position of the first History row drawn.
    pub history_first: usize,
}

/// Scroll offsets: the first row shown (the log counts lines up from its newest).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Scrolls {
    /// Phase table.
    pub phases: usize,
    /// Log: lines hidden below the bottom (0 = follow the newest).
    pub log: usize,
    /// Compare bars.
    pub compare: usize,
    /// Ablation matrix.
    pub ablation: usize,
    /// Help text.
    pub help: usize,
}
