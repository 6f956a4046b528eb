//! No circles between the files of a crate: a file that imports a file
//! which (through others) imports it back makes both one tangle, which
//! can only be read, tested and moved together. This reads every crate's
//! `src/` (the `mod` tree, `#[path]` included), takes each file's
//! `crate::…` and `super::…` paths as its imports, and finds the strongly
//! connected groups of files. No crate may have one: a type two files
//! share belongs in a third that both import.
//!
//! `cargo test -p koi_e2e --test module_cycles -- --nocapture` prints
//! every crate's circles (`KOI_MODULE_ROOT=DIR`: another checkout's).

#![allow(clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One file of a crate, as a module.
struct Module {
    /// `crate::a::b` as `["a", "b"]` (empty: the crate root).
    path: Vec<String>,
    file: PathBuf,
}

/// The workspace root (this package lives in `tests/`), or
/// `KOI_MODULE_ROOT` to count another checkout's circles.
fn workspace() -> PathBuf {
    if let Some(root) = std::env::var_os("KOI_MODULE_ROOT") {
        return PathBuf::from(root);
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root")
        .to_path_buf()
}

/// Every package with a `src/` under the workspace root, by directory.
fn crates(root: &Path) -> Vec<(String, PathBuf)> {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml");
    let start = manifest.find("members").expect("a members list");
    let list = &manifest[start..];
    let list = &list[list.find('[').expect("[")..=list.find(']').expect("]")];
    list.split('"')
        .skip(1)
        .step_by(2)
        .map(|m| (m.to_string(), root.join(m).join("src")))
        .filter(|(_, src)| src.is_dir())
        .collect()
}

/// The code of a line without its `//` comment (doc comments included),
/// ignoring `//` inside string literals only roughly: koi's sources keep
/// `crate::` out of strings.
fn code(line: &str) -> &str {
    match line.find("//") {
        Some(i) => &line[..i],
        None => line,
    }
}

/// The module tree from `root_file`: each file, with its module path.
fn modules(root_file: &Path) -> Vec<Module> {
    let mut out = Vec::new();
    let mut todo = vec![Module {
        path: Vec::new(),
        file: root_file.to_path_buf(),
    }];
    while let Some(m) = todo.pop() {
        let Ok(text) = std::fs::read_to_string(&m.file) else {
            continue;
        };
        let dir = m.file.parent().expect("a directory").to_path_buf();
        let name = m.file.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        // Where `mod x;` looks: beside a root or `mod.rs`, else in a
        // directory named for the file.
        let child_dir = if m.path.is_empty() || name == "mod" {
            dir.clone()
        } else {
            dir.join(name)
        };
        let mut path_attr: Option<String> = None;
        for line in text.lines() {
            let line = code(line).trim();
            if let Some(rest) = line.strip_prefix("#[path = \"") {
                path_attr = rest.split('"').next().map(str::to_string);
                continue;
            }
            let decl = line
                .trim_start_matches("pub(crate) ")
                .trim_start_matches("pub(super) ")
                .trim_start_matches("pub ");
            let Some(rest) = decl.strip_prefix("mod ") else {
                if !line.starts_with("#[") && !line.is_empty() {
                    path_attr = None;
                }
                continue;
            };
            let Some(child) = rest.strip_suffix(';') else {
                path_attr = None;
                continue; // an inline module: part of this file
            };
            let file = match path_attr.take() {
                Some(p) => dir.join(p),
                None if child_dir.join(format!("{child}.rs")).is_file() => {
                    child_dir.join(format!("{child}.rs"))
                }
                None => child_dir.join(child).join("mod.rs"),
            };
            let mut path = m.path.clone();
            path.push(child.to_string());
            todo.push(Module { path, file });
        }
        out.push(m);
    }
    out
}

/// `code` without its inline test modules (`#[cfg(test)] mod x { … }`):
/// a test may import whatever it checks, and its `super` is the file
/// itself.
fn without_inline_tests(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(i) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..i]);
        let after = &rest[i + "#[cfg(test)]".len()..];
        let head = after.trim_start();
        let is_inline_mod =
            head.starts_with("mod ") && head.find('{').is_some_and(|b| !head[..b].contains(';'));
        if !is_inline_mod {
            out.push_str("#[cfg(test)]");
            rest = after;
            continue;
        }
        let open = after.find('{').unwrap_or(after.len());
        let mut depth = 0usize;
        let mut end = after.len();
        for (j, c) in after[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + j + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// The `crate::…`/`super::…` paths a file names, absolute, as segments;
/// `use` groups (`use crate::{a, b::{c, d}}`) expanded.
fn imports(text: &str, here: &[String]) -> Vec<Vec<String>> {
    let code: String = text.lines().map(|l| format!("{}\n", code(l))).collect();
    let code = without_inline_tests(&code);
    let mut out = Vec::new();
    // `use` statements, groups included.
    let mut rest = code.as_str();
    while let Some(i) = rest.find("use ") {
        let before = rest[..i].chars().last();
        rest = &rest[i + 4..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let Some(end) = rest.find(';') else { break };
        let stmt: String = rest[..end].chars().filter(|c| !c.is_whitespace()).collect();
        if !(stmt.starts_with("crate::") || stmt.starts_with("super::")) {
            continue;
        }
        for p in expand(&stmt) {
            if let Some(abs) = absolute(&p, here) {
                out.push(abs);
            }
        }
    }
    // Paths written inline: `crate::a::b::f()`, `super::x::Y`.
    for word in code.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':' || c == '$')) {
        if word.starts_with("crate::") || word.starts_with("super::") {
            let segs: Vec<String> = word.split("::").map(str::to_string).collect();
            if let Some(abs) = absolute(&segs, here) {
                out.push(abs);
            }
        }
    }
    out
}

/// `a::{b, c::{d}}` as `[[a, b], [a, c, d]]`.
fn expand(stmt: &str) -> Vec<Vec<String>> {
    let Some(open) = stmt.find('{') else {
        return vec![stmt.split("::").map(str::to_string).collect()];
    };
    let prefix: Vec<String> = stmt[..open]
        .trim_end_matches("::")
        .split("::")
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    let close = stmt.rfind('}').filter(|&c| c > open).unwrap_or(stmt.len());
    let inner = &stmt[open + 1..close];
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .filter(|p| !p.is_empty())
        .flat_map(|p| {
            expand(p).into_iter().map(|tail| {
                let mut full = prefix.clone();
                full.extend(tail);
                full
            })
        })
        .collect()
}

/// A path from module `here` made absolute (`None`: not a path into this
/// crate).
fn absolute(segs: &[String], here: &[String]) -> Option<Vec<String>> {
    let first = segs.first()?;
    let mut base: Vec<String> = match first.as_str() {
        "crate" => Vec::new(),
        "super" => here.to_vec(),
        _ => return None,
    };
    let mut i = if first == "crate" { 1 } else { 0 };
    while segs.get(i).is_some_and(|s| s == "super") {
        base.pop()?;
        i += 1;
    }
    base.extend(
        segs[i..]
            .iter()
            .filter(|s| *s != "self" && *s != "*")
            .cloned(),
    );
    Some(base)
}

/// The files' import graph: file index → the files it imports.
fn graph(mods: &[Module]) -> Vec<BTreeSet<usize>> {
    let index: BTreeMap<&[String], usize> = mods
        .iter()
        .enumerate()
        .map(|(i, m)| (m.path.as_slice(), i))
        .collect();
    mods.iter()
        .enumerate()
        .map(|(i, m)| {
            let text = std::fs::read_to_string(&m.file).unwrap_or_default();
            imports(&text, &m.path)
                .into_iter()
                .filter_map(|p| {
                    // The longest prefix that is a file.
                    (0..=p.len())
                        .rev()
                        .find_map(|n| index.get(&p[..n]).copied())
                })
                .filter(|&j| j != i)
                .collect()
        })
        .collect()
}

/// Strongly connected groups of more than one file (Tarjan).
fn circles(edges: &[BTreeSet<usize>]) -> Vec<Vec<usize>> {
    struct State<'a> {
        edges: &'a [BTreeSet<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State<'_>, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in s.edges[v].iter() {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut group = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                group.push(w);
                if w == v {
                    break;
                }
            }
            if group.len() > 1 {
                s.out.push(group);
            }
        }
    }
    let n = edges.len();
    let mut s = State {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out
}

/// Each crate's circles, as lists of module paths.
fn crate_circles() -> Vec<(String, Vec<Vec<String>>)> {
    let root = workspace();
    crates(&root)
        .into_iter()
        .map(|(name, src)| {
            let mut found = Vec::new();
            for root_file in ["lib.rs", "main.rs"] {
                let file = src.join(root_file);
                if !file.is_file() {
                    continue;
                }
                let mods = modules(&file);
                for group in circles(&graph(&mods)) {
                    let mut names: Vec<String> = group
                        .iter()
                        .map(|&i| format!("crate::{}", mods[i].path.join("::")))
                        .collect();
                    names.sort();
                    if !found.contains(&names) {
                        found.push(names);
                    }
                }
            }
            (name, found)
        })
        .collect()
}

#[test]
fn no_crate_has_a_circle_between_its_files() {
    let mut found_any = Vec::new();
    for (name, found) in crate_circles() {
        println!("{name}: {} circle(s)", found.len());
        for group in &found {
            println!("  {}", group.join(" ↔ "));
        }
        if !found.is_empty() {
            found_any.push(format!(
                "{name} has circles between its files:\n  {}",
                found
                    .iter()
                    .map(|g| g.join(" ↔ "))
                    .collect::<Vec<_>>()
                    .join("\n  ")
            ));
        }
    }
    assert!(found_any.is_empty(), "{}", found_any.join("\n"));
}

/// A `#[path]` attribute on anything but a test module: a file that looks
/// like a module of its directory while it is the child of another.
fn hidden_children(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().map(|l| code(l).trim()).collect();
    lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.starts_with("#[path = \""))
        .filter_map(|(i, l)| {
            let decl = lines[i + 1..].iter().find(|n| !n.starts_with("#["))?;
            (!decl.ends_with("mod tests;")).then(|| format!("{l} {decl}"))
        })
        .collect()
}

/// The module tree is the folder tree: a child module lives in its parent's
/// folder (`a/mod.rs` and `a/b.rs`), never in a `#[path]` sibling of the
/// parent. Test modules kept in a `*_tests.rs` sibling are the exception.
#[test]
fn folders_match_modules() {
    let root = workspace();
    let mut found = Vec::new();
    for (name, src) in crates(&root) {
        for root_file in ["lib.rs", "main.rs"] {
            let file = src.join(root_file);
            if !file.is_file() {
                continue;
            }
            for m in modules(&file) {
                let text = std::fs::read_to_string(&m.file).unwrap_or_default();
                for hit in hidden_children(&text) {
                    found.push(format!("{name}: {}: {hit}", m.file.display()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "modules reached through #[path] instead of a folder:\n  {}",
        found.join("\n  ")
    );
    assert_eq!(
        hidden_children("#[path = \"x_more.rs\"]\npub(crate) mod more;\n"),
        ["#[path = \"x_more.rs\"] pub(crate) mod more;"],
        "the check sees a hidden child"
    );
    assert!(hidden_children("#[cfg(test)]\n#[path = \"x_tests.rs\"]\nmod tests;\n").is_empty());
}

#[test]
fn the_checker_sees_a_circle_and_its_absence() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let src = dir.path();
    std::fs::write(src.join("lib.rs"), "mod a;\nmod b;\nmod c;\n").expect("lib.rs");
    std::fs::write(
        src.join("a.rs"),
        "use crate::b::B;\n// use crate::c::C;\npub struct A;\n",
    )
    .expect("a.rs");
    std::fs::write(
        src.join("b.rs"),
        "use crate::{c::{C}, x};\npub struct B;\n#[path = \"b_more.rs\"]\nmod more;\n",
    )
    .expect("b.rs");
    std::fs::write(
        src.join("c.rs"),
        "pub struct C;\nfn g() { crate::b::more::f(); }\n",
    )
    .expect("c.rs");
    std::fs::write(
        src.join("b_more.rs"),
        "pub fn f() { super::super::a::A; }\n",
    )
    .expect("b_more");
    let mods = modules(&src.join("lib.rs"));
    assert_eq!(mods.len(), 5);
    let names = |groups: Vec<Vec<usize>>| -> Vec<Vec<String>> {
        groups
            .into_iter()
            .map(|g| {
                let mut n: Vec<String> = g.iter().map(|&i| mods[i].path.join("::")).collect();
                n.sort();
                n
            })
            .collect()
    };
    // a → b → c → b::more → a: one circle of four (a's import of c is a
    // comment, b's of `x` names no file).
    assert_eq!(
        names(circles(&graph(&mods))),
        [["a", "b", "b::more", "c"].map(String::from).to_vec()]
    );
    // A test module inside a file may import anything.
    std::fs::write(
        src.join("b_more.rs"),
        "pub fn f() {}\n#[cfg(test)]\nmod tests {\n    use super::super::super::a::A;\n}\n",
    )
    .expect("b_more");
    assert!(circles(&graph(&mods)).is_empty());
}
