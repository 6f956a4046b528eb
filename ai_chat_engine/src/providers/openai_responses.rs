//! OpenAI Responses over SSE: typed events (`response.output_text.delta`,
//! `response.function_call_arguments.delta`, …) ending with
//! `response.completed`, `response.incomplete` or `response.failed`; no
//! `[DONE]` sentinel.

use serde::{Deserialize, Serialize};

use super::{
    parse_json, DecodeError, Decoder, Delta, FinishKind, Request, StepBuilder, StepOutput, Usage,
};
use crate::message::Message;
use crate::sse::SseEvent;

#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    instructions: &'a str,
    stream: bool,
    /// Stateless: the whole transcript is sent every round, which is what
    /// keeps the prefix stable and cacheable.
    store: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<ToolJson<'a>>,
    input: Vec<Item<'a>>,
}

#[derive(Serialize)]
struct ToolJson<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    name: &'a str,
    description: &'a str,
    parameters: &'a serde_json::Value,
    /// Our schemas are not written for strict mode.
    strict: bool,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Item<'a> {
    Message {
        role: &'static str,
        content: Vec<Content>,
    },
    FunctionCall {
        call_id: &'a str,
        name: &'a str,
        arguments: &'a str,
    },
    FunctionCallOutput {
        call_id: &'a str,
        output: &'a str,
    },
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Content {
    InputText { text: String },
    OutputText { text: String },
}

fn items<'a>(m: &'a Message, out: &mut Vec<Item<'a>>) {
    match m {
        Message::Assistant { text, tool_calls } => {
            if !text.is_empty() {
                out.push(Item::Message {
                    role: "assistant",
                    content: vec![Content::OutputText { text: text.clone() }],
                });
            }
            for c in tool_calls {
                out.push(Item::FunctionCall {
                    call_id: &c.id,
                    name: &c.name,
                    arguments: &c.arguments,
                });
            }
        }
        Message::ToolResult {
            call_id, content, ..
        } => out.push(Item::FunctionCallOutput {
            call_id,
            output: content,
        }),
        other => out.push(Item::Message {
            role: "user",
            content: vec![Content::InputText {
                text: other.user_text().unwrap_or_default(),
            }],
        }),
    }
}

/// The request body.
pub(crate) fn body(req: &Request<'_>) -> String {
    let mut input = Vec::new();
    for m in req.messages {
        items(m, &mut input);
    }
    let body = Body {
        model: req.model,
        instructions: req.system,
        stream: true,
        store: false,
        tools: req
            .tools
            .iter()
            .map(|t| ToolJson {
                kind: "function",
                name: &t.name,
                description: &t.description,
                parameters: &t.input_schema,
                strict: false,
            })
            .collect(),
        input,
    };
    // Serialising plain structs of strings and `Value`s cannot fail.
    serde_json::to_string(&body).unwrap_or_default()
}

#[derive(Deserialize)]
struct Event {
    #[serde(rename = "type")]
    kind: String,
    delta: Option<String>,
    item_id: Option<String>,
    output_index: Option<usize>,
    arguments: Option<String>,
    item: Option<ItemJson>,
    response: Option<ResponseJson>,
    message: Option<String>,
}

#[derive(Deserialize)]
struct ItemJson {
    #[serde(rename = "type")]
    kind: String,
    id: Option<String>,
    call_id: Option<String>,
    name: Option<String>,
    arguments: Option<String>,
}

#[derive(Deserialize)]
struct ResponseJson {
    usage: Option<UsageJson>,
    incomplete_details: Option<Incomplete>,
    error: Option<ErrorJson>,
}

#[derive(Deserialize)]
struct UsageJson {
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
    input_tokens_details: Option<InputDetails>,
}

#[derive(Deserialize)]
struct InputDetails {
    cached_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct Incomplete {
    reason: Option<String>,
}

#[derive(Deserialize)]
struct ErrorJson {
    message: Option<String>,
}

/// Decoder state for one response.
#[derive(Default)]
pub(crate) struct ResponsesDecoder {
    step: StepBuilder,
    finish: Option<String>,
}

fn call_key(item_id: Option<&str>, output_index: Option<usize>) -> String {
    match (item_id, output_index) {
        (Some(id), _) => id.to_string(),
        (None, Some(i)) => format!("#{i}"),
        (None, None) => String::new(),
    }
}

impl ResponsesDecoder {
    fn on_usage(&mut self, r: &ResponseJson) {
        if let Some(u) = &r.usage {
            self.step.usage = Some(Usage {
                input: u.input_tokens,
                cached_input: u
                    .input_tokens_details
                    .as_ref()
                    .and_then(|d| d.cached_tokens)
                    .unwrap_or(0),
                output: u.output_tokens,
            });
        }
    }
}

impl Decoder for ResponsesDecoder {
    fn on_event(&mut self, ev: &SseEvent, out: &mut Vec<Delta>) -> Result<(), DecodeError> {
        if self.finish.is_some() {
            return Ok(());
        }
        let e: Event = parse_json(&ev.data)?;
        match e.kind.as_str() {
            "response.output_text.delta" => {
                if let Some(d) = e.delta {
                    self.step.push_text(d, out);
                }
            }
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                if let Some(d) = e.delta.filter(|d| !d.is_empty()) {
                    out.push(Delta::Reasoning(d));
                }
            }
            "response.output_item.added" => {
                if let Some(item) = e.item.filter(|i| i.kind == "function_call") {
                    let key = call_key(item.id.as_deref(), e.output_index);
                    self.step.calls.start(
                        &key,
                        item.call_id.as_deref().unwrap_or(""),
                        item.name.as_deref().unwrap_or(""),
                    )?;
                    if let Some(a) = item.arguments.filter(|a| !a.is_empty()) {
                        self.step.calls.push_args(&key, &a)?;
                    }
                }
            }
            "response.function_call_arguments.delta" => {
                let key = call_key(e.item_id.as_deref(), e.output_index);
                self.step
                    .calls
                    .push_args(&key, e.delta.as_deref().unwrap_or(""))?;
            }
            "response.function_call_arguments.done" => {
                let key = call_key(e.item_id.as_deref(), e.output_index);
                if let Some(a) = e.arguments {
                    self.step.calls.set_args(&key, &a)?;
                }
            }
            "response.output_item.done" => {
                if let Some(item) = e.item.filter(|i| i.kind == "function_call") {
                    let key = call_key(item.id.as_deref(), e.output_index);
                    if let Some(a) = item.arguments {
                        self.step.calls.set_args(&key, &a)?;
                    }
                }
            }
            "response.completed" => {
                if let Some(r) = &e.response {
                    self.on_usage(r);
                }
                self.finish = Some("completed".into());
            }
            "response.incomplete" => {
                let reason = e
                    .response
                    .as_ref()
                    .and_then(|r| {
                        self.on_usage(r);
                        r.incomplete_details.as_ref()?.reason.clone()
                    })
                    .unwrap_or_else(|| "incomplete".into());
                self.finish = Some(reason);
            }
            "response.failed" => {
                let msg = e
                    .response
                    .and_then(|r| r.error)
                    .and_then(|er| er.message)
                    .unwrap_or_else(|| "the response failed".into());
                return Err(DecodeError::Provider(msg));
            }
            "error" => {
                return Err(DecodeError::Provider(
                    e.message.unwrap_or_else(|| "unspecified error".into()),
                ))
            }
            _ => {} // created, in_progress, part/annotation events: nothing to do
        }
        Ok(())
    }

    fn is_complete(&self) -> bool {
        self.finish.is_some()
    }

    fn finish(self: Box<Self>) -> Result<StepOutput, DecodeError> {
        let me = *self;
        let Some(raw) = me.finish else {
            return Err(DecodeError::Malformed(
                "the stream ended before the response completed".into(),
            ));
        };
        let kind = match raw.as_str() {
            "completed" if !me.step.calls.is_empty() => FinishKind::ToolCalls,
            "completed" => FinishKind::Stop,
            "max_output_tokens" => FinishKind::Length,
            "content_filter" => FinishKind::ContentFilter,
            _ => FinishKind::Other,
        };
        me.step.finish(kind, raw)
    }

    fn usage(&self) -> Option<Usage> {
        self.step.usage
    }
}
