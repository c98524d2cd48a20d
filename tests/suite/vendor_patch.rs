//! The vendored crates' patches (bellperson 0.27, neptune 11) are what `vendor/<name>.diff` and each
//! `PATCH.md` say, checked without a network: every hunk of the diff adds a line marked `cuzk patch`, the diff's new side is what the vendored
//! files hold at those lines, every `cuzk patch` marker in the vendored sources lies in a hunk, and PATCH.md
//! names every patched file. That the rest of each copy equals the published crate is
//! `scripts/vendor-check.sh`'s job (it downloads the crates and diffs).

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

const MARK: &str = "cuzk patch";

/// One hunk: where its new side starts (1-based) and its lines with their diff prefix.
struct Hunk {
    new_start: usize,
    lines: Vec<(char, String)>,
}

fn vendor() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("vendor")
}

/// The diff's files (paths inside the crate) and their hunks.
fn parse(diff: &str) -> Vec<(String, Vec<Hunk>)> {
    let mut files: Vec<(String, Vec<Hunk>)> = Vec::new();
    for line in diff.lines() {
        if let Some(path) = line.strip_prefix("+++ b/") {
            files.push((path.to_string(), Vec::new()));
        } else if line.starts_with("--- ") || line.starts_with("diff ") {
        } else if let Some(rest) = line.strip_prefix("@@ ") {
            let new = rest.split(' ').nth(1).expect("hunk header has a new range");
            let start = new.trim_start_matches('+').split(',').next().expect("start");
            let hunk = Hunk { new_start: start.parse().expect("hunk start"), lines: Vec::new() };
            files.last_mut().expect("hunk before any file").1.push(hunk);
        } else if let Some(hunk) = files.last_mut().and_then(|f| f.1.last_mut()) {
            let mut chars = line.chars();
            let tag = chars.next().unwrap_or(' ');
            assert!(matches!(tag, ' ' | '+' | '-' | '\\'), "unexpected diff line {line:?}");
            hunk.lines.push((tag, chars.as_str().to_string()));
        }
    }
    files
}

#[test]
fn vendored_bellperson_differs_only_by_the_marked_patch() {
    check_vendored("bellperson");
}

#[test]
fn vendored_neptune_differs_only_by_the_marked_patch() {
    check_vendored("neptune");
}

fn check_vendored(name: &str) {
    let diff = fs::read_to_string(vendor().join(format!("{name}.diff"))).expect("vendor/<name>.diff");
    let patch_md = fs::read_to_string(vendor().join(name).join("PATCH.md")).expect("PATCH.md");
    let files = parse(&diff);
    assert!(!files.is_empty(), "the diff names no file");
    let mut covered: BTreeSet<(String, usize)> = BTreeSet::new();
    for (path, hunks) in &files {
        assert!(patch_md.contains(&format!("`{path}`")), "PATCH.md does not list {path}");
        let text = fs::read_to_string(vendor().join(name).join(path)).expect(path);
        let lines: Vec<&str> = text.lines().collect();
        assert!(!hunks.is_empty(), "{path}: no hunk");
        for h in hunks {
            assert!(
                h.lines.iter().any(|(t, l)| *t == '+' && l.contains(MARK)),
                "{path}: the hunk at line {} adds no line marked `{MARK}`",
                h.new_start
            );
            let new_side: Vec<&str> =
                h.lines.iter().filter(|(t, _)| matches!(t, ' ' | '+')).map(|(_, l)| l.as_str()).collect();
            let at = h.new_start.saturating_sub(1);
            assert_eq!(
                lines.get(at..at + new_side.len()),
                Some(&new_side[..]),
                "{path}: the vendored file differs from the diff's hunk at line {}",
                h.new_start
            );
            covered.extend((at..at + new_side.len()).map(|i| (path.clone(), i)));
        }
    }
    // No marker outside the recorded hunks (an edit the diff does not know of).
    let mut stack = vec![vendor().join(name).join("src")];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).expect("read vendor dir") {
            let p = entry.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let rel =
                p.strip_prefix(vendor().join(name)).expect("inside").to_string_lossy().replace('\\', "/");
            let Ok(text) = fs::read_to_string(&p) else { continue };
            for (i, l) in text.lines().enumerate() {
                if l.contains(MARK) {
                    assert!(
                        covered.contains(&(rel.clone(), i)),
                        "{rel}:{}: `{MARK}` outside the diff",
                        i + 1
                    );
                }
            }
        }
    }
    // PATCH.md lists no patched source file the diff lacks.
    for word in patch_md.split('`').skip(1).step_by(2) {
        if word.starts_with("src/") && word.ends_with(".rs") {
            assert!(
                files.iter().any(|(p, _)| p == word),
                "PATCH.md lists {word}, which the diff does not patch"
            );
        }
    }
}

/// The parser reads hunk starts and tells a marked hunk from an unmarked one.
#[test]
fn the_parser_reads_hunks_and_markers() {
    let diff =
        "--- a/x.rs\n+++ b/x.rs\n@@ -1,2 +1,3 @@\n a\n+b // cuzk patch\n c\n@@ -9,1 +10,2 @@\n d\n+e\n";
    let files = parse(diff);
    assert_eq!(files.len(), 1);
    let hunks = &files[0].1;
    assert_eq!(hunks.iter().map(|h| h.new_start).collect::<Vec<_>>(), [1, 10]);
    let marked: Vec<bool> =
        hunks.iter().map(|h| h.lines.iter().any(|(t, l)| *t == '+' && l.contains(MARK))).collect();
    assert_eq!(marked, [true, false]);
}
