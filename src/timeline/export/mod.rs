//! Exports of a run record: Chrome trace JSON for Perfetto / chrome://tracing / Firefox
//! Profiler, CSV for spreadsheets, the record itself as JSON, and an SVG Gantt chart for issues.
//!
//! File names: `<id>.trace.json` (chrome), `<id>.json` (json), `<id>.csv`, `<id>.svg` — the chrome export gets
//! its own double extension so it never collides with the JSON record of the same run.

mod chrome;
mod csv;
mod layout;
mod svg;

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use super::record::RunRecord;

/// The export formats a user can ask for by name (`--format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// Chrome trace event JSON (object form), for Perfetto, chrome://tracing and Firefox Profiler.
    Chrome,
    /// One CSV row per event, for spreadsheets and scripts.
    Csv,
    /// The run record itself, pretty-printed.
    Json,
    /// A Gantt chart of the lanes, to paste into an issue.
    Svg,
}

/// Why a format name was rejected: names the valid ones so the message alone fixes the command line.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("unknown export format `{0}` (expected chrome|csv|json|svg)")]
pub struct UnknownFormat(
    /// The name as given, echoed in the message.
    pub String,
);

impl Format {
    /// Every format, in the order help texts list them.
    pub const ALL: [Format; 4] = [Format::Chrome, Format::Csv, Format::Json, Format::Svg];

    /// The name users type and messages print.
    pub fn name(self) -> &'static str {
        match self {
            Format::Chrome => "chrome",
            Format::Csv => "csv",
            Format::Json => "json",
            Format::Svg => "svg",
        }
    }

    /// File extension without the leading dot (`trace.json` for chrome, so it differs from the record's `.json`).
    pub fn extension(self) -> &'static str {
        match self {
            Format::Chrome => "trace.json",
            Format::Csv => "csv",
            Format::Json => "json",
            Format::Svg => "svg",
        }
    }

    /// The default file name of a run's export, `<id>.<extension>`.
    pub fn file_name(self, run_id: &str) -> String {
        format!("{run_id}.{}", self.extension())
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = UnknownFormat;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let wanted = s.trim();
        Format::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(wanted))
            .ok_or_else(|| UnknownFormat(s.to_string()))
    }
}

/// Renders a record in a format, as the text that `write` saves (callers may also print it).
pub fn render(record: &RunRecord, format: Format) -> String {
    match format {
        Format::Chrome => chrome::render(record),
        Format::Csv => csv::render(record),
        Format::Json => render_json(record),
        Format::Svg => svg::render(record),
    }
}

/// Writes a record's export atomically: a temp file in the same folder, fsync, then rename over `path`, so a
/// reader never sees half a file and an old export is replaced whole.
pub fn write(record: &RunRecord, format: Format, path: &Path) -> std::io::Result<()> {
    crate::util::write_atomic(path, render(record, format).as_bytes())
}

/// The record as pretty JSON; serializing plain data cannot fail, but a failure still yields valid JSON.
fn render_json(record: &RunRecord) -> String {
    match serde_json::to_string_pretty(record) {
        Ok(mut s) => {
            s.push('\n');
            s
        }
        Err(e) => format!("{}\n", serde_json::json!({ "error": e.to_string() })),
    }
}
