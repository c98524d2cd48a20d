//! Keys → state changes and commands (the help view lists the same keys).

use super::daemon::Link;
use super::nav::Move;
use super::timeline::event_at_centre;
use super::{App, Command, Level, Panel, Prompt, View};
use crate::tui::keys::Key;
use crate::vocab::Toggle;

/// Largest repeat count the prompt accepts.
pub const MAX_REPEATS: usize = 1000;

/// Longest filter the prompt accepts.
const MAX_FILTER: usize = 60;

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
            Key::Char('?') | Key::F(5) => self.set_view(View::Help),
            Key::F(n @ 1..=4) => self.set_view(View::ALL[usize::from(n - 1)]),
            Key::Tab => self.set_view(cycle(self.view, 1)),
            Key::BackTab => self.set_view(cycle(self.view, -1)),
            Key::Esc => self.escape(),
            Key::Char('t') => {
                self.theme = (self.theme + 1) % self.themes.themes.len().max(1);
                let name = self.theme().name.clone();
                self.push_log(Level::Info, format!("theme {name}"));
            }
            Key::Char('r') if self.is_attached() => return self.submit(),
            Key::Char('R' | 'a') if self.is_attached() => self.push_log(
                Level::Warn,
                "attached: the daemon proves each job once with its own toggles; r submits one job (R and a run in-process only)",
            ),
            Key::Char('r') => return self.start(Command::Run { toggles: self.toggles, repeats: 1 }),
            Key::Char('R') => {
                if !self.busy() {
                    self.prompt = Some(Prompt::Repeats(String::new()));
                }
            }
            Key::Char('a') => {
                let cmd = Command::Ablate { toggles: self.toggles, repeats: self.ablate_repeats() };
                return self.start(cmd);
            }
            Key::Char('x') => {
                if self.running() {
                    let what = match self.attached.as_ref().and_then(|a| a.following.clone()) {
                        Some(job) => format!("cancelling job {job} on the daemon: stops after the current phase"),
                        None => "cancelling: stops after the current phase".to_string(),
                    };
                    self.push_log(Level::Warn, what);
                    return Some(Command::Cancel);
                }
            }
            Key::Char('E') => return self.export(),
            Key::Char('e') => self.maximized = !self.maximized,
            Key::Char('f') if self.view == View::Live => self.focus_next(),
            Key::Char('/') if matches!(self.view, View::Live | View::History) => {
                let current =
                    if self.view == View::History { &self.history_filter } else { &self.lane_filter };
                self.prompt = Some(Prompt::Filter(current.clone()));
            }
            Key::Char('d') if self.view == View::History => self.ask_delete(),
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
                _ => {
                    if let Some(m) = Move::of(key, self.drawn.get().page) {
                        self.scroll(self.focused(), m);
                    }
                }
            },
        }
        None
    }

    /// `r` attached: the sample goes to the daemon's queue (a job runs beside the ones running there).
    fn submit(&mut self) -> Option<Command> {
        let a = self.attached.as_ref()?;
        if !matches!(a.link, Link::Up) {
            self.push_log(Level::Warn, "not connected to the daemon: r waits until it is back");
            return None;
        }
        let sample = a.submit.clone();
        self.push_log(Level::Info, format!("submitting {sample} to the daemon"));
        self.set_view(View::Live);
        Some(Command::Run { toggles: self.toggles, repeats: 1 })
    }

    fn set_view(&mut self, v: View) {
        self.view = v;
        self.maximized = false;
    }

    /// Esc: restore a maximized panel, else clear the filter of this view, else back to Live.
    fn escape(&mut self) {
        if self.maximized {
            self.maximized = false;
        } else if self.view == View::History && !self.history_filter.is_empty() {
            self.history_filter.clear();
        } else if self.view == View::Live && !self.lane_filter.is_empty() {
            self.lane_filter.clear();
        } else if self.view == View::Live {
            self.cursor = None;
        } else {
            self.view = View::Live;
        }
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
        self.set_view(View::Live);
        Some(cmd)
    }

    fn prompt_key(&mut self, key: Key) -> Option<Command> {
        let prompt = self.prompt.take()?;
        match (prompt, key) {
            (_, Key::Esc) => {}
            (Prompt::Repeats(mut buf), Key::Char(c)) if c.is_ascii_digit() && buf.len() < 4 => {
                buf.push(c);
                self.prompt = Some(Prompt::Repeats(buf));
            }
            (Prompt::Repeats(text), Key::Enter) => match text.parse::<usize>() {
                Ok(n) if (1..=MAX_REPEATS).contains(&n) => {
                    self.repeats = n;
                    self.repeats_set = true;
                    return self.start(Command::Run { toggles: self.toggles, repeats: n });
                }
                _ => self.push_log(Level::Error, format!("repeats: `{text}` is not 1..{MAX_REPEATS}")),
            },
            (Prompt::Filter(mut buf), Key::Char(c)) if buf.chars().count() < MAX_FILTER => {
                buf.push(c);
                self.prompt = Some(Prompt::Filter(buf));
                self.apply_filter();
            }
            (Prompt::Filter(_), Key::Enter) => {}
            (Prompt::Repeats(mut buf), Key::Backspace) => {
                buf.pop();
                self.prompt = Some(Prompt::Repeats(buf));
            }
            (Prompt::Filter(mut buf), Key::Backspace) => {
                buf.pop();
                self.prompt = Some(Prompt::Filter(buf));
                self.apply_filter();
            }
            (Prompt::Delete(id), Key::Char('y' | 'Y')) => {
                self.push_log(Level::Info, format!("deleting run {id}"));
                return Some(Command::Delete(id));
            }
            (Prompt::Delete(_), _) => self.push_log(Level::Info, "delete: kept"),
            (p, _) => self.prompt = Some(p),
        }
        None
    }

    /// Applies the filter prompt's text to this view's filter as it is typed, keeping a History selection.
    fn apply_filter(&mut self) {
        let Some(Prompt::Filter(text)) = &self.prompt else { return };
        if self.view == View::History {
            self.history_filter = text.clone();
            let rows = self.history_rows();
            if !rows.contains(&self.history_sel) {
                if let Some(&last) = rows.last() {
                    self.history_sel = last;
                }
            }
        } else {
            self.lane_filter = text.clone();
            self.viewport.select_lane(self.timeline_lanes().len(), 0);
        }
    }

    fn ask_delete(&mut self) {
        match self.runs.get(self.history_sel).filter(|_| self.history_rows().contains(&self.history_sel)) {
            Some(r) => self.prompt = Some(Prompt::Delete(r.id.clone())),
            None => self.push_log(Level::Warn, "no run selected"),
        }
    }

    /// The run `b`/`E` act on: the History cursor in History, else the run shown.
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
                for i in [b, c] {
                    if let Some(line) = self.runs.get(i).and_then(|r| r.incomplete_line()) {
                        self.push_log(Level::Warn, format!("compare: {line}"));
                    }
                }
                self.scroll.compare = 0;
                self.set_view(View::Compare);
            }
            None => self.push_log(
                Level::Warn,
                "compare needs a baseline: an earlier run of the same sample and backend, or b on any run",
            ),
        }
    }

    fn live_key(&mut self, key: Key) {
        let (_, total) = self.timeline_events();
        match key {
            // 1…9 flip toggles 1…9, 0 the tenth (the keyboard's number row), ! @ # $ % (shift-1 to shift-5) the next five.
            Key::Char(c) if Toggle::for_key(c).is_some() => {
                if let Some(t) = Toggle::for_key(c) {
                    self.flip(t as usize)
                }
            }
            Key::Char('+') | Key::Char('=') => self.viewport.zoom_in(total),
            Key::Char('-') => self.viewport.zoom_out(total),
            Key::Char('Z') => self.viewport.fit(),
            Key::Char('z') => self.zoom_to_cursor(),
            Key::Char('h') => self.viewport.pan(total, -1),
            Key::Char('l') => self.viewport.pan(total, 1),
            Key::Enter => {
                self.details = match self.cursor_event() {
                    Some(e) => Some(e.clone()),
                    None => {
                        let (events, _) = self.timeline_events();
                        let lane = self.selected_lane();
                        let w = self.viewport.window(total);
                        lane.and_then(|l| event_at_centre(&events, &l, w)).cloned()
                    }
                };
            }
            _ if self.focus == Panel::Timeline => match key {
                Key::Left => self.step_block(-1),
                Key::Right => self.step_block(1),
                Key::Up | Key::Char('k') => self.step_lane(-1),
                Key::Down | Key::Char('j') => self.step_lane(1),
                Key::Home | Key::Char('g') => self.step_lane(-(self.viewport.lane as i32)),
                Key::End | Key::Char('G') => self.step_lane(i32::MAX / 2),
                _ => {}
            },
            _ => {
                if let Some(m) = Move::of(key, self.drawn.get().page) {
                    self.scroll(self.focus, m);
                }
            }
        }
    }

    fn history_key(&mut self, key: Key) {
        if key == Key::Enter {
            self.candidate = self.runs.get(self.history_sel).map(|r| r.id.clone());
            self.open_compare();
        } else if let Some(m) = Move::of(key, self.drawn.get().page) {
            self.scroll(Panel::History, m);
        }
    }

    /// Flips toggle `i` of the panel (keys 1…9, 0, ! — `TOGGLE_KEYS`), unless it does not apply to this backend
    /// or the toggles shown are a daemon's.
    pub fn flip(&mut self, i: usize) {
        let Some(&t) = Toggle::ALL.get(i) else { return };
        let name = t.id().to_uppercase();
        if self.is_attached() {
            let msg = format!(
                "{name}: attached, the toggles shown are the daemon's (its config's `toggles`); set them there and restart it"
            );
            self.push_log(Level::Warn, msg);
            return;
        }
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
