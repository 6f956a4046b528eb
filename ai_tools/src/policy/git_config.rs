//! A repository's own configuration, read the way git reads it, for the
//! settings that make a read-only git command run a program or read files
//! the command never named: `diff.external` and textconv drivers (`git
//! diff`, `git log -p`), `core.fsmonitor` (`git status`), filters, pagers,
//! aliases, hooks, editors, ssh commands, and includes (which bring in
//! configuration from anywhere). A repository that sets any of them is
//! never proven: its commands ask.

use std::path::{Path, PathBuf};

/// Largest configuration file read; a bigger one is not proven.
const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// One `section.subsection.key` setting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting {
    /// The section, lower case.
    pub section: String,
    /// The subsection, as written (git keeps its case).
    pub subsection: Option<String>,
    /// The key, lower case.
    pub key: String,
    /// The value (`None` for a bare key, which git reads as `true`).
    pub value: Option<String>,
}

impl Setting {
    fn name(&self) -> String {
        match &self.subsection {
            Some(sub) => format!("{}.{sub}.{}", self.section, self.key),
            None => format!("{}.{}", self.section, self.key),
        }
    }

    fn is_false(&self) -> bool {
        self.value.as_deref().is_some_and(|v| {
            matches!(
                v.trim().to_ascii_lowercase().as_str(),
                "false" | "no" | "off" | "0"
            )
        })
    }
}

/// Whether git would run a program (or read a file the command did not
/// name) because of this setting.
pub fn runs_program(s: &Setting) -> bool {
    let sub = s.subsection.is_some();
    match (s.section.as_str(), s.key.as_str()) {
        // Configuration from elsewhere, aliases and per-command pagers.
        ("include" | "includeif" | "alias" | "pager" | "filter" | "trace2", _) => true,
        ("core", "fsmonitor") => !s.is_false(),
        (
            "core",
            "pager"
            | "sshcommand"
            | "hookspath"
            | "editor"
            | "askpass"
            | "gitproxy"
            | "worktree"
            | "alternaterefscommand",
        ) => true,
        ("diff", "external") => !sub,
        ("diff", "textconv" | "command") => sub,
        ("merge" | "difftool" | "mergetool" | "man", "driver" | "cmd" | "path") => sub,
        ("log", "showsignature") => !s.is_false(),
        ("gpg", "program") => true,
        ("sequence", "editor") | ("web", "browser") | ("interactive", "difffilter") => true,
        ("uploadpack", "packobjectshook") => true,
        ("credential", "helper") => true,
        ("remote", "uploadpack" | "receivepack") => sub,
        ("blame", "ignorerevsfile") | ("mailmap", "file" | "blob") => true,
        _ => false,
    }
}

/// Why git commands in the repository whose git directory is `git_dir`
/// are not proven: a configuration file it reads names a program (or
/// cannot be read with certainty). `None` when nothing in it does.
pub fn repository_reason(git_dir: &Path) -> Option<String> {
    let dirs = match git_dirs(git_dir) {
        Ok(d) => d,
        Err(why) => return Some(why),
    };
    for dir in dirs {
        // `git status` refreshes the index and writes it back, which runs
        // this hook (a vendored or unpacked repository brings its own).
        let hook = dir.join("hooks/post-index-change");
        if hook.exists() {
            return Some(format!(
                "the repository has a {} hook, which read-only commands like git status run",
                hook.display()
            ));
        }
        for name in ["config", "config.worktree"] {
            let file = dir.join(name);
            let text = match read_config(&file) {
                Ok(Some(t)) => t,
                Ok(None) => continue,
                Err(why) => return Some(why),
            };
            let settings = match parse(&text) {
                Ok(s) => s,
                Err(why) => {
                    return Some(format!(
                        "git would read {}, which the checker cannot parse ({why})",
                        file.display()
                    ))
                }
            };
            if let Some(s) = settings.iter().find(|s| runs_program(s)) {
                return Some(format!(
                    "the repository's configuration {} sets {}, which makes git run a \
                     program or read other files",
                    file.display(),
                    s.name()
                ));
            }
        }
    }
    None
}

/// The git directory and, for a linked worktree, the common one. `.git`
/// may be a file (`gitdir: PATH`) pointing elsewhere.
fn git_dirs(git_dir: &Path) -> Result<Vec<PathBuf>, String> {
    let dir = if git_dir.is_file() {
        let text = std::fs::read_to_string(git_dir)
            .map_err(|e| format!("{} cannot be read ({e})", git_dir.display()))?;
        let target = text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("gitdir:"))
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .ok_or_else(|| {
                format!(
                    "{} does not name a git directory the checker understands",
                    git_dir.display()
                )
            })?;
        let base = git_dir.parent().unwrap_or(Path::new("/"));
        base.join(target)
    } else {
        git_dir.to_path_buf()
    };
    let mut out = vec![dir.clone()];
    if let Ok(common) = std::fs::read_to_string(dir.join("commondir")) {
        let common = common.trim();
        if !common.is_empty() {
            out.push(dir.join(common));
        }
    }
    Ok(out)
}

fn read_config(file: &Path) -> Result<Option<String>, String> {
    let meta = match std::fs::metadata(file) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{} cannot be read ({e})", file.display())),
    };
    if meta.len() > MAX_CONFIG_BYTES {
        return Err(format!("{} is too big to check", file.display()));
    }
    std::fs::read(file)
        .map(|b| Some(String::from_utf8_lossy(&b).into_owned()))
        .map_err(|e| format!("{} cannot be read ({e})", file.display()))
}

/// Parse a git configuration file into its settings. Anything the parser
/// does not understand is an error: the caller then proves nothing.
pub fn parse(text: &str) -> Result<Vec<Setting>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut section: Option<(String, Option<String>)> = None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            c if c.is_whitespace() => i += 1,
            '#' | ';' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '[' => {
                let (header, next) = parse_header(&chars, i + 1)?;
                section = Some(header);
                i = next;
            }
            c if c.is_ascii_alphabetic() => {
                let Some((name, sub)) = &section else {
                    return Err("a key before any section".into());
                };
                let start = i;
                while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '-') {
                    i += 1;
                }
                let key = chars[start..i]
                    .iter()
                    .collect::<String>()
                    .to_ascii_lowercase();
                while i < chars.len() && (chars[i] == ' ' || chars[i] == '\t') {
                    i += 1;
                }
                let value = match chars.get(i) {
                    Some('=') => {
                        let (v, next) = parse_value(&chars, i + 1)?;
                        i = next;
                        Some(v)
                    }
                    None | Some('\n' | '\r' | '#' | ';') => None,
                    Some(other) => return Err(format!("unexpected {other:?} after {key}")),
                };
                out.push(Setting {
                    section: name.clone(),
                    subsection: sub.clone(),
                    key,
                    value,
                });
            }
            other => return Err(format!("unexpected {other:?}")),
        }
    }
    Ok(out)
}

/// `[section]`, `[section "sub"]` or the old `[section.sub]`.
fn parse_header(chars: &[char], mut i: usize) -> Result<((String, Option<String>), usize), String> {
    let start = i;
    while i < chars.len()
        && (chars[i].is_ascii_alphanumeric() || chars[i] == '-' || chars[i] == '.')
    {
        i += 1;
    }
    let name = chars[start..i]
        .iter()
        .collect::<String>()
        .to_ascii_lowercase();
    if name.is_empty() {
        return Err("a section without a name".into());
    }
    match chars.get(i) {
        Some(']') => {
            let header = match name.split_once('.') {
                Some((base, sub)) => (base.to_string(), Some(sub.to_string())),
                None => (name, None),
            };
            Ok((header, i + 1))
        }
        Some(' ' | '\t') => {
            while matches!(chars.get(i), Some(' ' | '\t')) {
                i += 1;
            }
            if chars.get(i) != Some(&'"') {
                return Err(format!("a malformed section header [{name}"));
            }
            i += 1;
            let mut sub = String::new();
            loop {
                match chars.get(i) {
                    None | Some('\n') => return Err("an unterminated subsection".into()),
                    Some('\\') => {
                        sub.extend(chars.get(i + 1));
                        i += 2;
                    }
                    Some('"') => {
                        i += 1;
                        break;
                    }
                    Some(&c) => {
                        sub.push(c);
                        i += 1;
                    }
                }
            }
            if chars.get(i) != Some(&']') {
                return Err(format!("a malformed section header [{name} \"{sub}\""));
            }
            Ok(((name, Some(sub)), i + 1))
        }
        _ => Err(format!("a malformed section header [{name}")),
    }
}

/// A value up to the end of its line: quotes, escapes, comments and
/// backslash-newline continuations as git reads them.
fn parse_value(chars: &[char], mut i: usize) -> Result<(String, usize), String> {
    let mut value = String::new();
    let mut quoted = false;
    loop {
        match chars.get(i) {
            None => break,
            Some('\n') if !quoted => break,
            Some('\n') => return Err("a quoted value runs past its line".into()),
            Some('#' | ';') if !quoted => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                break;
            }
            Some('"') => {
                quoted = !quoted;
                i += 1;
            }
            Some('\\') => {
                match chars.get(i + 1) {
                    Some('\n') => {}
                    Some('\r') if chars.get(i + 2) == Some(&'\n') => i += 1,
                    Some('n') => value.push('\n'),
                    Some('t') => value.push('\t'),
                    Some('b') => {
                        value.pop();
                    }
                    Some(&c @ ('"' | '\\')) => value.push(c),
                    other => return Err(format!("an unknown escape \\{other:?}")),
                }
                i += 2;
            }
            Some(&c) => {
                value.push(c);
                i += 1;
            }
        }
    }
    Ok((value.trim().to_string(), i))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<String> {
        parse(text)
            .unwrap_or_else(|e| panic!("{e}: {text}"))
            .iter()
            .map(Setting::name)
            .collect()
    }

    fn runs(text: &str) -> bool {
        parse(text).is_err() || parse(text).is_ok_and(|s| s.iter().any(runs_program))
    }

    #[test]
    fn parses_what_git_writes_and_what_people_write() {
        assert_eq!(
            names("[core]\n\tbare = false\n[remote \"origin\"]\n\turl = https://x/y.git\n"),
            ["core.bare", "remote.origin.url"]
        );
        assert_eq!(
            names("[Diff \"Sub\"] TextConv=cat # c\n"),
            ["diff.Sub.textconv"]
        );
        assert_eq!(names("[diff.x]\ncommand\n"), ["diff.x.command"]);
        assert_eq!(
            names("; c\n# c\n[a]\nk = \"v;#\" ; c\nl = 1\\\n2\n"),
            ["a.k", "a.l"]
        );
        assert!(parse("k = v\n").is_err());
        assert!(parse("[a\n").is_err());
        assert!(parse("[a]\nk = \"v\n").is_err());
    }

    #[test]
    fn settings_that_run_programs() {
        for text in [
            "[diff]\n\texternal = payload\n",
            "[diff \"bin\"]\n\ttextconv = payload\n",
            "[filter \"lfs\"]\n\tsmudge = payload\n",
            "[core]\n\tfsmonitor = payload\n",
            "[core]\n\tfsmonitor\n",
            "[core]\n\tpager = payload\n",
            "[core]\n\tsshCommand = payload\n",
            "[core]\n\thooksPath = hooks\n",
            "[core]\n\teditor = payload\n",
            "[core] worktree = /home\n",
            "[alias]\n\tst = !payload\n",
            "[include]\n\tpath = other\n",
            "[includeIf \"gitdir:/\"]\n\tpath = other\n",
            "[pager]\n\tlog = payload\n",
            "[log]\n\tshowSignature = true\n",
            "[gpg]\n\tprogram = payload\n",
            "[core]\n\tpag\\\ner = payload\n",
        ] {
            assert!(runs(text), "{text}");
        }
        for text in [
            "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n",
            "[core]\n\tfsmonitor = false\n",
            "[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n",
            "[diff]\n\tcolorMoved = zebra\n",
            "[user]\n\tname = A # external = x\n",
        ] {
            assert!(!runs(text), "{text}");
        }
    }
}
