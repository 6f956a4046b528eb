//! Prompt assembly, in one place for every front end.
//!
//! Order, most stable first: the static system prompt (fragments compiled
//! in, metadata headers stripped, then the user's identity files), a
//! per-conversation environment message, then history. Anything that
//! changes from turn to turn stays out of the system prompt so the
//! provider's prompt cache keeps hitting.

use std::path::{Path, PathBuf};

/// The fragments, in their fixed order. Compiled in, so the prompt is
/// byte-identical across processes of the same build.
const FRAGMENTS: [(&str, &str); 6] = [
    ("voice", include_str!("../../assets/prompts/chat/voice.md")),
    (
        "safety",
        include_str!("../../assets/prompts/chat/safety.md"),
    ),
    (
        "untrusted_data",
        include_str!("../../assets/prompts/chat/untrusted_data.md"),
    ),
    (
        "tool_discipline",
        include_str!("../../assets/prompts/chat/tool_discipline.md"),
    ),
    (
        "root_cause",
        include_str!("../../assets/prompts/chat/root_cause.md"),
    ),
    (
        "output_format",
        include_str!("../../assets/prompts/chat/output_format.md"),
    ),
];

/// User identity files appended to the system prompt, from the config dir.
pub const IDENTITY_FILES: [&str; 3] = ["SOUL.md", "STYLE.md", "SKILL.md"];

/// Largest identity or memory file included; a larger one is cut, so a
/// runaway file cannot crowd out the conversation.
const MAX_USER_FILE_BYTES: usize = 16 * 1024;

/// Removes a leading `<!-- … -->` metadata header and the blank lines after it.
pub fn strip_metadata(text: &str) -> &str {
    let trimmed = text.trim_start();
    if let Some(rest) = trimmed.strip_prefix("<!--") {
        if let Some(end) = rest.find("-->") {
            return rest[end + 3..].trim_start_matches(['\r', '\n']);
        }
    }
    text
}

fn read_user_file(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut text = text.replace("\r\n", "\n").trim_end().to_string();
    if text.is_empty() {
        return None;
    }
    if text.len() > MAX_USER_FILE_BYTES {
        let mut cut = MAX_USER_FILE_BYTES;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push_str("\n[… cut: file too long]");
    }
    Some(text)
}

/// The static system prompt: fragments, then identity files from
/// `config_dir` (if any).
pub fn system_prompt(config_dir: Option<&Path>) -> String {
    let mut parts: Vec<String> = FRAGMENTS
        .iter()
        .map(|(_, text)| strip_metadata(text).trim_end().to_string())
        .collect();
    if let Some(dir) = config_dir {
        for name in IDENTITY_FILES {
            if let Some(text) = read_user_file(&dir.join(name)) {
                parts.push(format!("# From the user's {name}\n\n{text}"));
            }
        }
    }
    let mut out = parts.join("\n\n");
    out.push('\n');
    out
}

/// The facts that go in the environment message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvironmentFacts {
    /// UTC date, `YYYY-MM-DD`.
    pub date: String,
    /// The working directory.
    pub cwd: PathBuf,
    /// `linux`, `macos`, …
    pub os: &'static str,
    /// `x86_64`, `aarch64`, …
    pub arch: &'static str,
    /// From `LC_ALL` / `LC_MESSAGES` / `LANG`.
    pub locale: Option<String>,
    /// The user's shell, from `SHELL`.
    pub shell: Option<String>,
    /// Columns × rows, when the front end knows.
    pub terminal: Option<(u16, u16)>,
    /// The curated memory files with something in them (global first),
    /// see [`crate::memory`].
    pub curated: Vec<(crate::memory::MemoryScope, String)>,
}

impl EnvironmentFacts {
    /// Facts for now, in `cwd` (the memory is added by
    /// [`EnvironmentFacts::read_memory`]).
    pub fn gather(cwd: &Path, terminal: Option<(u16, u16)>) -> Self {
        let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        EnvironmentFacts {
            date: crate::time::today(),
            cwd: cwd.to_path_buf(),
            os: std::env::consts::OS,
            arch: std::env::consts::ARCH,
            locale: env("LC_ALL")
                .or_else(|| env("LC_MESSAGES"))
                .or_else(|| env("LANG")),
            shell: env("SHELL"),
            terminal,
            curated: Vec::new(),
        }
    }

    /// Adds the curated memory of `paths` (empty or unreadable files are
    /// left out).
    pub fn read_memory(&mut self, paths: &crate::memory::MemoryPaths) {
        use crate::memory::MemoryScope;
        for scope in [MemoryScope::Global, MemoryScope::Project] {
            if let Some(text) = read_user_file(paths.file(scope)) {
                self.curated.push((scope, text));
            }
        }
    }

    fn terminal_str(&self) -> String {
        self.terminal
            .map_or_else(|| "unknown".to_string(), |(c, r)| format!("{c}x{r}"))
    }

    /// The environment message.
    pub fn message(&self) -> String {
        let mut out = format!(
            "<environment>\ndate: {}\ncwd: {}\nos: {} ({})\nlocale: {}\nshell: {}\nterminal: {}\n</environment>",
            self.date,
            self.cwd.display(),
            self.os,
            self.arch,
            self.locale.as_deref().unwrap_or("unknown"),
            self.shell.as_deref().unwrap_or("unknown"),
            self.terminal_str(),
        );
        for (scope, text) in &self.curated {
            out.push_str(&format!(
                "\n\n<memory scope=\"{scope}\" kept-by=\"koi's memory curator\">\n{text}\n</memory>"
            ));
        }
        out
    }

    /// A note for the next user message when the date or terminal size
    /// changed since `before` (history is append-only, so the environment
    /// message itself is never rewritten).
    pub fn changes_since(&self, before: &EnvironmentFacts) -> Option<String> {
        let mut changes = Vec::new();
        if self.date != before.date {
            changes.push(format!("date is now {}", self.date));
        }
        if self.terminal.is_some() && self.terminal != before.terminal {
            changes.push(format!("terminal is now {}", self.terminal_str()));
        }
        (!changes.is_empty()).then(|| format!("[environment update: {}]", changes.join("; ")))
    }

    /// Recovers the changeable facts from a stored environment message.
    pub fn parse_changeable(message: &str, cwd: &Path) -> EnvironmentFacts {
        let field = |name: &str| {
            message
                .lines()
                .find_map(|l| l.strip_prefix(name).map(|v| v.trim().to_string()))
        };
        let terminal = field("terminal:").and_then(|t| {
            let (c, r) = t.split_once('x')?;
            Some((c.parse().ok()?, r.parse().ok()?))
        });
        EnvironmentFacts {
            date: field("date:").unwrap_or_default(),
            cwd: cwd.to_path_buf(),
            os: std::env::consts::OS,
            arch: std::env::consts::ARCH,
            locale: None,
            shell: None,
            terminal,
            curated: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_stripped_and_order_is_fixed() {
        let p = system_prompt(None);
        assert!(!p.contains("<!--"));
        assert!(!p.contains("version: 1"));
        assert!(p.starts_with("You are koi"));
        let voice = p.find("You are koi").unwrap();
        let untrusted = p.find("<untrusted-data").unwrap();
        assert!(voice < untrusted);
        assert_eq!(p, system_prompt(None));
    }

    #[test]
    fn identity_files_are_appended_memory_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let data = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("SOUL.md"), "I like terse answers.\r\n\n").unwrap();
        // A MEMORY.md beside koi.toml is no memory of koi's: only the
        // curated files are.
        std::fs::write(dir.path().join("MEMORY.md"), "stale notes").unwrap();
        let paths = crate::memory::MemoryPaths::new(data.path(), dir.path());
        std::fs::create_dir_all(paths.project.parent().unwrap()).unwrap();
        std::fs::write(&paths.project, "- project uses nextest\n").unwrap();
        let p = system_prompt(Some(dir.path()));
        assert!(p.ends_with("# From the user's SOUL.md\n\nI like terse answers.\n"));
        assert!(!p.contains("nextest") && !p.contains("stale notes"));
        let mut facts = EnvironmentFacts::gather(dir.path(), Some((100, 30)));
        facts.read_memory(&paths);
        let m = facts.message();
        assert!(m.contains("terminal: 100x30"));
        assert!(m.contains("project uses nextest"));
        assert!(!m.contains("stale notes"));
        let back = EnvironmentFacts::parse_changeable(&m, dir.path());
        assert_eq!(back.terminal, Some((100, 30)));
        let mut later = facts.clone();
        later.terminal = Some((120, 40));
        assert_eq!(
            later.changes_since(&back).as_deref(),
            Some("[environment update: terminal is now 120x40]")
        );
    }
}
