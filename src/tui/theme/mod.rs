//! Console themes: named colors for the chrome, the deltas and every phase.
//!
//! The built-in themes (`themes/*.toml`) are embedded in the binary; [`ThemeSet::load`] adds the `*.toml` files
//! of a user folder, where a theme with a built-in's name replaces it. A theme file is user input: every problem
//! in it (TOML syntax, unknown key, bad color) becomes one line in [`ThemeSet::errors`] naming the file, the key
//! and what was expected, and that file is skipped.
//!
//! ```toml
//! name = "mine"            # optional, defaults to the file name
//! description = "..."      # optional
//! [colors]                 # bg fg dim accent border selection good bad warn
//! accent = "#ff8800"       # "#rrggbb" or a ratatui color name ("dark_gray", "light_blue", ...)
//! [phases]                 # one key per phase of src/groth16/phases.rs, plus `other` for the rest
//! synthesis = "cyan"
//! ```
//! Keys left out keep the colors of the default dark theme. Reading a file is [`file`]'s job, the colors, the
//! styles built from them and their contrast `colors`'s; this module holds the built-ins and the set the
//! console cycles through.

mod colors;
mod file;

use std::path::Path;

use ratatui::style::Color;

use crate::vocab::Phase;
pub use colors::{contrast, luminance, Theme, OTHER_PHASE_KEY};
use file::parse_theme;

/// The built-in theme files, in the order the console cycles through them: (label for errors, contents).
const BUILTIN: [(&str, &str); 3] = [
    ("themes/dark.toml", include_str!("../../../themes/dark.toml")),
    ("themes/light.toml", include_str!("../../../themes/light.toml")),
    ("themes/high-contrast.toml", include_str!("../../../themes/high-contrast.toml")),
];

impl Theme {
    /// The default theme (`themes/dark.toml`), also the base that fills keys a user theme leaves out.
    pub fn default_dark() -> Theme {
        let (label, src) = BUILTIN[0];
        // The embedded file is tested to parse; the ANSI fallback only guards against a broken build.
        parse_theme(label, "dark", src, &ansi_fallback()).unwrap_or_else(|_| ansi_fallback())
    }
}

/// A plain 16-color theme, used only if the embedded default could not be parsed.
fn ansi_fallback() -> Theme {
    let phases = Phase::ALL.iter().map(|p| (p.name().to_string(), Color::Cyan)).collect();
    Theme {
        name: "dark".into(),
        description: String::new(),
        bg: Color::Reset,
        fg: Color::Reset,
        dim: Color::DarkGray,
        accent: Color::Cyan,
        border: Color::DarkGray,
        selection: Color::DarkGray,
        good: Color::Green,
        bad: Color::Red,
        warn: Color::Yellow,
        phases,
        other_phase: Color::Gray,
    }
}

/// Every available theme, built-in then user ones, with the problems met while loading them.
#[derive(Debug, Clone)]
pub struct ThemeSet {
    /// The themes in display order: built-ins first (a user override keeps its built-in's place).
    pub themes: Vec<Theme>,
    /// One line per theme file that was skipped: file, key, what was expected.
    pub errors: Vec<String>,
}

impl ThemeSet {
    /// The built-in themes plus the `*.toml` files of `extra_dir` (if given and present).
    pub fn load(extra_dir: Option<&Path>) -> ThemeSet {
        match extra_dir {
            Some(dir) => ThemeSet::load_dirs(&[dir]),
            None => ThemeSet::load_dirs(&[]),
        }
    }

    /// The built-in themes plus the `*.toml` files of each folder in turn (a later folder wins on a name clash);
    /// missing folders are not an error.
    pub fn load_dirs(dirs: &[&Path]) -> ThemeSet {
        let mut set = ThemeSet { themes: Vec::new(), errors: Vec::new() };
        let base = Theme::default_dark();
        for (label, src) in BUILTIN {
            set.add_source(label, src, &base);
        }
        for dir in dirs {
            set.add_dir(dir, &base);
        }
        set
    }

    /// The position of the theme called `name`.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.themes.iter().position(|t| t.name == name)
    }

    /// The theme called `name`, or a one-line error: the problem of a theme file of that name that did not
    /// load, else the available names.
    pub fn find(&self, name: &str) -> Result<&Theme, String> {
        match self.index_of(name) {
            Some(i) => Ok(&self.themes[i]),
            None => {
                let file = format!("{name}.toml");
                let broken = self.errors.iter().find(|e| {
                    e.split(':')
                        .next()
                        .is_some_and(|p| Path::new(p).file_name().is_some_and(|f| f == file.as_str()))
                });
                Err(match broken {
                    Some(e) => format!("theme `{name}` did not load: {e}"),
                    None => format!("unknown theme `{name}` (available: {})", self.names().join(", ")),
                })
            }
        }
    }

    /// Parses one theme file's text over the default dark theme (`label` names it in the one-line error);
    /// public so the parser can be fuzzed.
    pub fn parse_source(label: &str, src: &str) -> Result<Theme, String> {
        let stem = Path::new(label).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        parse_theme(label, &stem, src, &Theme::default_dark())
    }

    /// The theme names in display order.
    pub fn names(&self) -> Vec<&str> {
        self.themes.iter().map(|t| t.name.as_str()).collect()
    }

    fn add_dir(&mut self, dir: &Path, base: &Theme) {
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
            Err(e) => {
                self.errors.push(format!("{}: cannot read the theme folder: {e}", dir.display()));
                return;
            }
        };
        let mut files: Vec<_> = entries
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "toml") && p.is_file())
            .collect();
        files.sort();
        for path in files {
            let label = path.display().to_string();
            match std::fs::read_to_string(&path) {
                Ok(src) => self.add_source(&label, &src, base),
                Err(e) => self.errors.push(format!("{label}: cannot read the theme file: {e}")),
            }
        }
    }

    fn add_source(&mut self, label: &str, src: &str, base: &Theme) {
        let stem = Path::new(label).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        match parse_theme(label, &stem, src, base) {
            Ok(theme) => match self.index_of(&theme.name) {
                Some(i) => self.themes[i] = theme,
                None => self.themes.push(theme),
            },
            Err(e) => self.errors.push(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn builtins() -> Vec<(&'static str, Theme)> {
        BUILTIN
            .iter()
            .map(|(label, src)| {
                let theme = parse_theme(label, "x", src, &ansi_fallback())
                    .unwrap_or_else(|e| panic!("built-in {label} does not parse: {e}"));
                (*label, theme)
            })
            .collect()
    }

    #[test]
    fn contrast_formula_matches_known_values() {
        assert!((contrast(Color::Rgb(0, 0, 0), Color::Rgb(255, 255, 255)) - 21.0).abs() < 1e-9);
        // #777777 on white is the classic 4.48:1.
        let r = contrast(Color::Rgb(0x77, 0x77, 0x77), Color::Rgb(255, 255, 255));
        assert!((r - 4.48).abs() < 0.01, "{r}");
    }

    #[test]
    fn builtins_parse_with_distinct_names_and_no_errors() {
        let set = ThemeSet::load(None);
        assert!(set.errors.is_empty(), "{:?}", set.errors);
        assert_eq!(set.names(), ["dark", "light", "high-contrast"]);
        assert_eq!(set.themes[0], Theme::default_dark());
        let mut names: Vec<_> = builtins().into_iter().map(|(_, t)| t.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), BUILTIN.len());
    }

    #[test]
    fn builtins_color_every_phase_themselves_in_distinct_rgb() {
        for (label, theme) in builtins() {
            // Parsed over the ANSI fallback, so a phase missing from the file would keep Color::Cyan.
            let mut seen = Vec::new();
            for phase in Phase::ALL.iter().map(|p| p.name()) {
                let c = theme.phases.get(phase).copied();
                assert!(matches!(c, Some(Color::Rgb(..))), "{label}: phase {phase} has no own color: {c:?}");
                assert!(!seen.contains(&c), "{label}: phase {phase} shares its color {c:?}");
                seen.push(c);
                assert_eq!(theme.phase(phase), c.unwrap_or(Color::Reset));
            }
            assert!(matches!(theme.other_phase, Color::Rgb(..)), "{label}: no `other` phase color");
            assert_eq!(theme.phase("no_such_phase"), theme.other_phase);
            for c in [theme.bg, theme.fg, theme.dim, theme.accent, theme.border, theme.selection] {
                assert!(matches!(c, Color::Rgb(..)), "{label}: chrome color {c:?} is not #rrggbb");
            }
            // Bars must stand out from the background (WCAG 1.4.11: 3:1 for graphics), text more so.
            for phase in Phase::ALL.iter().map(|p| p.name()) {
                let r = contrast(theme.phase(phase), theme.bg);
                assert!(r >= 3.0, "{label}: phase {phase} contrast {r:.2} against bg");
            }
            let r = contrast(theme.fg, theme.bg);
            assert!(r >= 4.5, "{label}: fg/bg contrast {r:.2}");
            let r = contrast(theme.dim, theme.bg);
            assert!(r >= 4.5, "{label}: dim/bg contrast {r:.2}");
            let r = contrast(theme.fg, theme.selection);
            assert!(r >= 4.5, "{label}: fg/selection contrast {r:.2}");
        }
    }

    /// WCAG AA for every text/background pair the console draws, in every theme file of `themes/` (the
    /// built-ins and any added there): selected rows were #1e1e2e on #45475a (1.8:1) and white on #ddf4ff
    /// (1.14:1).
    #[test]
    fn every_theme_file_keeps_text_at_wcag_aa() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("themes");
        let set = ThemeSet::load_dirs(&[&dir]);
        assert!(set.errors.is_empty(), "{:?}", set.errors);
        assert!(set.themes.len() >= 3);
        let mut bad = Vec::new();
        for t in &set.themes {
            for (what, fg, bg) in t.text_pairs() {
                let r = contrast(fg, bg);
                if r < 4.5 {
                    bad.push(format!("{}: {what} {fg:?} on {bg:?} is {r:.2}:1", t.name));
                }
            }
        }
        assert!(bad.is_empty(), "below 4.5:1:\n{}", bad.join("\n"));
    }

    #[test]
    fn high_contrast_is_really_high_contrast() {
        let set = ThemeSet::load(None);
        let hc = set.find("high-contrast").expect("high-contrast is built in");
        let r = contrast(hc.fg, hc.bg);
        assert!(r >= 7.0, "fg/bg contrast {r:.2} < 7:1");
        for (what, c) in [("dim", hc.dim), ("accent", hc.accent), ("good", hc.good), ("bad", hc.bad)] {
            let r = contrast(c, hc.bg);
            assert!(r >= 7.0, "{what}/bg contrast {r:.2} < 7:1");
        }
        for phase in Phase::ALL.iter().map(|p| p.name()) {
            let r = contrast(hc.phase(phase), hc.bg);
            assert!(r >= 4.5, "phase {phase} contrast {r:.2} < 4.5:1");
        }
    }

    fn assert_one_line(e: &str, parts: &[&str]) {
        assert!(!e.contains('\n'), "not one line: {e}");
        for p in parts {
            assert!(e.contains(p), "{e:?} does not contain {p:?}");
        }
    }

    #[test]
    fn extra_dir_overrides_adds_and_reports_bad_files() {
        let dir = std::env::temp_dir().join(format!("cuzk-theme-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        let write = |name: &str, text: &str| std::fs::write(dir.join(name), text).expect("write theme");
        write("my-dark.toml", "name = \"dark\"\n[colors]\naccent = \"#ff0000\"\n");
        write("solar.toml", "[colors]\nbg = \"#002b36\"\n");
        write("broken.toml", "[colors]\nfg = \"blurple\"\n");
        write("notes.txt", "not a theme");
        let set = ThemeSet::load(Some(&dir));
        let _ = std::fs::remove_dir_all(&dir);

        assert_eq!(set.names(), ["dark", "light", "high-contrast", "solar"]);
        let dark = &set.themes[set.index_of("dark").expect("dark")];
        assert_eq!(dark.accent, Color::Rgb(255, 0, 0), "the user's dark replaces the built-in");
        assert_eq!(dark.bg, Theme::default_dark().bg, "keys left out keep the defaults");
        assert_eq!(set.find("solar").map(|t| t.bg), Ok(Color::Rgb(0, 0x2b, 0x36)));
        assert_eq!(set.errors.len(), 1, "{:?}", set.errors);
        assert_one_line(&set.errors[0], &["broken.toml:2", "key `colors.fg`", "\"blurple\""]);

        let e = set.find("nope").expect_err("unknown theme");
        assert_eq!(e, "unknown theme `nope` (available: dark, light, high-contrast, solar)");
        assert!(ThemeSet::load(Some(Path::new("/nonexistent/cuzk/themes"))).errors.is_empty());
    }
}
