//! What every console opens with, in-process or attached: the run store, the themes, the remembered
//! settings and the sample's header line; and the first log lines they leave.

use std::path::Path;

use super::prefs::PrefsFile;
use super::state::{App, Level, SampleMeta};
use super::theme::ThemeSet;
use crate::circuits::Sample;
use crate::engine::floor::Floors;
use crate::engine::store::RunStore;
use crate::timeline::record::RunRecord;

/// The console's surroundings, read before the terminal is taken.
pub struct Setup {
    /// The run store (`$CUZK_HOME`).
    pub store: RunStore,
    /// Built-in and user themes.
    pub themes: ThemeSet,
    /// The remembered theme and toggles.
    pub prefs: PrefsFile,
    /// The stored runs, oldest first.
    pub runs: Vec<RunRecord>,
    /// Lines for the log: a prefs file or record that could not be read.
    pub warnings: Vec<String>,
}

/// Opens the run store and reads the themes and settings; an unknown `--theme` is the one-line error.
pub fn open(theme: Option<&str>) -> Result<Setup, String> {
    let store = RunStore::open(None).map_err(|e| e.to_string())?;
    // User themes: ./themes (a checkout) then <data dir>/themes (a later folder wins on a name clash).
    let user_themes = store.root().join("themes");
    let themes = ThemeSet::load_dirs(&[Path::new("themes"), &user_themes]);
    if let Some(name) = theme {
        themes.find(name)?;
    }
    let (runs, mut warnings) = store.list();
    let (prefs, prefs_warning) = PrefsFile::load(store.root());
    if let Some(w) = prefs_warning {
        warnings.insert(0, w);
    }
    Ok(Setup { store, themes, prefs, runs, warnings })
}

/// The header's description of a sample file, and why it could not be read (then its path stands in).
pub fn sample_meta(path: &Path) -> (SampleMeta, Option<String>) {
    match Sample::load(path) {
        Ok(s) => (
            SampleMeta {
                name: s.name.clone(),
                path: path.display().to_string(),
                circuits: (s.sectors * s.circuits_per_sector()) as u64,
                proof: s.filecoin.as_ref().map(|job| {
                    let n = job.partitions();
                    format!("{} · {n} partition{}", job.registered.name(), if n == 1 { "" } else { "s" })
                }),
            },
            None,
        ),
        Err(e) => (
            SampleMeta {
                name: path.display().to_string(),
                path: path.display().to_string(),
                circuits: 0,
                proof: None,
            },
            Some(e.to_string()),
        ),
    }
}

impl Setup {
    /// The theme (the flag's, else the remembered one), the machine's floors and the warnings, applied to a
    /// new console.
    pub fn dress(&self, app: &mut App, theme: Option<&str>) {
        app.clock = super::app::clock();
        match (theme, &self.prefs.prefs().theme) {
            (Some(name), _) => app.set_theme(name),
            (None, Some(name)) if app.themes.index_of(name).is_some() => app.set_theme(name),
            _ => {}
        }
        app.floors = Floors::load_cached();
        for w in &self.warnings {
            app.push_log(Level::Warn, w.clone());
        }
    }
}
