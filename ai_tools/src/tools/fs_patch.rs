//! `fs_patch`: exact-match replacements and appends, guarded by revision.

use serde::Deserialize;
use serde_json::json;

use crate::cancel::CancelToken;
use crate::effect::Effect;
use crate::error::ToolError;
use crate::output::ToolOutput;
use crate::tool::{parse_args, Tool, ToolContext, HEADER_ALLOWANCE};
use crate::tools::fs_common::{
    change_output, check_revision, diff_preview, lossy_text, read_current, write_new, FileTarget,
    ABSENT, MAX_DIFF_CHARS,
};
use crate::workspace::Workspace;

/// Edits one file in place.
pub struct FsPatch;

#[derive(Deserialize)]
struct Edit {
    old: String,
    new: String,
}

#[derive(Deserialize)]
struct Args {
    path: String,
    expected_revision: String,
    #[serde(default)]
    edits: Vec<Edit>,
    #[serde(default)]
    append: Option<String>,
}

/// Apply the edits in order; each `old` must match exactly once in the
/// text as it stands after the previous edits.
fn apply(
    text: &str,
    edits: &[Edit],
    append: Option<&str>,
    shown: &str,
) -> Result<String, ToolError> {
    let mut out = text.to_string();
    for (index, e) in edits.iter().enumerate() {
        if e.old.is_empty() {
            return Err(ToolError::Failed(format!(
                "edit {index}: `old` is empty; use `append` to add text at the end. Nothing was written."
            )));
        }
        let count = out.matches(e.old.as_str()).count();
        if count != 1 {
            return Err(ToolError::MatchCount {
                path: shown.to_string(),
                index,
                count,
            });
        }
        out = out.replacen(e.old.as_str(), &e.new, 1);
    }
    if let Some(extra) = append {
        out.push_str(extra);
    }
    Ok(out)
}

impl Tool for FsPatch {
    fn output_budget(&self) -> usize {
        MAX_DIFF_CHARS + HEADER_ALLOWANCE
    }

    fn name(&self) -> &'static str {
        "fs_patch"
    }

    fn description(&self) -> &'static str {
        "Edit a file: each edit replaces `old` (which must occur exactly once; include enough context) \
         with `new`, in order; `append` adds text at the end. `expected_revision` must be the revision \
         fs_read returned; the edit is refused if the file changed since. Returns a unified diff."
    }

    fn input_schema(&self) -> serde_json::Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "expected_revision": {"type": "string"},
                "edits": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"old": {"type": "string"}, "new": {"type": "string"}},
                        "required": ["old", "new"]
                    }
                },
                "append": {"type": "string", "description": "Text to add at the end of the file"}
            },
            "required": ["path", "expected_revision"]
        })
    }

    fn effect(&self, args: &serde_json::Value, ws: &Workspace) -> Result<Effect, ToolError> {
        let a: Args = parse_args(self.name(), args)?;
        Ok(Effect::Write(vec![ws.resolve(&a.path)]))
    }

    fn approval_preview(&self, args: &serde_json::Value, ws: &Workspace) -> Option<String> {
        let a: Args = parse_args(self.name(), args).ok()?;
        let file = FileTarget::new(ws, &a.path);
        let current = match file.read(&CancelToken::new()) {
            Ok(current) => current,
            Err(e) => return Some(format!("(this edit will fail: {e})")),
        };
        let old = lossy_text(current.as_deref());
        match apply(&old, &a.edits, a.append.as_deref(), &file.shown) {
            Ok(new) => Some(diff_preview(&old, &new, &file.shown)),
            Err(e) => Some(format!("(this edit will fail: {e})")),
        }
    }

    fn run(&self, args: &serde_json::Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let a: Args = parse_args(self.name(), args)?;
        if a.edits.is_empty() && a.append.is_none() {
            return Err(ToolError::BadArgs {
                tool: "fs_patch".into(),
                message: "give `edits`, `append`, or both".into(),
            });
        }
        let target = FileTarget::new(&ctx.workspace, &a.path);
        let current = read_current(ctx, &target)?;
        let FileTarget { path, shown, .. } = target;
        if a.expected_revision.trim() == ABSENT && current.is_none() && a.edits.is_empty() {
            // Appending to a file that does not exist yet creates it.
            let new = a.append.unwrap_or_default();
            write_new(ctx, &path, &new, &shown)?;
            return Ok(change_output(&shown, "", &new, "created"));
        }
        check_revision(current.as_deref(), &a.expected_revision, &shown)?;
        let Some(bytes) = current else {
            return Err(ToolError::Path(format!("{shown} does not exist")));
        };
        let old = String::from_utf8(bytes)
            .map_err(|_| ToolError::Failed(format!("{shown} is not UTF-8 text; use fs_write")))?;
        let new = apply(&old, &a.edits, a.append.as_deref(), &shown)?;
        write_new(ctx, &path, &new, &shown)?;
        Ok(change_output(&shown, &old, &new, "patched"))
    }
}
