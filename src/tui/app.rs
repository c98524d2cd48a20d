//! The event loop: terminal events, a source's messages and a redraw tick, multiplexed with `tokio::select!`.
//! Frames are drawn only when something changed (keys draw at once; streamed updates at most every tick).
//! [`Screen`] holds the terminal for it and gives it back when dropped.

use std::time::{Duration, Instant, SystemTime};

use crossterm::event::{Event, EventStream};
use futures_util::StreamExt;
use ratatui::backend::{Backend, CrosstermBackend};
use ratatui::Terminal;
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::time::MissedTickBehavior;

use super::keys;
use super::prefs::PrefsFile;
use super::source::Source;
use super::state::Msg;
use super::state::{App, Command, Level};
use super::term;
use super::view;

/// Redraw period while something changes (~12 frames per second).
const TICK: Duration = Duration::from_millis(80);

/// Time of day (UTC) for log lines.
pub fn clock() -> String {
    let secs = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    format!("{:02}:{:02}:{:02}", secs / 3600 % 24, secs / 60 % 60, secs % 60)
}

/// Writes the theme and toggles to the prefs file when they changed (a failure is one log line). Attached,
/// the toggles shown are the daemon's: only the theme is remembered.
fn remember(app: &mut App, prefs: &mut PrefsFile) {
    let theme = app.theme().name.clone();
    let r = if app.is_attached() {
        prefs.update_theme(&theme)
    } else {
        prefs.update(&theme, &app.sample.name, app.toggles)
    };
    if let Err(e) = r {
        app.push_log(Level::Warn, format!("settings not saved: {e}"));
    }
}

/// Runs until the user quits or the terminal goes away.
pub async fn run_loop<B: Backend>(
    terminal: &mut Terminal<B>,
    app: &mut App,
    source: &dyn Source,
    mut rx: UnboundedReceiver<Msg>,
    prefs: &mut PrefsFile,
) -> std::io::Result<()>
where
    B::Error: Into<std::io::Error>,
{
    let mut events = EventStream::new();
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(MissedTickBehavior::Skip);
    let mut started: Option<Instant> = None;
    let mut source_alive = true;
    let mut dirty = false;
    let mut last_draw = Instant::now();
    terminal.draw(|f| view::render(f, app)).map_err(Into::into)?;
    while !app.quit {
        let mut draw_now = false;
        tokio::select! {
            ev = events.next() => match ev {
                Some(Ok(Event::Key(k))) => {
                    if let Some(key) = keys::from_event(k) {
                        app.clock = clock();
                        match app.handle_key(key) {
                            Some(Command::Quit) => break,
                            Some(cmd) => source.send(cmd),
                            None => {}
                        }
                        remember(app, prefs);
                        draw_now = true;
                    }
                }
                Some(Ok(Event::Mouse(m))) => {
                    if let Some(m) = keys::from_mouse(m) {
                        app.clock = clock();
                        app.handle_mouse(m);
                        remember(app, prefs);
                        draw_now = true;
                    }
                }
                Some(Ok(Event::Resize(..))) => {
                    terminal.autoresize().map_err(Into::into)?;
                    draw_now = true;
                }
                Some(Ok(_)) => {}
                Some(Err(e)) => return Err(e),
                None => break,
            },
            msg = rx.recv(), if source_alive => match msg {
                Some(m) => {
                    app.clock = clock();
                    if matches!(m, Msg::Started { .. }) {
                        started = Some(Instant::now());
                    }
                    app.apply(m);
                    dirty = true;
                }
                None => {
                    source_alive = false;
                    app.push_log(Level::Error, source.gone());
                    draw_now = true;
                }
            },
            _ = tick.tick() => {
                if app.running() {
                    app.elapsed_us = started.map_or(0, |t| t.elapsed().as_micros() as u64);
                    dirty = true;
                }
            }
        }
        // Streamed updates wait for the tick (bounded frame rate); keys and resizes draw at once.
        if draw_now || (dirty && last_draw.elapsed() >= TICK) {
            terminal.draw(|f| view::render(f, app)).map_err(Into::into)?;
            last_draw = Instant::now();
            dirty = false;
        }
    }
    Ok(())
}

/// The terminal while the console runs: taken by [`Screen::enter`], given back on drop.
pub struct Screen {
    terminal: Terminal<CrosstermBackend<std::io::Stdout>>,
}

impl Screen {
    /// Takes the terminal (raw mode, alternate screen) with the panic hook that gives it back.
    pub fn enter() -> std::io::Result<Screen> {
        term::install_panic_hook();
        Ok(Screen { terminal: term::enter()? })
    }

    /// Runs the event loop on `rt` until the user quits.
    pub fn run(
        &mut self,
        rt: &tokio::runtime::Runtime,
        app: &mut App,
        source: &dyn Source,
        rx: UnboundedReceiver<Msg>,
        prefs: &mut PrefsFile,
    ) -> std::io::Result<()> {
        rt.block_on(run_loop(&mut self.terminal, app, source, rx, prefs))
    }

    /// Draws one frame now (a last word before leaving).
    pub fn draw(&mut self, app: &App) {
        let _ = self.terminal.draw(|f| view::render(f, app));
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        term::leave();
    }
}
