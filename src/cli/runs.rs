//! `cuzk runs`, `cuzk compare` and `cuzk export`.

use std::path::{Path, PathBuf};

use super::error::CliError;
use super::job::create_dir;
use super::tables::{compare_json, render_compare};
use crate::engine::compare::{compare, shape_mismatch};
use crate::engine::store::RunStore;
use crate::timeline::export::{self, Format};
use crate::timeline::record::RunRecord;

fn store(data_dir: Option<&Path>) -> Result<RunStore, CliError> {
    RunStore::open(data_dir).map_err(|e| CliError::Msg(e.to_string()))
}

fn resolve(store: &RunStore, spec: &str) -> Result<RunRecord, CliError> {
    store.resolve(spec).map_err(|e| CliError::Msg(e.to_string()))
}

/// `yes`, `off` or `NO`: whether a run's proofs verified; `failed` or `cancelled` for a run that did not
/// complete (its timeline is partial).
fn verified_word(r: &RunRecord) -> &'static str {
    if !r.completed() {
        r.outcome.name()
    } else if r.all_verified() {
        "yes"
    } else if r.proofs.iter().all(|p| p.verified.is_none()) {
        "off"
    } else {
        "NO"
    }
}

/// `cuzk runs`: every stored run, oldest first. Wall is the median proving wall (setup apart); toggles are
/// the ones that differ from the defaults, never cut; `ok` says `failed` or `cancelled` for a run that did
/// not complete (a daemon job's record of what it captured).
pub fn runs(data_dir: Option<&Path>, json: bool) -> Result<(), CliError> {
    let st = store(data_dir)?;
    let (runs, warnings) = st.try_list().map_err(|e| CliError::Msg(e.to_string()))?;
    for w in &warnings {
        eprintln!("{w}");
    }
    if json {
        let v: Vec<_> = runs
            .iter()
            .map(|r| {
                serde_json::json!({
                    "id": r.id, "started": r.started, "sample": r.sample.name, "backend": r.backend,
                    "toggles": r.toggles, "repeats": r.repeats.len(),
                    "wall_ms": r.wall_median_us() as f64 / 1e3, "setup_ms": r.setup_us() as f64 / 1e3,
                    "verified": r.all_verified(), "outcome": r.outcome.name(), "error": r.error,
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&v).map_err(|e| CliError::Msg(e.to_string()))?);
        return Ok(());
    }
    let sample_w = runs.iter().map(|r| r.sample.name.chars().count()).max().unwrap_or(0).max(6);
    let ok_w = runs.iter().map(|r| verified_word(r).len()).max().unwrap_or(0).max(3);
    println!(
        "{:<28} {:<sample_w$} {:<4} {:>3} {:>12} {:>10} {:<ok_w$} toggles (changed from defaults)",
        "id", "sample", "be", "rep", "wall med ms", "setup ms", "ok"
    );
    for r in &runs {
        println!(
            "{:<28} {:<sample_w$} {:<4} {:>3} {:>12.1} {:>10.1} {:<ok_w$} {}",
            r.id,
            r.sample.name,
            r.backend,
            r.repeats.len(),
            r.wall_median_us() as f64 / 1e3,
            r.setup_us() as f64 / 1e3,
            verified_word(r),
            r.toggles.changed()
        );
    }
    if runs.is_empty() {
        println!("(no runs in {})", st.runs_dir().display());
    }
    Ok(())
}

/// One line of a record's setup (params generation and loading, outside the wall), or `None` when it had none.
pub fn setup_line(rec: &RunRecord) -> Option<String> {
    let parts: Vec<String> =
        rec.setup_phases().iter().map(|(p, us)| format!("{p} {:.1} ms", *us as f64 / 1e3)).collect();
    (!parts.is_empty()).then(|| format!("setup (outside the wall): {}", parts.join(", ")))
}

/// `cuzk compare A B`: per-phase rows; runs of different circuit shapes get one line saying so and numbers
/// without verdicts; a run that did not complete is refused with one line.
pub fn compare_cmd(data_dir: Option<&Path>, a: &str, b: &str, json: bool) -> Result<(), CliError> {
    let st = store(data_dir)?;
    let (ra, rb) = (resolve(&st, a)?, resolve(&st, b)?);
    // A run that did not complete has partial phases: its times would read as a speed-up.
    if let Some(line) = ra.incomplete_line().or_else(|| rb.incomplete_line()) {
        return Err(CliError::Msg(format!(
            "cannot compare: {line} (compare completed runs; export shows it)"
        )));
    }
    let rows = compare(&ra, &rb);
    let mismatch = shape_mismatch(&ra, &rb);
    let settings = ra.host.settings_diff(&rb.host);
    if json {
        let diff: Vec<_> = settings
            .iter()
            .map(|(k, a, b)| serde_json::json!({"name": k, "base": a, "candidate": b}))
            .collect();
        let v = serde_json::json!({
            "base": ra.id, "candidate": rb.id, "shape_mismatch": mismatch, "settings_differ": diff,
            "phases": compare_json(&rows),
        });
        println!("{}", serde_json::to_string_pretty(&v).map_err(|e| CliError::Msg(e.to_string()))?);
    } else {
        if let Some(m) = &mismatch {
            println!("note: {m}");
        }
        for (side, r) in [("base", &ra), ("cand", &rb)] {
            println!("{side}: sample {} on {}; toggles: {}", r.sample.name, r.backend, r.toggles.changed());
            if let Some(l) = setup_line(r) {
                println!("      {l}");
            }
        }
        for (k, a, b) in &settings {
            println!("note: setting {k} differs: base {a}, cand {b}");
        }
        print!("{}", render_compare(&rows, &ra.id, &rb.id));
    }
    Ok(())
}

/// Writes every format of a record into `dir`; returns the paths.
pub fn export_all(rec: &RunRecord, dir: &Path) -> Result<Vec<PathBuf>, CliError> {
    create_dir(dir)?;
    Format::ALL
        .into_iter()
        .map(|f| {
            let p = dir.join(f.file_name(&rec.id));
            export::write(rec, f, &p)
                .map_err(|e| CliError::Msg(format!("{}: cannot write: {e}", p.display())))?;
            Ok(p)
        })
        .collect()
}

/// `cuzk export RUN --format F [-o PATH]`.
pub fn export_cmd(
    data_dir: Option<&Path>,
    run: &str,
    format: &str,
    out: Option<&Path>,
) -> Result<(), CliError> {
    let format: Format = format.parse().map_err(|e: export::UnknownFormat| CliError::Msg(e.to_string()))?;
    let st = store(data_dir)?;
    let rec = resolve(&st, run)?;
    let path = match out {
        Some(p) => p.to_path_buf(),
        None => {
            let dir = st.exports_dir();
            create_dir(&dir)?;
            dir.join(format.file_name(&rec.id))
        }
    };
    export::write(&rec, format, &path)
        .map_err(|e| CliError::Msg(format!("{}: cannot write: {e}", path.display())))?;
    println!("{}", path.display());
    Ok(())
}
