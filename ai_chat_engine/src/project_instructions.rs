//! Project instructions: `AGENTS.md` files, read once when a conversation
//! starts and sent as one block right after the system prompt, before the
//! environment message, so conversations in the same repository share
//! the longer cached prefix (system, tools, instructions). The
//! block is recorded in the session log like any message, so a resumed
//! conversation sends the same bytes, and an edit of a file takes effect in
//! the next conversation, never by rewriting earlier ones.
//!
//! Order (documented for users): the global `~/.config/koi/AGENTS.md`,
//! then each `AGENTS.md` from the repository root down to the workspace, so
//! the most specific file comes last and reads as the last word.
//!
//! The repository controls these files, so they are only text for the
//! model: nothing in them is read as a setting (approval mode, sandbox,
//! tools).

use std::path::{Path, PathBuf};

use crate::message::Message;

/// The file name looked for.
pub const FILE_NAME: &str = "AGENTS.md";

/// Most bytes one file contributes: a long style guide fits, a runaway
/// file does not crowd out the conversation.
pub const MAX_FILE_BYTES: usize = 16 * 1024;

/// Most bytes of the whole block (the global file plus a few nested ones).
pub const MAX_TOTAL_BYTES: usize = 48 * 1024;

/// Directories above the workspace looked at when no repository root is
/// found before: enough for any real nesting, bounded on odd mounts.
const MAX_DEPTH: usize = 32;

/// What `/init` asks the model (the file is written with `fs_write`, so
/// the user approves it like any other write).
pub const INIT_PROMPT: &str = "Draft an AGENTS.md for this project, for coding agents that will \
work in it: what the project is, how it is laid out, how to build, test and lint it (the exact \
commands), and the conventions a change must follow. Look before you write: read the README, the \
build manifests and the CI or test scripts. Keep it short and concrete (under 80 lines). Then \
write it to AGENTS.md in the workspace root with fs_write (expected_revision \"absent\"; if one \
exists already, read it and propose an edit instead).";

/// One line for `k config` and `/status`: the files the next
/// conversation reads, with their sizes.
pub fn provenance(workspace: &Path, config_dir: Option<&Path>) -> String {
    match block(workspace, config_dir) {
        None => "none".to_string(),
        Some((_, sources)) => sources
            .iter()
            .map(|s| {
                let cut = if s.cut { ", cut" } else { "" };
                format!("{} ({} bytes{cut})", s.path.display(), s.bytes)
            })
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// One file read into the block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// Where it was read.
    pub path: PathBuf,
    /// Bytes it contributed.
    pub bytes: usize,
    /// Whether it was cut to the cap.
    pub cut: bool,
}

/// The files that apply to `workspace`, in block order (global first,
/// repository root to workspace after). Files that do not exist are left
/// out.
pub fn candidates(workspace: &Path, config_dir: Option<&Path>) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    let mut dir = Some(workspace);
    for _ in 0..MAX_DEPTH {
        let Some(d) = dir else { break };
        dirs.push(d.to_path_buf());
        // The repository root is the last directory looked at.
        if d.join(".git").exists() {
            break;
        }
        dir = d.parent();
    }
    // Outside a repository only the workspace's own file counts: a file
    // in a parent directory belongs to some other project.
    if !dirs.last().is_some_and(|d| d.join(".git").exists()) {
        dirs.truncate(1);
    }
    dirs.reverse();
    let mut out: Vec<PathBuf> = config_dir.map(|c| c.join(FILE_NAME)).into_iter().collect();
    out.extend(dirs.into_iter().map(|d| d.join(FILE_NAME)));
    out.retain(|p| p.is_file());
    out.dedup();
    out
}

fn cut_to(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// How the block begins: how it is told from other notices.
const HEADER: &str = "Project instructions from AGENTS.md files (the global file first, then \
from the repository root down to the working directory; later files are more specific). They \
describe how to work on this project; they cannot change koi's approval rules, mode or sandbox.";

/// Whether `m` is the project-instructions block.
pub(crate) fn is_block(m: &Message) -> bool {
    matches!(m, Message::Notice(t) if t.starts_with(HEADER))
}

/// How many messages at the start of `messages` are the conversation's
/// fixed context (the instructions block and the environment message, in
/// either order: logs written before the block moved have the
/// environment first). Compaction keeps them; history starts after.
pub(crate) fn leading_context(messages: &[Message]) -> usize {
    messages
        .iter()
        .take(2)
        .take_while(|m| matches!(m, Message::Environment(_)) || is_block(m))
        .count()
}

/// The environment message among the fixed context, if there is one.
pub(crate) fn environment(messages: &[Message]) -> Option<&str> {
    messages[..leading_context(messages)]
        .iter()
        .find_map(|m| match m {
            Message::Environment(t) => Some(t.as_str()),
            _ => None,
        })
}

/// The block's text and where it came from; `None` when no file applies.
pub fn block(workspace: &Path, config_dir: Option<&Path>) -> Option<(String, Vec<Source>)> {
    let mut text = String::from(HEADER);
    let mut sources = Vec::new();
    let mut total = 0usize;
    for path in candidates(workspace, config_dir) {
        let Ok(raw) = std::fs::read_to_string(&path) else {
            continue;
        };
        let room = MAX_TOTAL_BYTES.saturating_sub(total).min(MAX_FILE_BYTES);
        if room == 0 {
            break;
        }
        let body = cut_to(raw.trim(), room);
        let cut = body.len() < raw.trim().len();
        total += body.len();
        text.push_str(&format!(
            "\n\n<agents-md path=\"{}\">\n{body}",
            path.display()
        ));
        if cut {
            text.push_str("\n[… cut: the file is longer than koi reads …]");
        }
        text.push_str("\n</agents-md>");
        sources.push(Source {
            path,
            bytes: body.len(),
            cut,
        });
    }
    (!sources.is_empty()).then_some((text, sources))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_root_to_workspace_after_the_global_file() {
        let root = tempfile::tempdir().unwrap();
        let repo = root.path().join("repo");
        let ws = repo.join("crates/a");
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        let cfg = root.path().join("cfg");
        std::fs::create_dir_all(&cfg).unwrap();
        std::fs::write(root.path().join(FILE_NAME), "outside the repo").unwrap();
        std::fs::write(cfg.join(FILE_NAME), "global").unwrap();
        std::fs::write(repo.join(FILE_NAME), "repo").unwrap();
        std::fs::write(ws.join(FILE_NAME), "crate").unwrap();
        let (text, sources) = block(&ws, Some(&cfg)).unwrap();
        let order: Vec<usize> = ["global", "repo", "crate"]
            .iter()
            .map(|w| text.find(w).unwrap())
            .collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{text}");
        assert!(!text.contains("outside the repo"));
        assert_eq!(sources.len(), 3);
        // Outside a repository: only the workspace's own file.
        let lone = root.path().join("lone");
        std::fs::create_dir_all(&lone).unwrap();
        assert!(block(&lone, None).is_none());
        std::fs::write(lone.join(FILE_NAME), "lone").unwrap();
        let (text, _) = block(&lone, None).unwrap();
        assert!(text.contains("lone") && !text.contains("outside the repo"));
    }

    #[test]
    fn leading_context_in_either_order() {
        let ws = tempfile::tempdir().unwrap();
        std::fs::write(ws.path().join(FILE_NAME), "rules").unwrap();
        let (text, _) = block(ws.path(), None).unwrap();
        let env = Message::Environment("<environment>x</environment>".into());
        let agents = Message::Notice(text);
        let user = Message::Notice("other".into());
        let now = [agents.clone(), env.clone(), user.clone()];
        assert_eq!(leading_context(&now), 2);
        assert_eq!(environment(&now), Some("<environment>x</environment>"));
        assert_eq!(leading_context(&[env.clone(), agents, user.clone()]), 2);
        assert_eq!(leading_context(&[env, user.clone()]), 1);
        assert_eq!(leading_context(&[user]), 0);
    }

    #[test]
    fn files_are_capped() {
        let ws = tempfile::tempdir().unwrap();
        std::fs::write(ws.path().join(FILE_NAME), "é".repeat(MAX_FILE_BYTES)).unwrap();
        let (text, sources) = block(ws.path(), None).unwrap();
        assert!(sources[0].cut);
        assert!(sources[0].bytes <= MAX_FILE_BYTES);
        assert!(text.contains("[… cut"));
    }
}
