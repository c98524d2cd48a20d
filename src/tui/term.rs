//! The terminal while the console holds it: raw mode and the alternate screen taken and given back, and
//! the panic hook that gives it back on the console's thread and keeps other threads' panic messages for
//! the log.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, Once, OnceLock};

use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use crossterm::{cursor, execute, terminal};
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;

/// Whether the console can open here: it needs a terminal on stdout.
pub fn stdout_is_terminal() -> bool {
    std::io::stdout().is_terminal()
}

/// Set while the console owns the terminal (raw mode, alternate screen).
static ACTIVE: AtomicBool = AtomicBool::new(false);
/// The console's thread: a panic there restores the terminal; elsewhere it becomes a failed run.
static UI_THREAD: OnceLock<std::thread::ThreadId> = OnceLock::new();
/// The message of the last panic off the console thread, for the log.
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

/// The last panic message caught off the console thread (worker, prover), taken once.
pub fn last_panic() -> Option<String> {
    crate::util::lock(&LAST_PANIC).take()
}

/// Takes the terminal: raw mode, the alternate screen, mouse capture, the cursor hidden.
pub fn enter() -> std::io::Result<Terminal<CrosstermBackend<std::io::Stdout>>> {
    terminal::enable_raw_mode()?;
    ACTIVE.store(true, Ordering::SeqCst);
    let mut out = std::io::stdout();
    if let Err(e) = execute!(out, terminal::EnterAlternateScreen, EnableMouseCapture, cursor::Hide) {
        leave();
        return Err(e);
    }
    Terminal::new(CrosstermBackend::new(out)).inspect_err(|_| leave())
}

/// Gives the terminal back: leaves the alternate screen, shows the cursor, ends raw mode (idempotent).
pub fn leave() {
    if ACTIVE.swap(false, Ordering::SeqCst) {
        let _ =
            execute!(std::io::stdout(), DisableMouseCapture, terminal::LeaveAlternateScreen, cursor::Show);
        let _ = terminal::disable_raw_mode();
    }
}

/// Panic hook: on the console thread, restore the terminal, then report as usual; on other threads while
/// the console is up, keep the message for the log (the worker turns the panic into a failed run) instead
/// of printing over the screen.
pub fn install_panic_hook() {
    static ONCE: Once = Once::new();
    let _ = UI_THREAD.set(std::thread::current().id());
    ONCE.call_once(|| {
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let on_ui = UI_THREAD.get() == Some(&std::thread::current().id());
            if ACTIVE.load(Ordering::SeqCst) && !on_ui {
                *crate::util::lock(&LAST_PANIC) = Some(info.to_string());
                return;
            }
            leave();
            prev(info);
        }));
    });
}
