//! Running one step's tool calls: validation, the approval handshake,
//! read-only calls in parallel, everything else alone and in order.

use std::time::Instant;

use ai_tools::{CancelToken, Decision, ToolError, ToolOutput};
use crossbeam_channel::RecvTimeoutError;

use crate::budgets::{CANCEL_POLL, PREVIEW_CHARS};
use crate::context::{tool_error_view, tool_result_view};
use crate::conversation::Conversation;
use crate::engine::{Core, Emitter};
use crate::message::{Message, ToolCall};
use crate::session_log::Entry;
use crate::stream_msg::{ApprovalReply, EngineError, StreamMsg};

/// A call's settled result: what the model sees, the full text, error flag.
struct Settled {
    content: String,
    full: String,
    is_error: bool,
}

enum Plan {
    /// Answer without running (unknown tool, bad args, policy denial).
    Refuse(String),
    /// Run; `parallel` for read-only calls the policy allows outright.
    Run {
        args: serde_json::Value,
        parallel: bool,
        ask: Option<(String, String)>,
    },
}

/// Shortens text to one line of at most [`PREVIEW_CHARS`] characters.
pub(crate) fn preview(text: &str) -> String {
    let one_line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let mut out: String = one_line.chars().take(PREVIEW_CHARS).collect();
    if one_line.chars().count() > PREVIEW_CHARS {
        out.push('…');
    }
    out
}

/// Appends a tool result to history and log.
pub(crate) fn push_result(
    conv: &Conversation,
    call: &ToolCall,
    content: String,
    full: String,
    is_error: bool,
) {
    let full = if full.is_empty() {
        content.clone()
    } else {
        full
    };
    conv.push(
        Message::ToolResult {
            call_id: call.id.clone(),
            name: call.name.clone(),
            content: content.clone(),
            is_error,
        },
        Entry::ToolResult {
            call_id: call.id.clone(),
            name: call.name.clone(),
            is_error,
            for_model: content,
            full,
        },
    );
}

fn plan(core: &Core, call: &ToolCall) -> Plan {
    let registry = &core.registry;
    if registry.get(&call.name).is_none() {
        return Plan::Refuse(format!(
            "error: there is no tool named `{}`. Available tools: {}. Nothing was run.",
            call.name,
            registry.names().join(", ")
        ));
    }
    let raw = if call.arguments.trim().is_empty() {
        "{}"
    } else {
        call.arguments.as_str()
    };
    let args: serde_json::Value = match serde_json::from_str(raw) {
        Ok(v @ serde_json::Value::Object(_)) => v,
        Ok(_) => {
            return Plan::Refuse(
                "error: the arguments must be a JSON object; nothing was run.".to_string(),
            )
        }
        Err(e) => {
            return Plan::Refuse(format!(
                "error: the arguments were not valid JSON ({e}); nothing was run. Call the tool \
                 again with a JSON object that matches its schema."
            ))
        }
    };
    if let Err(e) = registry.effect(&call.name, &args) {
        // Arguments that do not fit the tool's schema: the model's mistake
        // to fix, not a policy decision.
        return Plan::Refuse(format!("error: {e}. Nothing was run."));
    }
    match registry.decide(&call.name, &args, core.mode()) {
        Decision::Deny { reason } => Plan::Refuse(format!("denied: {reason}. Nothing was run.")),
        Decision::Ask { summary, detail } => Plan::Run {
            args,
            parallel: false,
            ask: Some((summary, detail)),
        },
        Decision::Allow => {
            let parallel = registry.footprint(&call.name, &args).is_read_only();
            Plan::Run {
                args,
                parallel,
                ask: None,
            }
        }
    }
}

impl Settled {
    /// A failed call's result: `content` is what the model is told.
    fn failed(content: String) -> Self {
        Settled {
            content,
            full: String::new(),
            is_error: true,
        }
    }
}

/// Runs the calls; every call gets exactly one result in history, in call
/// order, whatever happens (so the next request stays valid).
pub(crate) fn run_calls(
    core: &Core,
    conv: &Conversation,
    calls: &[ToolCall],
    em: &Emitter,
    cancel: &CancelToken,
) -> Result<(), EngineError> {
    let mut step = Step {
        core,
        conv,
        calls,
        em,
        cancel,
        results: calls.iter().map(|_| None).collect(),
        announced: vec![false; calls.len()],
        committed: 0,
    };
    let outcome = step.run_all();
    if outcome.is_err() {
        for (i, r) in step.results.iter_mut().enumerate() {
            if r.is_none() {
                if step.announced[i] {
                    em.send(StreamMsg::ToolFailed {
                        id: calls[i].id.clone(),
                        error: "cancelled".into(),
                    });
                }
                *r = Some(Settled::failed(
                    "cancelled by the user; if it had started, it may have partly run.".into(),
                ));
            }
        }
    }
    step.commit_ready();
    outcome
}

/// One step's calls and what has become of each so far.
struct Step<'a> {
    core: &'a Core,
    conv: &'a Conversation,
    calls: &'a [ToolCall],
    em: &'a Emitter,
    cancel: &'a CancelToken,
    /// Settled results not yet committed to history, by call index.
    results: Vec<Option<Settled>>,
    /// Whether each call's `ToolStart` was sent.
    announced: Vec<bool>,
    /// Calls whose results are in history (always a prefix).
    committed: usize,
}

impl Step<'_> {
    /// Plans and runs every call: read-only ones gather into a parallel
    /// batch; anything else waits for the batch and runs alone.
    fn run_all(&mut self) -> Result<(), EngineError> {
        let calls = self.calls;
        let mut batch: Vec<(usize, serde_json::Value)> = Vec::new();
        for (i, call) in calls.iter().enumerate() {
            if self.cancel.is_cancelled() {
                return Err(EngineError::Cancelled);
            }
            match plan(self.core, call) {
                Plan::Refuse(msg) => self.refuse(i, msg),
                Plan::Run {
                    args,
                    parallel: true,
                    ..
                } => batch.push((i, args)),
                Plan::Run { args, ask, .. } => {
                    self.run_batch(std::mem::take(&mut batch))?;
                    self.commit_ready();
                    if let Some((summary, detail)) = ask {
                        self.announce(i);
                        if let Some(refusal) =
                            approve(self.core, self.em, self.cancel, &call.id, summary, detail)?
                        {
                            self.refuse(i, refusal);
                            self.commit_ready();
                            continue;
                        }
                    }
                    self.run_batch(vec![(i, args)])?;
                }
            }
            self.commit_ready();
        }
        self.run_batch(batch)
    }

    /// Sends `ToolStart` for call `i` once.
    fn announce(&mut self, i: usize) {
        if !self.announced[i] {
            self.announced[i] = true;
            let call = &self.calls[i];
            self.em.send(StreamMsg::ToolStart {
                id: call.id.clone(),
                name: call.name.clone(),
                args_preview: preview(&call.arguments),
            });
        }
    }

    /// Settles call `i` as not run, telling the UI and the model `msg`.
    fn refuse(&mut self, i: usize, msg: String) {
        self.announce(i);
        self.em.send(StreamMsg::ToolFailed {
            id: self.calls[i].id.clone(),
            error: msg.clone(),
        });
        self.results[i] = Some(Settled::failed(msg));
    }

    /// Moves the settled results at the front of the queue into history.
    fn commit_ready(&mut self) {
        while self.committed < self.calls.len() {
            let Some(s) = self.results[self.committed].take() else {
                return;
            };
            let call = &self.calls[self.committed];
            push_result(self.conv, call, s.content, s.full, s.is_error);
            self.committed += 1;
        }
    }

    /// Runs calls on their own threads (all at once) and waits, watching
    /// cancel.
    fn run_batch(&mut self, batch: Vec<(usize, serde_json::Value)>) -> Result<(), EngineError> {
        if batch.is_empty() {
            return Ok(());
        }
        let (tx, rx) = crossbeam_channel::unbounded::<(usize, Result<ToolOutput, ToolError>)>();
        let mut waiting = 0usize;
        let calls = self.calls;
        for (i, args) in batch {
            let call = &calls[i];
            // Persist before effect: after a crash, a start without a result
            // marks this call as uncertain.
            self.conv.record(
                Entry::ToolStart {
                    call_id: call.id.clone(),
                    name: call.name.clone(),
                    arguments: call.arguments.clone(),
                },
                true,
            );
            self.announce(i);
            let registry = std::sync::Arc::clone(&self.core.registry);
            let name = call.name.clone();
            let token = self.cancel.clone();
            let tx = tx.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("koi-tool-{name}"))
                .spawn(move || {
                    let r = registry.run(&name, &args, &token);
                    let _ = tx.send((i, r));
                });
            match spawned {
                Ok(_) => waiting += 1,
                Err(e) => self.settle(i, Err(ToolError::Failed(format!("could not start: {e}")))),
            }
        }
        while waiting > 0 {
            match rx.recv_timeout(CANCEL_POLL) {
                Ok((i, r)) => {
                    waiting -= 1;
                    if matches!(r, Err(ToolError::Cancelled)) {
                        return Err(EngineError::Cancelled);
                    }
                    self.settle(i, r);
                }
                Err(RecvTimeoutError::Timeout) if self.cancel.is_cancelled() => {
                    // The tools saw the same token; stop waiting for them.
                    return Err(EngineError::Cancelled);
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        Ok(())
    }

    /// Records call `i`'s outcome and tells the UI.
    fn settle(&mut self, i: usize, r: Result<ToolOutput, ToolError>) {
        let call = &self.calls[i];
        self.results[i] = Some(match r {
            Ok(out) => {
                self.em.send(StreamMsg::ToolDone {
                    id: call.id.clone(),
                    result_preview: preview(&out.preview),
                });
                Settled {
                    content: tool_result_view(&call.name, &out.for_model),
                    full: out.full,
                    is_error: false,
                }
            }
            Err(e) => {
                let msg = e.to_string();
                self.em.send(StreamMsg::ToolFailed {
                    id: call.id.clone(),
                    error: msg.clone(),
                });
                Settled::failed(tool_error_view(&call.name, &msg))
            }
        });
    }
}

/// Asks the user. `Ok(None)` means approved; `Ok(Some(why))` is the
/// refusal the model is told.
fn approve(
    core: &Core,
    em: &Emitter,
    cancel: &CancelToken,
    id: &str,
    summary: String,
    detail: String,
) -> Result<Option<String>, EngineError> {
    let (tx, rx) = crossbeam_channel::bounded(1);
    em.send(StreamMsg::ApprovalRequired {
        id: id.to_string(),
        summary,
        detail,
        reply: tx,
    });
    let deadline = Instant::now() + core.approval_timeout;
    loop {
        match rx.recv_timeout(CANCEL_POLL) {
            Ok(ApprovalReply::Approve) => return Ok(None),
            Ok(ApprovalReply::Deny) => {
                return Ok(Some(
                    "denied: the user declined this call; nothing was run. Do not retry it \
                     unchanged: ask the user, or find another way."
                        .into(),
                ))
            }
            Err(RecvTimeoutError::Disconnected) => return Ok(Some(
                "denied: the approval request was dismissed without an answer; nothing was run."
                    .into(),
            )),
            Err(RecvTimeoutError::Timeout) => {
                if cancel.is_cancelled() {
                    return Err(EngineError::Cancelled);
                }
                if Instant::now() >= deadline {
                    return Ok(Some(format!(
                        "denied: nobody answered the approval request within {}s; nothing was \
                         run. Say what you wanted to do and let the user decide.",
                        core.approval_timeout.as_secs_f32().round()
                    )));
                }
            }
        }
    }
}
