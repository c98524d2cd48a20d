//! Focus, scrolling and maximizing, the habits of btm, k9s and lazygit: every table and the log scroll with
//! j/k, PgUp/PgDn, g/G and Home/End; `f` (or a click) moves the focus between the Live view's panels; `e`
//! maximizes the focused panel. Each frame records what it drew in [`super::Drawn`] (panel areas, page sizes, the
//! largest useful offsets), so scrolling stops at the last row and a click finds what is under it.

use super::layout::Panel;
use super::{App, View};
use crate::tui::keys::Key;

/// The Live panels `f` cycles through.
pub const LIVE_PANELS: [Panel; 3] = [Panel::Timeline, Panel::Phases, Panel::Log];

/// One scroll movement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Move {
    /// Up by n rows.
    Up(usize),
    /// Down by n rows.
    Down(usize),
    /// To the first row.
    Top,
    /// To the last row.
    Bottom,
}

impl Move {
    /// The movement a key asks for in a table, if any (`page` rows for PgUp/PgDn).
    pub fn of(key: Key, page: usize) -> Option<Move> {
        Some(match key {
            Key::Up | Key::Char('k') => Move::Up(1),
            Key::Down | Key::Char('j') => Move::Down(1),
            Key::PageUp => Move::Up(page.max(1)),
            Key::PageDown => Move::Down(page.max(1)),
            Key::Home | Key::Char('g') => Move::Top,
            Key::End | Key::Char('G') => Move::Bottom,
            _ => return None,
        })
    }

    /// `offset` moved within `0..=max`.
    pub fn apply(self, offset: usize, max: usize) -> usize {
        match self {
            Move::Up(n) => offset.min(max).saturating_sub(n),
            Move::Down(n) => offset.saturating_add(n).min(max),
            Move::Top => 0,
            Move::Bottom => max,
        }
    }

    /// The same movement seen from the bottom (the log counts up from its newest line).
    pub fn reversed(self) -> Move {
        match self {
            Move::Up(n) => Move::Down(n),
            Move::Down(n) => Move::Up(n),
            Move::Top => Move::Bottom,
            Move::Bottom => Move::Top,
        }
    }
}

impl App {
    /// The panel a key scrolls in the current view.
    pub fn focused(&self) -> Panel {
        match self.view {
            View::Live => self.focus,
            View::History => Panel::History,
            View::Compare => Panel::Compare,
            View::Ablation => Panel::Ablation,
            View::Help => Panel::Help,
        }
    }

    /// Moves the Live focus to the next panel.
    pub fn focus_next(&mut self) {
        let i = LIVE_PANELS.iter().position(|p| *p == self.focus).map_or(0, |i| i + 1);
        self.focus = LIVE_PANELS[i % LIVE_PANELS.len()];
    }

    /// Scrolls `panel` by `m` within what the last frame drew (History moves its selection through the
    /// filtered rows).
    pub fn scroll(&mut self, panel: Panel, m: Move) {
        let max = self.drawn.get().max[panel.idx()];
        let s = &mut self.scroll;
        match panel {
            Panel::Phases => s.phases = m.apply(s.phases, max),
            Panel::Log => s.log = m.reversed().apply(s.log, max),
            Panel::Compare => s.compare = m.apply(s.compare, max),
            Panel::Ablation => s.ablation = m.apply(s.ablation, max),
            Panel::Help => s.help = m.apply(s.help, max),
            Panel::History => {
                let rows = self.history_rows();
                let Some(last) = rows.len().checked_sub(1) else { return };
                let at = rows.iter().position(|&i| i >= self.history_sel).unwrap_or(last);
                self.history_sel = rows[m.apply(at, last)];
            }
            Panel::Timeline | Panel::Toggles => {}
        }
    }
}
