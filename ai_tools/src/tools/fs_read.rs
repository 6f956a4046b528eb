//! `fs_read`: a budgeted window of a file plus the whole file's revision.

use serde::Deserialize;
use serde_json::json;

use crate::effect::Effect;
use crate::error::ToolError;
use crate::output::ToolOutput;
use crate::plural::counted;
use crate::tool::{parse_args, Tool, ToolContext, HEADER_ALLOWANCE};
use crate::tools::bounded_file::Bounded;
use crate::tools::fs_common::{read_current_bounded, revision_of, FileTarget, MAX_FILE_BYTES};
use crate::workspace::Workspace;

/// Lines returned per call: a screenful of context that keeps several
/// reads affordable in one turn.
pub const MAX_READ_LINES: usize = 200;

/// Characters returned per call, whatever the line count (minified files
/// have few, very long lines).
pub const MAX_READ_CHARS: usize = 16_000;

/// Reads a text file.
pub struct FsRead;

#[derive(Deserialize)]
struct Args {
    path: String,
    start_line: Option<usize>,
    end_line: Option<usize>,
}

impl Tool for FsRead {
    fn output_budget(&self) -> usize {
        MAX_READ_CHARS + HEADER_ALLOWANCE
    }

    fn name(&self) -> &'static str {
        "fs_read"
    }

    fn description(&self) -> &'static str {
        "Read a text file (at most 200 lines / 16000 characters per call, cut at line boundaries; \
         the result says where to continue). Returns the file's `revision`, which fs_write, fs_patch \
         and fs_delete require. Paths are relative to the workspace root."
    }

    fn input_schema(&self) -> serde_json::Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File path, relative to the workspace root"},
                "start_line": {"type": "integer", "minimum": 1, "description": "First line to read (1-based, default 1)"},
                "end_line": {"type": "integer", "minimum": 1, "description": "Last line to read (inclusive)"}
            },
            "required": ["path"]
        })
    }

    fn offered_read_only(&self) -> bool {
        true
    }

    fn effect(&self, args: &serde_json::Value, ws: &Workspace) -> Result<Effect, ToolError> {
        let a: Args = parse_args(self.name(), args)?;
        Ok(Effect::Read(vec![ws.resolve(&a.path)]))
    }

    fn run(&self, args: &serde_json::Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let a: Args = parse_args(self.name(), args)?;
        let file = FileTarget::new(&ctx.workspace, &a.path);
        let shown = file.shown.as_str();
        let Bounded { bytes, cut } = read_current_bounded(ctx, &file)?
            .ok_or_else(|| ToolError::Path(format!("{shown} does not exist")))?;
        // A cut file has no revision: it could not be edited anyway.
        let revision = if cut {
            "none, too large to edit".to_string()
        } else {
            revision_of(&bytes)
        };
        if bytes.iter().take(8192).any(|b| *b == 0) {
            let size = if cut {
                format!("more than {} bytes", bytes.len())
            } else {
                format!("{} bytes", bytes.len())
            };
            let text =
                format!("{shown} is a binary file ({size}, revision {revision}); not shown.");
            return Ok(ToolOutput::same(
                text,
                format!("read {shown} → binary, {size}"),
            ));
        }
        let text = String::from_utf8_lossy(&bytes);
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let total = lines.len();
        if total == 0 {
            return Ok(ToolOutput::same(
                format!("{shown}: empty file (revision {revision})\n"),
                format!("read {shown} → empty"),
            ));
        }
        let start = a.start_line.unwrap_or(1).max(1);
        if start > total.max(1) {
            return Err(ToolError::Failed(format!(
                "start_line {start} is past the end of {shown}, which has {total} lines"
            )));
        }
        let requested_end = a.end_line.unwrap_or(usize::MAX).max(start).min(total);
        let mut body = String::new();
        let mut end = start - 1;
        let mut chars = 0;
        let mut cut_line = false;
        for (i, line) in lines.iter().enumerate().take(requested_end).skip(start - 1) {
            let n = line.chars().count();
            if i + 1 - start >= MAX_READ_LINES || (chars + n > MAX_READ_CHARS && end >= start) {
                break;
            }
            if chars + n > MAX_READ_CHARS {
                // One line longer than the whole budget: show its start.
                body.extend(line.chars().take(MAX_READ_CHARS));
                body.push_str("\n[… line cut …]\n");
                cut_line = true;
                end = i + 1;
                break;
            }
            body.push_str(line);
            chars += n;
            end = i + 1;
        }
        if !body.is_empty() && !body.ends_with('\n') {
            body.push('\n');
        }
        let mut out =
            format!("{shown}: lines {start}-{end} of {total} (revision {revision})\n{body}");
        if end < total {
            out.push_str(&format!(
                "[{} more lines; continue with start_line={}]\n",
                total - end,
                end + 1
            ));
        }
        if cut {
            out.push_str(&format!(
                "[only the first {MAX_FILE_BYTES} bytes of the file were read; line counts cover that part]\n"
            ));
        }
        if cut_line {
            out.push_str("[a line was longer than the read budget and was cut]\n");
        }
        let preview = format!(
            "read {shown} → {}",
            counted(end + 1 - start, "line", "lines")
        );
        Ok(ToolOutput::same(out, preview))
    }
}
