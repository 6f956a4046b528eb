//! `git`: read-only subcommands only, never with options that run a
//! program, write a file or override configuration.

use crate::policy::programs::{has_flag, positionals};

/// Global options (before the subcommand) that cannot run code. `-c`,
/// `--config-env`, `--exec-path` and pager switches are exactly the ones
/// that can, and are refused.
const SAFE_GLOBAL: &[&str] = &[
    "--no-pager",
    "-P",
    "--bare",
    "--no-replace-objects",
    "--literal-pathspecs",
    "--glob-pathspecs",
    "--noglob-pathspecs",
    "--icase-pathspecs",
    "--no-optional-locks",
];

/// Subcommands that only read, whatever their options (options that write
/// files or run programs are refused separately).
const READ_ONLY_SUBCOMMANDS: &[&str] = &[
    "status",
    "log",
    "diff",
    "show",
    "rev-parse",
    "ls-files",
    "ls-tree",
    "cat-file",
    "blame",
    "annotate",
    "shortlog",
    "describe",
    "rev-list",
    "merge-base",
    "name-rev",
    "whatchanged",
    "count-objects",
    "grep",
    "show-ref",
    "for-each-ref",
    "diff-tree",
    "diff-files",
    "diff-index",
    "check-ignore",
    "check-attr",
    "version",
    "cherry",
    "range-diff",
    "show-branch",
    "help",
];

/// Options that write files, run external programs or open a pager.
const BAD_OPTIONS: &[&str] = &[
    "--output",
    "--ext-diff",
    "--open-files-in-pager",
    "--textconv",
    "--exec",
    "--upload-pack",
    "--receive-pack",
    "--run",
];

/// Check a `git …` argument list.
pub fn git_rule(args: &[String]) -> Result<(), String> {
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if !a.starts_with('-') {
            break;
        }
        if a == "-C" {
            i += 2;
            continue;
        }
        if a.starts_with("--git-dir=") || a.starts_with("--work-tree=") {
            i += 1;
            continue;
        }
        if SAFE_GLOBAL.contains(&a) {
            i += 1;
            continue;
        }
        return Err(format!(
            "the global option {a} can run programs or override configuration"
        ));
    }
    let Some(sub) = args.get(i) else {
        return Ok(());
    };
    let rest = &args[i + 1..];
    for a in rest {
        if let Some(bad) = BAD_OPTIONS
            .iter()
            .find(|b| a == *b || a.starts_with(&format!("{b}=")))
        {
            return Err(format!("{bad} writes files or runs programs"));
        }
        if sub == "grep" && (a == "-O" || a.starts_with("-O")) {
            return Err("-O opens files in a pager".into());
        }
    }
    if sub == "help" {
        // `git help` may start a browser or man viewer.
        return Err("help may start a viewer".into());
    }
    if READ_ONLY_SUBCOMMANDS.contains(&sub.as_str()) {
        return Ok(());
    }
    match sub.as_str() {
        "branch" => listing(
            rest,
            &[
                "-d",
                "-D",
                "-m",
                "-M",
                "-c",
                "-C",
                "-f",
                "-u",
                "--set-upstream-to",
                "--unset-upstream",
                "--edit-description",
                "--delete",
                "--move",
                "--copy",
                "--force",
                "--track",
                "--no-track",
            ],
            "branch",
        ),
        "tag" => listing(
            rest,
            &[
                "-d",
                "-a",
                "-s",
                "-f",
                "-m",
                "-u",
                "-F",
                "-e",
                "--delete",
                "--annotate",
                "--sign",
                "--force",
                "--message",
                "--file",
                "--local-user",
                "--edit",
            ],
            "tag",
        ),
        "remote" => match positionals(rest).first().map(|s| s.as_str()) {
            None | Some("show") | Some("get-url") => Ok(()),
            Some(other) => Err(format!("remote {other} changes the configuration")),
        },
        "config" => {
            let reading = has_flag(
                rest,
                Some('l'),
                &["list", "get", "get-all", "get-regexp", "get-urlmatch"],
            );
            if reading {
                Ok(())
            } else {
                Err("config without --get/--list changes the configuration".into())
            }
        }
        "stash" | "worktree" | "notes" => match positionals(rest).first().map(|s| s.as_str()) {
            Some("list") => Ok(()),
            Some("show") if sub != "worktree" => Ok(()),
            _ => Err(format!("{sub} without list/show changes the repository")),
        },
        "reflog" => match positionals(rest).first().map(|s| s.as_str()) {
            Some("expire") | Some("delete") => Err("reflog expire/delete rewrites history".into()),
            _ => Ok(()),
        },
        other => Err(format!("git {other} is not a read-only subcommand")),
    }
}

/// `branch`/`tag`: listing only. Positional names create things unless a
/// listing flag is given.
fn listing(rest: &[String], bad: &[&str], what: &str) -> Result<(), String> {
    for a in rest {
        let flag = a.split('=').next().unwrap_or(a);
        if bad.contains(&flag) {
            return Err(format!("{what} {a} changes refs"));
        }
        // A short cluster like `-dr` hides a bad letter.
        if !a.starts_with("--") && a.len() > 2 && a.starts_with('-') {
            if let Some(c) = a[1..]
                .chars()
                .find(|c| bad.contains(&format!("-{c}").as_str()))
            {
                return Err(format!("{what} -{c} changes refs"));
            }
        }
    }
    let lists = rest.iter().any(|a| {
        matches!(
            a.as_str(),
            "-l" | "--list"
                | "--contains"
                | "--no-contains"
                | "--merged"
                | "--no-merged"
                | "--points-at"
        )
    });
    if !positionals(rest).is_empty() && !lists {
        return Err(format!("{what} with a name creates it"));
    }
    Ok(())
}
