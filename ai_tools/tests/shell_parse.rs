//! The shell parser's structure: lists, pipelines, redirects, assignments,
//! subshells, keywords, and clean errors on malformed input.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests: a failed unwrap is a failed test.

use ai_tools::policy::shell_parse::{parse, Command, Connector, RedirOp, WordPart};

fn simple(cmd: &Command) -> &ai_tools::policy::shell_parse::SimpleCommand {
    match cmd {
        Command::Simple(s) => s,
        other => panic!("not simple: {other:?}"),
    }
}

#[test]
fn lists_and_pipelines() {
    let s = parse("ls -la | grep x && echo y || true; z &").unwrap();
    assert_eq!(s.items.len(), 2);
    let first = &s.items[0];
    assert!(!first.background);
    assert_eq!(first.chain.len(), 3);
    assert_eq!(first.chain[1].0, Connector::And);
    assert_eq!(first.chain[2].0, Connector::Or);
    assert_eq!(first.chain[0].1.commands.len(), 2);
    assert!(s.items[1].background);
    let words: Vec<String> = simple(&first.chain[0].1.commands[0])
        .words
        .iter()
        .map(|w| w.lossy())
        .collect();
    assert_eq!(words, ["ls", "-la"]);
}

#[test]
fn redirects_and_fds() {
    let s = parse("cmd 2>&1 >/dev/null <in >>log &>all 3<>rw <<EOF").unwrap();
    let c = simple(&s.items[0].chain[0].1.commands[0]);
    let ops: Vec<(Option<u32>, RedirOp, String)> = c
        .redirects
        .iter()
        .map(|r| (r.fd, r.op, r.target.lossy()))
        .collect();
    assert_eq!(
        ops,
        vec![
            (Some(2), RedirOp::DupOut, "1".to_string()),
            (None, RedirOp::Out, "/dev/null".to_string()),
            (None, RedirOp::In, "in".to_string()),
            (None, RedirOp::Append, "log".to_string()),
            (None, RedirOp::OutErr, "all".to_string()),
            (Some(3), RedirOp::ReadWrite, "rw".to_string()),
            (None, RedirOp::HereDoc, "EOF".to_string()),
        ]
    );
}

#[test]
fn assignments_only_before_the_command() {
    let s = parse("A=1 B=\"x y\" env C=2").unwrap();
    let c = simple(&s.items[0].chain[0].1.commands[0]);
    assert_eq!(c.assigns.len(), 2);
    assert_eq!(c.assigns[1].0, "B");
    assert_eq!(c.assigns[1].1.literal().unwrap(), "x y");
    assert_eq!(c.words.len(), 2);
    assert_eq!(c.words[1].lossy(), "C=2");
}

#[test]
fn expansions_are_typed() {
    let s = parse(r#"echo $HOME "${X:-y}" '$(no)' $(yes) `also` $((1+2)) <(ps) \$lit"#).unwrap();
    let c = simple(&s.items[0].chain[0].1.commands[0]);
    assert_eq!(c.words[1].parts, vec![WordPart::Var("HOME".into())]);
    assert!(c.words[2].parts.contains(&WordPart::Var("X:-y".into())));
    assert_eq!(c.words[3].literal().unwrap(), "$(no)");
    assert_eq!(c.words[4].parts, vec![WordPart::CmdSubst("yes".into())]);
    assert_eq!(c.words[5].parts, vec![WordPart::CmdSubst("also".into())]);
    assert_eq!(c.words[6].parts, vec![WordPart::Arith("1+2".into())]);
    assert_eq!(c.words[7].parts, vec![WordPart::ProcSubst("ps".into())]);
    assert_eq!(c.words[8].literal().unwrap(), "$lit");
}

#[test]
fn subshells_groups_keywords_functions() {
    let s = parse("(cd x && ls) | { cat; }").unwrap();
    let cmds = &s.items[0].chain[0].1.commands;
    assert!(matches!(cmds[0], Command::Subshell(..)));
    assert!(matches!(cmds[1], Command::Group(..)));
    assert_eq!(s.commands().len(), 5);
    let s = parse("if true; then rm x; fi").unwrap();
    let kws: Vec<&str> = s
        .commands()
        .iter()
        .filter_map(|c| match c {
            Command::Keyword(k, _) => Some(k.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(kws, ["if", "then", "fi"]);
    let s = parse("f() { ls; }").unwrap();
    assert!(
        matches!(s.items[0].chain[0].1.commands[0], Command::Keyword(ref k, _) if k == "function")
    );
}

#[test]
fn comments_and_newlines() {
    let s = parse("ls # rm -rf /\necho a\\\nb").unwrap();
    assert_eq!(s.items.len(), 2);
    let c = simple(&s.items[1].chain[0].1.commands[0]);
    assert_eq!(c.words[1].lossy(), "ab");
    assert_eq!(parse("ls a#b").unwrap().commands().len(), 1);
}

#[test]
fn malformed_input_is_an_error_not_a_panic() {
    for bad in [
        "| ls", "ls |", "(ls", "ls )", "echo 'x", "echo \"x", "echo $(x", "echo `x", "ls && ",
        "; ls", "ls >", "{ ls",
    ] {
        assert!(parse(bad).is_err(), "{bad:?} parsed");
    }
}
