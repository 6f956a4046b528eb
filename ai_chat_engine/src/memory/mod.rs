//! The memory the assistant keeps between conversations: the one meaning
//! of "memory" in koi, and the one place that says where it lives.
//!
//! Memory is two small markdown files of facts, one line each:
//!
//! ```text
//! $XDG_DATA_HOME/koi/                         koi's data dir
//!   memory/MEMORY.md                          global: facts about the user
//!   memory/projects/<name>-<hash>/MEMORY.md   one project (its workspace root)
//!   memory/changes.jsonl                      every change, newest last
//! ```
//!
//! `<name>` is the workspace directory's name and `<hash>` the first 16
//! hex digits of the SHA-256 of its canonical path, so two checkouts
//! called `src` stay apart. [`MemoryPaths`] computes these paths; nothing
//! else does.
//!
//! Who writes it:
//! - the curator (Kaku's memory curator, done with koi's rules): after a
//!   conversation goes idle, a background request to the fast model reads
//!   the conversation's user and assistant *text* (never tool output,
//!   attachments or terminal content: text injected there would otherwise
//!   persist into every later conversation) and the current memory, and
//!   answers with a small patch in a strict line format ([`patch`]). The
//!   patch is applied with a size cap, facts holding anything shaped like
//!   a key are refused, and every change is logged ([`store`]);
//! - the user, with `/memory edit [global]` (in `$EDITOR`).
//!
//! Who reads it, always these same two files:
//! - the environment message of a new conversation (never the system
//!   prompt, so a rewrite never moves the cached prefix);
//! - the `memory_read` tool (handed [`MemoryPaths::files`] by the engine
//!   builder);
//! - `/memory`, which shows both files and the latest changes ([`show`]).
//!
//! Memory is on when `[ai] memory` is (the default with a model; never in
//! the demo) and sessions are saved ([`memory_dir`]); when it is off,
//! nothing is read or written and `memory_read` and `/memory` say so
//! ([`MEMORY_OFF`]). koi once read a `MEMORY.md` beside `koi.toml`; it no
//! longer does (move its lines with `/memory edit global`).
//!
//! When a conversation is idle: when its front end closes it
//! ([`crate::Engine::close_conversation`]: `/new`, `/clear`, switching,
//! exit) or when [`MEMORY_IDLE_DELAY`] passes after a turn ended with no
//! new turn started (the engine's memory worker).

pub mod patch;
pub mod store;
pub(crate) mod worker;

use std::path::{Path, PathBuf};
use std::time::Duration;

use sha2::{Digest, Sha256};

pub use patch::{MemoryScope, Patch, PatchError, PatchOp};
pub use store::{ChangeKind, MemoryChange, MemoryFile};

/// How long after a turn ends, with no new turn, a conversation counts as
/// idle: long enough that a user reading the answer and typing a follow-up
/// does not trigger a curation per turn, short enough that a session left
/// open still has its facts saved the same hour.
pub const MEMORY_IDLE_DELAY: Duration = Duration::from_secs(300);

/// Hex digits of the path hash in a project's directory name: 64 bits
/// make a collision between a user's projects implausible.
const PROJECT_HASH_HEX: usize = 16;

/// The memory file's name, in both scopes.
pub const MEMORY_FILE_NAME: &str = "MEMORY.md";

/// The change log's name.
pub const CHANGES_FILE_NAME: &str = "changes.jsonl";

/// Where one workspace's memory lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryPaths {
    /// `memory/` under the data dir.
    pub root: PathBuf,
    /// The global MEMORY.md.
    pub global: PathBuf,
    /// This project's MEMORY.md.
    pub project: PathBuf,
    /// The change log.
    pub changes: PathBuf,
}

impl MemoryPaths {
    /// The paths for `workspace`, under `data_dir` (koi's data dir).
    pub fn new(data_dir: &Path, workspace: &Path) -> MemoryPaths {
        let root = data_dir.join("memory");
        let canonical = workspace
            .canonicalize()
            .unwrap_or_else(|_| workspace.to_path_buf());
        let digest = Sha256::digest(canonical.to_string_lossy().as_bytes());
        let hash: String = digest
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
            .chars()
            .take(PROJECT_HASH_HEX)
            .collect();
        let name: String = canonical
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "root".to_string())
            .chars()
            .map(|c| {
                if c.is_alphanumeric() || c == '-' || c == '_' || c == '.' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        MemoryPaths {
            global: root.join(MEMORY_FILE_NAME),
            project: root
                .join("projects")
                .join(format!("{name}-{hash}"))
                .join(MEMORY_FILE_NAME),
            changes: root.join(CHANGES_FILE_NAME),
            root,
        }
    }

    /// The two files, as the `memory_read` tool is handed them.
    pub fn files(&self) -> ai_tools::MemoryFiles {
        ai_tools::MemoryFiles {
            global: self.global.clone(),
            project: self.project.clone(),
        }
    }

    /// The file for `scope`.
    pub fn file(&self, scope: MemoryScope) -> &Path {
        match scope {
            MemoryScope::Global => &self.global,
            MemoryScope::Project => &self.project,
        }
    }
}

/// Why a curation did not change the memory.
#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    /// The curator's answer is not a patch.
    #[error("the memory curator's answer was refused: {0}")]
    Patch(#[from] PatchError),
    /// The request failed.
    #[error("the memory curator's request failed: {0}")]
    Request(String),
    /// A memory file or the change log could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

/// What one curation did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryReport {
    /// The conversation read.
    pub conversation: String,
    /// The changes, as logged (empty: nothing worth keeping).
    pub changes: Vec<MemoryChange>,
}

/// `/memory`: the files, what they hold, and the latest changes.
pub fn show(paths: &MemoryPaths, latest: usize) -> String {
    let mut out = String::new();
    for scope in [MemoryScope::Global, MemoryScope::Project] {
        let path = paths.file(scope);
        out.push_str(&format!("{scope} memory: {}\n", path.display()));
        match MemoryFile::read(path) {
            Ok(file) if file.lines().is_empty() => out.push_str("  (empty)\n"),
            Ok(file) => {
                for line in file.lines() {
                    out.push_str(&format!("  {line}\n"));
                }
            }
            Err(e) => out.push_str(&format!("  cannot read it: {e}\n")),
        }
    }
    let changes = store::read_changes(&paths.changes, latest);
    if changes.is_empty() {
        out.push_str("no changes yet\n");
    } else {
        out.push_str(&format!("latest changes ({}):\n", paths.changes.display()));
        for c in changes {
            out.push_str(&format!("  {c}\n"));
        }
    }
    out.push_str(
        "/memory edit opens this project's file in $EDITOR (/memory edit global: the global one)",
    );
    out
}

/// The `sh -c` script that opens its first argument in `$VISUAL`, else
/// `$EDITOR`, else `vi`. The variable is read as shell code, as git reads
/// it, so `code -w` and quoted arguments work; the path is never parsed.
pub const EDITOR_SCRIPT: &str = r#"eval "${VISUAL:-${EDITOR:-vi}}"' "$1"'"#;

/// `word` single-quoted for bash, zsh, fish and sh alike.
fn single_quoted(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// The line the overlay types at the shell's prompt to open `path` with
/// [`EDITOR_SCRIPT`] (`k` runs the script itself, with no line to parse).
pub fn editor_shell_line(path: &Path) -> String {
    format!(
        "sh -c {} koi-editor {}",
        single_quoted(EDITOR_SCRIPT),
        single_quoted(&path.to_string_lossy())
    )
}

/// `k`'s way to open `path`: [`EDITOR_SCRIPT`] with the path as its
/// argument, on the caller's terminal.
pub fn editor_command(path: &Path) -> std::process::Command {
    let mut c = std::process::Command::new("sh");
    c.arg("-c").arg(EDITOR_SCRIPT).arg("koi-editor").arg(path);
    c
}

/// What `/memory` and `memory_read` say when memory is off.
pub use ai_tools::tools::memory::MEMORY_OFF;

/// The data dir memory lives under, or `None` when memory is off: on
/// when the config says so (`[ai] memory`, never the demo) and sessions
/// are saved (`persist`), under `data_dir` (default: koi's data dir).
pub fn memory_dir(on: bool, persist: bool, data_dir: Option<&Path>) -> Option<PathBuf> {
    if !(on && persist) {
        return None;
    }
    data_dir
        .map(Path::to_path_buf)
        .or_else(crate::paths::data_dir)
}

/// What the `memory_read` tool of an engine in `workspace` is handed:
/// the files of [`memory_dir`], or `None` when memory is off.
pub fn tool_files(
    on: bool,
    persist: bool,
    data_dir: Option<&Path>,
    workspace: &Path,
) -> Option<ai_tools::MemoryFiles> {
    memory_dir(on, persist, data_dir).map(|d| MemoryPaths::new(&d, workspace).files())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn projects_with_one_name_get_their_own_files() {
        let data = tempfile::tempdir().unwrap();
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        std::fs::create_dir(a.path().join("src")).unwrap();
        std::fs::create_dir(b.path().join("src")).unwrap();
        let pa = MemoryPaths::new(data.path(), &a.path().join("src"));
        let pb = MemoryPaths::new(data.path(), &b.path().join("src"));
        assert_eq!(pa.global, pb.global);
        assert_eq!(pa.global, data.path().join("memory/MEMORY.md"));
        assert_ne!(pa.project, pb.project);
        let dir = pa.project.parent().unwrap().file_name().unwrap();
        let dir = dir.to_string_lossy();
        assert!(
            dir.starts_with("src-") && dir.len() == 4 + PROJECT_HASH_HEX,
            "{dir}"
        );
        assert_eq!(pa, MemoryPaths::new(data.path(), &a.path().join("src")));
    }

    #[test]
    fn the_editor_line_and_command_open_any_path_in_the_users_editor() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("it's $HOME `x`.md");
        // An "editor" with quoted arguments that writes to the file it was
        // given proves both the editor and the path arrive whole.
        let editor = r#"sh -c 'echo "edited by $0" > "$1"' the-editor"#;
        let typed = std::process::Command::new("sh")
            .arg("-c")
            .arg(editor_shell_line(&path))
            .env_remove("VISUAL")
            .env("EDITOR", editor)
            .status()
            .unwrap();
        assert!(typed.success());
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "edited by the-editor\n"
        );
        std::fs::remove_file(&path).unwrap();
        let run = editor_command(&path)
            .env("VISUAL", editor)
            .env("EDITOR", "false")
            .status()
            .unwrap();
        assert!(run.success());
        assert!(std::fs::read_to_string(&path)
            .unwrap()
            .starts_with("edited"));
    }
}
