//! `fs_write` (whole-file write) and `fs_delete`, both guarded by the
//! revision the model read.

use serde::Deserialize;
use serde_json::json;

use crate::cancel::CancelToken;
use crate::effect::Effect;
use crate::error::ToolError;
use crate::output::ToolOutput;
use crate::plural::counted;
use crate::tool::{parse_args, Tool, ToolContext, HEADER_ALLOWANCE};
use crate::tools::fs_common::{
    change_output, check_revision, diff_preview, lossy_text, read_current, read_existing,
    revision_of, write_new, FileTarget, ABSENT, MAX_DIFF_CHARS,
};
use crate::workspace::Workspace;

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
        let file = FileTarget::new(ws, &a.path);
        match file.read(&CancelToken::new()) {
            Ok(current) => Some(diff_preview(
                &lossy_text(current.as_deref()),
                &a.content,
                &file.shown,
            )),
            Err(e) => Some(format!("(this write will fail: {e})")),
        }
    }

    fn run(&self, args: &serde_json::Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let a: WriteArgs = parse_args(self.name(), args)?;
        let file = FileTarget::new(&ctx.workspace, &a.path);
        let current = read_current(ctx, &file)?;
        check_revision(current.as_deref(), &a.expected_revision, &file.shown)?;
        write_new(ctx, &file.path, &a.content, &file.shown)?;
        let verb = if current.is_some() {
            "wrote"
        } else {
            "created"
        };
        Ok(change_output(
            &file.shown,
            &lossy_text(current.as_deref()),
            &a.content,
            verb,
        ))
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
        let file = FileTarget::new(ws, &a.path);
        let bytes = match file.read(&CancelToken::new()) {
            Ok(bytes) => bytes?,
            Err(e) => return Some(format!("(this delete will fail: {e})")),
        };
        Some(format!(
            "deletes {} ({}, {})",
            file.shown,
            counted(
                String::from_utf8_lossy(&bytes).lines().count(),
                "line",
                "lines"
            ),
            counted(bytes.len(), "byte", "bytes")
        ))
    }

    fn run(&self, args: &serde_json::Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let a: DeleteArgs = parse_args(self.name(), args)?;
        let FileTarget {
            lexical,
            path: target,
            shown,
        } = FileTarget::new(&ctx.workspace, &a.path);
        let Some(bytes) = read_existing(&target, &shown, &ctx.cancel)? else {
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
        // Delete the link itself, not its target.
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
