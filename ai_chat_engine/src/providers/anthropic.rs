//! Anthropic Messages over SSE: `message_start`, content blocks (text,
//! thinking, tool_use with `input_json_delta`s), `message_delta` with the
//! stop reason, `message_stop`.
//!
//! Cache breakpoints: one on the static system prompt, one on the last
//! block of the request. Anthropic keys its cache on content, not on the
//! markers, so the moving marker does not break the growing prefix.

use serde::{Deserialize, Serialize};

use super::{
    parse_json, DecodeError, Decoder, Delta, FinishKind, Request, StepBuilder, StepOutput, Usage,
};
use crate::budgets::MAX_OUTPUT_TOKENS;
use crate::message::{Message, Role};
use crate::sse::SseEvent;

/// The API version header value this dialect is written against.
pub(crate) const API_VERSION: &str = "2023-06-01";

#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    max_tokens: u32,
    stream: bool,
    system: Vec<Block<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<ToolJson<'a>>,
    messages: Vec<Msg<'a>>,
}

#[derive(Serialize)]
struct ToolJson<'a> {
    name: &'a str,
    description: &'a str,
    input_schema: &'a serde_json::Value,
}

#[derive(Serialize)]
struct Msg<'a> {
    role: &'static str,
    content: Vec<Block<'a>>,
}

#[derive(Serialize, Clone, Copy)]
struct CacheControl {
    #[serde(rename = "type")]
    kind: &'static str,
}

const EPHEMERAL: CacheControl = CacheControl { kind: "ephemeral" };

fn is_false(b: &bool) -> bool {
    !*b
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block<'a> {
    Text {
        text: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    ToolUse {
        id: &'a str,
        name: &'a str,
        input: serde_json::Value,
        #[serde(skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    ToolResult {
        tool_use_id: &'a str,
        content: &'a str,
        #[serde(skip_serializing_if = "is_false")]
        is_error: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
}

impl Block<'_> {
    fn mark(&mut self) {
        match self {
            Block::Text { cache_control, .. }
            | Block::ToolUse { cache_control, .. }
            | Block::ToolResult { cache_control, .. } => *cache_control = Some(EPHEMERAL),
        }
    }
}

fn blocks(m: &Message) -> Vec<Block<'_>> {
    match m {
        Message::Assistant { text, tool_calls } => {
            let mut out = Vec::new();
            if !text.is_empty() || tool_calls.is_empty() {
                // An empty text block is rejected; say so instead.
                let text = if text.is_empty() {
                    "(no answer)".to_string()
                } else {
                    text.clone()
                };
                out.push(Block::Text {
                    text,
                    cache_control: None,
                });
            }
            for c in tool_calls {
                out.push(Block::ToolUse {
                    id: &c.id,
                    name: &c.name,
                    input: serde_json::from_str(&c.arguments)
                        .unwrap_or_else(|_| serde_json::Value::Object(Default::default())),
                    cache_control: None,
                });
            }
            out
        }
        Message::ToolResult {
            call_id,
            content,
            is_error,
            ..
        } => vec![Block::ToolResult {
            tool_use_id: call_id,
            content,
            is_error: *is_error,
            cache_control: None,
        }],
        other => vec![Block::Text {
            text: other.user_text().unwrap_or_default(),
            cache_control: None,
        }],
    }
}

/// The request body. Consecutive user-side messages (tool results, notices)
/// merge into one user turn, as the API requires alternating roles.
pub(crate) fn body(req: &Request<'_>) -> String {
    let mut messages: Vec<Msg<'_>> = Vec::new();
    for m in req.messages {
        let role = match m.role() {
            Role::Assistant => "assistant",
            Role::User | Role::Tool => "user",
        };
        match messages.last_mut() {
            Some(last) if last.role == role => last.content.extend(blocks(m)),
            _ => messages.push(Msg {
                role,
                content: blocks(m),
            }),
        }
    }
    if let Some(b) = messages.last_mut().and_then(|m| m.content.last_mut()) {
        b.mark();
    }
    let body = Body {
        model: req.model,
        max_tokens: MAX_OUTPUT_TOKENS,
        stream: true,
        system: vec![Block::Text {
            text: req.system.to_string(),
            cache_control: Some(EPHEMERAL),
        }],
        tools: req
            .tools
            .iter()
            .map(|t| ToolJson {
                name: &t.name,
                description: &t.description,
                input_schema: &t.input_schema,
            })
            .collect(),
        messages,
    };
    // Serialising plain structs of strings and `Value`s cannot fail.
    serde_json::to_string(&body).unwrap_or_default()
}

#[derive(Deserialize)]
struct Event {
    #[serde(rename = "type")]
    kind: String,
    index: Option<usize>,
    message: Option<MessageJson>,
    content_block: Option<BlockJson>,
    delta: Option<DeltaJson>,
    usage: Option<UsageJson>,
    error: Option<ErrorJson>,
}

#[derive(Deserialize)]
struct MessageJson {
    usage: Option<UsageJson>,
}

#[derive(Deserialize)]
struct BlockJson {
    #[serde(rename = "type")]
    kind: String,
    id: Option<String>,
    name: Option<String>,
}

#[derive(Deserialize)]
struct DeltaJson {
    #[serde(rename = "type")]
    kind: Option<String>,
    text: Option<String>,
    thinking: Option<String>,
    partial_json: Option<String>,
    stop_reason: Option<String>,
}

#[derive(Deserialize)]
struct UsageJson {
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    cache_read_input_tokens: Option<u64>,
    cache_creation_input_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct ErrorJson {
    #[serde(rename = "type")]
    kind: Option<String>,
    message: Option<String>,
}

/// Decoder state for one response.
#[derive(Default)]
pub(crate) struct MessagesDecoder {
    step: StepBuilder,
    stop_reason: Option<String>,
    stopped: bool,
}

impl MessagesDecoder {
    fn on_usage(&mut self, u: &UsageJson) {
        let usage = self.step.usage.get_or_insert_with(Usage::default);
        if let Some(i) = u.input_tokens {
            let read = u.cache_read_input_tokens.unwrap_or(0);
            let created = u.cache_creation_input_tokens.unwrap_or(0);
            usage.input = i + read + created;
            usage.cached_input = read;
        }
        if let Some(o) = u.output_tokens {
            usage.output = o;
        }
    }
}

impl Decoder for MessagesDecoder {
    fn on_event(&mut self, ev: &SseEvent, out: &mut Vec<Delta>) -> Result<(), DecodeError> {
        if self.stopped {
            return Ok(());
        }
        let e: Event = parse_json(&ev.data)?;
        match e.kind.as_str() {
            "message_start" => {
                if let Some(u) = e.message.and_then(|m| m.usage) {
                    self.on_usage(&u);
                }
            }
            "content_block_start" => {
                let block = e.content_block.ok_or_else(|| {
                    DecodeError::Malformed("content_block_start without a block".into())
                })?;
                if block.kind == "tool_use" {
                    let index = e.index.unwrap_or(0);
                    self.step.calls.start(
                        &index.to_string(),
                        block.id.as_deref().unwrap_or(""),
                        block.name.as_deref().unwrap_or(""),
                    )?;
                }
            }
            "content_block_delta" => {
                let Some(d) = e.delta else { return Ok(()) };
                match d.kind.as_deref() {
                    Some("text_delta") => {
                        if let Some(t) = d.text {
                            self.step.push_text(t, out);
                        }
                    }
                    Some("thinking_delta") => {
                        if let Some(t) = d.thinking.filter(|t| !t.is_empty()) {
                            out.push(Delta::Reasoning(t));
                        }
                    }
                    Some("input_json_delta") => {
                        let index = e.index.unwrap_or(0);
                        self.step.calls.push_args(
                            &index.to_string(),
                            d.partial_json.as_deref().unwrap_or(""),
                        )?;
                    }
                    _ => {} // signature_delta, citations: nothing to show
                }
            }
            "message_delta" => {
                if let Some(r) = e.delta.and_then(|d| d.stop_reason) {
                    self.stop_reason = Some(r);
                }
                if let Some(u) = e.usage {
                    self.on_usage(&u);
                }
            }
            "message_stop" => self.stopped = true,
            "error" => {
                let er = e.error;
                let kind = er.as_ref().and_then(|x| x.kind.clone()).unwrap_or_default();
                let msg = er.and_then(|x| x.message).unwrap_or_default();
                return Err(DecodeError::Provider(format!("{kind}: {msg}")));
            }
            _ => {} // ping, content_block_stop
        }
        Ok(())
    }

    fn is_complete(&self) -> bool {
        self.stopped
    }

    fn finish(self: Box<Self>) -> Result<StepOutput, DecodeError> {
        let me = *self;
        if !me.stopped {
            return Err(DecodeError::Malformed(
                "the stream ended before message_stop".into(),
            ));
        }
        let raw = me.stop_reason.unwrap_or_else(|| "end_turn".into());
        let kind = match raw.as_str() {
            "tool_use" => FinishKind::ToolCalls,
            "end_turn" | "stop_sequence" => FinishKind::Stop,
            "max_tokens" => FinishKind::Length,
            "refusal" => FinishKind::ContentFilter,
            _ => FinishKind::Other,
        };
        let mut step = me.step.finish(kind, raw)?;
        // A tool_use block with no input deltas means `{}` input.
        for c in &mut step.tool_calls {
            if c.arguments.is_empty() {
                c.arguments = "{}".into();
            }
        }
        Ok(step)
    }

    fn usage(&self) -> Option<Usage> {
        self.step.usage
    }
}
