//! The agent loop: model step → (tools → results → next step)* → answer,
//! within the round, output and context budgets.

use ai_tools::CancelToken;

use crate::budgets::{MAX_ROUNDS, MAX_STREAMED_OUTPUT_BYTES, WRAP_UP_ROUND};
use crate::config::ProviderKind;
use crate::context::{apply_summary, choose_keep_from, dropped_placeholder, SUMMARY_INSTRUCTION};
use crate::conversation::Conversation;
use crate::engine::{Core, Emitter};
use crate::message::{Message, ToolCall, UserInput};
use crate::prompt::EnvironmentFacts;
use crate::providers::{self, demo, history_arguments, Delta, FinishKind, Request, StepOutput};
use crate::session_log::Entry;
use crate::stream_msg::{EngineError, StreamMsg};
use crate::transport::StepResult;

/// Told to the model before round [`WRAP_UP_ROUND`].
pub const WRAP_UP_NOTICE: &str = "This turn has used 19 of its 25 model rounds; 5 remain. \
Wrap up now: finish or safely stop the current step, then answer with what is done, what is \
not, and what the user should do next. Do not start new work.";

/// The result given for calls the final round asked for.
const ROUND_LIMIT_RESULT: &str = "not run: this turn reached its 25-round limit. Tell the user \
what remains; they can ask you to continue.";

/// System prompt of the title request (a separate, tiny request).
const TITLE_SYSTEM: &str = "You name conversations. Reply with a title of at most six words \
for the user's message below: no quotes, no trailing punctuation, nothing else.";

/// Longest title kept.
const MAX_TITLE_CHARS: usize = 80;

/// Runs one turn to its single terminal message. Returns whether a title
/// should be generated now (the conversation is then left in its titling
/// phase; otherwise it is idle again before the terminal message is sent).
pub(crate) fn run_turn(
    core: &Core,
    conv: &Conversation,
    input: UserInput,
    em: &Emitter,
    cancel: &CancelToken,
) -> bool {
    let result = turn(core, conv, input, em, cancel);
    let outcome = match &result {
        Ok(()) => "done".to_string(),
        Err(e) => e.to_string(),
    };
    conv.record(Entry::TurnEnd { outcome }, false);
    // Once per conversation, after its first successful turn.
    let want_title = result.is_ok() && core.opts.generate_titles && {
        let mut st = conv.lock();
        let want = st.title.is_none() && !st.title_attempted;
        st.title_attempted = true;
        want
    };
    if want_title {
        conv.set_titling();
    } else {
        conv.end();
    }
    em.send(match result {
        Ok(()) => StreamMsg::Done,
        Err(e) => StreamMsg::Err(e),
    });
    want_title
}

fn turn(
    core: &Core,
    conv: &Conversation,
    input: UserInput,
    em: &Emitter,
    cancel: &CancelToken,
) -> Result<(), EngineError> {
    start_turn(core, conv, input);
    let mut shown = 0usize;
    for round in 1..=MAX_ROUNDS {
        if cancel.is_cancelled() {
            return Err(EngineError::Cancelled);
        }
        if round == WRAP_UP_ROUND {
            push_notice(conv, WRAP_UP_NOTICE);
        }
        maybe_compact(core, conv, cancel)?;
        let messages = conv.messages();
        let model = core.model();
        let mut text = String::new();
        let mut reasoning = String::new();
        let result = {
            let mut started = false;
            let mut on_delta = |d: Delta| -> Result<(), EngineError> {
                if !started {
                    started = true;
                    em.send(StreamMsg::AssistantStart);
                }
                let (Delta::Text(s) | Delta::Reasoning(s)) = &d;
                shown += s.len();
                if shown > MAX_STREAMED_OUTPUT_BYTES {
                    return Err(EngineError::OutputCap {
                        limit_bytes: MAX_STREAMED_OUTPUT_BYTES,
                    });
                }
                match d {
                    Delta::Text(t) => {
                        text.push_str(&t);
                        em.send(StreamMsg::Token(t));
                    }
                    Delta::Reasoning(r) => {
                        reasoning.push_str(&r);
                        em.send(StreamMsg::Reasoning(r));
                    }
                }
                Ok(())
            };
            let req = request(core, &model, &core.system_prompt, &messages, true);
            model_step(core, &req, cancel, &mut on_delta)
        };
        if let Some(u) = result.usage {
            em.send(StreamMsg::Usage {
                input: u.input,
                cached_input: u.cached_input,
                output: u.output,
            });
            conv.record(
                Entry::Usage {
                    model: model.clone(),
                    input: u.input,
                    cached_input: u.cached_input,
                    output: u.output,
                },
                false,
            );
        }
        let step = match result.outcome {
            Ok(step) => step,
            Err(e) => {
                // Keep what the user saw, so the next turn's history matches it.
                if !text.is_empty() {
                    commit_assistant(conv, text, reasoning, Vec::new(), "partial");
                }
                return Err(e);
            }
        };
        let StepOutput {
            text: answer,
            tool_calls,
            finish,
            ..
        } = step;
        match finish.kind {
            FinishKind::Stop => {
                commit_assistant(conv, answer, reasoning, Vec::new(), &finish.raw);
                return Ok(());
            }
            FinishKind::ToolCalls if !tool_calls.is_empty() => {
                let history: Vec<ToolCall> = tool_calls
                    .iter()
                    .map(|c| ToolCall {
                        arguments: history_arguments(&c.arguments),
                        ..c.clone()
                    })
                    .collect();
                commit_assistant(conv, answer, reasoning, history, &finish.raw);
                if round == MAX_ROUNDS {
                    for c in &tool_calls {
                        em.send(StreamMsg::ToolStart {
                            id: c.id.clone(),
                            name: c.name.clone(),
                            args_preview: crate::tool_exec::preview(&c.arguments),
                        });
                        crate::tool_exec::push_result(
                            conv,
                            c,
                            ROUND_LIMIT_RESULT.into(),
                            String::new(),
                            true,
                        );
                        em.send(StreamMsg::ToolFailed {
                            id: c.id.clone(),
                            error: "not run: round limit reached".into(),
                        });
                    }
                    return Err(EngineError::RoundLimit { rounds: MAX_ROUNDS });
                }
                crate::tool_exec::run_calls(core, conv, &tool_calls, em, cancel)?;
            }
            FinishKind::ToolCalls => {
                commit_assistant(conv, answer, reasoning, Vec::new(), &finish.raw);
                return Ok(());
            }
            FinishKind::Length | FinishKind::ContentFilter | FinishKind::Other => {
                commit_assistant(conv, answer, reasoning, Vec::new(), &finish.raw);
                return Err(EngineError::Incomplete { reason: finish.raw });
            }
        }
    }
    Err(EngineError::RoundLimit { rounds: MAX_ROUNDS })
}

/// Adds the environment message (first turn) or a change note, then the
/// user's message.
fn start_turn(core: &Core, conv: &Conversation, input: UserInput) {
    let config_dir = core.opts.config_dir.as_deref();
    let cwd = conv.cwd();
    let mut now = EnvironmentFacts::gather(&cwd, config_dir, input.terminal_size);
    let (is_new, note) = {
        let st = conv.lock();
        if now.terminal.is_none() {
            // Unknown now is not a change: keep what the model was told.
            now.terminal = st.env_facts.as_ref().and_then(|f| f.terminal);
        }
        let note = st
            .env_facts
            .as_ref()
            .and_then(|before| now.changes_since(before));
        (st.messages.is_empty(), note)
    };
    if is_new {
        let text = now.message();
        conv.push(
            Message::Environment(text.clone()),
            Entry::Environment { text },
        );
    } else if let Some(note) = note {
        push_notice(conv, &note);
    }
    conv.lock().env_facts = Some(now);
    conv.push(
        Message::User {
            text: input.text.clone(),
            attachments: input.attachments.clone(),
        },
        Entry::User {
            text: input.text,
            attachments: input.attachments,
        },
    );
}

fn push_notice(conv: &Conversation, text: &str) {
    conv.push(
        Message::Notice(text.to_string()),
        Entry::Notice {
            text: text.to_string(),
        },
    );
}

fn commit_assistant(
    conv: &Conversation,
    text: String,
    reasoning: String,
    calls: Vec<ToolCall>,
    finish: &str,
) {
    conv.push(
        Message::Assistant {
            text: text.clone(),
            tool_calls: calls.clone(),
        },
        Entry::Assistant {
            text,
            reasoning,
            tool_calls: calls,
            finish: finish.to_string(),
        },
    );
}

/// The request for one model round: `tools` only when `with_tools`.
fn request<'a>(
    core: &'a Core,
    model: &'a str,
    system: &'a str,
    messages: &'a [Message],
    with_tools: bool,
) -> Request<'a> {
    Request {
        model,
        system,
        messages,
        tools: if with_tools { &core.tools } else { &[] },
    }
}

/// One model request, over HTTP or from the demo script.
pub(crate) fn model_step(
    core: &Core,
    req: &Request<'_>,
    cancel: &CancelToken,
    on_delta: &mut dyn FnMut(Delta) -> Result<(), EngineError>,
) -> StepResult {
    if core.cfg.provider == ProviderKind::Demo {
        return demo_step(core, req.messages, cancel, on_delta);
    }
    let http = providers::prepare(core.cfg.provider, &core.cfg.base_url, req);
    core.transport.step(
        core.cfg.provider,
        core.cfg.api_key.as_ref(),
        &http,
        cancel,
        on_delta,
    )
}

fn demo_step(
    core: &Core,
    messages: &[Message],
    cancel: &CancelToken,
    on_delta: &mut dyn FnMut(Delta) -> Result<(), EngineError>,
) -> StepResult {
    let script = demo::step(messages);
    for d in script.deltas {
        if cancel.sleep(core.opts.demo_word_delay) {
            return StepResult::failed(EngineError::Cancelled);
        }
        if let Err(e) = on_delta(d) {
            return StepResult::failed(e);
        }
    }
    StepResult {
        outcome: Ok(script.output),
        usage: None,
    }
}

/// The serialized size of the next request, as the provider would see it.
pub(crate) fn request_bytes(core: &Core, messages: &[Message]) -> usize {
    let model = core.model();
    let req = request(core, &model, &core.system_prompt, messages, true);
    providers::prepare(core.cfg.provider, &core.cfg.base_url, &req)
        .body
        .len()
}

/// Asks for text only (no UI output); for summaries and titles.
fn side_request(
    core: &Core,
    req: &Request<'_>,
    cancel: &CancelToken,
) -> Result<String, EngineError> {
    if core.cfg.provider == ProviderKind::Demo {
        return Err(EngineError::Config(
            "the demo provider cannot summarise".into(),
        ));
    }
    let mut text = String::new();
    let mut collect = |d: Delta| {
        if let Delta::Text(t) = d {
            text.push_str(&t);
        }
        Ok(())
    };
    let step = model_step(core, req, cancel, &mut collect).outcome?;
    if step.finish.kind != FinishKind::Stop || !step.tool_calls.is_empty() {
        return Err(EngineError::Incomplete {
            reason: step.finish.raw,
        });
    }
    Ok(text)
}

/// Summarises older history when the next request would pass the budget.
/// The summary request reuses the exact prefix (system, tools, history)
/// and appends the instruction, so the provider's cache still applies.
fn maybe_compact(
    core: &Core,
    conv: &Conversation,
    cancel: &CancelToken,
) -> Result<(), EngineError> {
    let messages = conv.messages();
    if request_bytes(core, &messages) <= core.opts.context_budget_bytes {
        return Ok(());
    }
    let base = request_bytes(core, &[]);
    let size_of = |m: &Message| request_bytes(core, std::slice::from_ref(m)).saturating_sub(base);
    let Some(keep_from) = choose_keep_from(&messages, &size_of) else {
        return Ok(());
    };
    let mut asking = messages.clone();
    asking.push(Message::Notice(SUMMARY_INSTRUCTION.to_string()));
    let req = request(
        core,
        &core.cfg.fast_model,
        &core.system_prompt,
        &asking,
        true,
    );
    let (text, method) = match side_request(core, &req, cancel) {
        Ok(t) if !t.trim().is_empty() => (t.trim().to_string(), "summary"),
        Err(EngineError::Cancelled) => return Err(EngineError::Cancelled),
        _ => (dropped_placeholder(keep_from.saturating_sub(1)), "dropped"),
    };
    let mut st = conv.lock();
    st.messages = apply_summary(&st.messages, &text, keep_from);
    st.write(
        Entry::Summary {
            text,
            keep_from,
            method: method.to_string(),
        },
        false,
    );
    Ok(())
}

pub(crate) fn make_title(core: &Core, conv: &Conversation) {
    let first_text = conv
        .lock()
        .messages
        .iter()
        .find_map(|m| match m {
            Message::User { text, .. } => Some(text.clone()),
            _ => None,
        })
        .unwrap_or_default();
    let title = if core.cfg.provider == ProviderKind::Demo {
        Some("koi demo".to_string())
    } else {
        let snippet: String = first_text.chars().take(2000).collect();
        let messages = [Message::User {
            text: snippet,
            attachments: Vec::new(),
        }];
        let req = request(core, &core.cfg.fast_model, TITLE_SYSTEM, &messages, false);
        side_request(core, &req, &CancelToken::new())
            .ok()
            .map(|t| clean_title(&t))
            .filter(|t| !t.is_empty())
    };
    if let Some(title) = title {
        let mut st = conv.lock();
        st.title = Some(title.clone());
        st.write(Entry::Title { text: title }, false);
    }
}

fn clean_title(raw: &str) -> String {
    let line = raw.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let t = line
        .trim()
        .trim_matches(|c: char| c == '"' || c == '\'' || c == '*' || c == '#' || c == '`')
        .trim_end_matches(['.', '!', ':'])
        .trim();
    t.chars().take(MAX_TITLE_CHARS).collect()
}
