//! Where a command's files go, checked before any work (a bad `--out`, `--export` or `--data-dir` fails in a
//! second, not after a long run), and the `--out` set written as one: vk, proofs and inputs are prepared in a
//! temp folder beside the target and put in place in one step, so a reader (or a kill) never sees proofs of one
//! run beside the inputs of another.

use std::path::{Path, PathBuf};

use super::error::CliError;
use crate::engine::JobOutput;
use crate::groth16::proof::{write_inputs, write_proofs};
use crate::groth16::VerifyingKey;
use crate::util::atomic::temp_sibling;

/// The files of an `--out` set.
pub const OUT_FILES: [&str; 3] = ["vk.bin", "proofs.bin", "inputs.bin"];

fn msg(s: String) -> CliError {
    CliError::Msg(s)
}

/// The folder an entry is created in (`.` for a bare name).
fn parent_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Writes and removes a probe file in `dir`, so an unwritable folder fails before the work.
fn probe_writable(flag: &str, dir: &Path) -> Result<(), CliError> {
    let probe = temp_sibling(&dir.join("write-check"))
        .map_err(|e| msg(format!("{flag} {}: cannot write: {e}", dir.display())))?;
    std::fs::write(&probe, b"").map_err(|e| msg(format!("{flag} {}: cannot write: {e}", dir.display())))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// `--out DIR` before the run: DIR is new, empty, or holds only a set cuzk wrote (vk.bin, proofs.bin,
/// inputs.bin), is not a symbolic link, and its parent is writable (the set is prepared there). Also removes
/// what a killed earlier write to DIR left.
pub fn check_out_dir(dir: &Path) -> Result<(), CliError> {
    let shown = dir.display();
    let parent = parent_of(dir);
    match std::fs::symlink_metadata(dir) {
        Ok(m) if m.file_type().is_symlink() => {
            return Err(msg(format!("--out {shown}: is a symbolic link; give the folder itself")))
        }
        Ok(m) if !m.is_dir() => return Err(msg(format!("--out {shown}: exists and is not a folder"))),
        Ok(_) => {
            // Temp files an older, killed write left inside the folder are not the user's.
            crate::util::stale::sweep(dir, None);
            let entries =
                std::fs::read_dir(dir).map_err(|e| msg(format!("--out {shown}: cannot read: {e}")))?;
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if !OUT_FILES.contains(&name.as_str()) {
                    return Err(msg(format!(
                        "--out {shown}: holds `{name}`, which cuzk did not write; give a new or empty folder \
                         (or one holding only {})",
                        OUT_FILES.join(", ")
                    )));
                }
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(&parent)
                .map_err(|e| msg(format!("--out {shown}: cannot create {}: {e}", parent.display())))?;
        }
        Err(e) => return Err(msg(format!("--out {shown}: {e}"))),
    }
    if let Some(name) = dir.file_name() {
        crate::util::stale::sweep(&parent, Some(&name.to_string_lossy()));
    }
    probe_writable("--out", &parent)
}

/// `--export DIR` before the run: the folder exists (created) and is writable; stale temp exports removed.
pub fn check_export_dir(dir: &Path) -> Result<(), CliError> {
    std::fs::create_dir_all(dir)
        .map_err(|e| msg(format!("--export {}: cannot create folder: {e}", dir.display())))?;
    crate::util::stale::sweep(dir, None);
    probe_writable("--export", dir)
}

/// Writes the `--out` set: the three files into a temp folder beside `dir` (each fsynced), then the folder
/// into place in one step. A failure removes the temp folder and leaves `dir` as it was.
pub fn write_set(dir: &Path, vk: &VerifyingKey, out: &JobOutput) -> Result<(), CliError> {
    let tmp = temp_sibling(dir).map_err(|e| msg(format!("--out {}: {e}", dir.display())))?;
    let result = (|| {
        std::fs::create_dir(&tmp).map_err(|e| msg(format!("--out {}: cannot create: {e}", tmp.display())))?;
        let vk_path = tmp.join(OUT_FILES[0]);
        crate::groth16::params_file::write_atomic(
            &vk_path,
            &format!("vk file {}", vk_path.display()),
            |w| vk.write(w),
        )?;
        write_proofs(&tmp.join(OUT_FILES[1]), &out.proofs)?;
        let flat: Vec<_> = out.inputs.iter().flatten().copied().collect();
        write_inputs(&tmp.join(OUT_FILES[2]), &flat)?;
        crate::util::publish_dir(&tmp, dir)
            .map_err(|e| msg(format!("--out {}: cannot put the files in place: {e}", dir.display())))
    })();
    if result.is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    result
}
