//! Random command strings never panic the parser or the policy, and the
//! policy never auto-approves a command containing a write redirect.

#![allow(clippy::unwrap_used)] // Tests: a failed unwrap is a failed test.

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
