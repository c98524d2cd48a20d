//! What a run learned of each Filecoin circuit, remembered beside the params cache by circuit identifier.
//! Its structure digest (`.digest`), so the daemon's `PreloadSRS` finds cuzk's own params of a circuit
//! (keyed by digest and seed) before any job of it ran in this process. And its whole survey (`.survey`:
//! footprint and digest, one line per build that made it, the newest [`SURVEY_BUILDS`]), so a fresh process's
//! first proof skips the survey (1.2 s of the real 2 KiB C2's 3.8 s one-shot on h200-16c, docs/PERF.md).
//! Small files, written atomically; a missing, unreadable, malformed, corrupt (checksum) or other build's
//! line reads as unknown, and the caller surveys and writes it again.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::budget::Footprint;
use crate::cs::Shape;

/// Folder of the index inside the params cache folder.
const DIR: &str = "circuits";

/// The index file of `identifier` (filecoin-proofs' circuit identifier, e.g.
/// `stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-…`), or `None` when the
/// identifier is not a plain file name.
fn path_of(params_dir: &Path, identifier: &str) -> Option<PathBuf> {
    entry_path(params_dir, identifier, "digest")
}

/// The entry of `identifier` with extension `ext`, if the identifier is a plain file name.
fn entry_path(params_dir: &Path, identifier: &str, ext: &str) -> Option<PathBuf> {
    let plain = !identifier.is_empty()
        && identifier.len() <= 200
        && !identifier.starts_with('.')
        && identifier.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
    plain.then(|| params_dir.join(DIR).join(format!("{identifier}.{ext}")))
}

/// The first line of a survey entry.
const SURVEY_TAG: &str = "cuzk-survey/1";

/// The checksum of a survey entry's body: the first 16 hex digits of its SHA-256.
fn survey_sum(body: &str) -> String {
    Sha256::digest(body.as_bytes()).iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// The survey entry's body: tag, build, digest and the footprint's six counts, space-separated.
fn survey_body(build: &str, fp: &Footprint, digest: u64) -> String {
    let s = fp.shape;
    format!(
        "{SURVEY_TAG} {build} {digest:016x} {} {} {} {} {} {}",
        s.constraints, s.inputs, s.aux, fp.a_aux, fp.b_input, fp.b_aux
    )
}

/// Builds whose surveys one circuit's entry keeps, newest first: processes of different builds sharing a
/// cache (a daemon and a CLI of another version, two builds compared in one device call) each find theirs.
/// With one, two builds taking turns re-surveyed every process (session aa, docs/PERF.md).
pub const SURVEY_BUILDS: usize = 4;

/// Remembers `identifier`'s survey (footprint and structure digest) as made by build `build`
/// (`util::build::id`), first among the entry's lines; the other builds' intact lines stay, up to
/// [`SURVEY_BUILDS`] in all. A failure to write costs only the next process's survey.
pub fn record_survey(
    params_dir: &Path,
    identifier: &str,
    build: &str,
    fp: &Footprint,
    digest: u64,
) -> std::io::Result<()> {
    let Some(path) = entry_path(params_dir, identifier, "survey") else { return Ok(()) };
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let lines = survey_lines(&text);
    if lines.iter().any(|(by, got, _)| *by == build && *got == (*fp, digest)) {
        return Ok(());
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let body = survey_body(build, fp, digest);
    let mut out = format!("{body} {}\n", survey_sum(&body));
    for (.., line) in lines.iter().filter(|(by, ..)| *by != build).take(SURVEY_BUILDS - 1) {
        out.push_str(line);
        out.push('\n');
    }
    crate::util::atomic::write_atomic(&path, out.as_bytes())
}

/// The survey remembered for `identifier` by build `build`, if an intact line of that build is there.
pub fn lookup_survey(params_dir: &Path, identifier: &str, build: &str) -> Option<(Footprint, u64)> {
    let text = std::fs::read_to_string(entry_path(params_dir, identifier, "survey")?).ok()?;
    survey_lines(&text).into_iter().find(|(by, ..)| *by == build).map(|(_, got, _)| got)
}

/// The intact lines of a survey entry: (build, (footprint, digest), the line itself); a line is only read
/// when it ends with its newline, so a torn write reads as unknown.
fn survey_lines(text: &str) -> Vec<(&str, (Footprint, u64), &str)> {
    text.split_inclusive('\n')
        .filter_map(|l| l.strip_suffix('\n'))
        .filter_map(|line| parse_survey(line).map(|(by, got)| (by, got, line)))
        .collect()
}

/// One survey line: its build and (footprint, digest), if its checksum and fields hold.
fn parse_survey(line: &str) -> Option<(&str, (Footprint, u64))> {
    let (body, sum) = line.rsplit_once(' ')?;
    if sum != survey_sum(body) {
        return None;
    }
    let f: Vec<&str> = body.split(' ').collect();
    let [tag, by, digest, rest @ ..] = &f[..] else { return None };
    if *tag != SURVEY_TAG || digest.len() != 16 || rest.len() != 6 {
        return None;
    }
    let digest = u64::from_str_radix(digest, 16).ok()?;
    let n: Vec<usize> = rest.iter().map(|v| v.parse().ok()).collect::<Option<_>>()?;
    let fp = Footprint {
        shape: Shape { constraints: n[0], inputs: n[1], aux: n[2] },
        a_aux: n[3],
        b_input: n[4],
        b_aux: n[5],
    };
    Some((by, (fp, digest)))
}

/// Forgets `identifier`'s survey (a run found the circuit no longer has it); whether one was there.
pub fn forget_survey(params_dir: &Path, identifier: &str) -> bool {
    entry_path(params_dir, identifier, "survey").is_some_and(|p| std::fs::remove_file(p).is_ok())
}

/// Remembers that `identifier`'s circuit has structure digest `digest` (nothing is written when the file
/// already says so). A failure to write is returned for the caller to warn about; it costs only the
/// preload's shortcut.
pub fn record(params_dir: &Path, identifier: &str, digest: u64) -> std::io::Result<()> {
    let Some(path) = path_of(params_dir, identifier) else { return Ok(()) };
    if lookup(params_dir, identifier) == Some(digest) {
        return Ok(());
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    crate::util::atomic::write_atomic(&path, format!("{digest:016x}\n").as_bytes())
}

/// The digest remembered for `identifier`, if a well-formed entry is there.
pub fn lookup(params_dir: &Path, identifier: &str) -> Option<u64> {
    let text = std::fs::read_to_string(path_of(params_dir, identifier)?).ok()?;
    let hex = text.strip_suffix('\n')?;
    (hex.len() == 16).then(|| u64::from_str_radix(hex, 16).ok()).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What is recorded reads back; a rewrite replaces it; a torn, malformed or foreign entry reads as
    /// unknown; identifiers that are not file names are neither written nor read.
    #[test]
    fn records_read_back_and_bad_entries_are_unknown() {
        let dir = tempfile::tempdir().expect("tempdir");
        let id = "stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-abc";
        assert_eq!(lookup(dir.path(), id), None);
        record(dir.path(), id, 0x0123_4567_89ab_cdef).expect("record");
        assert_eq!(lookup(dir.path(), id), Some(0x0123_4567_89ab_cdef));
        record(dir.path(), id, 7).expect("record");
        assert_eq!(lookup(dir.path(), id), Some(7));
        let file = path_of(dir.path(), id).expect("path");
        for bad in ["", "0000000000000007", "000000000000007\n", "zz00000000000007\n", "0000000000000007\n\n"]
        {
            std::fs::write(&file, bad).expect("write");
            assert_eq!(lookup(dir.path(), id), None, "{bad:?}");
        }
        for bad in ["", "../x", "a/b", ".hidden"] {
            record(dir.path(), bad, 1).expect("no-op");
            assert_eq!(lookup(dir.path(), bad), None, "{bad:?}");
        }
        let names: Vec<_> = std::fs::read_dir(dir.path().join(DIR)).expect("dir").flatten().collect();
        assert_eq!(names.len(), 1, "only the one entry, no temp files left");
    }

    /// A survey reads back for its build only; a flipped digit anywhere (checksum), a truncated or foreign
    /// file reads as unknown; several builds keep their own lines; a forgotten one is gone.
    #[test]
    fn surveys_read_back_for_their_build_and_corruption_is_unknown() {
        let dir = tempfile::tempdir().expect("tempdir");
        let id = "stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-abc";
        let fp = Footprint {
            shape: Shape { constraints: 2_687_961, inputs: 25, aux: 2_679_872 },
            a_aux: 2_679_800,
            b_input: 3,
            b_aux: 1_234_567,
        };
        let d = 0x9e37_79b9_7f4a_7c15;
        assert_eq!(lookup_survey(dir.path(), id, "b1"), None);
        record_survey(dir.path(), id, "b1", &fp, d).expect("record");
        assert_eq!(lookup_survey(dir.path(), id, "b1"), Some((fp, d)));
        assert_eq!(lookup_survey(dir.path(), id, "b2"), None, "another build's entry");
        let file = entry_path(dir.path(), id, "survey").expect("path");
        let good = std::fs::read_to_string(&file).expect("read");
        for i in 0..good.len() - 1 {
            let mut b = good.clone().into_bytes();
            b[i] = if b[i] == b'1' { b'2' } else { b'1' };
            std::fs::write(&file, &b).expect("write");
            assert_eq!(lookup_survey(dir.path(), id, "b1"), None, "byte {i} changed");
        }
        for bad in ["", &good[..good.len() - 1], &good[..good.len() / 2], "cuzk-survey/1\n"] {
            std::fs::write(&file, bad).expect("write");
            assert_eq!(lookup_survey(dir.path(), id, "b1"), None, "{bad:?}");
        }
        std::fs::write(&file, &good).expect("write");
        // Builds taking turns each keep their line, newest first, up to SURVEY_BUILDS; an older one goes.
        let fp2 = Footprint { b_aux: 7, ..fp };
        for (k, b) in ["b2", "b3", "b4"].iter().enumerate() {
            record_survey(dir.path(), id, b, &fp2, d + k as u64).expect("record");
        }
        for (k, b) in ["b2", "b3", "b4"].iter().enumerate() {
            assert_eq!(lookup_survey(dir.path(), id, b), Some((fp2, d + k as u64)), "{b}");
        }
        assert_eq!(lookup_survey(dir.path(), id, "b1"), Some((fp, d)), "b1 kept beside three others");
        let before = std::fs::read_to_string(&file).expect("read");
        record_survey(dir.path(), id, "b1", &fp, d).expect("record");
        assert_eq!(std::fs::read_to_string(&file).expect("read"), before, "a known survey is not rewritten");
        record_survey(dir.path(), id, "b5", &fp, d).expect("record");
        assert_eq!(lookup_survey(dir.path(), id, "b5"), Some((fp, d)));
        assert_eq!(lookup_survey(dir.path(), id, "b1"), None, "the oldest of five builds forgotten");
        assert_eq!(std::fs::read_to_string(&file).expect("read").lines().count(), SURVEY_BUILDS);
        // A build's new survey replaces its line; a corrupt line costs only its own build.
        record_survey(dir.path(), id, "b3", &fp, d).expect("record");
        assert_eq!(lookup_survey(dir.path(), id, "b3"), Some((fp, d)));
        let text = std::fs::read_to_string(&file).expect("read");
        assert_eq!(text.lines().filter(|l| l.contains(" b3 ")).count(), 1, "{text}");
        let torn: String = text
            .lines()
            .map(|l| if l.contains(" b4 ") { format!("{l}0\n") } else { format!("{l}\n") })
            .collect();
        std::fs::write(&file, torn).expect("write");
        assert_eq!(lookup_survey(dir.path(), id, "b4"), None);
        assert_eq!(lookup_survey(dir.path(), id, "b5"), Some((fp, d)));
        assert!(forget_survey(dir.path(), id));
        assert_eq!(lookup_survey(dir.path(), id, "b1"), None);
        assert!(!forget_survey(dir.path(), id));
    }
}
