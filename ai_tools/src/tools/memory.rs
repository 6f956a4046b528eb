//! `memory_read`: the user's MEMORY.md.

use serde_json::json;

use crate::error::ToolError;
use crate::output::{head_tail, ToolOutput};
use crate::plural::counted;
use crate::tool::{Effect, Tool, ToolContext, HEADER_ALLOWANCE};
use crate::tools::bounded_file::read_regular;
use crate::tools::fs_common::MAX_FILE_BYTES;
use crate::workspace::Workspace;

/// Characters of memory shown; a memory file longer than this should be
/// pruned by its owner, and head + tail keeps both old and recent notes.
pub const MAX_MEMORY_CHARS: usize = 16_000;

/// Reads the user's memory file.
pub struct MemoryRead;

impl Tool for MemoryRead {
    fn output_budget(&self) -> usize {
        MAX_MEMORY_CHARS + HEADER_ALLOWANCE
    }

    fn name(&self) -> &'static str {
        "memory_read"
    }

    fn description(&self) -> &'static str {
        "Read the user's MEMORY.md: notes and preferences they asked you to remember."
    }

    fn input_schema(&self) -> serde_json::Value {
        json!({"type": "object", "properties": {}})
    }

    fn offered_read_only(&self) -> bool {
        true
    }

    fn effect(&self, _args: &serde_json::Value, _ws: &Workspace) -> Result<Effect, ToolError> {
        Ok(Effect::Read(Vec::new()))
    }

    fn run(&self, _args: &serde_json::Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let Some(path) = &ctx.memory_path else {
            return Ok(ToolOutput::same(
                "no memory file is configured".into(),
                "memory → none".into(),
            ));
        };
        let shown = path.display().to_string();
        match read_regular(path, MAX_FILE_BYTES, &ctx.cancel, &shown)? {
            Some(b) => {
                let text = String::from_utf8_lossy(&b.bytes).into_owned();
                let lines = text.lines().count();
                Ok(ToolOutput {
                    for_model: head_tail(&text, MAX_MEMORY_CHARS),
                    full: text,
                    preview: format!("memory → {}", counted(lines, "line", "lines")),
                    diff: None,
                })
            }
            None => Ok(ToolOutput::same(
                "the memory file is empty (it does not exist yet)".into(),
                "memory → empty".into(),
            )),
        }
    }
}
