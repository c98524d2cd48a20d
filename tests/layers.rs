//! The architecture holds in the source: no module imports a higher layer, and no two files import each
//! other. Reads every `crate::` / `super::` path under `src/` (the same reading a reviewer does).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Layers bottom up; a module may use its own layer and those below.
const LAYERS: &[(&str, u8)] = &[
    ("vocab", 0),
    ("util", 0),
    ("wire", 0),
    ("cs", 1),
    ("gadgets", 2),
    ("circuits", 3),
    ("backend", 3),
    ("groth16", 4),
    ("timeline", 4),
    ("engine", 5),
    ("cli", 6),
    ("tui", 6),
    ("daemon", 6),
];

fn layer(top: &str) -> Option<u8> {
    LAYERS.iter().find(|(n, _)| *n == top).map(|(_, l)| *l)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())).flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The module path of a file: `src/engine/run.rs` → [engine, run]; `mod.rs` names its folder.
fn module_of(file: &Path) -> Vec<String> {
    let rel = file.strip_prefix("src").unwrap_or(file);
    let mut parts: Vec<String> = rel.iter().map(|c| c.to_string_lossy().into_owned()).collect();
    if let Some(last) = parts.pop() {
        let stem = last.trim_end_matches(".rs").to_string();
        if stem != "mod" && stem != "lib" && stem != "main" {
            parts.push(stem);
        }
    }
    parts
}

/// Module paths a file refers to: `crate::a::b…` and `super::…` resolved against its own module, code only
/// (comments and doc lines skipped), `#[cfg(test)]` tails ignored.
fn imports(file: &Path, src: &str) -> BTreeSet<Vec<String>> {
    let me = module_of(file);
    let code = src.split("#[cfg(test)]").next().unwrap_or("");
    let mut out = BTreeSet::new();
    for line in code.lines().map(str::trim).filter(|l| !l.starts_with("//")) {
        for (i, _) in line.match_indices("crate::").chain(line.match_indices("super::")) {
            let prefix_ok =
                i == 0 || !line.as_bytes()[i - 1].is_ascii_alphanumeric() && line.as_bytes()[i - 1] != b'_';
            if !prefix_ok {
                continue;
            }
            let rest = &line[i..];
            let path: Vec<&str> = rest
                .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .next()
                .unwrap_or("")
                .split("::")
                .filter(|s| !s.is_empty())
                .collect();
            let mut abs: Vec<String> = Vec::new();
            let mut it = path.iter().peekable();
            if it.peek() == Some(&&"crate") {
                it.next();
            } else {
                // Each `super` leaves one module: from `engine/run.rs` (engine::run) it names `engine`.
                abs = me.clone();
                while it.peek() == Some(&&"super") {
                    it.next();
                    abs.pop();
                }
            }
            abs.extend(it.map(|s| s.to_string()));
            if !abs.is_empty() {
                out.insert(abs);
            }
        }
    }
    out
}

#[test]
fn no_import_climbs_a_layer_and_no_two_files_import_each_other() {
    let mut files = Vec::new();
    rust_files(Path::new("src"), &mut files);
    let modules: BTreeMap<Vec<String>, PathBuf> = files.iter().map(|f| (module_of(f), f.clone())).collect();
    let mut edges: BTreeSet<(Vec<String>, Vec<String>)> = BTreeSet::new();
    let mut climbs = Vec::new();
    for f in &files {
        let src = std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let me = module_of(f);
        let Some(my_top) = me.first() else { continue };
        for target in imports(f, &src) {
            let Some(their_top) = target.first() else { continue };
            if let (Some(a), Some(b)) = (layer(my_top), layer(their_top)) {
                if b > a {
                    climbs.push(format!("{} uses crate::{}", f.display(), target.join("::")));
                }
            }
            // The longest module prefix of the path that is a file: the file it imports.
            if let Some(m) =
                (1..=target.len()).rev().map(|k| target[..k].to_vec()).find(|m| modules.contains_key(m))
            {
                if m != me && !me.starts_with(&m) && !m.starts_with(&me) {
                    edges.insert((me.clone(), m));
                }
            }
        }
    }
    assert!(climbs.is_empty(), "imports from a lower layer to a higher one:\n{}", climbs.join("\n"));
    let cycles: Vec<String> = edges
        .iter()
        .filter(|(a, b)| a < b && edges.contains(&(b.clone(), a.clone())))
        .map(|(a, b)| format!("{} <-> {}", a.join("::"), b.join("::")))
        .collect();
    assert!(cycles.is_empty(), "files importing each other:\n{}", cycles.join("\n"));
    assert!(files.len() > 50 && edges.len() > 100, "the scan must see the crate ({} edges)", edges.len());
}
