//! Running one step's tool calls: validation, the approval handshake,
//! read-only calls in parallel, everything else alone and in order.

use std::time::Instant;

use ai_tools::{CancelToken, Decision, ToolError, ToolOutput};
use crossbeam_channel::RecvTimeoutError;

use crate::budgets::{CANCEL_POLL, PREVIEW_CHARS};
use crate::context::tool_result_view;
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

/// Sends `ToolStart` for call `i` once.
fn announce(em: &Emitter, call: &ToolCall, announced: &mut bool) {
    if !*announced {
        *announced = true;
        em.send(StreamMsg::ToolStart {
            id: call.id.clone(),
            name: call.name.clone(),
            args_preview: preview(&call.arguments),
        });
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
    let mut results: Vec<Option<Settled>> = calls.iter().map(|_| None).collect();
    let mut announced = vec![false; calls.len()];
    let mut committed = 0usize;
    let mut batch: Vec<(usize, serde_json::Value)> = Vec::new();
    let outcome = (|| {
        for (i, call) in calls.iter().enumerate() {
            if cancel.is_cancelled() {
                return Err(EngineError::Cancelled);
            }
            match plan(core, call) {
                Plan::Refuse(msg) => {
                    announce(em, call, &mut announced[i]);
                    em.send(StreamMsg::ToolFailed {
                        id: call.id.clone(),
                        error: msg.clone(),
                    });
                    results[i] = Some(Settled {
                        content: msg,
                        full: String::new(),
                        is_error: true,
                    });
                }
                Plan::Run {
                    args,
                    parallel: true,
                    ..
                } => batch.push((i, args)),
                Plan::Run { args, ask, .. } => {
                    let pending = std::mem::take(&mut batch);
                    run_batch(
                        core,
                        conv,
                        calls,
                        pending,
                        &mut results,
                        &mut announced,
                        em,
                        cancel,
                    )?;
                    commit_ready(conv, calls, &mut results, &mut committed);
                    if let Some((summary, detail)) = ask {
                        announce(em, call, &mut announced[i]);
                        if let Some(refusal) = approve(core, em, cancel, &call.id, summary, detail)?
                        {
                            em.send(StreamMsg::ToolFailed {
                                id: call.id.clone(),
                                error: refusal.clone(),
                            });
                            results[i] = Some(Settled {
                                content: refusal,
                                full: String::new(),
                                is_error: true,
                            });
                            commit_ready(conv, calls, &mut results, &mut committed);
                            continue;
                        }
                    }
                    let one = vec![(i, args)];
                    run_batch(
                        core,
                        conv,
                        calls,
                        one,
                        &mut results,
                        &mut announced,
                        em,
                        cancel,
                    )?;
                }
            }
            commit_ready(conv, calls, &mut results, &mut committed);
        }
        let pending = std::mem::take(&mut batch);
        run_batch(
            core,
            conv,
            calls,
            pending,
            &mut results,
            &mut announced,
            em,
            cancel,
        )
    })();
    if outcome.is_err() {
        for (i, r) in results.iter_mut().enumerate() {
            if r.is_none() {
                if announced[i] {
                    em.send(StreamMsg::ToolFailed {
                        id: calls[i].id.clone(),
                        error: "cancelled".into(),
                    });
                }
                *r = Some(Settled {
                    content: "cancelled by the user; if it had started, it may have partly run."
                        .into(),
                    full: String::new(),
                    is_error: true,
                });
            }
        }
    }
    commit_ready(conv, calls, &mut results, &mut committed);
    outcome
}

fn commit_ready(
    conv: &Conversation,
    calls: &[ToolCall],
    results: &mut [Option<Settled>],
    committed: &mut usize,
) {
    while *committed < calls.len() {
        let Some(s) = results[*committed].take() else {
            return;
        };
        push_result(conv, &calls[*committed], s.content, s.full, s.is_error);
        *committed += 1;
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

/// Runs calls on their own threads (all at once) and waits, watching cancel.
#[allow(clippy::too_many_arguments)] // one private call site shape, all borrowed state
fn run_batch(
    core: &Core,
    conv: &Conversation,
    calls: &[ToolCall],
    batch: Vec<(usize, serde_json::Value)>,
    results: &mut [Option<Settled>],
    announced: &mut [bool],
    em: &Emitter,
    cancel: &CancelToken,
) -> Result<(), EngineError> {
    if batch.is_empty() {
        return Ok(());
    }
    let (tx, rx) = crossbeam_channel::unbounded::<(usize, Result<ToolOutput, ToolError>)>();
    let mut waiting = 0usize;
    for (i, args) in batch {
        let call = &calls[i];
        // Persist before effect: after a crash, a start without a result
        // marks this call as uncertain.
        conv.record(
            Entry::ToolStart {
                call_id: call.id.clone(),
                name: call.name.clone(),
                arguments: call.arguments.clone(),
            },
            true,
        );
        announce(em, call, &mut announced[i]);
        let registry = std::sync::Arc::clone(&core.registry);
        let name = call.name.clone();
        let token = cancel.clone();
        let tx = tx.clone();
        let spawned = std::thread::Builder::new()
            .name(format!("koi-tool-{name}"))
            .spawn(move || {
                let r = registry.run(&name, &args, &token);
                let _ = tx.send((i, r));
            });
        match spawned {
            Ok(_) => waiting += 1,
            Err(e) => settle(
                calls,
                results,
                em,
                i,
                Err(ToolError::Failed(format!("could not start: {e}"))),
            ),
        }
    }
    while waiting > 0 {
        match rx.recv_timeout(CANCEL_POLL) {
            Ok((i, r)) => {
                waiting -= 1;
                if matches!(r, Err(ToolError::Cancelled)) {
                    return Err(EngineError::Cancelled);
                }
                settle(calls, results, em, i, r);
            }
            Err(RecvTimeoutError::Timeout) if cancel.is_cancelled() => {
                // The tools saw the same token; stop waiting for them.
                return Err(EngineError::Cancelled);
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break,
        }
    }
    Ok(())
}

fn settle(
    calls: &[ToolCall],
    results: &mut [Option<Settled>],
    em: &Emitter,
    i: usize,
    r: Result<ToolOutput, ToolError>,
) {
    let call = &calls[i];
    results[i] = Some(match r {
        Ok(out) => {
            em.send(StreamMsg::ToolDone {
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
            em.send(StreamMsg::ToolFailed {
                id: call.id.clone(),
                error: msg.clone(),
            });
            Settled {
                content: format!("error: {msg}"),
                full: String::new(),
                is_error: true,
            }
        }
    });
}
