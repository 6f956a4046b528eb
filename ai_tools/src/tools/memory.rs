//! `memory_read`: the memory koi keeps between conversations, the same
//! files the environment message shows and `/memory` edits. Where they
//! live and who writes them is `ai_chat_engine::memory`'s to say; this
//! tool is handed the two paths.

use std::path::Path;

use serde_json::json;

use crate::cancel::CancelToken;
use crate::effect::Effect;
use crate::error::ToolError;
use crate::output::{head_tail, ToolOutput};
use crate::plural::counted;
pub use crate::tool::MemoryFiles;
use crate::tool::{Tool, ToolContext, HEADER_ALLOWANCE};
use crate::tools::bounded_file::read_regular;
use crate::tools::fs_common::MAX_FILE_BYTES;
use crate::workspace::Workspace;

/// Characters of memory shown; a memory file longer than this should be
/// pruned by its owner, and head + tail keeps both old and recent notes.
pub const MAX_MEMORY_CHARS: usize = 16_000;

/// What `memory_read` says when the engine keeps no memory.
pub const MEMORY_OFF: &str =
    "memory is off: it needs a configured model and saved sessions (`[ai] memory = false` turns it off)";

/// Reads the memory files.
pub struct MemoryRead;

impl Tool for MemoryRead {
    fn output_budget(&self) -> usize {
        MAX_MEMORY_CHARS + HEADER_ALLOWANCE
    }

    fn name(&self) -> &'static str {
        "memory_read"
    }

    fn description(&self) -> &'static str {
        "Read the memory koi keeps between conversations: facts about the user (global) and about this project."
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
        let Some(files) = &ctx.memory else {
            return Ok(ToolOutput::same(MEMORY_OFF.into(), "memory → off".into()));
        };
        let mut text = String::new();
        let mut lines = 0;
        for (scope, path) in [("global", &files.global), ("project", &files.project)] {
            if !text.is_empty() {
                text.push('\n');
            }
            match read_text(path, &ctx.cancel)? {
                Some(body) => {
                    lines += body.lines().count();
                    text.push_str(&format!("{scope} memory ({}):\n{body}", path.display()));
                    if !body.ends_with('\n') {
                        text.push('\n');
                    }
                }
                None => text.push_str(&format!("{scope} memory ({}): empty\n", path.display())),
            }
        }
        Ok(ToolOutput {
            for_model: head_tail(&text, MAX_MEMORY_CHARS),
            full: text,
            preview: if lines == 0 {
                "memory → empty".into()
            } else {
                format!("memory → {}", counted(lines, "line", "lines"))
            },
            diff: None,
        })
    }
}

/// A memory file's text; `None` when it is missing or blank.
fn read_text(path: &Path, cancel: &CancelToken) -> Result<Option<String>, ToolError> {
    let shown = path.display().to_string();
    Ok(read_regular(path, MAX_FILE_BYTES, cancel, &shown)?
        .map(|b| String::from_utf8_lossy(&b.bytes).into_owned())
        .filter(|t| !t.trim().is_empty()))
}
