//! What the console remembers between sessions: the theme and, per sample, the toggles. One small JSON file
//! in the data dir (`console.json`), written atomically when either changes; an unreadable file is ignored
//! (with a log line) and rewritten on the next change.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::vocab::Toggles;

/// The file name under the data dir.
pub const PREFS_FILE: &str = "console.json";

/// The remembered settings.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Prefs {
    /// Theme name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
    /// Toggles by sample name.
    #[serde(default)]
    pub toggles: BTreeMap<String, Toggles>,
}

/// The prefs file of a data dir and what was last written there.
pub struct PrefsFile {
    path: PathBuf,
    saved: Prefs,
}

impl PrefsFile {
    /// Reads `<data dir>/console.json`; a missing file gives defaults, a broken one defaults and a warning.
    pub fn load(data_dir: &Path) -> (PrefsFile, Option<String>) {
        let path = data_dir.join(PREFS_FILE);
        let (saved, warning) = match std::fs::read(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => (Prefs::default(), None),
            Err(e) => (Prefs::default(), Some(format!("{}: cannot read: {e}", path.display()))),
            Ok(bytes) => match serde_json::from_slice(&bytes) {
                Ok(p) => (p, None),
                Err(e) => (Prefs::default(), Some(format!("{}: ignored: {e}", path.display()))),
            },
        };
        (PrefsFile { path, saved }, warning)
    }

    /// What the file holds.
    pub fn prefs(&self) -> &Prefs {
        &self.saved
    }

    /// Remembers `theme` and `sample`'s `toggles`; writes the file only when something changed.
    pub fn update(&mut self, theme: &str, sample: &str, toggles: Toggles) -> std::io::Result<()> {
        let mut next = self.saved.clone();
        next.theme = Some(theme.to_string());
        next.toggles.insert(sample.to_string(), toggles);
        self.write(next)
    }

    /// Remembers the theme alone (an attached console shows a daemon's toggles, not its own).
    pub fn update_theme(&mut self, theme: &str) -> std::io::Result<()> {
        let mut next = self.saved.clone();
        next.theme = Some(theme.to_string());
        self.write(next)
    }

    fn write(&mut self, next: Prefs) -> std::io::Result<()> {
        if next == self.saved {
            return Ok(());
        }
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let json = serde_json::to_vec_pretty(&next).map_err(std::io::Error::other)?;
        crate::util::write_atomic(&self.path, &json)?;
        self.saved = next;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_broken_files() {
        let dir = std::env::temp_dir().join(format!("cuzk-prefs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (mut f, w) = PrefsFile::load(&dir);
        assert!(w.is_none() && f.prefs().theme.is_none());
        let mut t = Toggles::default();
        t.set(crate::vocab::Toggle::A1, true);
        f.update("light", "porep-mini", t).expect("write");
        let (g, _) = PrefsFile::load(&dir);
        assert_eq!(g.prefs().theme.as_deref(), Some("light"));
        assert_eq!(g.prefs().toggles.get("porep-mini"), Some(&t));
        std::fs::write(dir.join(PREFS_FILE), "{oops").expect("write junk");
        let (h, w) = PrefsFile::load(&dir);
        assert!(w.is_some_and(|w| w.contains("console.json")) && h.prefs().theme.is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
