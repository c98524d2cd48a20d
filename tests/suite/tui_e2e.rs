//! End to end: the real `cuzk tui` in a pseudo-terminal, driven by keys as a person would.
//!
//! Run, flip a toggle, run again, compare, export, quit: every wait is bounded and a failure prints the screen
//! as the vt100 emulator sees it. The data and params-cache folders are fresh temporary folders, so the first
//! run also generates the sample's params (seconds for porep-tiny in release).

#![cfg(unix)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use expectrl::{Session, WaitStatus};

const COLS: u16 = 120;
const ROWS: u16 = 40;
/// Starting the console: backend selection, run store, first frame.
const START: Duration = Duration::from_secs(60);
/// A proof of porep-tiny, params generation on first use included, on a slow shared machine.
const RUN: Duration = Duration::from_secs(240);
/// A reaction to one key press.
const KEY: Duration = Duration::from_secs(20);
/// Leaving the alternate screen and exiting after `q`.
const QUIT: Duration = Duration::from_secs(30);
/// Leave-alternate-screen (DECRST 1049) and its enter counterpart.
const LEAVE_ALT: &[u8] = b"\x1b[?1049l";
const ENTER_ALT: &[u8] = b"\x1b[?1049h";
/// Hide / show the cursor (DECTCEM).
const HIDE_CURSOR: &[u8] = b"\x1b[?25l";
const SHOW_CURSOR: &[u8] = b"\x1b[?25h";

/// A fresh folder under the system temp dir, removed on success and kept (path printed) when the test fails.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
        let path = std::env::temp_dir().join(format!("cuzk-e2e-{tag}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&path).unwrap_or_else(|e| panic!("{}: cannot create: {e}", path.display()));
        TempDir(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("kept for inspection: {}", self.0.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// The console under test: the pty session, a vt100 emulator fed with everything it printed, and the raw bytes.
struct Console {
    session: Session,
    screen: vt100::Parser,
    raw: Vec<u8>,
    /// Set once the pty reports end of output (the child closed it / exited).
    eof: bool,
    /// The exit status, once reaped.
    exit: Option<WaitStatus>,
}

/// A wait's check: `Ok(true)` done, `Ok(false)` not yet, `Err(why)` give up at once.
type Check<'a> = Box<dyn Fn(&Console) -> Result<bool, String> + 'a>;

/// What a wait looks for: a description for the failure message and a check that may also abort the wait.
struct Cond<'a> {
    what: String,
    check: Check<'a>,
    /// Whether the console may exit before this holds (only for waiting on the exit itself).
    exit_ok: bool,
}

impl<'a> Cond<'a> {
    /// A condition that fails the wait if the console exits first.
    fn new(what: impl Into<String>, check: impl Fn(&Console) -> Result<bool, String> + 'a) -> Cond<'a> {
        Cond { what: what.into(), check: Box::new(check), exit_ok: false }
    }
}

/// The screen shows `text` somewhere.
fn screen_contains(text: &str) -> Cond<'_> {
    Cond::new(format!("the screen to show {text:?}"), move |c| Ok(c.text().contains(text)))
}

/// The screen shows every one of `texts`.
fn screen_contains_all<'a>(texts: &'a [&'a str]) -> Cond<'a> {
    Cond::new(format!("the screen to show all of {texts:?}"), move |c| {
        let s = c.text();
        Ok(texts.iter().all(|t| s.contains(t)))
    })
}

/// Run `n` finished (its log line is on screen); fails at once if the log says it failed or did not verify.
fn run_finished(n: usize) -> Cond<'static> {
    let done = format!("run #{n} finished");
    let failed = [format!("run #{n} failed"), format!("run #{n} cancelled"), "worker stopped".to_string()];
    Cond::new(format!("{done:?} in the log"), move |c| {
        let s = c.text();
        if let Some(f) = failed.iter().find(|f| s.contains(f.as_str())) {
            return Err(format!("the log says {f:?}"));
        }
        if s.contains("verify FAILED") {
            return Err("the log says a proof failed verification".into());
        }
        Ok(s.contains(&done))
    })
}

/// Most of the screen is drawn on background `bg`.
fn background_is(bg: vt100::Color) -> Cond<'static> {
    Cond::new(format!("the background to be {bg:?}"), move |c| Ok(c.main_bg() == bg))
}

/// The child has exited (and been reaped).
fn exited() -> Cond<'static> {
    Cond { exit_ok: true, ..Cond::new("the process to exit", |c| Ok(c.exit.is_some())) }
}

impl Console {
    /// Starts `cuzk` with `args` in a 120×40 pty, from the crate root (samples are relative paths there).
    fn spawn(args: &[&str], envs: &[(&str, &Path)]) -> Console {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_cuzk"));
        cmd.args(args).current_dir(env!("CARGO_MANIFEST_DIR")).env("TERM", "xterm-256color");
        cmd.env_remove("CUZK_TIMING").env_remove("NO_COLOR");
        for (k, v) in envs {
            cmd.env(k, v);
        }
        let mut session = Session::spawn(cmd).unwrap_or_else(|e| panic!("cannot spawn cuzk in a pty: {e}"));
        session
            .get_process_mut()
            .set_window_size(COLS, ROWS)
            .unwrap_or_else(|e| panic!("cannot size the pty to {COLS}x{ROWS}: {e}"));
        Console {
            session,
            screen: vt100::Parser::new(ROWS, COLS, 0),
            raw: Vec::new(),
            eof: false,
            exit: None,
        }
    }

    /// Reads everything the child has printed so far into the emulator; notes end of output and exit.
    fn pump(&mut self) {
        let mut buf = [0u8; 16 * 1024];
        while !self.eof {
            match self.session.try_read(&mut buf) {
                Ok(0) => self.eof = true,
                Ok(n) => {
                    self.screen.process(&buf[..n]);
                    self.raw.extend_from_slice(&buf[..n]);
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                // Linux reports EIO on the master once the child side is closed.
                Err(_) => self.eof = true,
            }
        }
        if self.exit.is_none() {
            match self.session.get_process().status() {
                Ok(WaitStatus::StillAlive) => {}
                Ok(s) => self.exit = Some(s),
                Err(e) => panic!("waitpid on the console failed: {e}\n{}", self.dump()),
            }
        }
    }

    /// The screen as text, one line per row.
    fn text(&self) -> String {
        self.screen.screen().contents()
    }

    /// The screen framed with row numbers, plus the process state: what every failure prints.
    fn dump(&self) -> String {
        let mut out = format!(
            "--- screen ({}x{}, background {:?}, alternate screen: {}, exit: {:?}, {} bytes read) ---\n",
            self.screen.screen().size().1,
            self.screen.screen().size().0,
            self.main_bg(),
            self.screen.screen().alternate_screen(),
            self.exit,
            self.raw.len()
        );
        for (i, row) in self.screen.screen().rows(0, self.screen.screen().size().1).enumerate() {
            let _ = writeln!(out, "{i:>2}|{}", row.trim_end());
        }
        out.push_str("--- end of screen ---");
        out
    }

    /// Waits (bounded) until `cond` holds, reading output meanwhile; panics with the screen otherwise.
    fn wait_for(&mut self, cond: Cond<'_>, timeout: Duration) {
        let start = Instant::now();
        loop {
            self.pump();
            match (cond.check)(self) {
                Ok(true) => return,
                Ok(false) => {}
                Err(why) => panic!("while waiting for {}: {why}\n{}", cond.what, self.dump()),
            }
            if start.elapsed() > timeout {
                panic!("timed out after {:?} waiting for {}\n{}", timeout, cond.what, self.dump());
            }
            if self.exit.is_some() && !cond.exit_ok {
                panic!("the console exited while waiting for {}\n{}", cond.what, self.dump());
            }
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    /// Resizes the pty (the child gets SIGWINCH) and starts a blank emulator of the new size (still on the
    /// alternate screen if it was), so what the screen shows afterwards was drawn after the resize.
    fn resize(&mut self, cols: u16, rows: u16) {
        self.pump();
        if let Err(e) = self.session.get_process_mut().set_window_size(cols, rows) {
            panic!("cannot resize the pty to {cols}x{rows}: {e}\n{}", self.dump());
        }
        let alternate = self.screen.screen().alternate_screen();
        self.screen = vt100::Parser::new(rows, cols, 0);
        if alternate {
            self.screen.process(ENTER_ALT);
        }
    }

    /// Types `keys` (raw bytes, as a terminal sends them).
    fn press(&mut self, keys: &str) {
        if let Err(e) = self.session.send(keys) {
            panic!("cannot send {keys:?} to the console: {e}\n{}", self.dump());
        }
    }

    /// The background color of most cells: the theme's `bg` as drawn.
    fn main_bg(&self) -> vt100::Color {
        let screen = self.screen.screen();
        let (rows, cols) = screen.size();
        let mut counts: Vec<(vt100::Color, usize)> = Vec::new();
        for row in 0..rows {
            for col in 0..cols {
                let Some(bg) = screen.cell(row, col).map(|c| c.bgcolor()) else { continue };
                match counts.iter_mut().find(|(c, _)| *c == bg) {
                    Some((_, n)) => *n += 1,
                    None => counts.push((bg, 1)),
                }
            }
        }
        counts.into_iter().max_by_key(|&(_, n)| n).map_or(vt100::Color::Default, |(c, _)| c)
    }

    /// The screen line that contains `text` (trimmed), for assertions on a whole log line.
    fn line_with(&self, text: &str) -> Option<String> {
        self.text().lines().find(|l| l.contains(text)).map(|l| l.trim().to_string())
    }
}

/// Where `needle` last occurs in `hay`.
fn rfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).rposition(|w| w == needle)
}

/// Exit code 0, and the terminal handed back: the alternate screen left after its last enter, the cursor shown
/// after it was last hidden.
fn assert_exited_cleanly(tui: &mut Console) {
    tui.wait_for(exited(), QUIT);
    tui.pump();
    let status = tui.exit;
    assert!(matches!(status, Some(WaitStatus::Exited(_, 0))), "exit status {status:?}\n{}", tui.dump());
    let (enter, leave) = (rfind(&tui.raw, ENTER_ALT), rfind(&tui.raw, LEAVE_ALT));
    assert!(enter.is_some(), "the console never entered the alternate screen");
    assert!(leave > enter, "the alternate screen was not left after the last enter ({enter:?}, {leave:?})");
    assert!(!tui.screen.screen().alternate_screen(), "still on the alternate screen\n{}", tui.dump());
    let (hide, show) = (rfind(&tui.raw, HIDE_CURSOR), rfind(&tui.raw, SHOW_CURSOR));
    assert!(hide.is_none() || show > hide, "the cursor was left hidden ({hide:?}, {show:?})");
}

/// The export files of `dir` whose name ends with `suffix`.
fn files_ending(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut v: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.ends_with(suffix)))
        .collect();
    v.sort();
    v
}

/// The four export formats of one run, as (chrome, csv, json record, svg).
fn exports(dir: &Path) -> Option<(PathBuf, PathBuf, PathBuf, PathBuf)> {
    let chrome = files_ending(dir, ".trace.json").pop()?;
    let record =
        files_ending(dir, ".json").into_iter().find(|p| !p.to_string_lossy().ends_with(".trace.json"))?;
    Some((chrome, files_ending(dir, ".csv").pop()?, record, files_ending(dir, ".svg").pop()?))
}

/// Reads a file that must exist and be non-empty.
fn read(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(!text.trim().is_empty(), "{} is empty", path.display());
    text
}

#[test]
fn run_toggle_run_compare_export_quit() {
    let home = TempDir::new("home");
    let cache = TempDir::new("cache");
    // A user theme (picked with `t`) and a broken one (reported in the log, skipped).
    let themes = home.0.join("themes");
    std::fs::create_dir_all(&themes).unwrap_or_else(|e| panic!("{}: {e}", themes.display()));
    let mine = "name = \"mine\"\n[colors]\nbg = \"#102030\"\n";
    std::fs::write(themes.join("mine.toml"), mine).unwrap_or_else(|e| panic!("mine.toml: {e}"));
    let broken = "[colors]\nfg = \"blurple\"\n";
    std::fs::write(themes.join("broken.toml"), broken).unwrap_or_else(|e| panic!("broken.toml: {e}"));
    let mut tui = Console::spawn(
        &["tui", "--sample", "samples/porep-tiny.toml", "--backend", "cpu"],
        &[("CUZK_HOME", &home.0), ("CUZK_CACHE", &cache.0)],
    );

    // The first frame: header with the sample, the controls line.
    tui.wait_for(screen_contains_all(&["porep-tiny", "q quit"]), START);
    assert!(
        tui.screen.screen().alternate_screen(),
        "the console draws on the alternate screen\n{}",
        tui.dump()
    );

    // Themes: the broken file is reported (file:line, key, value), the default is dark (#1e1e2e), `t` cycles
    // dark → light → high-contrast → mine (the user's, drawn on #102030) → dark.
    tui.wait_for(screen_contains_all(&["broken.toml:2", "colors.fg", "blurple"]), KEY);
    tui.wait_for(background_is(vt100::Color::Rgb(0x1e, 0x1e, 0x2e)), KEY);
    tui.press("ttt");
    tui.wait_for(screen_contains("theme mine"), KEY);
    tui.wait_for(background_is(vt100::Color::Rgb(0x10, 0x20, 0x30)), KEY);
    tui.press("t");
    tui.wait_for(background_is(vt100::Color::Rgb(0x1e, 0x1e, 0x2e)), KEY);

    // Run #1 (params are generated on first use) and its verify result in the log.
    tui.press("r");
    tui.wait_for(screen_contains("run #1 started"), START);
    tui.wait_for(run_finished(1), RUN);
    // (the timeline's status line: the log's line may wrap)
    let line = tui.line_with("run #1 ·").unwrap_or_default();
    assert!(line.contains("verified ✓"), "run #1 is not reported verified: {line:?}\n{}", tui.dump());

    // Flip toggle 1 (A1) for the next run, then run #2 with it.
    tui.press("1");
    tui.wait_for(screen_contains("A1 on for the next run"), KEY);
    tui.press("r");
    tui.wait_for(screen_contains("run #2 started"), START);
    let started = tui.line_with("run #2 started").unwrap_or_default();
    assert!(started.contains(" a1 "), "run #2 should run with a1 on: {started:?}\n{}", tui.dump());
    tui.wait_for(run_finished(2), RUN);
    let line = tui.line_with("run #2 ·").unwrap_or_default();
    assert!(line.contains("verified ✓"), "run #2 is not reported verified: {line:?}\n{}", tui.dump());

    // One wall: the log's "wall X s" is the phase table's wall row (ms), setup (params_gen) apart.
    let line = tui.line_with("run #2 finished").unwrap_or_default();
    let log_s: f64 = line
        .split("wall ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|x| x.parse().ok())
        .unwrap_or_else(|| panic!("no wall in {line:?}\n{}", tui.dump()));
    tui.press("fG");
    tui.wait_for(screen_contains("│wall"), KEY);
    let row = tui.line_with("│wall").unwrap_or_default();
    let table_ms: f64 = row
        .trim_start_matches('│')
        .split_whitespace()
        .nth(1)
        .and_then(|x| x.parse().ok())
        .unwrap_or_else(|| panic!("no wall in {row:?}\n{}", tui.dump()));
    assert!((table_ms - log_s * 1e3).abs() <= 5.0, "log {log_s} s vs table {table_ms} ms\n{}", tui.dump());
    // Run #1 generated the params: setup, reported apart from its wall.
    tui.wait_for(screen_contains("(params_gen)"), KEY);
    tui.press("gff"); // back to the top, focus back on the timeline

    // Compare: both runs' numbers and their phase rows on screen; one repeat a side gives Δ marked n=1 and
    // no faster/slower verdict.
    tui.press("c");
    tui.wait_for(
        screen_contains_all(&["base #1", "cand #2", "synthesis", "ntt_msm_h", "tail_msm", "n=1"]),
        KEY,
    );
    let screen = tui.text();
    for word in ["slower", "faster", "within noise"] {
        assert!(!screen.contains(word), "{word} at n=1\n{}", tui.dump());
    }

    // Export the shown run: all four formats land in $CUZK_HOME/exports.
    tui.press("E");
    let dir = home.0.join("exports");
    let what = format!("chrome, csv, json and svg exports in {}", dir.display());
    tui.wait_for(Cond::new(what, |_| Ok(exports(&dir).is_some())), KEY);
    let (chrome, csv, record, svg) =
        exports(&dir).unwrap_or_else(|| panic!("exports vanished\n{}", tui.dump()));
    let trace: serde_json::Value = serde_json::from_str(&read(&chrome))
        .unwrap_or_else(|e| panic!("{}: not JSON: {e}", chrome.display()));
    let events = trace["traceEvents"].as_array().map_or(0, Vec::len);
    assert!(events > 0, "{}: no traceEvents", chrome.display());
    assert!(read(&csv).contains("ntt_msm_h"), "{}: no ntt_msm_h row", csv.display());
    let rec: serde_json::Value = serde_json::from_str(&read(&record))
        .unwrap_or_else(|e| panic!("{}: not JSON: {e}", record.display()));
    assert_eq!(rec["schema"], "cuzk.run/1", "{}: not a run record", record.display());
    // `e` exported the run shown, run #2: A1 on, both proofs verified, and saved in the run store.
    assert_eq!(rec["toggles"]["a1"], true, "{}: the export is not run #2 (A1 on)", record.display());
    let proofs = rec["proofs"].as_array().map_or(&[][..], Vec::as_slice);
    assert_eq!(proofs.len(), 2, "{}: porep-tiny proves 2 circuits", record.display());
    assert!(proofs.iter().all(|p| p["verified"] == true), "{}: unverified proofs", record.display());
    let id = rec["id"].as_str().unwrap_or_default();
    let saved = home.0.join("runs").join(format!("{id}.json"));
    assert!(saved.is_file(), "run #2 was not saved as {}", saved.display());
    assert_eq!(files_ending(&home.0.join("runs"), ".json").len(), 2, "two runs, two records");
    assert!(read(&svg).contains("<svg"), "{}: not an SVG", svg.display());

    // Esc goes back to the Live view, whose log reports the export.
    tui.press("\x1b");
    tui.wait_for(screen_contains("exported run"), KEY);

    // Resizing: 80×24 keeps the layout (panels and the controls line); the phase table scrolls to its wall
    // row (f focuses it, G goes to the end); smaller shows a notice that says how to quit; back again.
    tui.resize(80, 24);
    tui.wait_for(screen_contains_all(&["Toggles", "Timeline", "Log", "run #2", "q quit"]), KEY);
    assert!(
        !tui.text().contains("│wall"),
        "the wall row fits without scrolling: nothing tested\n{}",
        tui.dump()
    );
    tui.press("fG");
    tui.wait_for(screen_contains("│wall"), KEY);
    tui.press("g");
    tui.resize(60, 16);
    tui.wait_for(screen_contains_all(&["terminal too small: need 80×24", "q quits"]), KEY);
    tui.resize(COLS, ROWS);
    tui.wait_for(screen_contains_all(&["Toggles", "Timeline", "Log", "q quit"]), KEY);

    // Quit: exit code 0 and the terminal handed back (alternate screen left after the last enter).
    tui.press("q");
    assert_exited_cleanly(&mut tui);
}

/// WCAG contrast of two vt100 colors (RGB only; anything else counts as failing).
fn contrast(a: vt100::Color, b: vt100::Color) -> f64 {
    let lum = |c: vt100::Color| {
        let vt100::Color::Rgb(r, g, b) = c else { return None };
        let lin = |v: u8| {
            let s = f64::from(v) / 255.0;
            if s <= 0.03928 {
                s / 12.92
            } else {
                ((s + 0.055) / 1.055).powf(2.4)
            }
        };
        Some(0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b))
    };
    match (lum(a), lum(b)) {
        (Some(x), Some(y)) => (x.max(y) + 0.05) / (x.min(y) + 0.05),
        _ => 0.0,
    }
}

/// The colors of the first cell of the screen row holding `text`.
fn row_colors(tui: &Console, text: &str) -> Option<(vt100::Color, vt100::Color)> {
    let screen = tui.screen.screen();
    let row = tui.text().lines().position(|l| l.contains(text))? as u16;
    let cell = screen.cell(row, 2)?;
    Some((cell.fgcolor(), cell.bgcolor()))
}

/// A record of `sample` stored without proving (the console only reads it).
fn stored_run(home: &Path, id: &str, sample: &str, constraints: u64) {
    use cuzk::timeline::record::{PhaseTotals, ProofEntry, RepeatSummary, RunRecord, SampleInfo, SCHEMA};
    let phases = [("synthesis", 40_000u64), ("tail_msm", 200_000)]
        .iter()
        .map(|(p, us)| (p.to_string(), PhaseTotals { count: 2, sum_us: *us, span_us: *us }))
        .collect();
    let rec = RunRecord {
        schema: SCHEMA.into(),
        id: id.into(),
        started: format!("2026-01-01T00:00:0{}Z", id.len() % 10),
        sample: SampleInfo { name: sample.into(), path: String::new(), constraints, circuits: 2, seed: 7 },
        toggles: Default::default(),
        backend: "cpu".into(),
        devices: vec!["cpu".into()],
        host: Default::default(),
        events: Vec::new(),
        repeats: vec![RepeatSummary { wall_us: 300_000, phases }; 3],
        wall_us: 900_000,
        peak_rss_bytes: 0,
        dropped_events: 0,
        proofs: vec![ProofEntry { hex: "00".into(), verified: Some(true) }; 2],
        outcome: Default::default(),
        error: String::new(),
        counters: Vec::new(),
        version: "test".into(),
    };
    let store = cuzk::engine::store::RunStore::open(Some(home)).unwrap_or_else(|e| panic!("{e}"));
    store.save(&rec).unwrap_or_else(|e| panic!("{e}"));
}

/// Bare `cuzk --theme light` on porep-mini with a porep-tiny run stored: the Live view does not show the
/// tiny run under the mini header; a compare of runs of different shapes says so once, without verdicts; the
/// selected History row keeps WCAG AA contrast in light and dark; the theme and toggles are remembered.
#[test]
fn other_samples_are_not_compared_silently_and_settings_persist() {
    let home = TempDir::new("home-mismatch");
    let cache = TempDir::new("cache-mismatch");
    stored_run(&home.0, "20260101-000000-aaaa", "porep-tiny", 9_981);
    stored_run(&home.0, "20260101-000100-bbbb", "porep-mini", 219_498);
    let envs = [("CUZK_HOME", home.0.as_path()), ("CUZK_CACHE", cache.0.as_path())];
    let mut tui = Console::spawn(&["--theme", "light"], &envs);
    tui.wait_for(screen_contains_all(&["porep-mini", "q quit"]), START);
    tui.wait_for(background_is(vt100::Color::Rgb(0xff, 0xff, 0xff)), KEY);
    tui.wait_for(screen_contains("run #2"), KEY);
    // The mini run (#2) is shown, never the tiny one; its baseline would be a mini run: there is none.
    tui.wait_for(screen_contains("no baseline"), KEY);
    // History: mark the tiny run as baseline, compare it with the mini run.
    tui.press("\t");
    tui.wait_for(screen_contains("2 of 2 runs"), KEY);
    let selected = "20260101-000100-bbbb";
    let (fg, bg) = row_colors(&tui, selected).unwrap_or_else(|| panic!("no row\n{}", tui.dump()));
    assert!(contrast(fg, bg) >= 4.5, "selected row {fg:?} on {bg:?} (light)\n{}", tui.dump());
    tui.press("kb");
    tui.wait_for(screen_contains("baseline: run #1"), KEY);
    tui.press("j\r");
    tui.wait_for(screen_contains("different circuit shapes"), KEY);
    let screen = tui.text();
    assert_eq!(screen.matches("different circuit shapes").count(), 1, "{}", tui.dump());
    for word in ["slower", "faster", "within noise"] {
        assert!(!screen.contains(word), "{word} between shapes\n{}", tui.dump());
    }
    // Dark (light → high-contrast → dark): the selected row still reads (it was #1e1e2e on #45475a, 1.8:1).
    tui.press("\x1b");
    tui.wait_for(screen_contains("Toggles"), KEY);
    tui.press("\t");
    tui.wait_for(screen_contains("2 of 2 runs"), KEY);
    tui.press("tt");
    tui.wait_for(background_is(vt100::Color::Rgb(0x1e, 0x1e, 0x2e)), KEY);
    let (fg, bg) = row_colors(&tui, selected).unwrap_or_else(|| panic!("no row\n{}", tui.dump()));
    assert!(contrast(fg, bg) >= 4.5, "selected row {fg:?} on {bg:?} (dark)\n{}", tui.dump());
    // Light again, and A1 on: both remembered by the next session.
    tui.press("t");
    tui.wait_for(background_is(vt100::Color::Rgb(0xff, 0xff, 0xff)), KEY);
    // F1 (ESC O P): back to Live, where the digit keys flip toggles.
    tui.press("\x1bOP");
    tui.wait_for(screen_contains("Toggles"), KEY);
    tui.press("1");
    tui.wait_for(screen_contains("A1 on for the next run"), KEY);
    tui.press("q");
    assert_exited_cleanly(&mut tui);
    let mut tui = Console::spawn(&[], &envs);
    tui.wait_for(screen_contains_all(&["porep-mini", "q quit"]), START);
    tui.wait_for(background_is(vt100::Color::Rgb(0xff, 0xff, 0xff)), KEY);
    tui.wait_for(screen_contains("[x] 1 A1"), KEY);
    tui.press("q");
    assert_exited_cleanly(&mut tui);
}

#[test]
fn ctrl_c_during_a_run_quits_and_restores_the_terminal() {
    let home = TempDir::new("home-ctrlc");
    let cache = TempDir::new("cache-ctrlc");
    let mut tui = Console::spawn(
        &["tui", "--sample", "samples/porep-tiny.toml", "--backend", "cpu"],
        &[("CUZK_HOME", &home.0), ("CUZK_CACHE", &cache.0)],
    );
    tui.wait_for(screen_contains_all(&["porep-tiny", "q quit"]), START);
    tui.press("r");
    tui.wait_for(screen_contains("run #1 started"), START);
    // Raw mode: Ctrl-C arrives as the byte 0x03, a key that means quit (cancelling the run in progress).
    tui.press("\x03");
    assert_exited_cleanly(&mut tui);
}
