//! What ACP shows of one koi tool call: its kind, its title, the file it
//! touches, and for edits the file's text before and after.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::wire::ToolKind;

/// The ACP kind of koi's tool `name` (MCP tools and unknown ones: other).
pub fn kind_of(name: &str) -> ToolKind {
    match name {
        "fs_read" | "fs_list" | "file_tree" | "project_summary" | "memory_read" => ToolKind::Read,
        "fs_write" | "fs_patch" => ToolKind::Edit,
        "fs_delete" => ToolKind::Delete,
        "grep_search" | "web_search" => ToolKind::Search,
        "shell_exec" | "shell_bg" | "shell_poll" | "shell_kill" => ToolKind::Execute,
        "web_fetch" | "http_request" => ToolKind::Fetch,
        "explore" => ToolKind::Think,
        _ => ToolKind::Other,
    }
}

/// The title a client shows: the tool and what it is about.
pub fn title(name: &str, summary: &str) -> String {
    let summary = summary.trim();
    if summary.is_empty() {
        name.to_string()
    } else {
        format!("{name}: {summary}")
    }
}

/// The file a call's `path` argument names, made absolute against the
/// workspace (calls without one: none).
pub fn path_of(args: &Value, workspace: &Path) -> Option<PathBuf> {
    let path = args.get("path")?.as_str()?;
    if path.is_empty() {
        return None;
    }
    Some(workspace.join(path))
}

/// A file's text now: `None` when it does not exist, is not text, or is
/// larger than the file tools would edit.
pub fn read_text(path: &Path) -> Option<String> {
    let size = std::fs::metadata(path).ok()?.len();
    if size > ai_tools::tools::fs_common::MAX_FILE_BYTES {
        return None;
    }
    std::fs::read(path)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
}

/// The text an edit call would leave, from the file's text before it
/// (`before`, `None` for a new file) and the call's arguments; `None`
/// when it cannot be told (a patch whose old text is not there: the tool
/// will refuse it and say why).
pub fn proposed_text(name: &str, args: &Value, before: Option<&str>) -> Option<String> {
    match name {
        "fs_write" => args.get("content")?.as_str().map(str::to_string),
        "fs_patch" => {
            let mut text = before?.to_string();
            for edit in args.get("edits")?.as_array()? {
                let old = edit.get("old")?.as_str()?;
                let new = edit.get("new")?.as_str()?;
                if old.is_empty() || !text.contains(old) {
                    return None;
                }
                text = text.replacen(old, new, 1);
            }
            Some(text)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn kinds_follow_what_tools_do() {
        assert_eq!(kind_of("fs_read"), ToolKind::Read);
        assert_eq!(kind_of("fs_patch"), ToolKind::Edit);
        assert_eq!(kind_of("shell_exec"), ToolKind::Execute);
        assert_eq!(kind_of("mcp__files__read"), ToolKind::Other);
    }

    #[test]
    fn a_patch_is_applied_to_the_text_before() {
        let args = json!({"path": "a", "edits": [{"old": "hello", "new": "bye"}]});
        assert_eq!(
            proposed_text("fs_patch", &args, Some("x = hello\n")).as_deref(),
            Some("x = bye\n")
        );
        assert_eq!(proposed_text("fs_patch", &args, Some("nothing")), None);
        let write = json!({"path": "a", "content": "new"});
        assert_eq!(
            proposed_text("fs_write", &write, None).as_deref(),
            Some("new")
        );
        assert_eq!(
            path_of(&write, Path::new("/ws")),
            Some(PathBuf::from("/ws/a"))
        );
    }
}
