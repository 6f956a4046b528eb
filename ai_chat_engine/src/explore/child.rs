//! The child loop of one `explore` call: rounds against the model, each
//! round's calls gated read-only and run in parallel, the history in
//! memory only.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use ai_tools::run_tag::RunTag;
use ai_tools::{Approved, CancelToken, Decision, Mode, ProgressSink, Proof, ToolError};

use super::report::{SubagentEnd, SubagentReport, SubagentStep};
use super::{ExploreTool, EXPLORE};
use crate::agent::parallel::{Next, Parallel};
use crate::budgets::{
    CANCEL_POLL, EXPLORE_MAX_HISTORY_BYTES, EXPLORE_MAX_ROUNDS, EXPLORE_MAX_STREAMED_BYTES,
    EXPLORE_MAX_WALL,
};
use crate::context::{tool_error_view, tool_result_view};
use crate::message::{Message, ToolCall};
use crate::model::providers::{history_calls, Delta, FinishKind, Request};
use crate::stream::preview::{call_summary, preview};
use crate::stream::EngineError;

/// The child's first message: what it is for and what it may do. The
/// task follows it.
const BRIEF: &str = "You are a read-only helper exploring a workspace for another assistant, \
which gave you the task below. Use your tools (they only read; any call that would change \
something is refused) to find what the task asks, reading as much as you need. Then answer in \
plain text: the findings, with file paths and line numbers, in at most a few paragraphs. Your \
answer is all the other assistant will see; it does not see the files you read.";

/// Told to the child when its budget is nearly spent.
const WRAP_UP: &str = "Your budget for this task is spent: do not call any more tools. Answer \
now with what you found, and say what you could not find out.";

/// What the child is told when it asks for `explore`.
const NO_NESTING: &str = "refused: explore cannot run inside explore. Read and search with \
your own tools instead; nothing was run.";

/// What a child ended with.
pub(super) struct Ended {
    pub answer: String,
    pub report: SubagentReport,
}

/// One child: its history, its totals and what it reports to.
pub(super) struct Child<'a> {
    tool: &'a ExploreTool,
    parent: &'a CancelToken,
    steps: &'a dyn Fn(SubagentStep),
    messages: Vec<Message>,
    report: SubagentReport,
    /// Tool-result bytes in the history.
    history_bytes: usize,
    deadline: Instant,
}

impl<'a> Child<'a> {
    pub fn new(
        tool: &'a ExploreTool,
        parent: &'a CancelToken,
        steps: &'a dyn Fn(SubagentStep),
    ) -> Child<'a> {
        Child {
            tool,
            parent,
            steps,
            messages: Vec::new(),
            report: SubagentReport::new(),
            history_bytes: 0,
            deadline: Instant::now() + EXPLORE_MAX_WALL,
        }
    }

    pub fn run(mut self, task: &str) -> Ended {
        let root = self.tool.registry.workspace().root().display().to_string();
        self.messages.push(Message::User {
            text: format!("{BRIEF}\n\nWorkspace: {root}\n\nTask: {task}"),
            attachments: Vec::new(),
            images: Vec::new(),
        });
        let watch = Watch::start(self.parent, self.deadline);
        let (end, answer) = self.rounds(&watch.token);
        self.report.end = end;
        Ended {
            answer,
            report: self.report,
        }
    }

    /// Why the child's token tripped.
    fn stopped(&self) -> SubagentEnd {
        if self.parent.is_cancelled() {
            SubagentEnd::Cancelled
        } else {
            SubagentEnd::TimeLimit
        }
    }

    fn rounds(&mut self, token: &CancelToken) -> (SubagentEnd, String) {
        let model = self.tool.client.model();
        let mut told = false;
        let mut text = String::new();
        for round in 1..=EXPLORE_MAX_ROUNDS {
            if token.is_cancelled() {
                return (self.stopped(), text);
            }
            let over = self.history_bytes > EXPLORE_MAX_HISTORY_BYTES;
            let last = round == EXPLORE_MAX_ROUNDS || over;
            if last && !told {
                told = true;
                self.messages.push(Message::Notice(WRAP_UP.to_string()));
            }
            (self.steps)(SubagentStep::Round { round });
            self.report.rounds = round;
            let mut streamed = 0usize;
            let mut on_delta = |d: Delta| {
                let (Delta::Text(s) | Delta::Reasoning(s)) = &d;
                streamed += s.len();
                if streamed > EXPLORE_MAX_STREAMED_BYTES {
                    return Err(EngineError::OutputCap {
                        limit_bytes: EXPLORE_MAX_STREAMED_BYTES,
                    });
                }
                Ok(())
            };
            let req = Request {
                model: &model,
                system: &self.tool.system_prompt,
                messages: &self.messages,
                tools: &self.tool.specs,
                // The child explores the workspace with koi's own tools;
                // a provider's server-side search is the parent's to use.
                native_search: false,
            };
            let result = self.tool.client.step(&req, token, &mut on_delta);
            if let Some(u) = result.usage {
                self.report.input_tokens += u.input;
                self.report.output_tokens += u.output;
            }
            let step = match result.outcome {
                Ok(step) => step,
                Err(EngineError::Cancelled) => return (self.stopped(), text),
                Err(e) => return (SubagentEnd::Failed(e.to_string()), text),
            };
            text = step.text;
            match step.finish.kind {
                FinishKind::ToolCalls if !step.tool_calls.is_empty() => {
                    self.report.tool_calls += step.tool_calls.len();
                    if last {
                        let end = if over {
                            SubagentEnd::ByteLimit
                        } else {
                            SubagentEnd::RoundLimit
                        };
                        return (end, text);
                    }
                    self.messages.push(Message::Assistant {
                        text: text.clone(),
                        tool_calls: history_calls(&step.tool_calls),
                        reasoning_blocks: step.reasoning_blocks,
                    });
                    if !self.run_calls(&step.tool_calls, token) {
                        return (self.stopped(), text);
                    }
                }
                FinishKind::Stop | FinishKind::ToolCalls => return (SubagentEnd::Answered, text),
                // A child has no paused-turn continuation: its rounds are
                // few and its own tools are koi's, not the provider's.
                FinishKind::Length
                | FinishKind::ContentFilter
                | FinishKind::Refusal
                | FinishKind::Pause
                | FinishKind::Other => {
                    let why = format!("the model stopped early ({})", step.finish.raw);
                    return (SubagentEnd::Failed(why), text);
                }
            }
        }
        (SubagentEnd::RoundLimit, text)
    }

    /// The clearance of one call, judged once in plan mode, or what the
    /// child may not run, in words it can act on.
    fn clear(&self, call: &ToolCall, args: &serde_json::Value) -> Result<Approved, String> {
        if call.name == EXPLORE {
            return Err(NO_NESTING.to_string());
        }
        let registry = &self.tool.registry;
        let offered = self.tool.specs.iter().any(|s| s.name == call.name);
        if !offered || registry.get(&call.name).is_none() {
            let names: Vec<&str> = self.tool.specs.iter().map(|s| s.name.as_str()).collect();
            return Err(format!(
                "refused: `{}` is not one of your tools (you only read: {}); nothing was run.",
                call.name,
                names.join(", ")
            ));
        }
        let judged = registry
            .judge(&call.name, args, Mode::Plan)
            .map_err(|e| format!("error: {e}. Nothing was run."))?;
        match &judged.decision {
            Decision::Allow => {}
            Decision::Deny { reason } => return Err(format!("denied: {reason}. Nothing was run.")),
            Decision::Ask { summary, .. } => {
                return Err(format!(
                    "denied: {summary} needs approval, and explore only reads; nothing was run."
                ))
            }
        }
        // Plan mode allows only reads; the judgement says so in the terms
        // the sandbox and the scheduler use too.
        match judged.allowed() {
            Some(approved)
                if judged.proof == Proof::ReadOnly && judged.footprint.is_read_only() =>
            {
                Ok(approved)
            }
            _ => Err(format!(
                "denied: explore only reads, and `{}` with these arguments is not proven \
                 read-only; nothing was run.",
                call.name
            )),
        }
    }

    /// Gates and runs one round's calls, all at once (they only read),
    /// and appends a result for each, in call order. False when the
    /// token tripped before every call was settled.
    fn run_calls(&mut self, calls: &[ToolCall], token: &CancelToken) -> bool {
        let mut results: Vec<Option<(String, bool)>> = calls.iter().map(|_| None).collect();
        let mut running = Parallel::new();
        for (i, call) in calls.iter().enumerate() {
            (self.steps)(SubagentStep::ToolStart {
                id: call.id.clone(),
                name: call.name.clone(),
                summary: call_summary(&call.arguments),
            });
            let cleared = parse_object(&call.arguments)
                .and_then(|args| self.clear(call, &args).map(|approved| (args, approved)));
            let (args, approved) = match cleared {
                Ok(cleared) => cleared,
                Err(why) => {
                    self.settle_failed(&mut results, i, call, why.clone(), why);
                    continue;
                }
            };
            let registry = Arc::clone(&self.tool.registry);
            let (name, token) = (call.name.clone(), token.clone());
            let started = running.start(i, format!("koi-explore-{name}"), move || {
                registry.run_approved(
                    &name,
                    &args,
                    &approved,
                    &token,
                    RunTag::new(),
                    ProgressSink::default(),
                )
            });
            if let Err(msg) = started {
                let view = tool_error_view(&call.name, &msg);
                self.settle_failed(&mut results, i, call, msg, view);
            }
        }
        loop {
            match running.next(CANCEL_POLL) {
                Next::Finished(i, r) => {
                    let call = &calls[i];
                    match r {
                        Ok(out) => {
                            (self.steps)(SubagentStep::ToolDone {
                                id: call.id.clone(),
                                preview: preview(&out.preview),
                            });
                            let view = tool_result_view(&call.name, &out.for_model);
                            results[i] = Some((view, false));
                        }
                        Err(ToolError::Cancelled) => return false,
                        Err(e) => {
                            let msg = e.to_string();
                            let view = tool_error_view(&call.name, &msg);
                            self.settle_failed(&mut results, i, call, msg, view);
                        }
                    }
                }
                // The tools saw the same token; stop waiting for them.
                Next::Waiting if token.is_cancelled() => return false,
                Next::Waiting => {}
                Next::Idle => break,
            }
        }
        for (call, r) in calls.iter().zip(results) {
            let (content, is_error) =
                r.unwrap_or_else(|| ("not run: the call was lost".to_string(), true));
            self.history_bytes += content.len();
            self.messages.push(Message::ToolResult {
                call_id: call.id.clone(),
                name: call.name.clone(),
                content,
                is_error,
            });
        }
        true
    }

    /// Settles call `i` as failed: the front ends see `shown`, the
    /// child's history gets `content`.
    fn settle_failed(
        &self,
        results: &mut [Option<(String, bool)>],
        i: usize,
        call: &ToolCall,
        shown: String,
        content: String,
    ) {
        (self.steps)(SubagentStep::ToolFailed {
            id: call.id.clone(),
            error: preview(&shown),
        });
        results[i] = Some((content, true));
    }
}

/// A call's arguments as a JSON object (empty text is `{}`), or what the
/// child is told.
fn parse_object(raw: &str) -> Result<serde_json::Value, String> {
    let raw = if raw.trim().is_empty() { "{}" } else { raw };
    match serde_json::from_str(raw) {
        Ok(v @ serde_json::Value::Object(_)) => Ok(v),
        Ok(_) => Err("error: the arguments must be a JSON object; nothing was run.".to_string()),
        Err(e) => Err(format!(
            "error: the arguments were not valid JSON ({e}); nothing was run."
        )),
    }
}

/// The child's own token: it trips when the parent's does or when the
/// child's time is up, watched by a thread that ends with it. Without a
/// thread the parent's token is used (the deadline then holds between
/// rounds only).
struct Watch {
    token: CancelToken,
    done: Arc<AtomicBool>,
}

impl Watch {
    fn start(parent: &CancelToken, deadline: Instant) -> Watch {
        let token = CancelToken::new();
        let done = Arc::new(AtomicBool::new(false));
        let (p, t, d) = (parent.clone(), token.clone(), Arc::clone(&done));
        let spawned = std::thread::Builder::new()
            .name("koi-explore-watch".into())
            .spawn(move || {
                while !d.load(Ordering::SeqCst) {
                    if p.is_cancelled() || Instant::now() >= deadline {
                        t.cancel();
                        return;
                    }
                    std::thread::sleep(CANCEL_POLL);
                }
            });
        match spawned {
            Ok(_) => Watch { token, done },
            Err(_) => Watch {
                token: parent.clone(),
                done,
            },
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.done.store(true, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Waits (bounded) for `token` to trip.
    fn trips(token: &CancelToken) -> bool {
        let give_up = Instant::now() + Duration::from_secs(10);
        while Instant::now() < give_up {
            if token.is_cancelled() {
                return true;
            }
            std::thread::sleep(CANCEL_POLL);
        }
        false
    }

    #[test]
    fn the_childs_token_trips_at_its_deadline_or_with_the_parent() {
        let parent = CancelToken::new();
        let timed = Watch::start(&parent, Instant::now() + Duration::from_millis(30));
        assert!(trips(&timed.token));
        assert!(!parent.is_cancelled(), "the deadline is the child's alone");

        let far = Instant::now() + Duration::from_secs(3600);
        let watched = Watch::start(&parent, far);
        assert!(!watched.token.is_cancelled());
        parent.cancel();
        assert!(trips(&watched.token));
    }

    #[test]
    fn arguments_must_be_an_object() {
        assert!(parse_object("").is_ok());
        assert!(parse_object(r#"{"path":"a"}"#).is_ok());
        assert!(parse_object("[1]").unwrap_err().contains("JSON object"));
        assert!(parse_object("{").unwrap_err().contains("not valid JSON"));
    }
}
