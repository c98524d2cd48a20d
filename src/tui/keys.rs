//! The console's key vocabulary: crossterm key events reduced to what the state machine reacts to, so the
//! state can be driven (and tested) without a terminal.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// A key press the console understands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    /// A printable character (letters keep their case).
    Char(char),
    /// Ctrl-C: in raw mode the terminal sends it as a key, and it means quit.
    CtrlC,
    /// Enter / Return.
    Enter,
    /// Escape.
    Esc,
    /// Tab.
    Tab,
    /// Shift-Tab.
    BackTab,
    /// Backspace (prompt editing).
    Backspace,
    /// Arrow up.
    Up,
    /// Arrow down.
    Down,
    /// Arrow left.
    Left,
    /// Arrow right.
    Right,
    /// A function key F1..F12.
    F(u8),
}

/// Converts a crossterm key event; `None` for releases, repeats of modifiers and keys we do not use.
pub fn from_event(ev: KeyEvent) -> Option<Key> {
    if ev.kind == KeyEventKind::Release {
        return None;
    }
    let ctrl = ev.modifiers.contains(KeyModifiers::CONTROL);
    Some(match ev.code {
        KeyCode::Char('c') | KeyCode::Char('C') if ctrl => Key::CtrlC,
        KeyCode::Char(_) if ctrl => return None,
        KeyCode::Char(c) => Key::Char(c),
        KeyCode::Enter => Key::Enter,
        KeyCode::Esc => Key::Esc,
        KeyCode::Tab if ev.modifiers.contains(KeyModifiers::SHIFT) => Key::BackTab,
        KeyCode::Tab => Key::Tab,
        KeyCode::BackTab => Key::BackTab,
        KeyCode::Backspace => Key::Backspace,
        KeyCode::Up => Key::Up,
        KeyCode::Down => Key::Down,
        KeyCode::Left => Key::Left,
        KeyCode::Right => Key::Right,
        KeyCode::F(n) => Key::F(n),
        _ => return None,
    })
}

/// Every key binding as (keys, what it does), for the help view and the README.
pub const HELP: [(&str, &str); 24] = [
    ("r", "run a proof with the toggles shown"),
    ("R", "run N repeats (asks N)"),
    ("a", "ablate: baseline, then each toggle flipped alone"),
    ("1-8", "flip a toggle (Live view)"),
    ("b", "mark the selected / last run as baseline"),
    ("c", "compare baseline (or previous run) with the candidate / last run"),
    ("e", "export the selected run: chrome, csv, json, svg"),
    ("t", "next theme"),
    ("+ -", "zoom the timeline in / out"),
    ("0", "fit the whole run"),
    ("← → h l", "pan the timeline"),
    ("↑ ↓ j k", "select a lane (Live) or a run (History)"),
    ("Enter", "details of the phase at the centre of the lane (Live); compare (History)"),
    ("Tab S-Tab", "next / previous view"),
    ("F1", "Live view"),
    ("F2", "History view"),
    ("F3", "Compare view"),
    ("F4", "Ablation view"),
    ("F5 ?", "this help"),
    ("Esc", "close popup / prompt, back to Live"),
    ("x", "cancel the run in progress"),
    ("q", "quit (cancels a run in progress)"),
    ("Ctrl-C", "quit"),
    ("", "n/a toggles are dimmed: they do not apply to this backend"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ctrl_c_is_quit_and_releases_are_ignored() {
        let k = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(from_event(k), Some(Key::CtrlC));
        let mut r = KeyEvent::new(KeyCode::Char('r'), KeyModifiers::NONE);
        assert_eq!(from_event(r), Some(Key::Char('r')));
        r.kind = KeyEventKind::Release;
        assert_eq!(from_event(r), None);
        let t = KeyEvent::new(KeyCode::Tab, KeyModifiers::SHIFT);
        assert_eq!(from_event(t), Some(Key::BackTab));
    }
}
