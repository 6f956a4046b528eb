//! Random command strings never panic the parser or the policy, and the
//! policy never auto-approves a command containing a write redirect.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests: a failed unwrap is a failed test.

use ai_tools::policy::{self, shell_parse};
use ai_tools::{Mode, Workspace};
use proptest::prelude::*;

fn ws() -> Workspace {
    Workspace::new(std::env::temp_dir()).unwrap()
}

/// Strings built from shell-significant pieces, so the parser's corners
/// get hit far more often than with uniform random text.
fn shellish() -> impl Strategy<Value = String> {
    let atoms = prop::sample::select(vec![
        "ls", "cat", "rm", "-rf", "/", "~", "$", "$(", ")", "(", "`", "'", "\"", "\\", "|", "||",
        "&", "&&", ";", ";;", "<", ">", ">>", "<<", "<<<", "2>&1", "<(", ">(", "{", "}", "${",
        "$((", "#", "\n", " ", "x", "=", "*", "?", "[", "]", "!", "if", "then", "fi", "for", "do",
        "done", "git", "-c", "sed", "-i", "find", "-exec", ".env", "ｒｍ", "\u{200b}", "é", "$'",
        "\t", "123",
    ]);
    prop::collection::vec(atoms, 0..40).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_text_never_panics(s in ".{0,200}") {
        let _ = shell_parse::parse(&s);
        for mode in Mode::ALL {
            let _ = policy::check_command_in(&s, mode, &ws());
        }
    }

    #[test]
    fn shellish_text_never_panics(s in shellish()) {
        let _ = shell_parse::parse(&s);
        let _ = policy::check_command_in(&s, Mode::Default, &ws());
        let _ = policy::check_command_in(&s, Mode::Bypass, &ws());
    }

    #[test]
    fn write_redirects_are_never_auto_approved(prefix in "[a-z ]{0,12}", target in "[a-z]{1,8}") {
        let cmd = format!("echo {prefix} > {target}.txt");
        prop_assert!(!policy::check_command_in(&cmd, Mode::Default, &ws()).is_allow());
        prop_assert!(!policy::check_command_in(&cmd, Mode::Plan, &ws()).is_allow());
    }
}

#[test]
fn deep_nesting_is_refused_not_overflowed() {
    let deep = "$(".repeat(5000) + &")".repeat(5000);
    let _ = shell_parse::parse(&deep);
    assert!(!policy::check_command_in(&deep, Mode::Default, &ws()).is_allow());
    let parens = "(".repeat(5000) + "ls" + &")".repeat(5000);
    assert!(!policy::check_command_in(&parens, Mode::Default, &ws()).is_allow());
    let huge = "ls ".repeat(100_000);
    assert!(!policy::check_command_in(&huge, Mode::Default, &ws()).is_allow());
}

/// Commands proven read-only on their own (in any workspace).
const SAFE: &[&str] = &[
    "ls -la",
    "git status",
    "echo hi",
    "grep -n x README.md",
    "wc -l README.md",
    "sed -n 1p README.md",
    "git log --oneline -3",
    "pwd",
    "sort -u README.md",
    "head -5 README.md",
];

/// Commands that are never proven read-only.
const UNSAFE: &[&str] = &[
    "rm x",
    "echo hi > out.txt",
    "touch y",
    "git commit -m x",
    "sed -i s/a/b/ f",
    "find . -delete",
    "python3 x.py",
    "echo $(id)",
    "cat x | xargs rm",
    "git -c core.pager=sh log",
    "FOO=1",
    "(ls)",
    "sleep 1 &",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// Lists and pipelines are read-only exactly when every part is.
    #[test]
    fn composition_is_read_only_iff_every_part_is(
        parts in prop::collection::vec((any::<bool>(), 0usize..13, 0usize..4), 1..6)
    ) {
        let ops = [" | ", " && ", " || ", "; "];
        let mut cmd = String::new();
        let mut all_safe = true;
        for (i, (safe, idx, op)) in parts.iter().enumerate() {
            if i > 0 {
                cmd.push_str(ops[*op]);
            }
            if *safe {
                cmd.push_str(SAFE[idx % SAFE.len()]);
            } else {
                all_safe = false;
                cmd.push_str(UNSAFE[idx % UNSAFE.len()]);
            }
        }
        let allowed = policy::check_command_in(&cmd, Mode::Default, &ws()).is_allow();
        prop_assert_eq!(allowed, all_safe, "command: {}", cmd);
    }
}

/// A program and an option that makes it write or run code.
const DANGEROUS: &[(&str, &str, &str)] = &[
    ("find .", "-delete", ""),
    ("find .", "-fprint", " out"),
    ("sort README.md", "--output=x", ""),
    ("sort README.md", "-o", " x"),
    ("sed p README.md", "-i", ""),
    ("sed p README.md", "--in-place", ""),
    ("rg x", "--pre=cat", ""),
    ("date", "--set=2020-01-01", ""),
    ("git", "--exec-path=/tmp", " log"),
    ("git log", "--output=x", ""),
    ("gawk", "--exec=x", ""),
    ("tree", "-o", " x"),
];

/// One character the way bash would read it back, in one of many
/// spellings: bare, backslash-escaped, quoted, or ANSI-C octal/hex/\u.
fn spell(c: char, how: u8) -> String {
    let code = c as u32;
    match how % 7 {
        0 => c.to_string(),
        1 => format!("\\{c}"),
        2 => format!("'{c}'"),
        3 => format!("\"{c}\""),
        4 => format!("$'\\{code:o}'"),
        5 => format!("$'\\x{code:02x}'"),
        _ => format!("$'\\u{code:04x}'"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// However a dangerous option is spelled (escapes, quotes, ANSI-C,
    /// inside a brace list), the command is never auto-approved.
    #[test]
    fn dangerous_options_stay_dangerous_however_spelled(
        which in 0usize..12,
        hows in prop::collection::vec(any::<u8>(), 32),
        brace in 0u8..3,
    ) {
        let (prefix, opt, rest) = DANGEROUS[which % DANGEROUS.len()];
        // `=` and `{`-free options keep the brace forms simple.
        let spelled: String = opt
            .chars()
            .zip(hows.iter().cycle())
            .map(|(c, h)| if "={},".contains(c) { c.to_string() } else { spell(c, *h) })
            .collect();
        let word = match brace {
            0 => spelled,
            1 => format!("{{{spelled},--version}}"),
            _ => format!("{{--version,{spelled}}}"),
        };
        let cmd = format!("{prefix} {word}{rest}");
        let allowed = policy::check_command_in(&cmd, Mode::Default, &ws()).is_allow();
        prop_assert!(!allowed, "auto-approved: {}", cmd);
    }
}
