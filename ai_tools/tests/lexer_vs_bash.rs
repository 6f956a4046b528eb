//! Differential test: the words our lexer sees are the words bash passes to
//! the program, for quoting and escaping of every kind (no expansions).

#![allow(clippy::unwrap_used)] // Tests: a failed unwrap is a failed test.

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
        r#"-- -n -e '-E'"#,
    ] {
        assert_eq!(our_words(cmd), bash_words(cmd), "{cmd}");
    }
}
