//! Differential tests against real bash: the words our lexer sees are the
//! words bash passes to the program, for quoting and escaping of every
//! kind; and the expander's argv (brace, ANSI-C, tilde, quote removal,
//! globs in a scratch directory) is bash's argv, byte for byte.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests: a failed unwrap is a failed test.

use ai_tools::policy::shell_parse::{parse, Command};
use proptest::prelude::*;

fn bash_words(cmd: &str) -> Vec<String> {
    let out = std::process::Command::new("/bin/bash")
        .arg("-c")
        .arg(format!("printf '[%s]\\n' {cmd}"))
        .env_clear()
        .output()
        .unwrap();
    assert!(out.status.success(), "bash failed on {cmd:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let mut words = Vec::new();
    let mut cur: Option<String> = None;
    // Words may contain newlines: each starts with `[` and ends with `]\n`.
    for line in text.split_inclusive('\n') {
        let line = match cur.take() {
            Some(mut prefix) => {
                prefix.push_str(line);
                prefix
            }
            None => line.to_string(),
        };
        if line.ends_with("]\n") && line.starts_with('[') {
            words.push(line[1..line.len() - 2].to_string());
        } else {
            cur = Some(line);
        }
    }
    words
}

fn our_words(cmd: &str) -> Vec<String> {
    let script = parse(&format!("printf '[%s]\\n' {cmd}")).unwrap();
    let Command::Simple(simple) = &script.items[0].chain[0].1.commands[0] else {
        panic!()
    };
    simple.words[2..]
        .iter()
        .map(|w| w.literal().unwrap())
        .collect()
}

fn word() -> impl Strategy<Value = String> {
    let atoms = prop::sample::select(vec![
        "a",
        "b1",
        "-x",
        "'q w'",
        "\"d q\"",
        "\\ ",
        "\\\\",
        "\\'",
        "\"\\\"\"",
        "''",
        "\"\"",
        "$'t\\tb'",
        "$'\\x41\\n'",
        "\"a\\$b\"",
        "\"a\\\\b\"",
        "\"a\\nb\"",
        "x=y",
        "%",
        ",",
        ".",
        "/",
        "\"'\"",
        "'\"'",
        "\\n",
        "'a\\b'",
        "é",
        "文",
        "\"a b\"c",
        "d'e f'",
        "\\$HOME",
        "'$HOME'",
        "\"\\`\"",
        "@",
        ":",
    ]);
    prop::collection::vec(atoms, 1..4).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn words_match_bash(words in prop::collection::vec(word(), 1..5)) {
        let cmd = words.join(" ");
        prop_assert_eq!(our_words(&cmd), bash_words(&cmd), "command: {}", cmd);
    }
}

#[test]
fn known_tricky_words_match_bash() {
    for cmd in [
        r#"'it'\''s' "a"'b'c \"x\" "\\" '\' $'\'' $'a\x42c'"#,
        r#"a\
b "multi
line" 'x''y'"#,
        r"-- -n -e '-E'",
    ] {
        assert_eq!(our_words(cmd), bash_words(cmd), "{cmd}");
    }
}

// ---- the expander against bash: brace, ANSI-C, tilde, quotes, globs ----

use ai_tools::policy::expand::{expand_words, Ctx};

/// A scratch directory the globs are matched in, and the home directory
/// bash and the expander both assume (it need not exist).
struct GlobDir {
    dir: tempfile::TempDir,
}

const FAKE_HOME: &str = "/home/tester";

fn glob_dir() -> GlobDir {
    let dir = tempfile::tempdir().unwrap();
    for f in ["a.rs", "b.rs", "-delete", ".hidden", "ab", "x=y"] {
        std::fs::write(dir.path().join(f), "").unwrap();
    }
    std::fs::create_dir(dir.path().join("d")).unwrap();
    for f in ["x1", "y", ".z"] {
        std::fs::write(dir.path().join("d").join(f), "").unwrap();
    }
    GlobDir { dir }
}

/// bash's argv for `WORDS`, NUL-separated so any byte survives; `None`
/// when bash made bytes that are not UTF-8 (the expander calls those
/// unknown).
fn bash_argv(cmd: &str, cwd: &std::path::Path) -> Option<Vec<String>> {
    let out = std::process::Command::new("/bin/bash")
        .arg("-c")
        .arg(format!("printf '%s\\0' {cmd}"))
        .env_clear()
        .env("HOME", FAKE_HOME)
        .env("LC_ALL", "C")
        .current_dir(cwd)
        .output()
        .unwrap();
    assert!(out.status.success(), "bash failed on {cmd:?}");
    let text = String::from_utf8(out.stdout).ok()?;
    let mut words: Vec<String> = text.split('\0').map(String::from).collect();
    // printf with no words still prints its format once.
    words.pop();
    if cmd.trim().is_empty() || words == [""] && !cmd.contains(['\'', '"']) {
        words.clear();
    }
    Some(words)
}

/// Our argv, or `None` where the expander says a value is unknown.
fn our_argv(cmd: &str, cwd: &std::path::Path) -> Option<Vec<String>> {
    let script = parse(&format!("printf '%s\\0' {cmd}")).unwrap();
    let Command::Simple(simple) = &script.items[0].chain[0].1.commands[0] else {
        panic!()
    };
    let home = std::path::PathBuf::from(FAKE_HOME);
    let ctx = Ctx {
        cwd,
        home: Some(&home),
    };
    let e = expand_words(&simple.words[2..], &ctx);
    match e.unknown {
        Some(_) => None,
        None => Some(e.words),
    }
}

fn expansion_atom() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        // brace expansion
        "{a,b}",
        "{1..3}",
        "{a..c}",
        "{01..03}",
        "{x,{y,z}}",
        "{",
        "}",
        ",",
        "{a}",
        "{,}",
        "{1..5..2}",
        "{-delete,-print}",
        "{'a,b'}",
        "\\{a,b}",
        "{d,x}",
        // ANSI-C
        "$'\\55'",
        "$'\\x2e'",
        "$'\\u00e9'",
        "$'\\ca'",
        "$'\\q'",
        "$'a\\0b'",
        "$'\\x'",
        "$'\\1234'",
        "$'\\t'",
        "$'\\''",
        "$\"q\"",
        // tilde
        "~",
        "~/x",
        "~+",
        "a=~/b",
        "'~'",
        // quoting
        "'x y'",
        "\"a b\"",
        "\"\"",
        "''",
        "\\*",
        "'*'",
        // globs
        "*",
        "*.rs",
        "?",
        "[ab]*",
        ".*",
        "-*",
        "d/*",
        "*/x*",
        "[!a]*",
        "nomatch*",
        "d/.*",
        // plain
        "a",
        "-x",
        "=",
        ":",
        "/",
    ])
}

fn expansion_word() -> impl Strategy<Value = String> {
    prop::collection::vec(expansion_atom(), 1..4).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn expansion_matches_bash(words in prop::collection::vec(expansion_word(), 1..4)) {
        let g = glob_dir();
        let cwd = g.dir.path().canonicalize().unwrap();
        let cmd = words.join(" ");
        if let (Some(ours), Some(theirs)) = (our_argv(&cmd, &cwd), bash_argv(&cmd, &cwd)) {
            prop_assert_eq!(ours, theirs, "command: {}", cmd);
        }
    }
}

#[test]
fn known_expansions_match_bash() {
    let g = glob_dir();
    let cwd = g.dir.path().canonicalize().unwrap();
    for cmd in [
        "find . {-delete,-print}",
        "-{delete,print} {a{b,c}} x{,} {1..10..3} {a..e..2}x",
        "~/$'\\56'config/koi/koi.toml $'\\055delete' $'\\x2d\\u0064'",
        "* .* d/* */* -* '*' \\* nomatch*",
        "a=~/b:~/c --o=~/x ~+/y",
        "{~,a}/x \"$\"'x' $'\\cA'",
    ] {
        let ours = our_argv(cmd, &cwd).unwrap_or_else(|| panic!("unknown: {cmd}"));
        assert_eq!(Some(ours), bash_argv(cmd, &cwd), "{cmd}");
    }
}
