//! The policy table's text format (`ai_tools/tests/policy_table.txt`): one
//! call per line with its expected decision in each mode. Parsed here once
//! so every crate that checks the policy against it (the tools' own tests,
//! `k policy check`'s tests) reads it the same way.
//!
//! A row is `CODES CLASS KIND INPUT`: five decision letters (`A`llow,
//! `Q` ask, `D`eny) for default, accept-edits, plan, dont-ask and bypass;
//! a class (`safe`, `write`, …); the kind (`sh` for a shell command, `shx`
//! for one with `\n`, `\r`, `\t`, `\xHH` escapes, or a tool name whose
//! input is JSON arguments); and the input. `#` starts a comment line.
//! `@OUT@` in an input stands for a directory outside the workspace; the
//! workspace and that directory are what [`write_fixture`] lays out.

use std::path::Path;

use crate::mode::{Decision, Mode};

/// Where the table lives in this source tree (for the tests that read it).
pub const TABLE_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/policy_table.txt");

/// The placeholder for the directory outside the workspace.
pub const OUTSIDE_PLACEHOLDER: &str = "@OUT@";

/// One row of the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// 1-based line number in the file.
    pub line: usize,
    /// The expected decision letter in each of the five modes, in order.
    pub codes: String,
    pub class: String,
    pub kind: String,
    /// The input as written (escapes not yet decoded).
    pub input: String,
}

/// What a row asks the policy about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Call<'a> {
    /// A `shell_exec` command line, escapes decoded.
    Command(String),
    /// A tool call: the tool's name and its JSON arguments.
    Tool {
        /// The tool's name.
        name: &'a str,
        /// The arguments, as JSON text.
        args: String,
    },
}

impl Row {
    /// The call this row describes, with `@OUT@` replaced by `outside`.
    pub fn call(&self, outside: &str) -> Call<'_> {
        let input = self.input.replace(OUTSIDE_PLACEHOLDER, outside);
        match self.kind.as_str() {
            "sh" => Call::Command(input),
            "shx" => Call::Command(unescape(&input)),
            name => Call::Tool { name, args: input },
        }
    }
}

/// Read and parse the table at [`TABLE_PATH`].
pub fn load() -> Result<Vec<Row>, String> {
    let text = std::fs::read_to_string(TABLE_PATH).map_err(|e| format!("{TABLE_PATH}: {e}"))?;
    parse(&text)
}

/// Lay out the fixture the table's header describes: the workspace at
/// `root`, the outside directory at `outside` (both created). Returns the
/// outside directory's canonical path, the value of `@OUT@`.
pub fn write_fixture(root: &Path, outside: &Path) -> std::io::Result<String> {
    std::fs::create_dir_all(root.join("src"))?;
    std::fs::create_dir_all(root.join("clean"))?;
    std::fs::create_dir_all(root.join("dashes"))?;
    std::fs::create_dir_all(root.join("links"))?;
    std::fs::create_dir_all(outside)?;
    let files: [(&Path, &str, &str); 10] = [
        (root, "src/main.rs", "fn main() {}\n"),
        (root, "README.md", "# demo\n"),
        (root, "notes.txt", "a,b\n"),
        (root, ".env", "KOI_API_KEY=sk-test\n"),
        (root, ".env.example", "KOI_API_KEY=\n"),
        (root, "clean/a.txt", "foo\n"),
        // A file named like an option: `*` there hands `find` `-delete`.
        (root, "dashes/-delete", ""),
        (root, "dashes/a.txt", "a\n"),
        (outside, "plain.txt", "plain\n"),
        (outside, "server.pem", "-----BEGIN PRIVATE KEY-----\n"),
    ];
    for (dir, name, content) in files {
        std::fs::write(dir.join(name), content)?;
    }
    std::os::unix::fs::symlink(outside, root.join("escape"))?;
    std::os::unix::fs::symlink(outside.join("server.pem"), root.join("link_to_key"))?;
    // A symlink root into the kernel's view of a process.
    std::os::unix::fs::symlink("/proc/self", root.join("links/proc"))?;
    // Files a project can commit that make a bare repository: git opens it
    // from any directory beneath, and its config runs a program on
    // `git status` (the worktree is the workspace, so status gets that far;
    // koi's environment turns fsmonitor off) and on any `git diff`, even
    // `--no-index`.
    std::fs::create_dir_all(root.join("planted/objects"))?;
    std::fs::create_dir_all(root.join("planted/refs"))?;
    std::fs::write(root.join("planted/HEAD"), "ref: refs/heads/main\n")?;
    std::fs::write(
        root.join("planted/config"),
        "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\
         \tfsmonitor = \"touch planted-ran; false\"\n\
         [diff]\n\texternal = \"touch planted-ran; false\"\n",
    )?;
    // Repositories vendored inside the workspace: one whose own config
    // runs a textconv program on `git diff`/`git log -p`, one plain.
    for (repo, config) in [
        (
            "vendor/lib",
            "[core]\n\tbare = false\n[diff \"bin\"]\n\ttextconv = \"touch vendor-ran; cat\"\n",
        ),
        (
            "vendor/clean",
            "[core]\n\trepositoryformatversion = 0\n\tbare = false\n",
        ),
    ] {
        std::fs::create_dir_all(root.join(repo).join(".git/objects"))?;
        std::fs::create_dir_all(root.join(repo).join(".git/refs"))?;
        std::fs::write(root.join(repo).join(".git/HEAD"), "ref: refs/heads/main\n")?;
        std::fs::write(root.join(repo).join(".git/config"), config)?;
    }
    // Trees for recursive diffs: `trees/a/key` is a symlink to a key
    // outside (diff follows it), `trees/d/up` one to a directory outside.
    for dir in ["trees/a", "trees/b", "trees/c", "trees/d"] {
        std::fs::create_dir_all(root.join(dir))?;
        std::fs::write(root.join(dir).join("plain.txt"), "plain\n")?;
    }
    std::os::unix::fs::symlink(outside.join("server.pem"), root.join("trees/a/key"))?;
    std::os::unix::fs::symlink(outside, root.join("trees/d/up"))?;
    // A second name for the workspace's `.env`, and a file outside with
    // two names (neither a credential's).
    std::fs::create_dir_all(root.join(".hl"))?;
    std::fs::write(root.join(".hl/readme.txt"), "plain\n")?;
    std::fs::hard_link(root.join(".env"), root.join(".hl/env_copy.txt"))?;
    std::fs::write(outside.join("shared.txt"), "shared\n")?;
    std::fs::hard_link(outside.join("shared.txt"), outside.join("shared2.txt"))?;
    // A directory whose `.ignore` hides its `.env` from ripgrep.
    std::fs::create_dir_all(root.join("ign"))?;
    std::fs::write(root.join("ign/.ignore"), ".env\n")?;
    std::fs::write(root.join("ign/.env"), "TOKEN=sk-test\n")?;
    std::fs::write(root.join("ign/a.txt"), "a\n")?;
    // A NUL-separated list of file names, one of them a key outside.
    let mut names = outside
        .join("server.pem")
        .into_os_string()
        .into_encoded_bytes();
    names.push(0);
    std::fs::write(root.join("names0"), names)?;
    Ok(outside.canonicalize()?.to_string_lossy().into_owned())
}

/// A decision as the table writes it: `A`llow, `Q` ask, `D`eny.
pub fn code(decision: &Decision) -> char {
    match decision {
        Decision::Allow => 'A',
        Decision::Ask { .. } => 'Q',
        Decision::Deny { .. } => 'D',
    }
}

/// The letter for a decision's [`Decision::label`] (`allow`, `ask`,
/// `deny`), as `k policy check --json` reports it; `None` for any other
/// word.
pub fn code_of_label(label: &str) -> Option<char> {
    match label {
        "allow" => Some('A'),
        "ask" => Some('Q'),
        "deny" => Some('D'),
        _ => None,
    }
}

/// A row's five letters: `decide`'s decision in each mode, in the table's
/// order ([`Mode::ALL`]).
pub fn codes(mut decide: impl FnMut(Mode) -> Decision) -> String {
    Mode::ALL.iter().map(|&mode| code(&decide(mode))).collect()
}

/// Parse the table; a malformed row is an error naming its line.
pub fn parse(text: &str) -> Result<Vec<Row>, String> {
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let mut parts = line.splitn(4, ' ');
        let (Some(codes), Some(class), Some(kind)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(format!("line {}: expected CODES CLASS KIND INPUT", i + 1));
        };
        if codes.chars().count() != 5 || !codes.chars().all(|c| matches!(c, 'A' | 'Q' | 'D')) {
            return Err(format!("line {}: `{codes}` is not five of A/Q/D", i + 1));
        }
        rows.push(Row {
            line: i + 1,
            codes: codes.to_owned(),
            class: class.to_owned(),
            kind: kind.to_owned(),
            input: parts.next().unwrap_or("").to_owned(),
        });
    }
    Ok(rows)
}

/// Decode `\n`, `\r`, `\t` and `\xHH`; anything else stays as written.
pub fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('x') => {
                let hex: String = chars.by_ref().take(2).collect();
                match u8::from_str_radix(&hex, 16) {
                    Ok(byte) => out.push(char::from(byte)),
                    Err(_) => {
                        out.push_str("\\x");
                        out.push_str(&hex);
                    }
                }
            }
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_parse_and_bad_rows_are_named() {
        let rows =
            parse("# comment\n\nAQDDA safe sh ls -la\nAAADA write shx echo a\\nb\n").unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(
            (rows[0].line, rows[0].codes.as_str(), rows[0].input.as_str()),
            (3, "AQDDA", "ls -la")
        );
        assert_eq!(unescape(&rows[1].input), "echo a\nb");
        assert!(parse("AQ safe sh ls").unwrap_err().contains("line 1"));
        assert!(parse("AQDDX safe sh ls").is_err());
        assert!(parse("AQDDA safe").unwrap_err().contains("line 1"));
    }

    #[test]
    fn escapes() {
        assert_eq!(unescape(r"a\tb\x41\q\"), "a\tbA\\q\\");
        assert_eq!(unescape(r"\xZZ"), "\\xZZ");
    }
}
