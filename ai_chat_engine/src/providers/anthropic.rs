//! Anthropic Messages over SSE: `message_start`, content blocks (text,
//! thinking, tool_use with `input_json_delta`s), `message_delta` with the
//! stop reason, `message_stop`.
//!
//! Cache breakpoints, four at most (the API's limit): the tools and the
//! static system prompt, which never move; the latest block, which moves
//! forward every round; and either the conversation's environment block
//! (a prefix that survives a compaction) or, when a round added more
//! blocks than the cache looks back over, the end of the previous
//! request, so its cached prefix is still found. Anthropic keys its cache
//! on content, not on the markers, so moving a marker breaks nothing.

use serde::{Deserialize, Serialize};

use super::error::{provider_error, shorten};
use super::{
    parse_json, DecodeError, Decoder, Delta, FinishKind, Request, StepBuilder, StepOutput, Usage,
};
use crate::budgets::MAX_OUTPUT_TOKENS;
use crate::message::{Message, ReasoningBlock, Role};
use crate::sse::SseEvent;
use crate::thinking::{AnthropicMode, Thinking};

/// The API version header value this dialect is written against.
pub(crate) const API_VERSION: &str = "2023-06-01";

#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    max_tokens: u32,
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking: Option<ThinkingJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_config: Option<OutputConfig>,
    system: Vec<Block<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<AnyTool<'a>>,
    messages: Vec<Msg<'a>>,
}

/// A tool koi runs, or one Anthropic runs itself.
#[derive(Serialize)]
#[serde(untagged)]
enum AnyTool<'a> {
    Client(ToolJson<'a>),
    Server(ServerTool),
}

/// Anthropic's web search server tool.
#[derive(Serialize)]
struct ServerTool {
    #[serde(rename = "type")]
    kind: &'static str,
    name: &'static str,
    max_uses: u32,
}

/// The server tool's versioned type, as Anthropic documents it.
const WEB_SEARCH_TOOL_TYPE: &str = "web_search_20250305";

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ThinkingJson {
    Adaptive,
    Enabled { budget_tokens: u32 },
}

#[derive(Serialize)]
struct OutputConfig {
    effort: &'static str,
}

#[derive(Serialize)]
struct ToolJson<'a> {
    name: &'a str,
    description: &'a str,
    input_schema: &'a serde_json::Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_control: Option<CacheControl>,
}

/// How many blocks before a breakpoint the cache checks for an earlier
/// hit (Anthropic documents "about 20"); one fewer, to stay inside it.
const CACHE_LOOKBACK_BLOCKS: usize = 19;

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
struct ImageSource<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    media_type: &'static str,
    data: &'a str,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block<'a> {
    /// Sent back exactly as received; a thinking block takes no cache
    /// marker.
    Thinking {
        thinking: &'a str,
        signature: &'a str,
    },
    RedactedThinking {
        data: &'a str,
    },
    Image {
        source: ImageSource<'a>,
        #[serde(skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
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
            | Block::Image { cache_control, .. }
            | Block::ToolUse { cache_control, .. }
            | Block::ToolResult { cache_control, .. } => *cache_control = Some(EPHEMERAL),
            Block::Thinking { .. } | Block::RedactedThinking { .. } => {}
        }
    }
}

fn blocks(m: &Message) -> Vec<Block<'_>> {
    match m {
        Message::Assistant {
            text,
            tool_calls,
            reasoning_blocks,
        } => {
            // Thinking opens the turn, as the model produced it; the API
            // checks the signatures of the turn that carries the tool_use.
            let mut out: Vec<Block<'_>> = reasoning_blocks
                .iter()
                .filter_map(|b| match b {
                    ReasoningBlock::Thinking {
                        thinking,
                        signature,
                    } => Some(Block::Thinking {
                        thinking,
                        signature,
                    }),
                    ReasoningBlock::RedactedThinking { data } => {
                        Some(Block::RedactedThinking { data })
                    }
                    ReasoningBlock::Encrypted { .. } => None,
                })
                .collect();
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
        other => {
            let mut out: Vec<Block<'_>> = match other {
                Message::User { images, .. } => images
                    .iter()
                    .map(|im| Block::Image {
                        source: ImageSource {
                            kind: "base64",
                            media_type: im.format.media_type(),
                            data: &im.data,
                        },
                        cache_control: None,
                    })
                    .collect(),
                _ => Vec::new(),
            };
            out.push(Block::Text {
                text: other.user_text().unwrap_or_default(),
                cache_control: None,
            });
            out
        }
    }
}

/// Marks the moving breakpoints (see the module docs): the latest block,
/// and the previous request's end when this round added more blocks than
/// the cache looks back over, else the environment block.
fn mark_breakpoints(messages: &mut [Msg<'_>], starts_with_environment: bool) {
    let Some(last) = messages.len().checked_sub(1) else {
        return;
    };
    if let Some(b) = messages[last].content.last_mut() {
        b.mark();
    }
    // The previous request ended with the user turn before the latest
    // assistant turn; what came after it is this round's growth.
    let previous_end = last
        .checked_sub(2)
        .filter(|&p| messages[p + 1].role == "assistant" && messages[p].role == "user");
    let grown = previous_end.map_or(0, |p| {
        messages[p + 1..]
            .iter()
            .map(|m| m.content.len())
            .sum::<usize>()
    });
    match previous_end {
        Some(p) if grown > CACHE_LOOKBACK_BLOCKS => {
            if let Some(b) = messages[p].content.last_mut() {
                b.mark();
            }
        }
        // Only when it is not the latest block already.
        _ if starts_with_environment && (last > 0 || messages[0].content.len() > 1) => {
            if let Some(b) = messages[0].content.first_mut() {
                b.mark();
            }
        }
        _ => {}
    }
}

/// The request body. Consecutive user-side messages (tool results, notices)
/// merge into one user turn, as the API requires alternating roles.
pub(crate) fn body(req: &Request<'_>, thinking: Option<Thinking>) -> String {
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
    let starts_with_environment = matches!(req.messages.first(), Some(Message::Environment(_)));
    mark_breakpoints(&mut messages, starts_with_environment);
    let last_tool = req.tools.len().saturating_sub(1);
    let body = Body {
        model: req.model,
        max_tokens: thinking.map_or(MAX_OUTPUT_TOKENS, Thinking::max_tokens),
        stream: true,
        thinking: thinking.map(|t| match t.mode {
            AnthropicMode::Adaptive => ThinkingJson::Adaptive,
            AnthropicMode::Budget => ThinkingJson::Enabled {
                budget_tokens: t.level.budget_tokens(),
            },
        }),
        output_config: thinking
            .filter(|t| t.mode == AnthropicMode::Adaptive)
            .and_then(|t| t.level.effort())
            .map(|effort| OutputConfig { effort }),
        system: vec![Block::Text {
            text: req.system.to_string(),
            cache_control: Some(EPHEMERAL),
        }],
        // The server tool goes first, so the breakpoint on the last client
        // tool still covers every tool.
        tools: req
            .native_search
            .then_some(AnyTool::Server(ServerTool {
                kind: WEB_SEARCH_TOOL_TYPE,
                name: "web_search",
                max_uses: super::NATIVE_SEARCH_MAX_USES,
            }))
            .into_iter()
            .chain(req.tools.iter().enumerate().map(|(i, t)| {
                AnyTool::Client(ToolJson {
                    name: &t.name,
                    description: &t.description,
                    input_schema: &t.input_schema,
                    cache_control: (i == last_tool).then_some(EPHEMERAL),
                })
            }))
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
    thinking: Option<String>,
    signature: Option<String>,
    data: Option<String>,
}

#[derive(Deserialize)]
struct DeltaJson {
    #[serde(rename = "type")]
    kind: Option<String>,
    text: Option<String>,
    thinking: Option<String>,
    signature: Option<String>,
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

/// Decoder state for one response.
#[derive(Default)]
pub(crate) struct MessagesDecoder {
    step: StepBuilder,
    /// Thinking blocks by their content index, as they stream.
    thinking: Vec<(usize, ReasoningBlock)>,
    /// Content indexes of blocks the provider's own tools stream.
    server_tools: Vec<usize>,
    stop_reason: Option<String>,
    stopped: bool,
}

impl MessagesDecoder {
    /// The thinking block streaming at this content index.
    fn thinking_at(&mut self, index: Option<usize>) -> Option<&mut ReasoningBlock> {
        let index = index.unwrap_or(0);
        self.thinking
            .iter_mut()
            .rev()
            .find(|(i, _)| *i == index)
            .map(|(_, b)| b)
    }

    fn on_usage(&mut self, u: &UsageJson) {
        let usage = self.step.usage.get_or_insert_with(Usage::default);
        if let Some(i) = u.input_tokens {
            let read = u.cache_read_input_tokens.unwrap_or(0);
            let created = u.cache_creation_input_tokens.unwrap_or(0);
            // Saturating: the numbers come from outside.
            usage.input = i.saturating_add(read).saturating_add(created);
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
                let index = e.index.unwrap_or(0);
                match block.kind.as_str() {
                    "tool_use" => self.step.calls.start(
                        &index.to_string(),
                        block.id.as_deref().unwrap_or(""),
                        block.name.as_deref().unwrap_or(""),
                    )?,
                    "thinking" => self.thinking.push((
                        index,
                        ReasoningBlock::Thinking {
                            thinking: block.thinking.unwrap_or_default(),
                            signature: block.signature.unwrap_or_default(),
                        },
                    )),
                    "redacted_thinking" => self.thinking.push((
                        index,
                        ReasoningBlock::RedactedThinking {
                            data: block.data.unwrap_or_default(),
                        },
                    )),
                    // A tool the provider runs itself (web search, code
                    // execution): its input streams too, but it is not
                    // ours to call, and its result block is the
                    // provider's; the answer's text follows them.
                    "server_tool_use" | "mcp_tool_use" => self.server_tools.push(index),
                    _ => {} // text, *_tool_result blocks
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
                            if let Some(ReasoningBlock::Thinking { thinking, .. }) =
                                self.thinking_at(e.index)
                            {
                                thinking.push_str(&t);
                            }
                            out.push(Delta::Reasoning(t));
                        }
                    }
                    Some("signature_delta") => {
                        if let (Some(s), Some(ReasoningBlock::Thinking { signature, .. })) =
                            (d.signature, self.thinking_at(e.index))
                        {
                            signature.push_str(&s);
                        }
                    }
                    Some("input_json_delta") => {
                        let index = e.index.unwrap_or(0);
                        if self.server_tools.contains(&index) {
                            return Ok(());
                        }
                        self.step.calls.push_args(
                            &index.to_string(),
                            d.partial_json.as_deref().unwrap_or(""),
                        )?;
                    }
                    _ => {} // citations: nothing to show
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
                let value: serde_json::Value = parse_json(&ev.data)?;
                return Err(DecodeError::Provider(
                    provider_error(&value).unwrap_or_else(|| shorten(&ev.data)),
                ));
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
        let mut builder = me.step;
        builder.reasoning_blocks = me.thinking.into_iter().map(|(_, b)| b).collect();
        let kind = match raw.as_str() {
            "tool_use" => FinishKind::ToolCalls,
            "end_turn" | "stop_sequence" => FinishKind::Stop,
            "max_tokens" => FinishKind::Length,
            "refusal" => FinishKind::ContentFilter,
            _ => FinishKind::Other,
        };
        let mut step = builder.finish(kind, raw)?;
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
