//! `fs_write` (whole-file write) and `fs_delete`, both guarded by the
//! revision the model read.

use serde::Deserialize;
use serde_json::json;

use crate::error::ToolError;
use crate::output::{head_tail, ToolOutput};
use crate::tool::{parse_args, Effect, Tool, ToolContext, HEADER_ALLOWANCE};
use crate::tools::fs_common::{
    atomic_write, check_revision, diff_counts, read_existing, resolve, revision_of, unified_diff,
    ABSENT,
};
use crate::workspace::Workspace;

/// Characters of diff shown to the model after an edit; the full diff goes
/// to the UI and the session log.
pub const MAX_DIFF_CHARS: usize = 8_000;

/// Writes a whole file.
pub struct FsWrite;

/// Deletes a file.
pub struct FsDelete;

#[derive(Deserialize)]
struct WriteArgs {
    path: String,
    content: String,
    expected_revision: String,
}

#[derive(Deserialize)]
struct DeleteArgs {
    path: String,
    #[serde(default)]
    expected_revision: Option<String>,
}

/// The result of a file change, shared by write/patch.
pub fn change_output(shown: &str, old: &str, new: &str, verb: &str) -> ToolOutput {
    let diff = unified_diff(old, new, shown);
    let (added, removed) = diff_counts(old, new);
    let revision = revision_of(new.as_bytes());
    let summary = format!("{verb} {shown} (+{added} -{removed}); new revision {revision}\n");
    ToolOutput {
        for_model: format!("{summary}{}", head_tail(&diff, MAX_DIFF_CHARS)),
        full: format!("{summary}{diff}"),
        preview: format!("{verb} {shown} → +{added} -{removed}"),
        diff: Some(diff),
    }
}

impl Tool for FsWrite {
    fn output_budget(&self) -> usize {
        MAX_DIFF_CHARS + HEADER_ALLOWANCE
    }

    fn name(&self) -> &'static str {
        "fs_write"
    }

    fn description(&self) -> &'static str {
        "Write a whole file. `expected_revision` must be the revision fs_read returned (the write is \
         refused if the file changed since), or \"absent\" to create a new file. Atomic; keeps \
         permissions; returns a unified diff and the new revision. Prefer fs_patch for small edits."
    }

    fn input_schema(&self) -> serde_json::Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "content": {"type": "string", "description": "The complete new content"},
                "expected_revision": {"type": "string", "description": "Revision from fs_read, or \"absent\" for a new file"}
            },
            "required": ["path", "content", "expected_revision"]
        })
    }

    fn effect(&self, args: &serde_json::Value, ws: &Workspace) -> Result<Effect, ToolError> {
        let a: WriteArgs = parse_args(self.name(), args)?;
        Ok(Effect::Write(vec![ws.resolve(&a.path)]))
    }

    fn approval_preview(&self, args: &serde_json::Value, ws: &Workspace) -> Option<String> {
        let a: WriteArgs = parse_args(self.name(), args).ok()?;
        let shown = ws.display(&ws.resolve(&a.path));
        let current = read_existing(&resolve(ws, &a.path), &shown).ok()?;
        let old = current
            .as_deref()
            .map(String::from_utf8_lossy)
            .unwrap_or_default();
        Some(head_tail(
            &unified_diff(&old, &a.content, &shown),
            MAX_DIFF_CHARS,
        ))
    }

    fn run(&self, args: &serde_json::Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let a: WriteArgs = parse_args(self.name(), args)?;
        let path = resolve(&ctx.workspace, &a.path);
        let shown = ctx.workspace.display(&ctx.workspace.resolve(&a.path));
        let current = read_existing(&path, &shown)?;
        check_revision(current.as_deref(), &a.expected_revision, &shown)?;
        atomic_write(&path, a.content.as_bytes(), &shown)?;
        let old = current
            .as_deref()
            .map(String::from_utf8_lossy)
            .unwrap_or_default();
        let verb = if current.is_some() {
            "wrote"
        } else {
            "created"
        };
        Ok(change_output(&shown, &old, &a.content, verb))
    }
}

impl Tool for FsDelete {
    fn output_budget(&self) -> usize {
        MAX_DIFF_CHARS + HEADER_ALLOWANCE
    }

    fn name(&self) -> &'static str {
        "fs_delete"
    }

    fn description(&self) -> &'static str {
        "Delete a file (not a directory). Pass `expected_revision` from fs_read to make sure you \
         delete what you saw."
    }

    fn input_schema(&self) -> serde_json::Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "expected_revision": {"type": "string"}
            },
            "required": ["path"]
        })
    }

    fn effect(&self, args: &serde_json::Value, ws: &Workspace) -> Result<Effect, ToolError> {
        let a: DeleteArgs = parse_args(self.name(), args)?;
        Ok(Effect::Write(vec![ws.resolve(&a.path)]))
    }

    fn approval_preview(&self, args: &serde_json::Value, ws: &Workspace) -> Option<String> {
        let a: DeleteArgs = parse_args(self.name(), args).ok()?;
        let shown = ws.display(&ws.resolve(&a.path));
        let bytes = read_existing(&resolve(ws, &a.path), &shown).ok()??;
        Some(format!(
            "deletes {shown} ({} lines, {} bytes)",
            String::from_utf8_lossy(&bytes).lines().count(),
            bytes.len()
        ))
    }

    fn run(&self, args: &serde_json::Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let a: DeleteArgs = parse_args(self.name(), args)?;
        // Delete the link itself, not its target: resolve only the parent.
        let lexical = ctx.workspace.resolve(&a.path);
        let shown = ctx.workspace.display(&lexical);
        let target = resolve(&ctx.workspace, &a.path);
        let current = read_existing(&target, &shown)?;
        let Some(bytes) = current else {
            return Err(ToolError::Path(format!("{shown} does not exist")));
        };
        if let Some(expected) = &a.expected_revision {
            if expected.trim() == ABSENT {
                return Err(ToolError::StaleRevision {
                    path: shown,
                    expected: expected.clone(),
                    current: revision_of(&bytes),
                });
            }
            check_revision(Some(&bytes), expected, &shown)?;
        }
        let is_link = std::fs::symlink_metadata(&lexical)
            .map(|m| m.file_type().is_symlink())
            .unwrap_or(false);
        let victim = if is_link { &lexical } else { &target };
        std::fs::remove_file(victim).map_err(|e| ToolError::io(&shown, e))?;
        let old = String::from_utf8_lossy(&bytes);
        let mut out = change_output(&shown, &old, "", "deleted");
        out.preview = format!("deleted {shown} → -{} lines", old.lines().count());
        Ok(out)
    }
}
