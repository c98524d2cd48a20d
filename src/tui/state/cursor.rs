//! The timeline cursor: a block of the selected lane that ←/→ step through, ↑/↓ carry to the nearest block
//! of the lane above or below, `z` zooms to and Enter opens; the views draw it highlighted with its details.

use super::App;
use crate::timeline::record::RecordEvent;
use crate::vocab::is_sub_phase;

impl App {
    /// The name of the selected lane (after the lane filter).
    pub fn selected_lane(&self) -> Option<String> {
        let lanes = self.timeline_lanes();
        let last = lanes.len().checked_sub(1)?;
        lanes.into_iter().nth(self.viewport.lane.min(last))
    }

    /// The top-level blocks of `lane` in time order (sub-phases are part of their parent's block).
    pub fn lane_blocks(&self, lane: &str) -> Vec<&RecordEvent> {
        let (events, _) = self.timeline_events();
        let mut blocks: Vec<&RecordEvent> =
            events.into_iter().filter(|e| e.lane == lane && !is_sub_phase(&e.phase)).collect();
        blocks.sort_by_key(|e| (e.start_us, std::cmp::Reverse(e.dur_us)));
        blocks
    }

    /// The block under the cursor, if the cursor is on one of the selected lane's blocks.
    pub fn cursor_event(&self) -> Option<&RecordEvent> {
        let at = self.cursor?;
        let lane = self.selected_lane()?;
        let (events, _) = self.timeline_events();
        events.into_iter().find(|e| e.lane == lane && !is_sub_phase(&e.phase) && e.start_us == at)
    }

    /// The sub-phase instances inside `e` (ntt_h and msm_h inside ntt_msm_h), in time order.
    pub fn children_of(&self, e: &RecordEvent) -> Vec<&RecordEvent> {
        let (events, _) = self.timeline_events();
        let end = e.start_us + e.dur_us;
        let mut kids: Vec<&RecordEvent> = events
            .into_iter()
            .filter(|k| {
                k.lane == e.lane && is_sub_phase(&k.phase) && k.start_us >= e.start_us && k.start_us < end
            })
            .collect();
        kids.sort_by_key(|k| k.start_us);
        kids
    }

    /// Steps the cursor to the next (`dir` > 0) or previous block of the selected lane, starting from the
    /// window's edge when there is no cursor yet, and pans so the block is visible.
    pub fn step_block(&mut self, dir: i32) {
        let Some(lane) = self.selected_lane() else { return };
        let (_, total) = self.timeline_events();
        let (t0, t1) = self.viewport.window(total);
        let blocks = self.lane_blocks(&lane);
        let next = match (self.cursor, dir > 0) {
            (Some(at), true) => blocks.iter().find(|e| e.start_us > at),
            (Some(at), false) => blocks.iter().rev().find(|e| e.start_us < at),
            (None, true) => blocks.iter().find(|e| e.start_us + e.dur_us > t0).or(blocks.first()),
            (None, false) => blocks.iter().rev().find(|e| e.start_us < t1).or(blocks.last()),
        };
        let Some(e) = next.map(|e| (e.start_us, e.dur_us)) else { return };
        self.cursor = Some(e.0);
        self.viewport.reveal(e.0, e.0 + e.1, total);
    }

    /// Moves the lane selection by `delta` and the cursor to the new lane's block nearest its time.
    pub fn step_lane(&mut self, delta: i32) {
        let n = self.timeline_lanes().len();
        self.viewport.select_lane(n, delta);
        let Some(at) = self.cursor else { return };
        let Some(lane) = self.selected_lane() else { return };
        let dist = |e: &RecordEvent| {
            if at < e.start_us {
                e.start_us - at
            } else {
                at.saturating_sub(e.start_us + e.dur_us)
            }
        };
        self.cursor =
            self.lane_blocks(&lane).into_iter().min_by_key(|e| (dist(e), e.start_us)).map(|e| e.start_us);
    }

    /// Zooms the timeline to the block under the cursor (with a margin either side).
    pub fn zoom_to_cursor(&mut self) {
        let Some((s, d)) = self.cursor_event().map(|e| (e.start_us, e.dur_us)) else { return };
        let (_, total) = self.timeline_events();
        self.viewport.show(s, s + d.max(1), total);
    }

    /// Puts the cursor on the block of `lane` (display index) at time `at_us`, or the nearest one.
    pub fn point_at(&mut self, lane: usize, at_us: u64) {
        let n = self.timeline_lanes().len();
        if n == 0 {
            return;
        }
        self.viewport.lane = lane.min(n - 1);
        self.cursor = Some(at_us);
        self.step_lane(0);
    }
}
