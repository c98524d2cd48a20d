//! The console's key vocabulary: crossterm key events reduced to what the state machine reacts to, so the
//! state can be driven (and tested) without a terminal.

use crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};

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
    /// Page up.
    PageUp,
    /// Page down.
    PageDown,
    /// Home.
    Home,
    /// End.
    End,
}

/// What a mouse did, in terminal cells (the view maps the cell to what is drawn there).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mouse {
    /// The left button went down at (column, row).
    Down(u16, u16),
    /// The mouse moved with the left button down, now at (column, row).
    Drag(u16, u16),
    /// The left button went up.
    Up,
    /// The wheel turned up (away from the user) at (column, row).
    WheelUp(u16, u16),
    /// The wheel turned down at (column, row).
    WheelDown(u16, u16),
}

/// Converts a crossterm mouse event; `None` for moves without a button and other buttons.
pub fn from_mouse(ev: MouseEvent) -> Option<Mouse> {
    let (x, y) = (ev.column, ev.row);
    Some(match ev.kind {
        MouseEventKind::Down(MouseButton::Left) => Mouse::Down(x, y),
        MouseEventKind::Drag(MouseButton::Left) => Mouse::Drag(x, y),
        MouseEventKind::Up(MouseButton::Left) => Mouse::Up,
        MouseEventKind::ScrollUp => Mouse::WheelUp(x, y),
        MouseEventKind::ScrollDown => Mouse::WheelDown(x, y),
        _ => return None,
    })
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
        KeyCode::PageUp => Key::PageUp,
        KeyCode::PageDown => Key::PageDown,
        KeyCode::Home => Key::Home,
        KeyCode::End => Key::End,
        _ => return None,
    })
}

/// Every key binding as (keys, what it does), for the help view and the README (whose key table and the notes
/// under it, the entries without a key, a test keeps equal to these).
pub const HELP: [(&str, &str); 34] = [
    ("r", "run a proof with the toggles shown (attached: submit the sample to the daemon's queue)"),
    ("R", "run N repeats (asks N; in-process only)"),
    (
        "a",
        "ablate: baseline and each toggle flipped alone, interleaved rounds (R repeats, else 3; in-process only)",
    ),
    (
        "0-9 !@#$%^&",
        "flip a toggle for the next run (0 = the tenth, ! @ # $ % ^ & = the eleventh to seventeenth; Live view; n/a ones are dimmed and not flipped; attached, the daemon's are shown and not flipped)",
    ),
    ("b", "mark the selected / shown run as baseline"),
    ("c", "compare baseline (or the previous run of the same sample) with the selected / last run"),
    ("E", "export the selected run: chrome, csv, json, svg"),
    ("d", "delete the selected run (History; asks y/n)"),
    ("/", "filter runs (History: sample, toggle, backend) or lanes (Live); Esc clears"),
    ("t", "next theme (remembered, like the toggles)"),
    ("f", "focus the next panel (Live: timeline, phases, log); a click focuses too"),
    ("e", "maximize the focused panel / restore"),
    ("↑ ↓ j k", "timeline: lane above / below; tables and log: scroll; History: select"),
    ("PgUp PgDn", "scroll a page"),
    ("g G Home End", "top / bottom"),
    ("← →", "timeline: previous / next block on the lane"),
    ("h l", "pan the timeline (or drag it with the mouse)"),
    ("+ - Z", "zoom in / out / fit (or the mouse wheel over the timeline)"),
    ("z", "zoom to the block under the cursor"),
    ("Enter", "details of the block under the cursor (Live); compare (History)"),
    ("Tab S-Tab", "next / previous view (or click a tab)"),
    ("F1", "Live view"),
    ("F2", "History view"),
    ("F3", "Compare view"),
    ("F4", "Ablation view"),
    ("F5 ?", "this help"),
    ("Esc", "close popup / prompt / maximized panel, back to Live"),
    ("x", "cancel the run in progress (after its current phase; attached: the daemon's job shown)"),
    ("q", "quit (cancels a run in progress; attached: detach, the daemon keeps proving)"),
    ("Ctrl-C", "quit"),
    ("", "verdicts need 3 repeats a side: with fewer, Δ shows marked n=1 or n=2"),
    ("", "rows under 1 ms or 1% of the wall get no verdict (<floor); other shapes none (shape)"),
    ("", "wall = the proving wall (median of repeats); setup (params_gen, srs_load) is outside it"),
    ("", "attached (--attach ADDR), the Live view follows the daemon's newest running job"),
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

    /// The README's key table as [`HELP`] writes it: a row per key (each key in backticks), then the entries
    /// without a key as one paragraph of sentences.
    fn readme_table() -> String {
        let mut out = String::from("| key | does |\n|---|---|\n");
        for (keys, what) in HELP.iter().filter(|(k, _)| !k.is_empty()) {
            let keys: Vec<String> = keys.split(' ').map(|k| format!("`{k}`")).collect();
            out.push_str(&format!("| {} | {what} |\n", keys.join(" ")));
        }
        let notes: Vec<String> = HELP
            .iter()
            .filter(|(k, _)| k.is_empty())
            .map(|(_, what)| {
                let mut c = what.chars();
                c.next().map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
            })
            .collect();
        out.push('\n');
        out.push_str(&notes.join(". "));
        out.push_str(".\n");
        out
    }

    /// The README's Console section stays true to the keys the console binds: its table is [`HELP`].
    #[test]
    fn readme_key_table_is_the_help() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
        let readme = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let want = readme_table();
        assert!(
            readme.contains(&want),
            "README.md's key table differs from tui::keys::HELP; it should read:\n{want}"
        );
    }
}
