//! `fs_list` (one directory) and `file_tree` (a depth-limited tree that
//! honours .gitignore).

use serde::Deserialize;
use serde_json::json;

use crate::effect::Effect;
use crate::error::ToolError;
use crate::output::ToolOutput;
use crate::plural::counted;
use crate::tool::{parse_args, Tool, ToolContext};
use crate::tools::fs_common::FileTarget;
use crate::tools::walk::safe_walker;
use crate::workspace::Workspace;

/// Entries listed per directory; a node_modules-sized directory is
/// summarised by count instead.
pub const MAX_LIST_ENTRIES: usize = 500;

/// Entries shown by `file_tree`: a map of the project, not an inventory.
pub const MAX_TREE_ENTRIES: usize = 800;

/// Deepest `file_tree` depth; deeper trees are explored directory by directory.
pub const MAX_TREE_DEPTH: usize = 8;

/// Default `file_tree` depth.
pub const DEFAULT_TREE_DEPTH: usize = 3;

/// Lists one directory.
pub struct FsList;

/// Shows a directory tree.
pub struct FileTree;

#[derive(Deserialize)]
struct ListArgs {
    #[serde(default)]
    path: Option<String>,
}

#[derive(Deserialize)]
struct TreeArgs {
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    depth: Option<usize>,
}

fn path_or_root(p: &Option<String>) -> &str {
    p.as_deref().filter(|s| !s.is_empty()).unwrap_or(".")
}

impl Tool for FsList {
    fn name(&self) -> &'static str {
        "fs_list"
    }

    fn description(&self) -> &'static str {
        "List one directory: names (directories end with /), sizes. Hidden files included."
    }

    fn input_schema(&self) -> serde_json::Value {
        json!({
            "type": "object",
            "properties": {"path": {"type": "string", "description": "Directory, relative to the workspace root (default .)"}}
        })
    }

    fn offered_read_only(&self) -> bool {
        true
    }

    fn effect(&self, args: &serde_json::Value, ws: &Workspace) -> Result<Effect, ToolError> {
        let a: ListArgs = parse_args(self.name(), args)?;
        Ok(Effect::Read(vec![ws.resolve(path_or_root(&a.path))]))
    }

    fn run(&self, args: &serde_json::Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let a: ListArgs = parse_args(self.name(), args)?;
        let FileTarget {
            path: dir, shown, ..
        } = FileTarget::new(&ctx.workspace, path_or_root(&a.path));
        let rd = std::fs::read_dir(&dir).map_err(|e| ToolError::io(&shown, e))?;
        let mut entries: Vec<(String, bool, u64)> = rd
            .filter_map(Result::ok)
            .map(|e| {
                let meta = e.metadata().ok();
                let is_dir = e.file_type().map(|t| t.is_dir()).unwrap_or(false);
                (
                    e.file_name().to_string_lossy().into_owned(),
                    is_dir,
                    meta.map_or(0, |m| m.len()),
                )
            })
            .collect();
        entries.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let total = entries.len();
        let mut out = format!("{shown}/ ({})\n", counted(total, "entry", "entries"));
        for (name, is_dir, size) in entries.iter().take(MAX_LIST_ENTRIES) {
            if *is_dir {
                out.push_str(&format!("{name}/\n"));
            } else {
                out.push_str(&format!(
                    "{name}  ({})\n",
                    counted(
                        usize::try_from(*size).unwrap_or(usize::MAX),
                        "byte",
                        "bytes"
                    )
                ));
            }
        }
        if total > MAX_LIST_ENTRIES {
            out.push_str(&format!(
                "[… {} more entries not shown]\n",
                total - MAX_LIST_ENTRIES
            ));
        }
        Ok(ToolOutput::same(
            out,
            format!("list {shown} → {}", counted(total, "entry", "entries")),
        ))
    }
}

impl Tool for FileTree {
    fn name(&self) -> &'static str {
        "file_tree"
    }

    fn description(&self) -> &'static str {
        "Show the directory tree under a path (default the workspace root) to a depth (default 3, \
         max 8), honouring .gitignore and skipping hidden files."
    }

    fn input_schema(&self) -> serde_json::Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Directory, relative to the workspace root (default .)"},
                "depth": {"type": "integer", "minimum": 1, "maximum": MAX_TREE_DEPTH}
            }
        })
    }

    fn offered_read_only(&self) -> bool {
        true
    }

    fn effect(&self, args: &serde_json::Value, ws: &Workspace) -> Result<Effect, ToolError> {
        let a: TreeArgs = parse_args(self.name(), args)?;
        Ok(Effect::Read(vec![ws.resolve(path_or_root(&a.path))]))
    }

    fn run(&self, args: &serde_json::Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let a: TreeArgs = parse_args(self.name(), args)?;
        let FileTarget {
            path: root, shown, ..
        } = FileTarget::new(&ctx.workspace, path_or_root(&a.path));
        if !root.is_dir() {
            return Err(ToolError::Path(format!("{shown} is not a directory")));
        }
        let depth = a
            .depth
            .unwrap_or(DEFAULT_TREE_DEPTH)
            .clamp(1, MAX_TREE_DEPTH);
        let mut out = format!("{shown}/\n");
        let mut shown_count = 0usize;
        let mut skipped = 0usize;
        let (mut walker, unsafe_skipped) = safe_walker(&root, &shown)?;
        let walker = walker
            .max_depth(Some(depth))
            .sort_by_file_name(|a, b| a.cmp(b))
            .build();
        for entry in walker {
            if ctx.cancel.is_cancelled() {
                return Err(ToolError::Cancelled);
            }
            let Ok(entry) = entry else { continue };
            if entry.depth() == 0 {
                continue;
            }
            if shown_count >= MAX_TREE_ENTRIES {
                skipped += 1;
                continue;
            }
            let name = entry.file_name().to_string_lossy();
            let slash = if entry.file_type().is_some_and(|t| t.is_dir()) {
                "/"
            } else {
                ""
            };
            out.push_str(&format!("{}{name}{slash}\n", "  ".repeat(entry.depth())));
            shown_count += 1;
        }
        if skipped > 0 {
            out.push_str(&format!(
                "[… {skipped} more entries not shown; narrow the path or depth]\n"
            ));
        }
        out.push_str(&unsafe_skipped.note(&ctx.workspace));
        Ok(ToolOutput::same(
            out,
            format!(
                "tree {shown} → {}",
                counted(shown_count + skipped, "entry", "entries")
            ),
        ))
    }
}
