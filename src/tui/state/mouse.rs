//! The mouse, matched against what the last frame drew ([`super::Drawn`]): click a tab, a panel (focus), a
//! toggle, a History row or a timeline block; the wheel scrolls tables and zooms the timeline around the
//! pointer; dragging the timeline pans it.

use ratatui::layout::{Position, Rect};

use super::nav::{Move, LIVE_PANELS};
use super::{App, Panel, View};
use crate::tui::keys::Mouse;
use crate::vocab::Toggle;

/// Rows one wheel notch scrolls.
const WHEEL_ROWS: usize = 3;

fn inside(r: Rect, x: u16, y: u16) -> bool {
    r.contains(Position { x, y })
}

impl App {
    /// The panel drawn at (x, y) in the current view, if any.
    fn panel_at(&self, x: u16, y: u16) -> Option<Panel> {
        let d = self.drawn.get();
        Panel::ALL.into_iter().find(|p| inside(d.panels[p.idx()], x, y))
    }

    /// The timeline time under column `x` and µs per column (None left of the bars).
    fn time_at(&self, x: u16) -> Option<(u64, f64)> {
        let d = self.drawn.get();
        let w = d.lanes.right().saturating_sub(d.bars_x);
        if x < d.bars_x || w == 0 {
            return None;
        }
        let per_col = d.window.1.saturating_sub(d.window.0) as f64 / f64::from(w);
        Some((d.window.0 + (f64::from(x - d.bars_x) * per_col) as u64, per_col))
    }

    /// Handles one mouse event.
    pub fn handle_mouse(&mut self, m: Mouse) {
        let d = self.drawn.get();
        match m {
            Mouse::Down(x, y) => {
                self.details = None;
                if y == d.tab_y {
                    if let Some(i) = d.tabs.iter().position(|&(a, b)| x >= a && x < b) {
                        self.view = View::ALL[i];
                        return;
                    }
                }
                let Some(panel) = self.panel_at(x, y) else { return };
                if LIVE_PANELS.contains(&panel) {
                    self.focus = panel;
                }
                match panel {
                    Panel::Timeline if inside(d.lanes, x, y) => {
                        let lane = d.first_lane + usize::from(y - d.lanes.y);
                        if let Some((t, per_col)) = self.time_at(x) {
                            self.point_at(lane, t);
                            self.drag = Some((x, self.viewport.pan_us, per_col));
                        } else {
                            self.viewport.lane = lane.min(self.timeline_lanes().len().saturating_sub(1));
                        }
                    }
                    Panel::Toggles => {
                        let row = usize::from(y.saturating_sub(d.panels[Panel::Toggles.idx()].y + 1));
                        if row < Toggle::ALL.len() {
                            self.flip(row);
                        }
                    }
                    Panel::History if y >= d.history_y => {
                        let rows = self.history_rows();
                        if let Some(&i) = rows.get(d.history_first + usize::from(y - d.history_y)) {
                            self.history_sel = i;
                        }
                    }
                    _ => {}
                }
            }
            Mouse::Drag(x, _) => {
                if let Some((x0, pan0, per_col)) = self.drag {
                    let (_, total) = self.timeline_events();
                    let shift = (f64::from(x) - f64::from(x0)) * per_col;
                    self.viewport.pan_us = (pan0 as f64 - shift).max(0.0) as u64;
                    self.viewport.pan_us = self.viewport.window(total).0;
                }
            }
            Mouse::Up => self.drag = None,
            Mouse::WheelUp(x, y) | Mouse::WheelDown(x, y) => {
                let up = matches!(m, Mouse::WheelUp(..));
                match self.panel_at(x, y) {
                    Some(Panel::Timeline) => {
                        let (_, total) = self.timeline_events();
                        let at = self.time_at(x).map_or_else(|| self.viewport.window(total).0, |t| t.0);
                        self.viewport.zoom_at(total, at, if up { 1 } else { -1 });
                    }
                    Some(p) => self.scroll(p, if up { Move::Up(WHEEL_ROWS) } else { Move::Down(WHEEL_ROWS) }),
                    None => {}
                }
            }
        }
    }
}
