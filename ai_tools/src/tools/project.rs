//! `project_summary`: languages, manifests, README head, git branch/status.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::json;

use crate::effect::Effect;
use crate::error::ToolError;
use crate::output::ToolOutput;
use crate::process::{run_foreground, Ended, ShellJob};
use crate::sandbox::Level;
use crate::tool::{Tool, ToolContext};
use crate::tools::bounded_file::read_regular;
use crate::tools::walk::safe_walker;
use crate::workspace::Workspace;

/// Files counted for the language mix; enough to characterise a project
/// without walking a monorepo for seconds.
pub const MAX_FILES_SCANNED: usize = 20_000;

/// README lines shown.
pub const README_LINES: usize = 40;

/// Bytes of the README read: 40 lines of even a wide README fit.
pub const README_BYTES: u64 = 64 * 1024;

/// Characters of `git status` shown.
pub const MAX_STATUS_CHARS: usize = 3_000;

/// How long `git status` may take before the summary goes without it.
pub const GIT_TIMEOUT: Duration = Duration::from_secs(5);

/// Files that name a project's build system.
const MANIFESTS: &[&str] = &[
    "Cargo.toml",
    "package.json",
    "pyproject.toml",
    "setup.py",
    "requirements.txt",
    "go.mod",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "CMakeLists.txt",
    "Makefile",
    "meson.build",
    "Gemfile",
    "composer.json",
    "mix.exs",
    "deno.json",
    "flake.nix",
    "Dockerfile",
    "justfile",
];

/// Summarises the project.
pub struct ProjectSummary;

fn language(ext: &str) -> Option<&'static str> {
    Some(match ext {
        "rs" => "Rust",
        "py" => "Python",
        "js" | "mjs" | "cjs" | "jsx" => "JavaScript",
        "ts" | "tsx" => "TypeScript",
        "go" => "Go",
        "c" | "h" => "C",
        "cc" | "cpp" | "cxx" | "hpp" | "hh" => "C++",
        "java" => "Java",
        "kt" | "kts" => "Kotlin",
        "rb" => "Ruby",
        "php" => "PHP",
        "swift" => "Swift",
        "cs" => "C#",
        "sh" | "bash" | "zsh" => "Shell",
        "lua" => "Lua",
        "zig" => "Zig",
        "md" => "Markdown",
        "toml" | "yaml" | "yml" | "json" => "Config",
        "html" | "css" | "scss" => "Web",
        "wgsl" | "glsl" => "Shaders",
        _ => return None,
    })
}

impl Tool for ProjectSummary {
    fn name(&self) -> &'static str {
        "project_summary"
    }

    fn description(&self) -> &'static str {
        "Summarise the workspace: languages by file count, build manifests, the README's first lines, \
         and the git branch and status. A good first call in an unfamiliar project."
    }

    fn input_schema(&self) -> serde_json::Value {
        json!({"type": "object", "properties": {}})
    }

    fn offered_read_only(&self) -> bool {
        true
    }

    fn effect(&self, _args: &serde_json::Value, ws: &Workspace) -> Result<Effect, ToolError> {
        Ok(Effect::Read(vec![ws.root().to_path_buf()]))
    }

    fn run(&self, _args: &serde_json::Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let root = ctx.workspace.root();
        let mut langs: BTreeMap<&'static str, usize> = BTreeMap::new();
        let mut manifests = Vec::new();
        let mut scanned = 0usize;
        let (walker, skipped) = safe_walker(root, &ctx.workspace.display(root))?;
        for entry in walker.build() {
            if ctx.cancel.is_cancelled() {
                return Err(ToolError::Cancelled);
            }
            let Ok(entry) = entry else { continue };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                continue;
            }
            scanned += 1;
            if scanned > MAX_FILES_SCANNED {
                break;
            }
            let name = entry.file_name().to_string_lossy();
            if MANIFESTS.contains(&name.as_ref()) && entry.depth() <= 2 {
                manifests.push(ctx.workspace.display(entry.path()));
            }
            if let Some(lang) = entry
                .path()
                .extension()
                .and_then(|e| language(&e.to_string_lossy()))
            {
                *langs.entry(lang).or_default() += 1;
            }
        }
        let mut out = format!("workspace: {}\n", root.display());
        let mut by_count: Vec<_> = langs.into_iter().collect();
        by_count.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
        let langs_line: Vec<String> = by_count.iter().map(|(l, n)| format!("{l} ({n})")).collect();
        out.push_str(&format!(
            "languages: {}\n",
            if langs_line.is_empty() {
                "none found".into()
            } else {
                langs_line.join(", ")
            }
        ));
        if scanned > MAX_FILES_SCANNED {
            out.push_str(&format!("(counted the first {MAX_FILES_SCANNED} files)\n"));
        }
        manifests.sort();
        out.push_str(&format!(
            "manifests: {}\n",
            if manifests.is_empty() {
                "none".into()
            } else {
                manifests.join(", ")
            }
        ));
        let readme = [
            "README.md",
            "README",
            "README.rst",
            "README.txt",
            "readme.md",
        ]
        .iter()
        .map(|n| root.join(n))
        .find(|p| p.is_file());
        if let Some(p) = readme {
            let shown = ctx.workspace.display(&p);
            if let Ok(Some(b)) = read_regular(&p, README_BYTES, &ctx.cancel, &shown) {
                let text = String::from_utf8_lossy(&b.bytes);
                out.push_str(&format!(
                    "\n{} (first {README_LINES} lines):\n",
                    ctx.workspace.display(&p)
                ));
                for line in text.lines().take(README_LINES) {
                    out.push_str(line);
                    out.push('\n');
                }
            }
        }
        if root.join(".git").exists() {
            // A fixed command this tool knows changes nothing.
            let read_only = ctx.sandbox.at(Level::ReadOnly);
            let job = ShellJob {
                sandbox: &read_only,
                ..ctx.shell_job("git status --short --branch", root)
            };
            match run_foreground(&job, GIT_TIMEOUT, &ctx.cancel) {
                Ok(r) if r.ended == Ended::Exited(0) => {
                    let status: String = r.stdout.chars().take(MAX_STATUS_CHARS).collect();
                    out.push_str(&format!("\ngit status:\n{status}"));
                    if r.stdout.chars().count() > MAX_STATUS_CHARS {
                        out.push_str("\n[… more changes not shown]\n");
                    }
                }
                Err(ToolError::Cancelled) => return Err(ToolError::Cancelled),
                _ => out.push_str("\ngit status: unavailable\n"),
            }
        } else {
            out.push_str("\nnot a git repository\n");
        }
        out.push_str(&skipped.note(&ctx.workspace));
        let top = by_count.first().map_or("no code", |(l, _)| *l);
        Ok(ToolOutput::same(
            out,
            format!("project → {top}, {} manifests", manifests.len()),
        ))
    }
}
