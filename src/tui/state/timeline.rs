//! The timeline's viewport: zoom, pan and the selected lane, kept in run time (µs) so it survives resizes.

use crate::timeline::record::{lane_order, RecordEvent};

/// Deepest zoom: 4096× shows 1/4096 of the run, enough to see a microsecond-scale phase in a minute-long run.
pub const MAX_ZOOM: f64 = 4096.0;

/// Zoom, pan and lane selection of the timeline.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Viewport {
    /// Magnification: 1 shows the whole run, 2 half of it, … up to [`MAX_ZOOM`].
    pub zoom: f64,
    /// Start of the visible window in µs from the run's start (clamped by [`Viewport::window`]).
    pub pan_us: u64,
    /// Index of the selected lane in display order (clamped when drawn).
    pub lane: usize,
}

impl Default for Viewport {
    fn default() -> Self {
        Viewport { zoom: 1.0, pan_us: 0, lane: 0 }
    }
}

impl Viewport {
    /// The visible window `[t0, t1)` in µs of a run lasting `total_us`; never empty, never past the end.
    pub fn window(&self, total_us: u64) -> (u64, u64) {
        let total = total_us.max(1);
        let span = ((total as f64 / self.zoom.clamp(1.0, MAX_ZOOM)).ceil() as u64).clamp(1, total);
        let t0 = self.pan_us.min(total - span);
        (t0, t0 + span)
    }

    /// Doubles the magnification around the window's centre.
    pub fn zoom_in(&mut self, total_us: u64) {
        self.rezoom(total_us, (self.zoom * 2.0).min(MAX_ZOOM));
    }

    /// Halves the magnification around the window's centre (down to the whole run).
    pub fn zoom_out(&mut self, total_us: u64) {
        self.rezoom(total_us, (self.zoom / 2.0).max(1.0));
    }

    /// Shows the whole run.
    pub fn fit(&mut self) {
        self.zoom = 1.0;
        self.pan_us = 0;
    }

    fn rezoom(&mut self, total_us: u64, zoom: f64) {
        let (t0, t1) = self.window(total_us);
        let centre = t0 + (t1 - t0) / 2;
        self.zoom = zoom;
        let (n0, n1) = self.window(total_us);
        self.pan_us = centre.saturating_sub((n1 - n0) / 2);
        self.pan_us = self.window(total_us).0;
    }

    /// Moves the window by an eighth of its width; `dir` < 0 is earlier.
    pub fn pan(&mut self, total_us: u64, dir: i32) {
        let (t0, t1) = self.window(total_us);
        let step = ((t1 - t0) / 8).max(1);
        self.pan_us = if dir < 0 { t0.saturating_sub(step) } else { t0.saturating_add(step) };
        self.pan_us = self.window(total_us).0;
    }

    /// Moves the lane selection by `delta` lanes within `lanes` lanes (0 only clamps it).
    pub fn select_lane(&mut self, lanes: usize, delta: i32) {
        let last = lanes.saturating_sub(1);
        let cur = self.lane.min(last);
        let step = delta.unsigned_abs() as usize;
        self.lane = if delta < 0 { cur.saturating_sub(step) } else { (cur + step).min(last) };
    }

    /// Zooms and pans so `[start, end)` fills most of the window (an eighth of margin either side).
    pub fn show(&mut self, start: u64, end: u64, total_us: u64) {
        let len = end.saturating_sub(start).max(1) as f64;
        self.zoom = (total_us.max(1) as f64 / (len * 1.25)).clamp(1.0, MAX_ZOOM);
        let (t0, t1) = self.window(total_us);
        let span = t1 - t0;
        self.pan_us = start.saturating_sub(span.saturating_sub(end - start) / 2);
        self.pan_us = self.window(total_us).0;
    }

    /// Pans (without zooming) so `[start, end)` begins inside the window, if it does not already.
    pub fn reveal(&mut self, start: u64, end: u64, total_us: u64) {
        let (t0, t1) = self.window(total_us);
        if start >= t0 && start < t1 && end > t0 {
            return;
        }
        self.pan_us = start.saturating_sub((t1 - t0) / 8);
        self.pan_us = self.window(total_us).0;
    }

    /// Zooms in (`dir` > 0) or out around time `at_us`, keeping it under the same column.
    pub fn zoom_at(&mut self, total_us: u64, at_us: u64, dir: i32) {
        let (t0, t1) = self.window(total_us);
        let frac = (at_us.saturating_sub(t0)) as f64 / (t1 - t0).max(1) as f64;
        self.zoom = if dir > 0 { (self.zoom * 2.0).min(MAX_ZOOM) } else { (self.zoom / 2.0).max(1.0) };
        let (n0, n1) = self.window(total_us);
        self.pan_us = at_us.saturating_sub(((n1 - n0) as f64 * frac) as u64);
        self.pan_us = self.window(total_us).0;
    }
}

/// Lane names of `events` in display order (`lane_order`).
pub fn lanes_of<'a>(events: impl IntoIterator<Item = &'a RecordEvent>) -> Vec<String> {
    let mut lanes: Vec<String> = Vec::new();
    for e in events {
        if !lanes.contains(&e.lane) {
            lanes.push(e.lane.clone());
        }
    }
    lanes.sort_by_key(|l| lane_order(l));
    lanes
}

/// The event of `lane` nearest the middle of the window `(t0, t1)`: the phase `Enter` shows details of.
pub fn event_at_centre<'a>(
    events: &[&'a RecordEvent],
    lane: &str,
    window: (u64, u64),
) -> Option<&'a RecordEvent> {
    let mid = window.0 + (window.1.saturating_sub(window.0)) / 2;
    let dist = |e: &RecordEvent| {
        let end = e.start_us.saturating_add(e.dur_us);
        if mid < e.start_us {
            e.start_us - mid
        } else {
            mid.saturating_sub(end)
        }
    };
    events.iter().copied().filter(|e| e.lane == lane).min_by_key(|e| (dist(e), std::cmp::Reverse(e.dur_us)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_stays_inside_the_run() {
        let mut v = Viewport::default();
        assert_eq!(v.window(1000), (0, 1000));
        assert_eq!(v.window(0), (0, 1));
        v.zoom_in(1000);
        assert_eq!(v.window(1000), (250, 750), "zoom keeps the centre");
        for _ in 0..100 {
            v.pan(1000, 1);
        }
        assert_eq!(v.window(1000), (500, 1000));
        for _ in 0..100 {
            v.pan(1000, -1);
        }
        assert_eq!(v.window(1000), (0, 500));
        for _ in 0..40 {
            v.zoom_in(1000);
        }
        assert_eq!(v.zoom, MAX_ZOOM);
        let (a, b) = v.window(1000);
        assert!(b > a && b <= 1000);
        for _ in 0..40 {
            v.zoom_out(1000);
        }
        assert_eq!(v.zoom, 1.0);
        assert_eq!(v.window(1000), (0, 1000));
        v.pan_us = u64::MAX;
        assert_eq!(v.window(u64::MAX), (0, u64::MAX));
        v.fit();
        assert_eq!(v, Viewport::default());
    }

    #[test]
    fn lane_selection_is_bounded() {
        let mut v = Viewport::default();
        v.select_lane(0, 1);
        assert_eq!(v.lane, 0);
        v.select_lane(3, -1);
        assert_eq!(v.lane, 0);
        for _ in 0..10 {
            v.select_lane(3, 1);
        }
        assert_eq!(v.lane, 2);
        v.select_lane(2, -1);
        assert_eq!(v.lane, 0);
        v.lane = 7;
        v.select_lane(3, 0);
        assert_eq!(v.lane, 2, "0 clamps");
    }

    #[test]
    fn show_and_zoom_at_keep_the_target_in_view() {
        let mut v = Viewport::default();
        v.show(400, 500, 1000);
        let (a, b) = v.window(1000);
        assert!(a <= 400 && b >= 500 && b - a <= 200, "({a}, {b})");
        v.fit();
        v.zoom_at(1000, 900, 1);
        let (a, b) = v.window(1000);
        assert_eq!((a, b), (450, 950), "900 stays under the same column (90% of the width)");
        v.reveal(10, 20, 1000);
        assert!(v.window(1000).0 <= 10);
    }
}
