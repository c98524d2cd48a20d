//! Keys → state changes and commands (the help view lists the same keys).

use super::timeline::{event_at_centre, lanes_of};
use super::{App, Command, Level, View};
use crate::tui::keys::Key;
use crate::vocab::Toggle;

/// Largest repeat count the prompt accepts.
pub const MAX_REPEATS: usize = 1000;

impl App {
    /// Handles one key press; returns what the app loop must send to the worker (or `Quit`).
    pub fn handle_key(&mut self, key: Key) -> Option<Command> {
        if matches!(key, Key::CtrlC) {
            self.quit = true;
            return Some(Command::Quit);
        }
        if self.prompt.is_some() {
            return self.prompt_key(key);
        }
        if self.details.is_some() {
            match key {
                Key::Char('q') => {}
                Key::Esc | Key::Enter => {
                    self.details = None;
                    return None;
                }
                _ => return None,
            }
        }
        match key {
            Key::Char('q') => {
                self.quit = true;
                return Some(Command::Quit);
            }
            Key::Char('?') | Key::F(5) => self.view = View::Help,
            Key::F(n @ 1..=4) => self.view = View::ALL[usize::from(n - 1)],
            Key::Tab => self.view = cycle(self.view, 1),
            Key::BackTab => self.view = cycle(self.view, -1),
            Key::Esc => self.view = View::Live,
            Key::Char('t') => {
                self.theme = (self.theme + 1) % self.themes.themes.len().max(1);
                let name = self.theme().name.clone();
                self.push_log(Level::Info, format!("theme {name}"));
            }
            Key::Char('r') => return self.start(Command::Run { toggles: self.toggles, repeats: 1 }),
            Key::Char('R') => {
                if self.busy() {
                    return None;
                }
                self.prompt = Some(String::new());
            }
            Key::Char('a') => {
                let cmd = Command::Ablate { toggles: self.toggles, repeats: self.repeats.max(1) };
                return self.start(cmd);
            }
            Key::Char('x') => {
                if self.running() {
                    self.push_log(Level::Warn, "cancelling: stops after the current phase");
                    return Some(Command::Cancel);
                }
            }
            Key::Char('e') => return self.export(),
            Key::Char('b') => self.mark_baseline(),
            Key::Char('c') => {
                if self.view == View::History {
                    self.candidate = self.runs.get(self.history_sel).map(|r| r.id.clone());
                } else {
                    self.candidate = None;
                }
                self.open_compare();
            }
            _ => match self.view {
                View::Live => self.live_key(key),
                View::History => self.history_key(key),
                _ => {}
            },
        }
        None
    }

    /// Whether a new job must wait; logs why.
    fn busy(&mut self) -> bool {
        if self.running() {
            self.push_log(Level::Warn, "a run is in progress: wait for it, or x to cancel");
            return true;
        }
        false
    }

    fn start(&mut self, cmd: Command) -> Option<Command> {
        if self.busy() {
            return None;
        }
        self.view = View::Live;
        Some(cmd)
    }

    fn prompt_key(&mut self, key: Key) -> Option<Command> {
        let buf = self.prompt.as_mut()?;
        match key {
            Key::Char(c) if c.is_ascii_digit() && buf.len() < 4 => buf.push(c),
            Key::Backspace => {
                buf.pop();
            }
            Key::Esc => self.prompt = None,
            Key::Enter => {
                let text = self.prompt.take().unwrap_or_default();
                match text.parse::<usize>() {
                    Ok(n) if (1..=MAX_REPEATS).contains(&n) => {
                        self.repeats = n;
                        return self.start(super::Command::Run { toggles: self.toggles, repeats: n });
                    }
                    _ => self.push_log(Level::Error, format!("repeats: `{text}` is not 1..{MAX_REPEATS}")),
                }
            }
            _ => {}
        }
        None
    }

    /// The run `b`/`e` act on: the History cursor in History, else the run shown.
    fn selected_run(&self) -> Option<usize> {
        match self.view {
            View::History => (self.history_sel < self.runs.len()).then_some(self.history_sel),
            _ => self.shown,
        }
    }

    fn export(&mut self) -> Option<Command> {
        match self.selected_run().and_then(|i| self.runs.get(i)) {
            Some(r) => Some(Command::Export(Box::new(r.clone()))),
            None => {
                self.push_log(Level::Warn, "nothing to export yet: r runs a proof");
                None
            }
        }
    }

    fn mark_baseline(&mut self) {
        match self.selected_run() {
            Some(i) => {
                let id = self.runs[i].id.clone();
                self.push_log(Level::Info, format!("baseline: run #{} ({id})", i + 1));
                self.baseline = Some(id);
            }
            None => self.push_log(Level::Warn, "no run to mark as baseline yet"),
        }
    }

    fn open_compare(&mut self) {
        match self.compare_pair() {
            Some((b, c)) => {
                self.push_log(Level::Info, format!("compare: run #{} (base) vs run #{}", b + 1, c + 1));
                self.view = View::Compare;
            }
            None => self.push_log(Level::Warn, "compare needs two runs"),
        }
    }

    fn live_key(&mut self, key: Key) {
        let (events, total) = self.timeline_events();
        let lanes = lanes_of(events.iter().copied());
        match key {
            Key::Char(c @ '1'..='8') => self.flip(usize::from(c as u8 - b'1')),
            Key::Char('+') | Key::Char('=') => self.viewport.zoom_in(total),
            Key::Char('-') => self.viewport.zoom_out(total),
            Key::Char('0') => self.viewport.fit(),
            Key::Left | Key::Char('h') => self.viewport.pan(total, -1),
            Key::Right | Key::Char('l') => self.viewport.pan(total, 1),
            Key::Up | Key::Char('k') => self.viewport.select_lane(lanes.len(), -1),
            Key::Down | Key::Char('j') => self.viewport.select_lane(lanes.len(), 1),
            Key::Enter => {
                let lane = lanes.get(self.viewport.lane.min(lanes.len().saturating_sub(1)));
                let hit = lane.and_then(|l| event_at_centre(&events, l, self.viewport.window(total)));
                self.details = hit.cloned();
            }
            _ => {}
        }
    }

    fn history_key(&mut self, key: Key) {
        let last = self.runs.len().saturating_sub(1);
        match key {
            Key::Up | Key::Char('k') => self.history_sel = self.history_sel.min(last).saturating_sub(1),
            Key::Down | Key::Char('j') => self.history_sel = (self.history_sel + 1).min(last),
            Key::Enter => {
                self.candidate = self.runs.get(self.history_sel).map(|r| r.id.clone());
                self.open_compare();
            }
            _ => {}
        }
    }

    /// Flips toggle `i` of the panel (1..8 keys), unless it does not apply to this backend.
    pub fn flip(&mut self, i: usize) {
        let Some(&t) = Toggle::ALL.get(i) else { return };
        let name = t.id().to_uppercase();
        if let Some(why) = t.not_applicable(self.backend.is_gpu()) {
            let msg = format!("{name}: {why}, no effect on the {} backend", self.backend.name);
            self.push_log(Level::Warn, msg);
            return;
        }
        let on = !self.toggles.on(t);
        self.toggles.set(t, on);
        let state = if on { "on" } else { "off" };
        self.push_log(Level::Info, format!("{name} {state} for the next run"));
    }
}

fn cycle(v: View, dir: i32) -> View {
    let n = View::ALL.len() as i32;
    let i = View::ALL.iter().position(|x| *x == v).unwrap_or(0) as i32;
    View::ALL[((i + dir).rem_euclid(n)) as usize]
}
