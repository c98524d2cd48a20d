//! The theme model: every color the console draws with, the styles built from them and their contrast.
//! Built by [`super::file`] from a theme file, chosen from the set in `super`.

use std::collections::BTreeMap;

use ratatui::style::{Color, Modifier, Style};

use crate::vocab::Phase;

/// The `[phases]` key that colors any phase without its own key.
pub const OTHER_PHASE_KEY: &str = "other";

/// One console theme: every color the console draws with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Theme {
    /// The name shown in the console and used by `t`/config to pick it.
    pub name: String,
    /// One line saying what the theme is for (empty when the file gives none).
    pub description: String,
    /// Background of every block.
    pub bg: Color,
    /// Ordinary text.
    pub fg: Color,
    /// Secondary text: axis labels, hints, toggles that do not apply.
    pub dim: Color,
    /// Titles, key names in the controls line, the running indicator.
    pub accent: Color,
    /// Block borders.
    pub border: Color,
    /// Background of the selected row.
    pub selection: Color,
    /// Faster / verified.
    pub good: Color,
    /// Slower / failed.
    pub bad: Color,
    /// Warnings such as dropped events.
    pub warn: Color,
    /// A color per phase name (keys are the names of the phase table, `vocab::Phase`).
    pub phases: BTreeMap<String, Color>,
    /// The color of a phase that has no entry in `phases`.
    pub other_phase: Color,
}

impl Theme {
    /// The color to draw `phase` with; phases without their own color get `other_phase`.
    pub fn phase(&self, phase: &str) -> Color {
        self.phases.get(phase).copied().unwrap_or(self.other_phase)
    }

    /// Selected rows (History, the timeline's selected lane): the text color on the selection color.
    pub fn selected(&self) -> Style {
        Style::new().fg(self.fg).bg(self.selection)
    }

    /// The active view tab: the background color on the accent color.
    pub fn tab_active(&self) -> Style {
        Style::new().fg(self.bg).bg(self.accent).add_modifier(Modifier::BOLD)
    }

    /// Text drawn on a block of `color` (a phase name in its bar): whichever of the text and background
    /// colors stands out more against it.
    pub fn on_block(&self, color: Color) -> Style {
        let ink = if contrast(self.fg, color) >= contrast(self.bg, color) { self.fg } else { self.bg };
        Style::new().fg(ink).bg(color)
    }

    /// Every (what, text, background) pair the console draws text with: the pairs the contrast test checks.
    pub fn text_pairs(&self) -> Vec<(String, Color, Color)> {
        let mut v = vec![
            ("fg/bg".to_string(), self.fg, self.bg),
            ("dim/bg".into(), self.dim, self.bg),
            ("accent/bg".into(), self.accent, self.bg),
            ("good/bg".into(), self.good, self.bg),
            ("bad/bg".into(), self.bad, self.bg),
            ("warn/bg".into(), self.warn, self.bg),
        ];
        let sel = self.selected();
        v.push(("selected row".into(), sel.fg.unwrap_or(self.fg), sel.bg.unwrap_or(self.selection)));
        let tab = self.tab_active();
        v.push(("active tab".into(), tab.fg.unwrap_or(self.bg), tab.bg.unwrap_or(self.accent)));
        for p in Phase::ALL {
            let c = self.phase(p.name());
            let s = self.on_block(c);
            v.push((format!("label on {}", p.name()), s.fg.unwrap_or(self.fg), c));
        }
        v
    }
}

/// WCAG 2 relative luminance of a color: exact for `#rrggbb`; named and indexed colors (which the terminal
/// decides) count as mid grey, so they never pass a check by accident.
pub fn luminance(c: Color) -> f64 {
    let Color::Rgb(r, g, b) = c else { return 0.2 };
    let lin = |v: u8| {
        let s = f64::from(v) / 255.0;
        if s <= 0.03928 {
            s / 12.92
        } else {
            ((s + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
}

/// WCAG 2 contrast ratio of two colors (1 to 21; AA asks 4.5 for text).
pub fn contrast(a: Color, b: Color) -> f64 {
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}
