//! `run_code`: codemode. The model writes a short JavaScript or
//! TypeScript program that calls koi's tools through `koi.<tool>(args)`;
//! twenty reads and a summary take one model round instead of twenty.
//!
//! The program runs with a runtime found on PATH ([`runtime`]), confined
//! like a shell command the policy cannot prove read-only: with the
//! sandbox active it runs read-only, without network and blind to hidden
//! paths, unasked; each of its calls goes back through the
//! [`crate::bridge`] to the engine, which judges, asks, runs and records
//! it as it does a direct call. Only the program's output comes back to
//! the model.

pub mod program;
pub mod runtime;

use std::time::Duration;

use serde::Deserialize;
use serde_json::json;

use crate::effect::Effect;
use crate::error::ToolError;
use crate::output::{head_tail, ToolOutput};
use crate::tool::{parse_args, Tool, ToolContext, HEADER_ALLOWANCE};
use crate::workspace::Workspace;
use program::Ended;
use runtime::{Language, Runtimes};

/// The tool's name.
pub const RUN_CODE: &str = "run_code";

/// A program's time limit when the model names none: a few hundred tool
/// calls' worth, short enough that a stuck program does not stall the turn.
pub const DEFAULT_LIMIT: Duration = Duration::from_secs(60);

/// The longest time limit the model may ask for (as `shell_exec`'s).
pub const MAX_LIMIT: Duration = Duration::from_secs(600);

/// Characters of program output shown to the model.
pub const MAX_CODE_OUTPUT: usize = 16_000;

/// What the model reads about the tool. Fixed bytes: the prompt's cached
/// prefix must not move with the machine it runs on.
pub const DESCRIPTION: &str = "Run a short JavaScript or TypeScript program that calls koi's \
tools, to do many calls in one step (read twenty files, grep them, print a summary). The code is \
the body of an async function: use `await`, and print what you want to see with console.log; \
only the program's output comes back to you, not its calls' results. Every tool is an async \
function on the global `koi` that takes the tool's arguments object and resolves to the text \
result: `await koi.fs_read({path: \"src/main.rs\"})`, `await koi.grep_search({pattern: \
\"TODO\"})`, `await koi.shell_exec({command: \"ls\"})`; `koi.call(name, args)` calls any tool by \
name. Each call is judged like a direct call (one that needs approval asks the user), and a \
refused or failed call resolves to its message, which starts with `denied:` or `error:`. The \
program itself is sandboxed: it changes files, reaches the network or reads secrets only \
through koi's tools.";

/// Runs a program that calls koi's tools.
#[derive(Debug, Clone)]
pub struct RunCode {
    runtimes: Runtimes,
}

#[derive(Deserialize)]
struct Args {
    language: Language,
    code: String,
    #[serde(default)]
    timeout_secs: Option<f64>,
}

impl RunCode {
    /// The tool with these runtimes (see [`Runtimes::detect`]).
    pub fn new(runtimes: Runtimes) -> Self {
        RunCode { runtimes }
    }

    fn limit(args: &Args) -> Duration {
        args.timeout_secs
            .filter(|s| s.is_finite() && *s > 0.0)
            .map(|s| Duration::from_secs_f64(s).min(MAX_LIMIT))
            .unwrap_or(DEFAULT_LIMIT)
    }
}

impl Tool for RunCode {
    fn name(&self) -> &str {
        RUN_CODE
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn input_schema(&self) -> serde_json::Value {
        json!({
            "type": "object",
            "properties": {
                "language": {"type": "string", "enum": ["javascript", "typescript"], "description": "The program's language (TypeScript types are stripped, not checked)"},
                "code": {"type": "string", "description": "The program: the body of an async function that calls `await koi.<tool>({...})` and prints with console.log"},
                "timeout_secs": {"type": "number", "description": "Time limit in seconds (default 60, at most 600); time spent waiting for an approval does not count"}
            },
            "required": ["language", "code"]
        })
    }

    /// A program is a process the policy cannot prove read-only: judged
    /// as the command that starts it, it runs contained where the sandbox
    /// is active and is asked about where it is not.
    fn effect(&self, args: &serde_json::Value, ws: &Workspace) -> Result<Effect, ToolError> {
        let a: Args = parse_args(RUN_CODE, args)?;
        let runtime = self
            .runtimes
            .get(a.language)
            .ok_or_else(|| ToolError::BadArgs {
                tool: RUN_CODE.into(),
                message: format!(
                "no runtime for {} was found on PATH (JavaScript needs node or deno; TypeScript \
                 needs deno, tsx, or node 22.6 or later)",
                a.language.extension()
            ),
            })?;
        Ok(Effect::Shell {
            command: format!("{} program.{}", runtime.name(), a.language.extension()),
            cwd: ws.root().to_path_buf(),
        })
    }

    fn approval_preview(&self, args: &serde_json::Value, _ws: &Workspace) -> Option<String> {
        let a: Args = parse_args(RUN_CODE, args).ok()?;
        Some(format!(
            "the program:\n{}",
            head_tail(&crate::policy::unicode::visible(&a.code), 4_000)
        ))
    }

    fn output_budget(&self) -> usize {
        MAX_CODE_OUTPUT + HEADER_ALLOWANCE
    }

    fn run(&self, args: &serde_json::Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let a: Args = parse_args(RUN_CODE, args)?;
        let runtime = self
            .runtimes
            .get(a.language)
            .ok_or_else(|| ToolError::Failed("no runtime for this language".into()))?;
        let limit = Self::limit(&a);
        let done = program::run(runtime, a.language, &a.code, limit, ctx)?;
        Ok(report(&done, limit))
    }
}

/// The result the model reads: how the program ended and what it printed.
fn report(done: &program::Finished, limit: Duration) -> ToolOutput {
    let how = match done.ended {
        Ended::Exited(0) => "exit 0".to_string(),
        Ended::Exited(code) => format!("exit {code}"),
        Ended::Signal(sig) => format!("killed by signal {sig}"),
        Ended::TimedOut => format!(
            "stopped: the program ran past its time limit of {}s and was killed",
            limit.as_secs_f64()
        ),
        Ended::BudgetSpent => format!(
            "stopped: its output and its calls' results passed {} characters",
            program::CODE_BUDGET
        ),
    };
    let calls = crate::plural::counted(done.calls, "tool call", "tool calls");
    let refused = if done.failed_calls > 0 {
        format!(" ({} refused or failed)", done.failed_calls)
    } else {
        String::new()
    };
    let header = format!(
        "{how} · {calls}{refused} · {:.1}s",
        done.elapsed.as_secs_f64()
    );
    let body = |stdout: String| {
        let mut text = format!("{header}\n{stdout}");
        if !done.stderr.trim().is_empty() {
            text.push_str("\n[stderr]\n");
            text.push_str(&done.stderr);
        }
        text
    };
    let full = body(done.stdout.clone());
    let for_model = body(head_tail(&done.stdout, MAX_CODE_OUTPUT * 3 / 4));
    let for_model = head_tail(&for_model, MAX_CODE_OUTPUT);
    ToolOutput {
        for_model,
        full,
        preview: header,
        diff: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The declared spec, byte for byte: a change here moves the cached
    /// prompt prefix of every conversation, so it must be deliberate.
    #[test]
    fn the_spec_is_fixed_bytes() {
        let tool = RunCode::new(Runtimes::default());
        let spec = serde_json::to_string(&tool.spec()).unwrap();
        let pinned = include_str!("spec.json").trim_end();
        assert_eq!(spec, pinned);
    }

    #[test]
    fn the_program_file_wraps_the_code_after_one_prelude_line() {
        let src = program::source(&["fs_read".into()], "console.log(1)");
        let lines: Vec<&str> = src.lines().collect();
        assert_eq!(lines[1], "console.log(1)");
        assert!(lines[0].contains("[\"fs_read\"]"));
        assert!(lines[0].ends_with("(async () => {"));
    }

    #[test]
    fn a_language_without_runtime_is_a_bad_argument() {
        let tool = RunCode::new(Runtimes::default());
        let ws = Workspace::new(std::env::temp_dir()).unwrap();
        let args = json!({"language": "typescript", "code": "1"});
        assert!(matches!(
            tool.effect(&args, &ws),
            Err(ToolError::BadArgs { .. })
        ));
        let args = json!({"language": "cobol", "code": "1"});
        assert!(tool.effect(&args, &ws).is_err());
    }
}
