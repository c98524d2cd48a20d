//! Reads the crate's sources the way a reviewer does and says which file uses which: a small Rust lexer
//! (comments, strings, char literals and lifetimes skipped), the module of each file, the items each file
//! defines at its top level, its `use` declarations (use trees included) and the `crate::` / `super::` /
//! `self::` / child-module paths in its code. A path is resolved to the file that defines the named item,
//! following `use` bindings (re-exports included) of the modules it passes through.
//!
//! What counts as a use of file B by file A:
//! * a private `use` in A that names an item of B (the compiler rejects unused imports, so it is used);
//! * a path in A's code that names an item of B (`crate::x::f()`, `super::X`, `child::f()`);
//! * a `pub use` in A that re-exports an item of B counts only where A's own code names the re-exported item:
//!   a re-export is the module's façade and gives A's code no dependency on B; whoever uses the item through
//!   A's name resolves to B itself.
//!
//! `#[cfg(test)]` items are left out: the layering is the library's; unit tests may reach anywhere.
//! Glob imports (`use x::*`) count as a use of the module they name. Trait methods called through an
//! imported trait are seen through the trait's `use`.

use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    /// `::`
    Colons,
    Punct(char),
}

/// Tokens with their 1-based line numbers.
fn lex(src: &str) -> Vec<(Tok, usize)> {
    let c: Vec<char> = src.chars().collect();
    let (mut i, mut line, mut out) = (0usize, 1usize, Vec::new());
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    // Skips a quoted literal that starts at `i` (the opening quote); counts its newlines.
    let skip_quoted = |mut i: usize, line: &mut usize| -> usize {
        i += 1;
        while i < c.len() && c[i] != '"' {
            if c[i] == '\\' {
                i += 1;
            }
            if at(i) == '\n' {
                *line += 1;
            }
            i += 1;
        }
        i + 1
    };
    while i < c.len() {
        let ch = c[i];
        match ch {
            '\n' => {
                line += 1;
                i += 1;
            }
            _ if ch.is_whitespace() => i += 1,
            '/' if at(i + 1) == '/' => {
                while i < c.len() && c[i] != '\n' {
                    i += 1;
                }
            }
            '/' if at(i + 1) == '*' => {
                let mut depth = 0;
                while i < c.len() {
                    if c[i] == '/' && at(i + 1) == '*' {
                        depth += 1;
                        i += 2;
                    } else if c[i] == '*' && at(i + 1) == '/' {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        if c[i] == '\n' {
                            line += 1;
                        }
                        i += 1;
                    }
                }
            }
            '"' => i = skip_quoted(i, &mut line),
            '\'' => {
                // A char literal ('a', '\n', '\u{1F600}') or a lifetime ('a).
                if at(i + 1) == '\\' {
                    i += 2;
                    while i < c.len() && c[i] != '\'' {
                        i += 1;
                    }
                    i += 1;
                } else if at(i + 2) == '\'' {
                    i += 3;
                } else {
                    i += 1;
                    while at(i).is_alphanumeric() || at(i) == '_' {
                        i += 1;
                    }
                }
            }
            _ if ch.is_ascii_digit() => {
                while at(i).is_alphanumeric() || at(i) == '_' {
                    i += 1;
                }
            }
            _ if ch.is_alphabetic() || ch == '_' => {
                // Byte and raw strings: b"..", br"..", r#".."#, b'x'.
                let raw_at = if ch == 'r' {
                    Some(i + 1)
                } else if ch == 'b' && at(i + 1) == 'r' {
                    Some(i + 2)
                } else {
                    None
                };
                if let Some(mut j) = raw_at {
                    let mut hashes = 0;
                    while at(j) == '#' {
                        hashes += 1;
                        j += 1;
                    }
                    if at(j) == '"' {
                        j += 1;
                        loop {
                            if j >= c.len() {
                                break;
                            }
                            if c[j] == '"' && (0..hashes).all(|k| at(j + 1 + k) == '#') {
                                j += 1 + hashes;
                                break;
                            }
                            if c[j] == '\n' {
                                line += 1;
                            }
                            j += 1;
                        }
                        i = j;
                        continue;
                    }
                }
                if ch == 'b' && at(i + 1) == '"' {
                    i = skip_quoted(i + 1, &mut line);
                    continue;
                }
                if ch == 'b' && at(i + 1) == '\'' {
                    i += 2;
                    while i < c.len() && c[i] != '\'' {
                        i += if c[i] == '\\' { 2 } else { 1 };
                    }
                    i += 1;
                    continue;
                }
                let s = i;
                while at(i).is_alphanumeric() || at(i) == '_' {
                    i += 1;
                }
                out.push((Tok::Ident(c[s..i].iter().collect()), line));
            }
            ':' if at(i + 1) == ':' => {
                out.push((Tok::Colons, line));
                i += 2;
            }
            _ => {
                out.push((Tok::Punct(ch), line));
                i += 1;
            }
        }
    }
    out
}

/// The module path of a file under `src/`: `src/engine/run.rs` → [engine, run]; `mod.rs`, `lib.rs` and
/// `main.rs` name their folder (the crate root for the last two).
pub fn module_of(path: &str) -> Vec<String> {
    let rel = path.strip_prefix("src/").unwrap_or(path);
    let mut parts: Vec<String> = rel.split('/').map(str::to_string).collect();
    if let Some(last) = parts.pop() {
        let stem = last.trim_end_matches(".rs").to_string();
        if stem != "mod" && !(parts.is_empty() && (stem == "lib" || stem == "main")) {
            parts.push(stem);
        }
    }
    parts
}

/// One written reference: a `use` leaf or a path in code, made absolute.
#[derive(Clone, Debug)]
struct Ref {
    line: usize,
    path: Vec<String>,
    /// The name a `pub use` binds: the reference counts for the graph only if the file's code names it.
    pub_binding: Option<String>,
}

/// One source file, scanned.
#[derive(Debug)]
struct File {
    path: String,
    module: Vec<String>,
    defs: BTreeSet<String>,
    /// Top-level `use` bindings: name → the path as written (`::krate::…` starts with an empty segment).
    bindings: BTreeMap<String, Vec<String>>,
    refs: Vec<Ref>,
    /// Identifiers in code outside `use` declarations.
    code_idents: BTreeSet<String>,
}

/// One use of a file by another.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Use {
    /// The using file.
    pub from: String,
    /// Where in it.
    pub line: usize,
    /// The path as resolved (`crate::a::b::Item`).
    pub path: String,
    /// Every file the path passes through to its item, the defining file last.
    pub chain: Vec<String>,
    /// Whether it is a dependency of `from`'s code (false: an unused `pub use` re-export).
    pub in_code: bool,
}

const ITEM_KEYWORDS: &[&str] = &["fn", "struct", "enum", "union", "trait", "type", "const", "static", "mod"];

struct Parser<'a> {
    t: &'a [(Tok, usize)],
    i: usize,
}

impl Parser<'_> {
    fn peek(&self, k: usize) -> Option<&Tok> {
        self.t.get(self.i + k).map(|(t, _)| t)
    }
    fn ident(&self, k: usize) -> Option<&str> {
        match self.peek(k) {
            Some(Tok::Ident(s)) => Some(s),
            _ => None,
        }
    }
    fn is(&self, k: usize, c: char) -> bool {
        self.peek(k) == Some(&Tok::Punct(c))
    }
    fn line(&self) -> usize {
        self.t.get(self.i).map_or(0, |(_, l)| *l)
    }

    /// Skips one item from the current token: to its `;` or the end of its first `{…}` block.
    fn skip_item(&mut self) {
        let mut nest = 0i32;
        while let Some(t) = self.peek(0).cloned() {
            self.i += 1;
            match t {
                Tok::Punct('(' | '[') => nest += 1,
                Tok::Punct(')' | ']') => nest -= 1,
                Tok::Punct(';') if nest == 0 => return,
                Tok::Punct('{') if nest == 0 => {
                    let mut d = 1;
                    while d > 0 {
                        match self.peek(0) {
                            Some(Tok::Punct('{')) => d += 1,
                            Some(Tok::Punct('}')) => d -= 1,
                            None => return,
                            _ => {}
                        }
                        self.i += 1;
                    }
                    return;
                }
                _ => {}
            }
        }
    }

    /// An attribute `#[…]` / `#![…]` at the cursor: skips it and says whether it is `cfg(test)` (or a `cfg`
    /// that names `test` inside `all(…)`).
    fn attribute(&mut self) -> bool {
        self.i += 1;
        if self.is(0, '!') {
            self.i += 1;
        }
        let start = self.i;
        let mut d = 0;
        while let Some(t) = self.peek(0) {
            match t {
                Tok::Punct('[') => d += 1,
                Tok::Punct(']') => {
                    d -= 1;
                    if d == 0 {
                        self.i += 1;
                        break;
                    }
                }
                _ => {}
            }
            self.i += 1;
        }
        let body: Vec<&Tok> = self.t[start..self.i].iter().map(|(t, _)| t).collect();
        matches!(body.get(1), Some(Tok::Ident(s)) if s == "cfg")
            && !body.iter().any(|t| matches!(t, Tok::Ident(s) if s == "not" || s == "any"))
            && body.iter().any(|t| matches!(t, Tok::Ident(s) if s == "test"))
    }

    /// A use tree at the cursor (after `use`), up to but not including `;`: each leaf's path (`prefix` + its
    /// segments; `self` in braces names the prefix) and the name it binds (None for `*` and `_`).
    fn use_tree(&mut self, prefix: Vec<String>, out: &mut Vec<(Vec<String>, Option<String>, usize)>) {
        let mut path = prefix;
        if self.peek(0) == Some(&Tok::Colons) {
            self.i += 1;
            if path.is_empty() {
                path.push(String::new()); // `::extern_crate`: external
            }
        }
        loop {
            let line = self.line();
            match self.peek(0).cloned() {
                Some(Tok::Punct('{')) => {
                    self.i += 1;
                    while !self.is(0, '}') && self.peek(0).is_some() {
                        self.use_tree(path.clone(), out);
                        if self.is(0, ',') {
                            self.i += 1;
                        }
                    }
                    self.i += 1;
                    return;
                }
                Some(Tok::Punct('*')) => {
                    self.i += 1;
                    out.push((path, None, line));
                    return;
                }
                Some(Tok::Ident(s)) => {
                    self.i += 1;
                    if self.peek(0) == Some(&Tok::Colons) {
                        self.i += 1;
                        path.push(s);
                        continue;
                    }
                    let name = if s == "self" { path.last().cloned().unwrap_or_default() } else { s.clone() };
                    if s != "self" {
                        path.push(s);
                    }
                    let mut bound = Some(name);
                    if self.ident(0) == Some("as") {
                        bound = self.ident(1).filter(|a| *a != "_").map(str::to_string);
                        self.i += 2;
                    }
                    out.push((path, bound, line));
                    return;
                }
                _ => return,
            }
        }
    }

    /// A path in code at the cursor (an identifier followed by `::`): its identifier segments.
    fn code_path(&mut self) -> Vec<String> {
        let mut segs = Vec::new();
        while let Some(s) = self.ident(0).map(str::to_string) {
            segs.push(s);
            self.i += 1;
            if self.peek(0) == Some(&Tok::Colons) && self.ident(1).is_some() {
                self.i += 1;
            } else {
                break;
            }
        }
        segs
    }
}

/// A path as written, before it is made absolute.
struct Written {
    /// The module it was written in (inline modules included).
    here: Vec<String>,
    segs: Vec<String>,
    pub_binding: Option<String>,
    line: usize,
    /// In a `use` declaration (else a path in code).
    in_use: bool,
}

/// Whether the `use` at token `i` is `pub` (`pub use`, `pub(crate) use`, `pub(super) use`).
fn visibility_before(toks: &[(Tok, usize)], i: usize) -> bool {
    let Some(mut j) = i.checked_sub(1) else { return false };
    if toks[j].0 == Tok::Punct(')') {
        while j > 0 && toks[j].0 != Tok::Punct('(') {
            j -= 1;
        }
        let Some(k) = j.checked_sub(1) else { return false };
        j = k;
    }
    matches!(&toks[j].0, Tok::Ident(s) if s == "pub")
}

fn scan_file(path: &str, src: &str, modules: &BTreeSet<Vec<String>>) -> File {
    let toks = lex(src);
    let module = module_of(path);
    let mut p = Parser { t: &toks, i: 0 };
    let mut f = File {
        path: path.to_string(),
        module: module.clone(),
        defs: BTreeSet::new(),
        bindings: BTreeMap::new(),
        refs: Vec::new(),
        code_idents: BTreeSet::new(),
    };
    let mut raw: Vec<Written> = Vec::new();
    let mut depth = 0usize;
    // Inline modules: (name, brace depth inside them).
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut pending_inline: Option<String> = None;
    let mut skip_next = false;
    let mut prev_colons = false;
    while let Some(t) = p.peek(0).cloned() {
        let here: Vec<String> = module.iter().cloned().chain(inline.iter().map(|(n, _)| n.clone())).collect();
        let top_level = depth == inline.last().map_or(0, |(_, d)| *d);
        match t {
            Tok::Punct('#') if p.is(1, '[') || (p.is(1, '!') && p.is(2, '[')) => {
                skip_next |= p.attribute();
                continue;
            }
            _ if skip_next => {
                skip_next = false;
                p.skip_item();
                continue;
            }
            Tok::Ident(ref s) if s == "use" && !prev_colons => {
                let is_pub = visibility_before(&toks, p.i);
                p.i += 1;
                let mut leaves = Vec::new();
                p.use_tree(Vec::new(), &mut leaves);
                for (segs, bound, line) in leaves {
                    let pub_binding = bound.clone().filter(|_| is_pub);
                    raw.push(Written {
                        here: here.clone(),
                        segs: segs.clone(),
                        pub_binding,
                        line,
                        in_use: true,
                    });
                    if top_level && inline.is_empty() {
                        if let Some(b) = bound {
                            f.bindings.insert(b, segs);
                        }
                    }
                }
                prev_colons = false;
                continue;
            }
            Tok::Ident(ref s) if s == "macro_rules" && p.is(1, '!') => {
                if let Some(n) = p.ident(2) {
                    f.defs.insert(n.to_string());
                }
            }
            Tok::Ident(ref s) if top_level && ITEM_KEYWORDS.contains(&s.as_str()) && !prev_colons => {
                if let Some(n) = p.ident(1).filter(|n| !ITEM_KEYWORDS.contains(n)) {
                    if inline.is_empty() {
                        f.defs.insert(n.to_string());
                    }
                    if s == "mod" && p.is(2, '{') {
                        pending_inline = Some(n.to_string());
                    }
                }
            }
            Tok::Ident(_) if !prev_colons && p.peek(1) == Some(&Tok::Colons) && p.ident(2).is_some() => {
                let line = p.line();
                let segs = p.code_path();
                f.code_idents.extend(segs.iter().cloned());
                raw.push(Written { here: here.clone(), segs, pub_binding: None, line, in_use: false });
                prev_colons = false;
                continue;
            }
            Tok::Punct('{') => {
                depth += 1;
                if let Some(n) = pending_inline.take() {
                    inline.push((n, depth));
                }
            }
            Tok::Punct('}') => {
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
            }
            _ => {}
        }
        if let Tok::Ident(s) = &t {
            f.code_idents.insert(s.clone());
        }
        prev_colons = t == Tok::Colons;
        p.i += 1;
    }
    for w in raw {
        if let Some(path) = absolute(&w.here, &w.segs, &f, modules, w.in_use) {
            f.refs.push(Ref { line: w.line, path, pub_binding: w.pub_binding });
        }
    }
    f
}

/// A written path made absolute from the module it was written in; None when it names something outside the
/// crate (another crate, a local variable's type, a variant of a type of this file).
fn absolute(
    here: &[String],
    segs: &[String],
    f: &File,
    modules: &BTreeSet<Vec<String>>,
    in_use: bool,
) -> Option<Vec<String>> {
    let first = segs.first()?;
    let mut abs: Vec<String>;
    let mut rest = segs.iter().peekable();
    match first.as_str() {
        "" => return None,
        "crate" => {
            rest.next();
            abs = Vec::new();
        }
        "self" => {
            rest.next();
            abs = here.to_vec();
        }
        "super" => {
            abs = here.to_vec();
            while rest.peek().is_some_and(|s| s.as_str() == "super") {
                rest.next();
                abs.pop();
            }
        }
        _ => {
            let mut child = here.to_vec();
            child.push(first.clone());
            if modules.contains(&child) || (in_use && here == f.module && f.defs.contains(first)) {
                abs = here.to_vec();
            } else if let Some(b) = f.bindings.get(first).filter(|b| b.as_slice() != segs) {
                // A name a `use` bound: the path continues from the binding (made absolute from this file).
                rest.next();
                let mut base = absolute(&f.module, b, f, modules, true)?;
                base.extend(rest.cloned());
                return Some(base);
            } else {
                return None;
            }
        }
    }
    abs.extend(rest.cloned());
    (!abs.is_empty()).then_some(abs)
}

/// The crate, scanned: every file's uses of other files.
pub struct Scan {
    files: Vec<File>,
    modules: BTreeSet<Vec<String>>,
    by_module: BTreeMap<Vec<String>, usize>,
}

impl Scan {
    /// Scans `(path, source)` pairs; paths are `src/…` relative.
    pub fn new(sources: &[(String, String)]) -> Scan {
        let modules: BTreeSet<Vec<String>> = sources.iter().map(|(p, _)| module_of(p)).collect();
        let files: Vec<File> = sources.iter().map(|(p, s)| scan_file(p, s, &modules)).collect();
        let by_module = files.iter().enumerate().map(|(i, f)| (f.module.clone(), i)).collect();
        Scan { files, by_module, modules }
    }

    /// The files an absolute path passes through, the one defining its item last.
    fn chain(&self, path: &[String], hops: usize) -> Vec<usize> {
        let Some((k, &fi)) =
            (1..=path.len()).rev().find_map(|k| self.by_module.get(&path[..k]).map(|fi| (k, fi)))
        else {
            return Vec::new();
        };
        let f = &self.files[fi];
        let mut out = vec![fi];
        if let Some(name) = path.get(k).filter(|n| !f.defs.contains(*n) && hops < 16) {
            if let Some(b) = f.bindings.get(name) {
                if let Some(mut target) = absolute(&f.module, b, f, &self.modules, true) {
                    target.extend(path[k + 1..].iter().cloned());
                    if target != path {
                        out.extend(self.chain(&target, hops + 1));
                    }
                }
            }
        }
        out
    }

    /// Every use of one file by another (uses of a file by itself left out).
    pub fn uses(&self) -> Vec<Use> {
        let mut out = BTreeSet::new();
        for (fi, f) in self.files.iter().enumerate() {
            for r in &f.refs {
                let chain = self.chain(&r.path, 0);
                if chain.iter().all(|&c| c == fi) {
                    continue;
                }
                let in_code = r.pub_binding.as_ref().is_none_or(|b| f.code_idents.contains(b));
                out.insert(Use {
                    from: f.path.clone(),
                    line: r.line,
                    path: format!("crate::{}", r.path.join("::")),
                    chain: chain.iter().map(|&c| self.files[c].path.clone()).collect(),
                    in_code,
                });
            }
        }
        out.into_iter().collect()
    }

    /// The files scanned.
    pub fn paths(&self) -> Vec<String> {
        self.files.iter().map(|f| f.path.clone()).collect()
    }
}
