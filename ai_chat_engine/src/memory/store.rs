//! The memory files and the change log: a patch applied with a size cap,
//! secrets refused, each change logged.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::patch::{normalise, Patch, PatchOp};
use super::{MemoryError, MemoryPaths, MemoryScope};

/// Bytes one memory file may grow to through the curator: both files
/// together stay near 2,000 tokens of every environment message. A user
/// editing by hand may go past it; the curator then adds nothing until
/// lines are dropped.
pub const MAX_MEMORY_FILE_BYTES: usize = 4096;

/// What one change was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// A fact was added.
    Added,
    /// A line was dropped.
    Dropped,
    /// A fact held something shaped like a key and was not saved (its
    /// text is not logged either).
    RefusedSecret,
    /// A fact did not fit under [`MAX_MEMORY_FILE_BYTES`].
    RefusedFull,
}

/// One logged change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryChange {
    /// When (RFC 3339, UTC).
    pub at: String,
    /// The conversation the curator read.
    pub conversation: String,
    /// Which file.
    pub scope: MemoryScope,
    /// What happened.
    pub kind: ChangeKind,
    /// The fact (a placeholder for a refused secret).
    pub text: String,
}

impl fmt::Display for MemoryChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            ChangeKind::Added => "+",
            ChangeKind::Dropped => "-",
            ChangeKind::RefusedSecret => "refused (held a secret):",
            ChangeKind::RefusedFull => "refused (memory full):",
        };
        write!(
            f,
            "{} {} {what} {} (session {})",
            self.at, self.scope, self.text, self.conversation
        )
    }
}

/// Logged instead of a fact that held a secret.
const SECRET_PLACEHOLDER: &str = "[a fact holding a key; not saved]";

/// One MEMORY.md: its lines, kept as written (the user may edit it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemoryFile {
    lines: Vec<String>,
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> MemoryError + '_ {
    move |source| MemoryError::Io {
        path: path.to_path_buf(),
        source,
    }
}

impl MemoryFile {
    /// Reads `path`; a missing file is an empty memory.
    pub fn read(path: &Path) -> Result<MemoryFile, MemoryError> {
        match std::fs::read_to_string(path) {
            Ok(text) => Ok(MemoryFile::parse(&text)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(MemoryFile::default()),
            Err(e) => Err(io_error(path)(e)),
        }
    }

    /// The non-blank lines of `text`.
    pub fn parse(text: &str) -> MemoryFile {
        MemoryFile {
            lines: text
                .lines()
                .map(|l| l.trim_end().to_string())
                .filter(|l| !l.trim().is_empty())
                .collect(),
        }
    }

    /// Its lines.
    pub fn lines(&self) -> &[String] {
        &self.lines
    }

    /// The file's text.
    pub fn text(&self) -> String {
        let mut out = self.lines.join("\n");
        if !out.is_empty() {
            out.push('\n');
        }
        out
    }

    fn holds(&self, fact: &str) -> bool {
        self.lines
            .iter()
            .any(|l| normalise(l).eq_ignore_ascii_case(fact))
    }

    /// Applies the ops for `scope`, returning what changed. `secret`
    /// says whether a fact holds a key.
    fn apply(
        &mut self,
        scope: MemoryScope,
        patch: &Patch,
        secret: &dyn Fn(&str) -> bool,
    ) -> Vec<(ChangeKind, String)> {
        let mut changes = Vec::new();
        for op in &patch.ops {
            match op {
                PatchOp::Drop { scope: s, text } if *s == scope => {
                    if let Some(at) = self.lines.iter().position(|l| normalise(l) == *text) {
                        self.lines.remove(at);
                        changes.push((ChangeKind::Dropped, text.clone()));
                    }
                }
                PatchOp::Add { scope: s, text } if *s == scope => {
                    if secret(text) {
                        changes.push((ChangeKind::RefusedSecret, SECRET_PLACEHOLDER.into()));
                    } else if self.holds(text) {
                        // Already known: not a change.
                    } else if self.text().len() + text.len() + 3 > MAX_MEMORY_FILE_BYTES {
                        changes.push((ChangeKind::RefusedFull, text.clone()));
                    } else {
                        self.lines.push(format!("- {text}"));
                        changes.push((ChangeKind::Added, text.clone()));
                    }
                }
                _ => {}
            }
        }
        changes
    }

    /// Writes the file whole (a temporary file renamed over it, so a
    /// reader never sees half of it).
    pub fn write(&self, path: &Path) -> Result<(), MemoryError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io_error(dir))?;
        }
        let tmp = path.with_extension("md.tmp");
        std::fs::write(&tmp, self.text()).map_err(io_error(&tmp))?;
        std::fs::rename(&tmp, path).map_err(io_error(path))
    }
}

/// Applies `patch` to both files and logs every change. Facts for which
/// `secret` is true are refused.
pub fn apply_patch(
    paths: &MemoryPaths,
    patch: &Patch,
    conversation: &str,
    secret: &dyn Fn(&str) -> bool,
) -> Result<Vec<MemoryChange>, MemoryError> {
    let at = crate::time::now_rfc3339();
    let mut all = Vec::new();
    for scope in [MemoryScope::Global, MemoryScope::Project] {
        let path = paths.file(scope);
        let mut file = MemoryFile::read(path)?;
        let changes = file.apply(scope, patch, secret);
        if changes
            .iter()
            .any(|(k, _)| matches!(k, ChangeKind::Added | ChangeKind::Dropped))
        {
            file.write(path)?;
        }
        all.extend(changes.into_iter().map(|(kind, text)| MemoryChange {
            at: at.clone(),
            conversation: conversation.to_string(),
            scope,
            kind,
            text,
        }));
    }
    if !all.is_empty() {
        append_changes(&paths.changes, &all)?;
    }
    Ok(all)
}

fn append_changes(path: &Path, changes: &[MemoryChange]) -> Result<(), MemoryError> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io_error(dir))?;
    }
    let mut text = String::new();
    for c in changes {
        // A struct of strings and unit enums always serialises.
        if let Ok(line) = serde_json::to_string(c) {
            text.push_str(&line);
            text.push('\n');
        }
    }
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .map_err(io_error(path))
}

/// The latest `n` logged changes, oldest first; unreadable lines skipped.
pub fn read_changes(path: &Path, n: usize) -> Vec<MemoryChange> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let all: Vec<MemoryChange> = text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let skip = all.len().saturating_sub(n);
    all.into_iter().skip(skip).collect()
}

/// The file `/memory edit [global]` opens, created empty if missing so an
/// editor has something to open.
pub fn edit_target(paths: &MemoryPaths, scope: MemoryScope) -> Result<PathBuf, MemoryError> {
    let path = paths.file(scope).to_path_buf();
    if !path.exists() {
        MemoryFile::default().write(&path)?;
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths() -> (tempfile::TempDir, MemoryPaths) {
        let dir = tempfile::tempdir().unwrap();
        let p = MemoryPaths::new(dir.path(), dir.path());
        (dir, p)
    }

    #[test]
    fn adds_drops_refuses_and_logs() {
        let (_d, p) = paths();
        std::fs::create_dir_all(p.project.parent().unwrap()).unwrap();
        std::fs::write(&p.project, "uses make\n- old fact\n").unwrap();
        let patch = Patch::parse(
            "ADD project: tests use nextest\nDROP project: uses make\nDROP project: not there\n\
             ADD global: key is sk-abcdefghijklmnop1234\nADD project: Tests use nextest\n\
             ADD global: likes tea",
        )
        .unwrap();
        let secret = |t: &str| ai_tools::secrets::contains_key_like(t);
        let changes = apply_patch(&p, &patch, "s1", &secret).unwrap();
        let kinds: Vec<(MemoryScope, ChangeKind)> =
            changes.iter().map(|c| (c.scope, c.kind)).collect();
        assert_eq!(
            kinds,
            vec![
                (MemoryScope::Global, ChangeKind::RefusedSecret),
                (MemoryScope::Global, ChangeKind::Added),
                (MemoryScope::Project, ChangeKind::Added),
                (MemoryScope::Project, ChangeKind::Dropped),
            ]
        );
        assert_eq!(
            std::fs::read_to_string(&p.project).unwrap(),
            "- old fact\n- tests use nextest\n"
        );
        let global = std::fs::read_to_string(&p.global).unwrap();
        assert_eq!(global, "- likes tea\n");
        let log = std::fs::read_to_string(&p.changes).unwrap();
        assert!(!log.contains("sk-abcdefghijklmnop1234"), "{log}");
        assert_eq!(read_changes(&p.changes, 10), changes);
        assert_eq!(read_changes(&p.changes, 1).len(), 1);
    }

    #[test]
    fn a_full_file_takes_no_more() {
        let (_d, p) = paths();
        let filler: String = (0..40).map(|i| format!("- {i:0>95}\n")).collect();
        assert!(filler.len() < MAX_MEMORY_FILE_BYTES);
        std::fs::create_dir_all(&p.root).unwrap();
        std::fs::write(&p.global, &filler).unwrap();
        let patch = Patch::parse(&format!("ADD global: {}", "y".repeat(200))).unwrap();
        let changes = apply_patch(&p, &patch, "s1", &|_| false).unwrap();
        assert_eq!(changes[0].kind, ChangeKind::RefusedFull);
        assert_eq!(std::fs::read_to_string(&p.global).unwrap(), filler);
    }
}
