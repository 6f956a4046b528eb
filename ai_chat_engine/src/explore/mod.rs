//! The `explore` tool: a read-only subagent. The parent model hands it a
//! task; a child loop works on it with the read-only tools only and its
//! answer comes back as the call's result, so the files it read never
//! enter the parent's context (or the session log).
//!
//! Choices, and why:
//! - The child talks to the same provider and model as the parent, with
//!   the same static system prompt; its own brief (what it may do, what
//!   to answer) is its first user message. Its tool list is fixed when
//!   the engine is built (the registry's tools offered to read-only
//!   agents), so every child request is the same bytes up to its task and
//!   the children share one cached prefix (and the parent's system
//!   prompt, where the dialect sends it before the tools).
//! - Every child call is judged by the same policy in plan mode and must
//!   also be proven read-only; a shell command then runs in the read-only
//!   sandbox, as `shell_exec` runs any proven command. A write, an
//!   unproven command, `explore` itself, or a tool it was not offered is
//!   refused with a result the child can read; nothing asks the user.
//! - MCP tools are not offered to the child: most servers are untrusted
//!   and plan mode would refuse them anyway.
//! - Its history lives in memory and is dropped with it; budgets (rounds,
//!   history bytes, streamed bytes, wall time) are in [`crate::budgets`].

mod child;
mod report;

use std::sync::Arc;

use ai_tools::tool::parse_args;
use ai_tools::{
    CancelToken, Effect, Registry, Tool, ToolContext, ToolError, ToolOutput, ToolSpec, Workspace,
};
use serde::Deserialize;

use crate::budgets::EXPLORE_ANSWER_CHARS;
use crate::model::client::ModelClient;
pub use report::{SubagentEnd, SubagentReport, SubagentStep};

/// The tool's name, as the model calls it.
pub const EXPLORE: &str = "explore";

/// The declaration, fixed bytes: part of every request's cached prefix.
const DESCRIPTION: &str = "Send a read-only helper to explore the workspace and report back. \
It reads files, lists directories, searches and runs commands proven read-only, then answers \
`task` in a few paragraphs with paths and line numbers; only that answer enters your context. \
Use it for questions that need many files read (how does X work, where is Y used); calls in \
one response run in parallel. It cannot change anything and cannot explore further.";

/// Longest task accepted: a brief, not a document to pass along.
const MAX_TASK_CHARS: usize = 8_000;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    task: String,
}

fn task_of(args: &serde_json::Value) -> Result<String, ToolError> {
    let a: Args = parse_args(EXPLORE, args)?;
    let task = a.task.trim();
    let bad = |message: &str| ToolError::BadArgs {
        tool: EXPLORE.to_string(),
        message: message.to_string(),
    };
    if task.is_empty() {
        return Err(bad("`task` is empty: say what to find out"));
    }
    if task.chars().count() > MAX_TASK_CHARS {
        return Err(bad("`task` is too long: at most 8000 characters"));
    }
    Ok(task.to_string())
}

/// The tool as the policy sees it: its name, declaration and effect, with
/// no engine behind it. `k policy check` judges `explore` calls with it;
/// [`ExploreTool`] declares itself through it, so the two cannot differ.
pub struct ExploreDeclaration;

impl Tool for ExploreDeclaration {
    fn name(&self) -> &str {
        EXPLORE
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn input_schema(&self) -> serde_json::Value {
        serde_json::json!({
            "type": "object",
            "properties": {
                "task": {
                    "type": "string",
                    "description": "What to find out, with any paths or names you already know."
                }
            },
            "required": ["task"],
            "additionalProperties": false
        })
    }

    /// Reads only: everything the child does is judged read-only in plan
    /// mode, so the call is allowed in every mode and runs beside other reads.
    fn effect(&self, args: &serde_json::Value, _ws: &Workspace) -> Result<Effect, ToolError> {
        task_of(args)?;
        Ok(Effect::Read(Vec::new()))
    }

    /// A child needs a model to talk to: only [`ExploreTool`] runs one.
    fn run(&self, _args: &serde_json::Value, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Err(ToolError::Failed(
            "explore runs only inside a conversation".to_string(),
        ))
    }
}

/// What a child needs from the engine, shared by every explore call.
pub(crate) struct ExploreTool {
    client: Arc<ModelClient>,
    registry: Arc<Registry>,
    system_prompt: Arc<str>,
    /// The child's tool list (fixed for the engine's life).
    specs: Vec<ToolSpec>,
}

impl ExploreTool {
    pub fn new(
        client: Arc<ModelClient>,
        registry: Arc<Registry>,
        system_prompt: &str,
    ) -> ExploreTool {
        let specs = registry.read_only_specs();
        ExploreTool {
            client,
            registry,
            system_prompt: Arc::from(system_prompt),
            specs,
        }
    }

    /// Runs a child for `args`, reporting each step to `steps`. Its
    /// answer (within [`EXPLORE_ANSWER_CHARS`]) and the line with its
    /// totals are the result; a cancel is [`ToolError::Cancelled`].
    pub fn run_with(
        &self,
        args: &serde_json::Value,
        cancel: &CancelToken,
        steps: &dyn Fn(SubagentStep),
    ) -> Result<ToolOutput, ToolError> {
        let task = task_of(args)?;
        let ended = child::Child::new(self, cancel, steps).run(&task);
        let line = ended.report.line();
        steps(SubagentStep::Finished {
            summary: line.clone(),
        });
        let answer = ai_tools::output::head_tail(ended.answer.trim(), EXPLORE_ANSWER_CHARS);
        let body = match &ended.report.end {
            SubagentEnd::Cancelled => return Err(ToolError::Cancelled),
            SubagentEnd::Failed(_) if answer.is_empty() => {
                return Err(ToolError::Failed(format!("[{line}]")))
            }
            SubagentEnd::Answered if !answer.is_empty() => answer,
            SubagentEnd::Answered => "(the helper finished without an answer)".to_string(),
            _ if answer.is_empty() => "(the helper stopped before it answered)".to_string(),
            _ => format!("(the helper stopped before it finished; what it had:)\n{answer}"),
        };
        Ok(ToolOutput::same(format!("{body}\n\n[{line}]"), line))
    }
}

impl Tool for ExploreTool {
    fn name(&self) -> &str {
        ExploreDeclaration.name()
    }

    fn description(&self) -> &str {
        ExploreDeclaration.description()
    }

    fn input_schema(&self) -> serde_json::Value {
        ExploreDeclaration.input_schema()
    }

    fn effect(&self, args: &serde_json::Value, ws: &Workspace) -> Result<Effect, ToolError> {
        ExploreDeclaration.effect(args, ws)
    }

    /// Without the engine's runner (no front end to nest steps under),
    /// the steps become the call's progress lines.
    fn run(&self, args: &serde_json::Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let progress = ctx.progress.clone();
        let report = move |step: SubagentStep| {
            if let SubagentStep::ToolStart { name, summary, .. } = step {
                progress.report(format!("{name} {summary}"));
            }
        };
        self.run_with(args, &ctx.cancel, &report)
    }

    fn output_budget(&self) -> usize {
        EXPLORE_ANSWER_CHARS + ai_tools::tool::HEADER_ALLOWANCE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_must_be_given_and_short() {
        assert!(task_of(&serde_json::json!({"task": " where is main? "})).is_ok());
        assert!(task_of(&serde_json::json!({"task": "  "})).is_err());
        assert!(task_of(&serde_json::json!({})).is_err());
        assert!(task_of(&serde_json::json!({"task": "x", "path": "."})).is_err());
        let long = "x".repeat(MAX_TASK_CHARS + 1);
        assert!(task_of(&serde_json::json!({ "task": long })).is_err());
    }
}
