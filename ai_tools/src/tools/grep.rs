//! `grep_search`: ripgrep's crates over the workspace, honouring
//! .gitignore, with capped results and counts of what was left out.

use std::path::Path;

use grep_regex::RegexMatcherBuilder;
use grep_searcher::{sinks, BinaryDetection, SearcherBuilder};
use serde::Deserialize;
use serde_json::json;

use crate::effect::Effect;
use crate::error::ToolError;
use crate::output::ToolOutput;
use crate::plural::counted;
use crate::policy::credentials::{credential_reason, hard_link_of};
use crate::tool::{parse_args, Tool, ToolContext, HEADER_ALLOWANCE};
use crate::tools::bounded_file::{is_cancelled_error, open_regular, BoundedReader};
use crate::tools::fs_common::{resolve, MAX_FILE_BYTES};
use crate::tools::walk::safe_walker;
use crate::workspace::Workspace;

/// Matching lines returned; beyond this the model should narrow the search.
pub const MAX_MATCHES: usize = 200;

/// Characters shown per matching line (minified code has huge lines).
pub const MAX_LINE_CHARS: usize = 300;

/// Matches kept per file, so one noisy file does not crowd out the rest.
pub const MAX_MATCHES_PER_FILE: usize = 30;

/// Searches file contents.
pub struct GrepSearch;

#[derive(Deserialize)]
struct Args {
    pattern: String,
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    glob: Option<String>,
    #[serde(default)]
    case_insensitive: bool,
}

impl Tool for GrepSearch {
    fn output_budget(&self) -> usize {
        MAX_MATCHES * 60 + HEADER_ALLOWANCE
    }

    fn name(&self) -> &'static str {
        "grep_search"
    }

    fn description(&self) -> &'static str {
        "Search file contents with a regular expression (Rust regex syntax), like ripgrep: honours \
         .gitignore, skips hidden and binary files. Optional `path` (file or directory) and `glob` \
         (e.g. \"*.rs\"). Returns file:line: text, capped at 200 matches with counts of what was left out."
    }

    fn input_schema(&self) -> serde_json::Value {
        json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "Regular expression"},
                "path": {"type": "string", "description": "File or directory to search (default .)"},
                "glob": {"type": "string", "description": "Only files matching this glob, e.g. *.rs"},
                "case_insensitive": {"type": "boolean"}
            },
            "required": ["pattern"]
        })
    }

    fn offered_read_only(&self) -> bool {
        true
    }

    fn effect(&self, args: &serde_json::Value, ws: &Workspace) -> Result<Effect, ToolError> {
        let a: Args = parse_args(self.name(), args)?;
        Ok(Effect::Read(vec![
            ws.resolve(a.path.as_deref().unwrap_or("."))
        ]))
    }

    fn run(&self, args: &serde_json::Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let a: Args = parse_args(self.name(), args)?;
        let rel = a.path.as_deref().unwrap_or(".");
        let root = resolve(&ctx.workspace, rel);
        let matcher = RegexMatcherBuilder::new()
            .case_insensitive(a.case_insensitive)
            .build(&a.pattern)
            .map_err(|e| ToolError::BadArgs {
                tool: "grep_search".into(),
                message: format!("bad pattern: {e}"),
            })?;
        let (mut walker, skipped) = safe_walker(&root, &ctx.workspace.display(&root))?;
        walker.sort_by_file_name(|x, y| x.cmp(y));
        if let Some(glob) = &a.glob {
            let mut ob = ignore::overrides::OverrideBuilder::new(&root);
            ob.add(glob).map_err(|e| ToolError::BadArgs {
                tool: "grep_search".into(),
                message: format!("bad glob: {e}"),
            })?;
            let ov = ob.build().map_err(|e| ToolError::BadArgs {
                tool: "grep_search".into(),
                message: format!("bad glob: {e}"),
            })?;
            walker.overrides(ov);
        }
        let mut searcher = SearcherBuilder::new()
            .binary_detection(BinaryDetection::quit(0))
            .line_number(true)
            .build();
        let mut lines: Vec<String> = Vec::new();
        let mut total_matches = 0usize;
        let mut files_with_matches = 0usize;
        let mut skipped_credentials = 0usize;
        let mut credential_inodes = None;
        let mut cut_files = 0usize;
        for entry in walker.build() {
            if ctx.cancel.is_cancelled() {
                return Err(ToolError::Cancelled);
            }
            let Ok(entry) = entry else { continue };
            let Some(ft) = entry.file_type() else {
                continue;
            };
            if !ft.is_file() {
                if !ft.is_dir() && !ft.is_symlink() {
                    // The root itself (the walk's filter sees only what is under it).
                    skipped.special_file();
                }
                continue;
            }
            let path = entry.path();
            let shown = display_rel(&ctx.workspace, path);
            let real = crate::workspace::canonicalize_lenient(path);
            // By name, and by inode: a hard link to a credential under an
            // innocent name (or one of unknown kin outside the workspace).
            let linked = std::fs::metadata(&real).is_ok_and(|meta| {
                hard_link_of(&real, &meta, ctx.workspace.root(), &mut credential_inodes).is_some()
            });
            if linked
                || credential_reason(&shown).is_some()
                || credential_reason(&real.to_string_lossy()).is_some()
            {
                skipped_credentials += 1;
                continue;
            }
            let file = match open_regular(path, &shown) {
                Ok(Some(f)) => f,
                Ok(None) => continue,
                Err(ToolError::NotRegularFile { .. }) => {
                    skipped.special_file();
                    continue;
                }
                Err(_) => continue,
            };
            if file.metadata().is_ok_and(|m| m.len() > MAX_FILE_BYTES) {
                cut_files += 1;
            }
            let mut in_file = 0usize;
            let result = searcher.search_reader(
                &matcher,
                BoundedReader::new(file, MAX_FILE_BYTES, &ctx.cancel),
                sinks::UTF8(|lnum, line| {
                    in_file += 1;
                    if in_file <= MAX_MATCHES_PER_FILE && lines.len() < MAX_MATCHES {
                        let text: String = line.trim_end().chars().take(MAX_LINE_CHARS).collect();
                        lines.push(format!("{shown}:{lnum}: {text}"));
                    }
                    Ok(true)
                }),
            );
            if let Err(e) = &result {
                if is_cancelled_error(e) {
                    return Err(ToolError::Cancelled);
                }
            }
            if result.is_ok() && in_file > 0 {
                files_with_matches += 1;
                total_matches += in_file;
            }
        }
        let mut out = lines.join("\n");
        if !out.is_empty() {
            out.push('\n');
        }
        let left_out = total_matches - lines.len();
        if left_out > 0 {
            out.push_str(&format!(
                "[{left_out} more matches not shown ({total_matches} in {files_with_matches} files); narrow the pattern, path or glob]\n"
            ));
        }
        if total_matches == 0 {
            out.push_str("no matches\n");
        }
        if skipped_credentials > 0 {
            let files = if skipped_credentials == 1 {
                "credential file was"
            } else {
                "credential files were"
            };
            out.push_str(&format!("[{skipped_credentials} {files} not searched]\n"));
        }
        if cut_files > 0 {
            out.push_str(&format!(
                "[{cut_files} files larger than {MAX_FILE_BYTES} bytes were searched only in their first {MAX_FILE_BYTES} bytes]\n"
            ));
        }
        out.push_str(&skipped.note(&ctx.workspace));
        let preview = format!(
            "grep {} → {} in {}",
            a.pattern,
            counted(total_matches, "match", "matches"),
            counted(files_with_matches, "file", "files")
        );
        Ok(ToolOutput::same(out, preview))
    }
}

fn display_rel(ws: &Workspace, path: &Path) -> String {
    ws.display(path)
}
