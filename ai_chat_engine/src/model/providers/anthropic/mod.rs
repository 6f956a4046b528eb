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

mod content;
mod decode;

use serde::Serialize;

pub(crate) use decode::MessagesDecoder;

use super::Request;
use crate::budgets::MAX_OUTPUT_TOKENS;
use crate::message::{Message, ReasoningBlock, Role};
use crate::model::thinking::{AnthropicMode, Thinking};

/// The API version header value this dialect is written against.
pub(crate) const API_VERSION: &str = "2023-06-01";

/// The stop reason of a turn the API paused mid server tool; the paused
/// content, sent back as the last assistant turn, lets it carry on.
pub(crate) const PAUSE_TURN: &str = "pause_turn";

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
    /// A paused turn's block, sent back exactly as it came.
    #[serde(untagged)]
    Raw(serde_json::Value),
}

impl Block<'_> {
    fn mark(&mut self) {
        match self {
            Block::Text { cache_control, .. }
            | Block::Image { cache_control, .. }
            | Block::ToolUse { cache_control, .. }
            | Block::ToolResult { cache_control, .. } => *cache_control = Some(EPHEMERAL),
            // A paused turn's blocks go back untouched.
            Block::Thinking { .. } | Block::RedactedThinking { .. } | Block::Raw(_) => {}
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
            if let Some(paused) = paused_content(reasoning_blocks) {
                return paused;
            }
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
                    ReasoningBlock::Encrypted { .. } | ReasoningBlock::PausedContent { .. } => None,
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

/// A paused turn's content as it came, when `blocks` carry one.
fn paused_content<'a>(blocks: &[ReasoningBlock]) -> Option<Vec<Block<'a>>> {
    blocks.iter().find_map(|b| match b {
        ReasoningBlock::PausedContent { content } => {
            match serde_json::from_str::<Vec<serde_json::Value>>(content) {
                Ok(list) if !list.is_empty() => Some(list.into_iter().map(Block::Raw).collect()),
                _ => None,
            }
        }
        _ => None,
    })
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
    // The first block of the fixed context (the project instructions, or
    // the environment) ends the prefix every round shares.
    let starts_with_environment = crate::project_instructions::leading_context(req.messages) > 0;
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
