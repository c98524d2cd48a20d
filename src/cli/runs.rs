//! `cuzk runs`, `cuzk compare` and `cuzk export`.

use std::path::{Path, PathBuf};

use super::job::create_dir;
use super::tables::{compare_json, render_compare};
use super::CliError;
use crate::engine::compare::compare;
use crate::engine::store::RunStore;
use crate::timeline::export::{self, Format};
use crate::timeline::record::RunRecord;

fn store(data_dir: Option<&Path>) -> Result<RunStore, CliError> {
    RunStore::open(data_dir).map_err(|e| CliError::Msg(e.to_string()))
}

fn resolve(store: &RunStore, spec: &str) -> Result<RunRecord, CliError> {
    store.resolve(spec).map_err(|e| CliError::Msg(e.to_string()))
}

/// `cuzk runs`: every stored run, oldest first.
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
                    "toggles": r.toggles, "repeats": r.repeats.len(), "wall_ms": r.wall_us as f64 / 1e3,
                    "verified": r.all_verified(),
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&v).map_err(|e| CliError::Msg(e.to_string()))?);
        return Ok(());
    }
    println!(
        "{:<28} {:<16} {:<4} {:<30} {:>3} {:>10} {:<3}",
        "id", "sample", "be", "toggles", "rep", "wall ms", "ok"
    );
    for r in &runs {
        let toggles: String = r.toggles.compact().chars().take(30).collect();
        println!(
            "{:<28} {:<16} {:<4} {:<30} {:>3} {:>10.1} {:<3}",
            r.id,
            r.sample.name.chars().take(16).collect::<String>(),
            r.backend,
            toggles,
            r.repeats.len(),
            r.wall_us as f64 / 1e3,
            if r.all_verified() {
                "yes"
            } else if r.proofs.iter().all(|p| p.verified.is_none()) {
                "off"
            } else {
                "NO"
            }
        );
    }
    if runs.is_empty() {
        println!("(no runs in {})", st.runs_dir().display());
    }
    Ok(())
}

/// `cuzk compare A B`.
pub fn compare_cmd(data_dir: Option<&Path>, a: &str, b: &str, json: bool) -> Result<(), CliError> {
    let st = store(data_dir)?;
    let (ra, rb) = (resolve(&st, a)?, resolve(&st, b)?);
    let rows = compare(&ra, &rb);
    if json {
        let v = serde_json::json!({"base": ra.id, "candidate": rb.id, "phases": compare_json(&rows)});
        println!("{}", serde_json::to_string_pretty(&v).map_err(|e| CliError::Msg(e.to_string()))?);
    } else {
        println!("sample {}; base toggles: {}", ra.sample.name, ra.toggles.compact());
        println!("sample {}; cand toggles: {}", rb.sample.name, rb.toggles.compact());
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
