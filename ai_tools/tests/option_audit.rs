//! An audit of the read-only proof's option models against the programs'
//! own manuals. The table below was written from each program's `--help`
//! and man page (GNU coreutils 9, GNU sed 4.9, gawk 5, grep 3, ripgrep,
//! fd, tree 2.1, xxd, jq 1.7, file 5, git), not from koi's models: every
//! option that writes a file, runs a program, reads a file list the
//! checker never sees, or sets state. Each is tried in every spelling bash
//! and getopt accept — full name, every prefix, `--opt=v`, `--opt v`,
//! short, attached, in a cluster, after an operand, through brace
//! expansion, ANSI-C quoting and split quoting — and none may run without
//! asking. A few safe spellings per program must still run, so the audit
//! fails both ways.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests: a failed unwrap is a failed test.

use ai_tools::{policy, policy_table, Mode, Workspace};

/// One dangerous option, as the program's manual documents it.
struct Danger {
    prog: &'static str,
    /// The long name, without `--`.
    long: Option<&'static str>,
    short: Option<char>,
    /// A value, where the option takes one (`None` for flags).
    value: Option<&'static str>,
    /// Whether the value may only be attached (`-i[SUF]`, `--opt[=V]`).
    optional: bool,
    /// A safe flag of the same program to cluster before the short form.
    cluster: &'static str,
    /// Operands that make the rest of the command line harmless.
    operands: &'static str,
    /// Does the program permute (GNU getopt, ripgrep, fd)?
    permute: bool,
}

const fn d(
    prog: &'static str,
    long: Option<&'static str>,
    short: Option<char>,
    value: Option<&'static str>,
    cluster: &'static str,
    operands: &'static str,
) -> Danger {
    Danger {
        prog,
        long,
        short,
        value,
        optional: false,
        cluster,
        operands,
        permute: true,
    }
}

const fn optional(mut x: Danger) -> Danger {
    x.optional = true;
    x
}

const fn posix(mut x: Danger) -> Danger {
    x.permute = false;
    x
}

const SYS: &str = "'BEGIN{system(\"touch p\")}'";

const DANGERS: &[Danger] = &[
    // sort: -o writes, -T writes temporary files, --compress-program runs
    // a program, --files0-from prints files the checker never sees.
    d(
        "sort",
        Some("output"),
        Some('o'),
        Some("out.txt"),
        "r",
        "notes.txt",
    ),
    d(
        "sort",
        Some("temporary-directory"),
        Some('T'),
        Some("clean"),
        "r",
        "notes.txt",
    ),
    d(
        "sort",
        Some("compress-program"),
        None,
        Some("sh"),
        "r",
        "notes.txt",
    ),
    d("sort", Some("files0-from"), None, Some("names0"), "r", ""),
    // sed: -i edits in place, -f reads a script the checker never sees.
    optional(d(
        "sed",
        Some("in-place"),
        Some('i'),
        Some(".bak"),
        "n",
        "p notes.txt",
    )),
    d(
        "sed",
        Some("file"),
        Some('f'),
        Some("notes.txt"),
        "n",
        "notes.txt",
    ),
    d(
        "sed",
        Some("expression"),
        Some('e'),
        Some("w out.txt"),
        "n",
        "notes.txt",
    ),
    d(
        "sed",
        Some("expression"),
        Some('e'),
        Some("1e id"),
        "n",
        "notes.txt",
    ),
    // gawk: program text, files of program text, extensions, and the
    // options that write dumps and profiles.
    d(
        "gawk",
        Some("source"),
        Some('e'),
        Some(SYS),
        "b",
        "notes.txt",
    ),
    d(
        "gawk",
        Some("file"),
        Some('f'),
        Some("notes.txt"),
        "b",
        "notes.txt",
    ),
    d(
        "gawk",
        Some("exec"),
        Some('E'),
        Some("notes.txt"),
        "b",
        "notes.txt",
    ),
    d(
        "gawk",
        Some("include"),
        Some('i'),
        Some("notes.txt"),
        "b",
        "1 notes.txt",
    ),
    d(
        "gawk",
        Some("load"),
        Some('l'),
        Some("x"),
        "b",
        "1 notes.txt",
    ),
    optional(d(
        "gawk",
        Some("dump-variables"),
        Some('d'),
        Some("o.txt"),
        "b",
        "1 notes.txt",
    )),
    optional(d(
        "gawk",
        Some("profile"),
        Some('p'),
        Some("o.txt"),
        "b",
        "1 notes.txt",
    )),
    optional(d(
        "gawk",
        Some("pretty-print"),
        Some('o'),
        Some("o.txt"),
        "b",
        "1 notes.txt",
    )),
    optional(d(
        "gawk",
        Some("debug"),
        Some('D'),
        Some("o.txt"),
        "b",
        "1 notes.txt",
    )),
    // awk here is gawk; mawk has -W exec and -f.
    posix(d(
        "awk",
        Some("source"),
        Some('e'),
        Some(SYS),
        "",
        "notes.txt",
    )),
    posix(d(
        "awk",
        Some("exec"),
        Some('E'),
        Some("notes.txt"),
        "",
        "notes.txt",
    )),
    posix(d(
        "awk",
        Some("load"),
        Some('l'),
        Some("x"),
        "",
        "1 notes.txt",
    )),
    posix(d(
        "awk",
        Some("file"),
        Some('f'),
        Some("notes.txt"),
        "",
        "notes.txt",
    )),
    posix(d(
        "mawk",
        None,
        Some('f'),
        Some("notes.txt"),
        "",
        "notes.txt",
    )),
    posix(d(
        "mawk",
        None,
        Some('W'),
        Some("exec=notes.txt"),
        "",
        "notes.txt",
    )),
    // date -s sets the clock.
    d("date", Some("set"), Some('s'), Some("2001-01-01"), "u", ""),
    // diff -l pipes through pr.
    d(
        "diff",
        Some("paginate"),
        Some('l'),
        None,
        "q",
        "notes.txt README.md",
    ),
    // file -C writes a compiled magic file; -z runs decompressors.
    d("file", Some("compile"), Some('C'), None, "b", "notes.txt"),
    d(
        "file",
        Some("uncompress"),
        Some('z'),
        None,
        "b",
        "notes.txt",
    ),
    d(
        "file",
        Some("no-sandbox"),
        Some('S'),
        None,
        "b",
        "notes.txt",
    ),
    // hostname -F / -b set the host name.
    d(
        "hostname",
        Some("file"),
        Some('F'),
        Some("notes.txt"),
        "s",
        "",
    ),
    d("hostname", Some("boot"), Some('b'), None, "s", ""),
    // env runs programs from a split string or a new directory.
    d(
        "env",
        Some("split-string"),
        Some('S'),
        Some("touch p"),
        "i",
        "",
    ),
    d("env", Some("chdir"), Some('C'), Some("/"), "i", ""),
    // ripgrep: --pre and --hostname-bin run programs, -z runs decoders.
    d("rg", Some("pre"), None, Some("sh"), "n", "a notes.txt"),
    d(
        "rg",
        Some("hostname-bin"),
        None,
        Some("sh"),
        "n",
        "a notes.txt",
    ),
    d(
        "rg",
        Some("search-zip"),
        Some('z'),
        None,
        "n",
        "a notes.txt",
    ),
    // fd: --exec and --exec-batch run programs; -l runs ls.
    d("fdfind", Some("exec"), Some('x'), Some("rm"), "H", "a"),
    d(
        "fdfind",
        Some("exec-batch"),
        Some('X'),
        Some("rm"),
        "H",
        "a",
    ),
    // tree -o writes its listing; -R writes 00Tree.html files.
    d("tree", None, Some('o'), Some("out.txt"), "a", "clean"),
    d("tree", None, Some('R'), None, "a", "clean"),
    // jq: programs and data from files the checker never sees.
    d(
        "jq",
        Some("from-file"),
        Some('f'),
        Some("notes.txt"),
        "r",
        "notes.txt",
    ),
    d("jq", None, Some('L'), Some("clean"), "r", ". notes.txt"),
    // git: a config value can name a program to run; --output writes.
    posix(d(
        "git",
        None,
        Some('c'),
        Some("core.pager=touch p"),
        "P",
        "log",
    )),
    posix(d("git", Some("exec-path"), None, Some("clean"), "", "log")),
    posix(d("git", Some("git-dir"), None, Some("planted"), "", "log")),
];

/// The commands under `[danger]` or `[safe]` in the audit's data file.
fn listed(section: &str) -> Vec<&'static str> {
    let mut current = "";
    let mut out = Vec::new();
    for line in include_str!("option_audit.txt").lines() {
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            current = name;
        } else if !line.is_empty() && !line.starts_with('#') && current == section {
            out.push(line);
        }
    }
    out
}

/// Every spelling of one dangerous option.
fn spellings(x: &Danger) -> Vec<String> {
    let mut out = Vec::new();
    let prog = x.prog;
    let ops = x.operands;
    let v = x.value.map(shell_quote);
    if let Some(long) = x.long {
        let mut names: Vec<String> = (1..=long.len()).map(|n| long[..n].to_string()).collect();
        names.dedup();
        for name in &names {
            match &v {
                Some(v) => {
                    out.push(format!("{prog} --{name}={v} {ops}"));
                    if !x.optional {
                        out.push(format!("{prog} --{name} {v} {ops}"));
                    }
                }
                None => out.push(format!("{prog} --{name} {ops}")),
            }
        }
        let eq = match &v {
            Some(v) => format!("={v}"),
            None => String::new(),
        };
        let (head, tail) = long.split_at(long.len().min(2));
        out.push(format!("{prog} --{head}''{tail}{eq} {ops}"));
        out.push(format!("{prog} \"--\"{long}{eq} {ops}"));
        out.push(format!("{prog} $'\\55\\55{long}'{eq} {ops}"));
        out.push(format!("{prog} $'\\x2d-{long}'{eq} {ops}"));
        out.push(format!("{prog} $'\\x2D\\x2D{long}'{eq} {ops}"));
        out.push(format!("{prog} $'\\055\\055{long}'{eq} {ops}"));
        out.push(format!("{prog} $'\\u2d\\u002D{long}'{eq} {ops}"));
        out.push(format!("{prog} $'\\U0000002d-{long}'{eq} {ops}"));
        out.push(format!("{prog} $\"--{long}\"{eq} {ops}"));
        out.push(format!("{prog} --{head}\\{tail}{eq} {ops}"));
        out.push(format!("{prog} --\"{head}\"{tail}{eq} {ops}"));
        out.push(format!("{prog} --{long}{{,}}{eq} {ops}"));
        out.push(format!("{prog} --{{{long},{long}}}{eq} {ops}"));
        out.push(format!("{prog} {{--{long}{eq},}} {ops}"));
        out.push(format!("{prog} {}", braced(&format!("--{long}{eq}"), ops)));
        if x.permute && !ops.is_empty() {
            out.push(format!("{prog} {ops} --{long}{eq}"));
        }
    }
    if let Some(s) = x.short {
        let c = x.cluster;
        match &v {
            Some(v) => {
                out.push(format!("{prog} -{s}{v} {ops}"));
                out.push(format!("{prog} -{{{s}..{s}}}{v} {ops}"));
                out.push(format!("{prog} $'\\x2d{s}'{v} {ops}"));
                out.push(format!("{prog} $'-{s}'{v} {ops}"));
                out.push(format!("{prog} {{-{s}{v},}} {ops}"));
                out.push(format!("{prog} {}", braced(&format!("-{s}{v}"), ops)));
                if !c.is_empty() {
                    out.push(format!("{prog} -{c}{s}{v} {ops}"));
                }
                if !x.optional {
                    out.push(format!("{prog} -{s} {v} {ops}"));
                    out.push(format!("{prog} $'\\55{s}' {v} {ops}"));
                    if !c.is_empty() {
                        out.push(format!("{prog} -{c}{s} {v} {ops}"));
                    }
                    if x.permute && !ops.is_empty() {
                        out.push(format!("{prog} {ops} -{s} {v}"));
                    }
                }
            }
            None => {
                out.push(format!("{prog} -{s} {ops}"));
                out.push(format!("{prog} -{{{s}..{s}}} {ops}"));
                out.push(format!("{prog} \\-{s} {ops}"));
                out.push(format!("{prog} $'\\55{s}' {ops}"));
                out.push(format!("{prog} {{-{s},}} {ops}"));
                out.push(format!("{prog} {}", braced(&format!("-{s}"), ops)));
                out.push(format!("{prog} -''{s} {ops}"));
                if !c.is_empty() {
                    out.push(format!("{prog} -{c}{s} {ops}"));
                    out.push(format!("{prog} -{s}{c} {ops}"));
                }
                if x.permute && !ops.is_empty() {
                    out.push(format!("{prog} {ops} -{s}"));
                }
            }
        }
    }
    out
}

/// `{OPT,FIRST} REST`: brace expansion puts the option before the first
/// operand (a brace holding a space would not expand).
fn braced(opt: &str, ops: &str) -> String {
    match ops.split_once(' ') {
        Some((first, rest)) => format!("{{{opt},{first}}} {rest}"),
        None if ops.is_empty() => format!("{{{opt},{opt}}}"),
        None => format!("{{{opt},{ops}}}"),
    }
}

/// Quote a value for the command line unless it already is quoted.
fn shell_quote(v: &str) -> String {
    if v.starts_with('\'')
        || v.chars()
            .all(|c| c.is_ascii_alphanumeric() || "._/=,-".contains(c))
    {
        v.to_string()
    } else {
        format!("'{v}'")
    }
}

fn fixture() -> (tempfile::TempDir, Workspace) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    policy_table::write_fixture(&root, &dir.path().join("outside")).unwrap();
    let ws = Workspace::new(&root).unwrap();
    (dir, ws)
}

#[test]
fn dangerous_options_are_never_auto_allowed() {
    let (_dir, ws) = fixture();
    let mut commands: Vec<String> = DANGERS.iter().flat_map(spellings).collect();
    commands.extend(listed("danger").into_iter().map(String::from));
    let allowed: Vec<&String> = commands
        .iter()
        .filter(|c| policy::check_command_in(c, Mode::Default, &ws).is_allow())
        .collect();
    println!(
        "option audit: {} dangerous commands ({} options spelled every way, over {} \
         programs, and {} listed), {} allowed",
        commands.len(),
        DANGERS.len(),
        {
            let mut p: Vec<&str> = DANGERS.iter().map(|x| x.prog).collect();
            p.sort_unstable();
            p.dedup();
            p.len()
        },
        listed("danger").len(),
        allowed.len()
    );
    assert!(allowed.is_empty(), "auto-allowed: {allowed:#?}");
}

#[test]
fn safe_spellings_still_run() {
    let (_dir, ws) = fixture();
    let safe = listed("safe");
    assert!(safe.len() > 50, "the safe list did not load");
    let refused: Vec<(&str, String)> = safe
        .iter()
        .filter_map(|c| match policy::check_command_in(c, Mode::Default, &ws) {
            d if d.is_allow() => None,
            d => Some((*c, format!("{d:?}"))),
        })
        .collect();
    assert!(refused.is_empty(), "refused: {refused:#?}");
}

/// The spellings are real: bash, given each one, hands the program a word
/// that is an option (so the audit is not passing on words bash would
/// never produce). Skips where bash is missing.
#[test]
fn bash_turns_every_spelling_into_an_option() {
    let spelled: Vec<String> = DANGERS.iter().flat_map(spellings).collect();
    let script: String = spelled
        .iter()
        .map(|c| format!("printf '[%s]' {}; echo\n", c.split_once(' ').unwrap().1))
        .collect();
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(&script)
        .output()
        .unwrap_or_else(|e| panic!("this test runs bash: install it (apt-get install bash): {e}"));
    let lines: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(
        lines.len(),
        spelled.len(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bad: Vec<(&String, &String)> = spelled
        .iter()
        .zip(&lines)
        .filter(|(_, words)| !words.contains("[-"))
        .collect();
    assert!(
        bad.is_empty(),
        "spellings bash does not make an option of: {bad:#?}"
    );
}
