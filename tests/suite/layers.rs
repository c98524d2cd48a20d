//! The architecture holds in the source (docs/ARCHITECTURE.md, "Layers"), as three rules over which file
//! uses which (what "uses" means is in `layers/scan.rs`: a private `use` or a path in code naming an item the
//! other file defines; a `pub use` re-export only where the re-exporting file's own code names the item):
//! * layers: every module under `src/` has a layer in [`LAYERS`]; a file uses its own module and modules of
//!   lower layers, never a module of a higher layer or another module of its own layer;
//! * parent and child: a file inside a module (a child) may use the module's root file (`mod.rs`, or `x.rs`
//!   for `x/`) only if the root does not use that child, directly or through other files: a root either
//!   composes its children or is the base they build on, never both for one child;
//! * no cycle: no files use each other in a cycle of any length; reported in order, from the smallest path.
//!
//! Today's violations are listed in [`KNOWN_VIOLATIONS`], each with what removes it: the test fails on any
//! violation not listed there and on any listed one that no longer exists, so the list only shrinks.

#[path = "layers/scan.rs"]
mod scan;

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::Path;

use scan::{module_of, Scan, Use};

/// Layers bottom up, as docs/ARCHITECTURE.md's table (checked below). A module listed here need not exist
/// yet. `src/main.rs` is the binary's own crate above every layer: it picks the front end.
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

/// Known violations, keyed exactly as the checker prints them, each with what removes it; none today. A root
/// file that both dispatches to its children and holds what they share is the usual one: moving the shared
/// items (an error type, drawing helpers) into a sibling file the root and its children both use removes it.
const KNOWN_VIOLATIONS: &[(&str, &str)] = &[];

fn layer(top: &str) -> Option<u8> {
    LAYERS.iter().find(|(n, _)| *n == top).map(|(_, l)| *l)
}

fn top(path: &str) -> Option<String> {
    module_of(path).first().cloned()
}

/// Whether `root` is the root file of a module that contains `file` (its parent, or an ancestor).
fn is_root_of(root: &str, file: &str) -> bool {
    let (r, f) = (module_of(root), module_of(file));
    r.len() < f.len() && f.starts_with(&r)
}

/// `file`'s path below `root`'s folder (`src/cli/mod.rs`, `src/cli/job.rs` → `job.rs`).
fn below(root: &str, file: &str) -> String {
    let dir = root
        .strip_suffix("mod.rs")
        .map_or_else(|| root.trim_end_matches(".rs").to_string() + "/", str::to_string);
    file.strip_prefix(&dir).unwrap_or(file).to_string()
}

/// The file graph: who uses whom, with the first use as evidence.
type Graph = BTreeMap<String, BTreeMap<String, Use>>;

/// The shortest route from `a` to `b` (both included), if any.
fn route(g: &Graph, a: &str, b: &str) -> Option<Vec<String>> {
    let mut prev: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = VecDeque::from([a]);
    while let Some(x) = queue.pop_front() {
        for y in g.get(x).into_iter().flat_map(|m| m.keys()) {
            if y == a || prev.contains_key(y.as_str()) {
                continue;
            }
            prev.insert(y, x);
            if y == b {
                let mut out = vec![b.to_string()];
                let mut at = b;
                while at != a {
                    at = prev[at];
                    out.push(at.to_string());
                }
                out.reverse();
                return Some(out);
            }
            queue.push_back(y);
        }
    }
    None
}

/// A route written with its evidence: `a.rs:12 crate::x::Y -> b.rs:40 crate::z -> c.rs`.
fn show(g: &Graph, files: &[String]) -> String {
    let hops: Vec<String> = files
        .windows(2)
        .map(|w| format!("{}:{} {}", w[0], g[&w[0]][&w[1]].line, g[&w[0]][&w[1]].path))
        .collect();
    format!("{} -> {}", hops.join(" -> "), files[files.len() - 1])
}

/// The elementary cycles of a graph, each written from its smallest file.
fn cycles(g: &Graph) -> Vec<Vec<String>> {
    fn walk(start: &str, at: &str, path: &mut Vec<String>, g: &Graph, out: &mut Vec<Vec<String>>) {
        for next in g.get(at).into_iter().flat_map(|m| m.keys()) {
            if next == start {
                out.push(path.clone());
            } else if next.as_str() > start && !path.contains(next) && out.len() < 1000 {
                path.push(next.clone());
                walk(start, next, path, g, out);
                path.pop();
            }
        }
    }
    let mut out = Vec::new();
    for start in g.keys() {
        walk(start, start, &mut vec![start.clone()], g, &mut out);
    }
    out
}

/// Every violation of the three rules in `sources` (`src/…` paths and their text): key → where it is.
/// Err when a module under `src/` has no layer.
fn violations(sources: &[(String, String)]) -> Result<BTreeMap<String, String>, String> {
    let scan = Scan::new(sources);
    let unlayered: BTreeSet<String> =
        scan.paths().iter().filter_map(|p| top(p)).filter(|t| layer(t).is_none()).collect();
    if !unlayered.is_empty() {
        return Err(format!(
            "modules with no layer in LAYERS (and docs/ARCHITECTURE.md's table): {unlayered:?}"
        ));
    }
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    let mut g: Graph = BTreeMap::new();
    for u in scan.uses() {
        let Some(mine) = top(&u.from) else { continue };
        let my_layer = layer(&mine).unwrap_or(0);
        for target in &u.chain {
            let Some(theirs) = top(target).filter(|t| *t != mine) else { continue };
            let their_layer = layer(&theirs).unwrap_or(0);
            let key = match their_layer.cmp(&my_layer) {
                std::cmp::Ordering::Greater => {
                    format!("climbs: {} uses {theirs} (layer {their_layer} above {my_layer})", u.from)
                }
                std::cmp::Ordering::Equal => {
                    format!("same layer: {} uses {theirs} (layer {my_layer})", u.from)
                }
                std::cmp::Ordering::Less => continue,
            };
            out.entry(key).or_insert_with(|| format!("{}:{} {}", u.from, u.line, u.path));
        }
        if let Some(def) = u.chain.last().filter(|d| u.in_code && **d != u.from).cloned() {
            g.entry(u.from.clone()).or_default().entry(def).or_insert(u);
        }
    }
    // Parent and child: a child's use of its root is allowed unless the root reaches the child back.
    let mut mutual: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    let mut upward: Graph = BTreeMap::new();
    for (child, targets) in &g {
        for (root, u) in targets.iter().filter(|(r, _)| is_root_of(r, child)) {
            upward.entry(child.clone()).or_default().insert(root.clone(), u.clone());
            if let Some(back) = route(&g, root, child) {
                let why = format!("{}:{} {} -> {root}; back: {}", child, u.line, u.path, show(&g, &back));
                mutual.entry(root.clone()).or_default().push((below(root, child), why));
            }
        }
    }
    for (root, children) in mutual {
        let names: Vec<&str> = children.iter().map(|(n, _)| n.as_str()).collect();
        let key = format!("parent/child: {root} and its children {} use each other", names.join(", "));
        out.insert(key, children.iter().map(|(_, w)| w.as_str()).collect::<Vec<_>>().join("\n    "));
    }
    // Cycles of any length among the rest (a cycle through a child's use of its root is reported above).
    let mut rest = g.clone();
    for (child, roots) in &upward {
        for root in roots.keys() {
            rest.get_mut(child).map(|m| m.remove(root));
        }
    }
    for cycle in cycles(&rest) {
        let mut closed = cycle.clone();
        closed.push(cycle[0].clone());
        out.insert(format!("cycle: {}", closed.join(" -> ")), show(&rest, &closed));
    }
    Ok(out)
}

/// Found violations against the allowlist: Err naming every new one (with where) and every listed one that
/// is gone.
fn against(found: &BTreeMap<String, String>, known: &[(&str, &str)]) -> Result<(), String> {
    let listed: BTreeSet<&str> = known.iter().map(|(k, _)| *k).collect();
    let new: Vec<String> = found
        .iter()
        .filter(|(k, _)| !listed.contains(k.as_str()))
        .map(|(k, w)| format!("  {k}\n    {w}"))
        .collect();
    let gone: Vec<String> = known
        .iter()
        .filter(|(k, _)| !found.contains_key(*k))
        .map(|(k, why)| format!("  {k}\n    (was to be removed by: {why})"))
        .collect();
    let mut msg = String::new();
    if !new.is_empty() {
        msg += &format!("violations of docs/ARCHITECTURE.md's layer rules:\n{}\n", new.join("\n"));
    }
    if !gone.is_empty() {
        msg += &format!(
            "fixed, so take them out of KNOWN_VIOLATIONS in tests/suite/layers.rs:\n{}\n",
            gone.join("\n")
        );
    }
    if msg.is_empty() {
        Ok(())
    } else {
        Err(msg)
    }
}

fn rust_files(dir: &Path, out: &mut Vec<(String, String)>) {
    for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())).flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") && p != Path::new("src/main.rs") {
            let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            out.push((p.to_string_lossy().replace('\\', "/"), text));
        }
    }
}

#[test]
fn the_tree_keeps_the_layer_rules_but_for_the_known_violations() {
    let mut files = Vec::new();
    rust_files(Path::new("src"), &mut files);
    let scan = Scan::new(&files);
    let uses = scan.uses();
    assert!(files.len() > 100 && uses.len() > 1000, "the scan must see the crate ({} uses)", uses.len());
    let found = violations(&files).unwrap_or_else(|e| panic!("{e}"));
    if let Err(e) = against(&found, KNOWN_VIOLATIONS) {
        panic!("{e}");
    }
}

#[test]
fn the_documented_table_is_the_checked_one() {
    let doc = std::fs::read_to_string("docs/ARCHITECTURE.md").expect("docs/ARCHITECTURE.md");
    let section =
        doc.split("## Layers").nth(1).and_then(|s| s.split("\n## ").next()).expect("a Layers section");
    let mut documented = BTreeSet::new();
    for row in
        section.lines().filter(|l| l.starts_with("| ") && l[2..].starts_with(|c: char| c.is_ascii_digit()))
    {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let n: u8 = cells[1].parse().unwrap_or_else(|e| panic!("{row}: {e}"));
        for m in cells[2].split(',') {
            documented.insert((m.trim().trim_matches('`').to_string(), n));
        }
    }
    let checked: BTreeSet<(String, u8)> = LAYERS.iter().map(|(m, l)| (m.to_string(), *l)).collect();
    assert_eq!(documented, checked, "docs/ARCHITECTURE.md's layer table and LAYERS differ");
}

// ---- the checker on made-up trees: each rule catches its violation ----

fn tree(files: &[(&str, &str)]) -> Vec<(String, String)> {
    files.iter().map(|(p, s)| (p.to_string(), s.to_string())).collect()
}

fn keys(files: &[(&str, &str)]) -> Vec<String> {
    violations(&tree(files)).unwrap_or_else(|e| panic!("{e}")).into_keys().collect()
}

#[test]
fn a_cycle_of_three_files_is_reported_in_order() {
    let found = violations(&tree(&[
        ("src/engine/mod.rs", "mod a; mod b; mod c;"),
        ("src/engine/a.rs", "use super::b::B;\npub struct A(B);"),
        ("src/engine/b.rs", "pub struct B;\npub fn f() -> super::c::C { todo!() }"),
        ("src/engine/c.rs", "pub struct C;\nfn g(_: crate::engine::a::A) {}"),
    ]))
    .unwrap_or_else(|e| panic!("{e}"));
    let key = "cycle: src/engine/a.rs -> src/engine/b.rs -> src/engine/c.rs -> src/engine/a.rs";
    assert_eq!(found.keys().collect::<Vec<_>>(), [key], "{found:#?}");
    assert!(
        found[key].starts_with("src/engine/a.rs:1 crate::engine::b::B -> src/engine/b.rs:2"),
        "{}",
        found[key]
    );
}

#[test]
fn modules_of_one_layer_do_not_use_each_other_and_none_climbs() {
    let k = keys(&[
        ("src/tui/mod.rs", "pub struct Opts;"),
        ("src/cli/mod.rs", "mod x;"),
        ("src/cli/x.rs", "use crate::{engine::Engine, tui::Opts};\nfn f(_: Opts, _: Engine) {}"),
        ("src/engine/mod.rs", "pub struct Engine;\nfn g() -> crate::cli::X { todo!() }"),
        ("src/vocab/mod.rs", "// crate::tui::Opts in a comment\nconst S: &str = \"crate::tui::Opts\";"),
    ]);
    assert_eq!(
        k,
        [
            "climbs: src/engine/mod.rs uses cli (layer 6 above 5)",
            "same layer: src/cli/x.rs uses tui (layer 6)",
        ]
    );
    // A module using itself, and a listed module that does not exist (daemon), are fine.
    assert!(keys(&[
        ("src/cli/mod.rs", "mod x;\nuse x::X;\nfn f(_: X) {}"),
        ("src/cli/x.rs", "pub struct X;")
    ])
    .is_empty());
    // A module with no layer is an error of its own.
    let e = violations(&tree(&[("src/newmod/mod.rs", "")])).err().unwrap_or_default();
    assert!(e.contains("newmod"), "{e}");
}

#[test]
fn a_parent_and_a_child_using_each_other_are_reported() {
    // The root imports its child's constant; the child uses the root's type (gpu/backend.rs ↔ backend/h.rs).
    let k = keys(&[
        ("src/backend/lane.rs", "mod h;\nuse h::BYTES;\npub struct Lane;\nfn f() -> usize { BYTES }"),
        (
            "src/backend/lane/h.rs",
            "use super::{\n    Lane,\n};\npub const BYTES: usize = 1;\nfn g(_: Lane) {}",
        ),
    ]);
    assert_eq!(k, ["parent/child: src/backend/lane.rs and its children h.rs use each other"]);
    // Through another file: the root reaches the child through a sibling, by a path in code.
    let k = keys(&[
        ("src/cli/mod.rs", "mod a; mod b;\npub enum CliError {}\nfn run() { b::go(); }"),
        ("src/cli/a.rs", "pub fn help() -> Result<(), super::CliError> { Ok(()) }"),
        ("src/cli/b.rs", "pub fn go() { let _ = super::a::help(); }"),
    ]);
    assert_eq!(k, ["parent/child: src/cli/mod.rs and its children a.rs use each other"]);
    // Allowed: the child uses its root and the root only re-exports the child (its façade).
    assert!(keys(&[
        ("src/cs/mod.rs", "mod lc;\npub use lc::Lc;\npub struct Variable;"),
        ("src/cs/lc.rs", "pub struct Lc(super::Variable);"),
    ])
    .is_empty());
    // But a re-export the root's own code names is a use.
    let k = keys(&[
        (
            "src/cs/mod.rs",
            "mod lc;\npub use lc::Lc;\npub struct Variable;\npub trait Cs { fn enforce(&mut self, a: Lc); }",
        ),
        ("src/cs/lc.rs", "pub struct Lc(super::Variable);"),
    ]);
    assert_eq!(k, ["parent/child: src/cs/mod.rs and its children lc.rs use each other"]);
}

#[test]
fn a_re_export_does_not_hide_a_cycle_between_siblings() {
    // ntt.rs re-exports quotient's Combine; pass.rs names it through the parent, quotient.rs calls pass.rs.
    let k = keys(&[
        ("src/backend/ntt.rs", "mod pass; mod quotient;\npub(crate) use quotient::Combine;"),
        ("src/backend/ntt/pass.rs", "use super::Combine;\npub fn ntt(_: Combine) {}"),
        (
            "src/backend/ntt/quotient.rs",
            "use super::pass;\npub enum Combine { Mul }\nfn h() { pass::ntt(Combine::Mul) }",
        ),
    ]);
    assert_eq!(
        k,
        ["cycle: src/backend/ntt/pass.rs -> src/backend/ntt/quotient.rs -> src/backend/ntt/pass.rs"]
    );
}

#[test]
fn the_allowlist_fails_on_new_and_on_fixed_violations() {
    let found: BTreeMap<String, String> =
        [("a".to_string(), "where a is".to_string()), ("b".to_string(), "where b is".to_string())].into();
    assert!(against(&found, &[("a", "issue 1"), ("b", "issue 2")]).is_ok());
    let e = against(&found, &[("a", "issue 1")]).err().unwrap_or_default();
    assert!(e.contains("  b\n    where b is") && !e.contains("fixed"), "{e}");
    let e =
        against(&found, &[("a", "issue 1"), ("b", "issue 2"), ("c", "issue 3")]).err().unwrap_or_default();
    assert!(e.contains("take them out") && e.contains("  c\n    (was to be removed by: issue 3)"), "{e}");
    assert!(!e.contains("violations of"), "{e}");
}

#[test]
fn the_reader_skips_comments_strings_and_test_code() {
    let k = keys(&[
        (
            "src/vocab/mod.rs",
            concat!(
                "/* crate::tui::A /* nested */ crate::tui::B */\n",
                "const R: &str = r#\"crate::tui::C \"# ;\n",
                "const Q: char = '\"'; const L: &'static str = \"\\\" crate::tui::D\";\n",
                "#[cfg(test)]\nmod tests { use crate::tui::E; }\n",
                "fn f<'a>(x: &'a str) -> &'a str { x }\n",
                "fn g() { let _ = crate::engine::Engine; }\n",
            ),
        ),
        ("src/engine/mod.rs", "pub struct Engine;"),
        ("src/tui/mod.rs", "pub struct A;"),
    ]);
    assert_eq!(k, ["climbs: src/vocab/mod.rs uses engine (layer 5 above 0)"]);
}
