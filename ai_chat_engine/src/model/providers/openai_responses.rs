//! OpenAI Responses over SSE: typed events (`response.output_text.delta`,
//! `response.function_call_arguments.delta`, …) ending with
//! `response.completed`, `response.incomplete` or `response.failed`; no
//! `[DONE]` sentinel.

use serde::{Deserialize, Serialize};

use super::error::{provider_error, shorten};
use super::{
    parse_json, DecodeError, Decoder, Delta, FinishKind, Request, StepBuilder, StepOutput, Usage,
};
use crate::message::{Message, ReasoningBlock};
use crate::model::sse::SseEvent;
use crate::model::thinking::Thinking;

#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    instructions: &'a str,
    stream: bool,
    /// Stateless: the whole transcript is sent every round, which is what
    /// keeps the prefix stable and cacheable.
    store: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning: Option<ReasoningJson>,
    /// With `store:false` the reasoning lives nowhere but here: ask for
    /// it encrypted, to send back on the next round.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    include: Vec<&'static str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<AnyTool<'a>>,
    input: Vec<Item<'a>>,
}

/// A function koi runs, or the provider's own web search.
#[derive(Serialize)]
#[serde(untagged)]
enum AnyTool<'a> {
    Function(ToolJson<'a>),
    /// `{"type":"web_search"}`.
    Search {
        #[serde(rename = "type")]
        kind: &'static str,
    },
}

#[derive(Serialize)]
struct ReasoningJson {
    effort: &'static str,
}

/// The `include` value that returns reasoning as `encrypted_content`.
const ENCRYPTED_REASONING: &str = "reasoning.encrypted_content";

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
    /// Earlier assistant text, as the API's EasyInputMessage (its content a
    /// string): the published definition allows `output_text` parts only
    /// in an OutputMessage, which needs an id and a status that a
    /// stateless request has none of.
    #[serde(rename = "message")]
    AssistantText {
        role: &'static str,
        content: &'a str,
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
    /// Sent without its id: with `store:false` the server keeps no item
    /// an id could name; the encrypted content carries it all.
    Reasoning {
        summary: Vec<SummaryJson<'a>>,
        encrypted_content: &'a str,
    },
}

#[derive(Serialize)]
struct SummaryJson<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Content {
    /// `detail` is required by the published definition; `auto` is what
    /// the API takes when it is left out.
    InputImage {
        image_url: String,
        detail: &'static str,
    },
    InputText {
        text: String,
    },
}

fn items<'a>(m: &'a Message, out: &mut Vec<Item<'a>>) {
    match m {
        Message::Assistant {
            text,
            tool_calls,
            reasoning_blocks,
        } => {
            for b in reasoning_blocks {
                if let ReasoningBlock::Encrypted {
                    summary,
                    encrypted_content,
                } = b
                {
                    out.push(Item::Reasoning {
                        summary: summary
                            .iter()
                            .map(|text| SummaryJson {
                                kind: "summary_text",
                                text,
                            })
                            .collect(),
                        encrypted_content,
                    });
                }
            }
            if !text.is_empty() {
                out.push(Item::AssistantText {
                    role: "assistant",
                    content: text,
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
        other => {
            let mut content: Vec<Content> = match other {
                Message::User { images, .. } => images
                    .iter()
                    .map(|im| Content::InputImage {
                        image_url: im.data_url(),
                        detail: "auto",
                    })
                    .collect(),
                _ => Vec::new(),
            };
            content.push(Content::InputText {
                text: other.user_text().unwrap_or_default(),
            });
            out.push(Item::Message {
                role: "user",
                content,
            });
        }
    }
}

/// The request body.
pub(crate) fn body(req: &Request<'_>, thinking: Option<Thinking>) -> String {
    let mut input = Vec::new();
    for m in req.messages {
        items(m, &mut input);
    }
    let body = Body {
        model: req.model,
        instructions: req.system,
        stream: true,
        store: false,
        reasoning: thinking
            .and_then(|t| t.level.effort())
            .map(|effort| ReasoningJson { effort }),
        include: if thinking.is_some() {
            vec![ENCRYPTED_REASONING]
        } else {
            Vec::new()
        },
        tools: req
            .native_search
            .then_some(AnyTool::Search { kind: "web_search" })
            .into_iter()
            .chain(req.tools.iter().map(|t| {
                AnyTool::Function(ToolJson {
                    kind: "function",
                    name: &t.name,
                    description: &t.description,
                    parameters: &t.input_schema,
                    strict: false,
                })
            }))
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
}

#[derive(Deserialize)]
struct ItemJson {
    #[serde(rename = "type")]
    kind: String,
    id: Option<String>,
    call_id: Option<String>,
    name: Option<String>,
    arguments: Option<String>,
    #[serde(default)]
    summary: Vec<SummaryPart>,
    encrypted_content: Option<String>,
}

#[derive(Deserialize)]
struct SummaryPart {
    #[serde(default)]
    text: String,
}

#[derive(Deserialize)]
struct ResponseJson {
    usage: Option<UsageJson>,
    incomplete_details: Option<Incomplete>,
}

#[derive(Deserialize)]
struct UsageJson {
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
    input_tokens_details: Option<InputDetails>,
    output_tokens_details: Option<OutputDetails>,
}

#[derive(Deserialize)]
struct OutputDetails {
    reasoning_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct InputDetails {
    cached_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct Incomplete {
    reason: Option<String>,
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
                reasoning: u
                    .output_tokens_details
                    .as_ref()
                    .and_then(|d| d.reasoning_tokens)
                    .unwrap_or(0),
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
            "response.output_item.done" => match e.item {
                Some(item) if item.kind == "function_call" => {
                    let key = call_key(item.id.as_deref(), e.output_index);
                    if let Some(a) = item.arguments {
                        self.step.calls.set_args(&key, &a)?;
                    }
                }
                Some(item) if item.kind == "reasoning" => {
                    // Without its encrypted content a reasoning item
                    // could not be sent back statelessly.
                    if let Some(encrypted_content) = item.encrypted_content {
                        self.step.reasoning_blocks.push(ReasoningBlock::Encrypted {
                            summary: item.summary.into_iter().map(|p| p.text).collect(),
                            encrypted_content,
                        });
                    }
                }
                _ => {}
            },
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
            "response.failed" | "error" => {
                let fallback = if e.kind == "error" {
                    shorten(&ev.data)
                } else {
                    "the response failed".to_string()
                };
                let value: serde_json::Value = parse_json(&ev.data)?;
                return Err(DecodeError::Provider(
                    provider_error(&value).unwrap_or(fallback),
                ));
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
