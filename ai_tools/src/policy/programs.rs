//! The allowlist of read-only programs and their per-program flag rules.
//! A program not listed here is never proven read-only.

use crate::policy::awk;
use crate::policy::git;
use crate::policy::sed;

/// How a program's argument is used, for the credential checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathRole {
    /// Not a path (a pattern, a format, a number, a message).
    NotPath,
    /// A path whose contents are read.
    Content,
    /// A path whose metadata (name, size, type) is read.
    Meta,
}

/// A read-only program's flag rule: `Err(why)` when these arguments may
/// change something.
pub struct ProgramSpec {
    /// Checks the (expanded) arguments.
    pub check: Rule,
}

/// A flag rule: `Err(why)` when the arguments may change something.
pub type Rule = fn(&[String]) -> Result<(), String>;

fn any(_: &[String]) -> Result<(), String> {
    Ok(())
}

/// Is `flag` present: `--long`, `--long=…`, or short `-x` inside a cluster.
pub fn has_flag(args: &[String], short: Option<char>, long: &[&str]) -> bool {
    args.iter().take_while(|a| *a != "--").any(|a| {
        if let Some(rest) = a.strip_prefix("--") {
            long.iter().any(|l| {
                let l = l.trim_start_matches('-');
                rest == l || rest.starts_with(&format!("{l}="))
            })
        } else if let Some(rest) = a.strip_prefix('-') {
            short.is_some_and(|s| rest.contains(s))
        } else {
            false
        }
    })
}

/// Positional (non-flag) arguments.
pub fn positionals(args: &[String]) -> Vec<&String> {
    let mut out = Vec::new();
    let mut after_dashdash = false;
    for a in args {
        if after_dashdash {
            out.push(a);
        } else if a == "--" {
            after_dashdash = true;
        } else if !a.starts_with('-') || a == "-" {
            out.push(a);
        }
    }
    out
}

fn sort_rule(args: &[String]) -> Result<(), String> {
    if has_flag(args, Some('o'), &["output", "compress-program"]) {
        return Err("-o/--output writes a file".into());
    }
    Ok(())
}

fn at_most_one_positional(args: &[String]) -> Result<(), String> {
    if positionals(args).len() > 1 {
        return Err("a second file name is an output file".into());
    }
    Ok(())
}

fn find_rule(args: &[String]) -> Result<(), String> {
    const BAD: &[&str] = &[
        "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls",
    ];
    match args.iter().find(|a| BAD.contains(&a.as_str())) {
        Some(bad) => Err(format!("{bad} runs commands or changes files")),
        None => Ok(()),
    }
}

fn fd_rule(args: &[String]) -> Result<(), String> {
    if has_flag(args, Some('x'), &["exec", "exec-batch"]) || has_flag(args, Some('X'), &[]) {
        return Err("-x/-X runs commands".into());
    }
    Ok(())
}

fn rg_rule(args: &[String]) -> Result<(), String> {
    if has_flag(args, None, &["pre", "pre-glob", "hostname-bin"]) {
        return Err("--pre runs a program on every file".into());
    }
    Ok(())
}

fn date_rule(args: &[String]) -> Result<(), String> {
    if has_flag(args, Some('s'), &["set"]) {
        return Err("-s sets the clock".into());
    }
    if positionals(args).iter().any(|p| !p.starts_with('+')) {
        return Err("a bare argument sets the clock".into());
    }
    Ok(())
}

fn hostname_rule(args: &[String]) -> Result<(), String> {
    if !positionals(args).is_empty() || has_flag(args, Some('F'), &["file", "boot"]) {
        return Err("an argument sets the host name".into());
    }
    Ok(())
}

fn ps_rule(args: &[String]) -> Result<(), String> {
    // BSD-style `e` (no dash) prints every process's environment, koi's
    // own API key included.
    if args
        .iter()
        .any(|a| (!a.starts_with('-') && a.contains('e')) || a.contains("env"))
    {
        return Err("the e option shows other processes' environments".into());
    }
    Ok(())
}

fn file_rule(args: &[String]) -> Result<(), String> {
    if has_flag(args, Some('C'), &["compile"]) {
        return Err("-C compiles a magic file and writes it".into());
    }
    Ok(())
}

fn no_args(args: &[String]) -> Result<(), String> {
    if args.is_empty() {
        Ok(())
    } else {
        Err("with arguments it runs another program".into())
    }
}

fn command_rule(args: &[String]) -> Result<(), String> {
    match args.first().map(String::as_str) {
        Some("-v") | Some("-V") => Ok(()),
        _ => Err("runs another program".into()),
    }
}

fn tree_rule(args: &[String]) -> Result<(), String> {
    if has_flag(args, Some('o'), &["output"]) || has_flag(args, Some('R'), &[]) {
        return Err("-o/-R write files".into());
    }
    Ok(())
}

/// Programs whose every form is read-only (or whose risky forms the
/// listed rule rejects).
fn rule_for(name: &str) -> Option<Rule> {
    let rule: Rule = match name {
        "ls" | "cat" | "head" | "tail" | "wc" | "echo" | "printf" | "pwd" | "whoami" | "id"
        | "uname" | "uptime" | "df" | "du" | "free" | "pgrep" | "stat" | "which" | "type"
        | "whereis" | "true" | "false" | ":" | "basename" | "dirname" | "realpath" | "readlink"
        | "nl" | "tac" | "rev" | "cut" | "tr" | "fold" | "fmt" | "column" | "paste" | "join"
        | "comm" | "diff" | "cmp" | "md5sum" | "sha1sum" | "sha224sum" | "sha256sum"
        | "sha384sum" | "sha512sum" | "b2sum" | "cksum" | "base64" | "base32" | "od"
        | "hexdump" | "strings" | "grep" | "egrep" | "fgrep" | "test" | "[" | "sleep" | "seq"
        | "expr" | "nproc" | "groups" | "locale" | "tty" | "cal" | "printenv" | "getconf"
        | "arch" | "logname" | "lscpu" | "lsblk" | "jq" | "expand" | "unexpand" | "cd"
        | "numfmt" | "look" | "tsort" | "zcat" | "zgrep" | "bzcat" | "xzcat" => any,
        "sort" => sort_rule,
        "ps" => ps_rule,
        "file" => file_rule,
        "uniq" | "xxd" => at_most_one_positional,
        "find" => find_rule,
        "fd" | "fdfind" => fd_rule,
        "rg" => rg_rule,
        "sed" => sed::sed_rule,
        "awk" | "gawk" | "mawk" | "nawk" => awk::awk_rule,
        "git" => git::git_rule,
        "date" => date_rule,
        "hostname" => hostname_rule,
        "env" => no_args,
        "command" => command_rule,
        "tree" => tree_rule,
        _ => return None,
    };
    Some(rule)
}

/// The spec of a read-only program, or `None` if it is not on the list.
pub fn lookup(name: &str) -> Option<ProgramSpec> {
    rule_for(name).map(|check| ProgramSpec { check })
}

/// Programs whose arguments are never file names.
const NO_PATHS: &[&str] = &[
    "echo", "printf", "pwd", "whoami", "id", "uname", "uptime", "hostname", "true", "false", ":",
    "sleep", "seq", "expr", "nproc", "groups", "locale", "tty", "cal", "printenv", "env", "which",
    "type", "whereis", "command", "getconf", "arch", "logname", "ps", "free", "basename",
    "dirname", "numfmt", "lscpu",
];

/// Programs that read names and sizes but not contents.
const META_ONLY: &[&str] = &[
    "ls",
    "stat",
    "file",
    "du",
    "df",
    "wc",
    "realpath",
    "readlink",
    "tree",
    "cd",
    "find",
    "fd",
    "fdfind",
    "md5sum",
    "sha1sum",
    "sha224sum",
    "sha256sum",
    "sha384sum",
    "sha512sum",
    "b2sum",
    "cksum",
    "test",
    "[",
    "lsblk",
];

/// Programs whose first positional is a pattern or program, not a file,
/// unless given with `-e`/`-f`.
const PATTERN_FIRST: &[&str] = &[
    "grep", "egrep", "fgrep", "rg", "sed", "awk", "gawk", "mawk", "nawk", "jq", "zgrep",
];

/// The role of each argument (same indices as `args`).
pub fn path_args(program: &str, args: &[String]) -> Vec<PathRole> {
    if NO_PATHS.contains(&program) {
        return vec![PathRole::NotPath; args.len()];
    }
    let base = if META_ONLY.contains(&program) {
        PathRole::Meta
    } else {
        PathRole::Content
    };
    let mut roles: Vec<PathRole> = args
        .iter()
        .map(|a| {
            if a.starts_with('-') && a != "-" {
                PathRole::Meta
            } else {
                base
            }
        })
        .collect();
    if PATTERN_FIRST.contains(&program) {
        let explicit = has_flag(args, Some('e'), &["regexp", "expression"])
            || (program != "jq" && has_flag(args, Some('f'), &["file"]))
            || (program == "rg" && has_flag(args, None, &["files"]));
        if !explicit {
            let mut after_dashdash = false;
            for (i, a) in args.iter().enumerate() {
                if a == "--" && !after_dashdash {
                    after_dashdash = true;
                    continue;
                }
                if after_dashdash || !a.starts_with('-') {
                    roles[i] = PathRole::NotPath;
                    break;
                }
            }
        }
    }
    roles
}

/// A directory a recursive search would read.
pub struct RecursiveRoot {
    /// The directory, as written.
    pub path: String,
    /// Would the search read hidden files?
    pub hidden: bool,
    /// Does the search honour .gitignore and friends?
    pub ignore_files: bool,
}

/// The directories a recursive content search (`grep -r`, `rg`) reads.
pub fn recursive_roots(program: &str, args: &[String]) -> Vec<RecursiveRoot> {
    let (hidden, ignore_files) = match program {
        "grep" | "egrep" | "fgrep" => {
            let recursive = has_flag(args, Some('r'), &["recursive", "dereference-recursive"])
                || has_flag(args, Some('R'), &[])
                || args
                    .iter()
                    .any(|a| a == "-d" || a.starts_with("--directories=recurse"));
            if !recursive {
                return Vec::new();
            }
            (true, false)
        }
        "rg" if args.iter().any(|a| a == "--files" || a == "--type-list") => return Vec::new(),
        "rg" => {
            let unrestricted = args
                .iter()
                .filter(|a| a.starts_with('-') && !a.starts_with("--"))
                .map(|a| a.matches('u').count())
                .sum::<usize>();
            let hidden = has_flag(args, Some('.'), &["hidden"]) || unrestricted >= 2;
            let no_ignore = has_flag(args, None, &["no-ignore"]) || unrestricted >= 1;
            (hidden, !no_ignore)
        }
        _ => return Vec::new(),
    };
    let roles = path_args(program, args);
    let mut roots: Vec<RecursiveRoot> = args
        .iter()
        .zip(roles)
        .filter(|(a, role)| *role == PathRole::Content && !a.starts_with('-'))
        .map(|(a, _)| RecursiveRoot {
            path: a.clone(),
            hidden,
            ignore_files,
        })
        .collect();
    if roots.is_empty() {
        roots.push(RecursiveRoot {
            path: ".".into(),
            hidden,
            ignore_files,
        });
    }
    roots
}
