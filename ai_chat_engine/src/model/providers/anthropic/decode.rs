//! Anthropic's stream: `message_start`, content blocks (text, thinking,
//! tool use, the provider's own tools) with their deltas, `message_delta`
//! with the stop reason and usage, `message_stop`; `error` mid-stream.

use serde::Deserialize;

use super::content::{ContentLog, Piece};
use super::PAUSE_TURN;
use crate::message::ReasoningBlock;
use crate::model::providers::error::{provider_error, shorten};
use crate::model::providers::{
    parse_json, DecodeError, Decoder, Delta, FinishKind, StepBuilder, StepOutput, Usage,
};
use crate::model::sse::SseEvent;

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
    citation: Option<serde_json::Value>,
    stop_reason: Option<String>,
    stop_details: Option<StopDetails>,
}

/// Why the model stopped, in its words (a refusal's category and
/// explanation).
#[derive(Deserialize)]
struct StopDetails {
    explanation: Option<String>,
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
    stop_explanation: Option<String>,
    /// Every block as sent, for a paused turn's continuation.
    content: ContentLog,
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

    /// Forgets the message so far, keeping the usage seen.
    fn restart(&mut self) {
        let usage = self.step.usage;
        self.step = StepBuilder {
            usage,
            ..StepBuilder::default()
        };
        self.thinking.clear();
        self.server_tools.clear();
        self.content = ContentLog::default();
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
                // A second start (a proxy that retried upstream splices
                // the new message into the stream) begins the message
                // again: what the first one left unfinished is dropped.
                if !self.content.is_empty() {
                    self.restart();
                }
                if let Some(u) = e.message.and_then(|m| m.usage) {
                    self.on_usage(&u);
                }
            }
            "content_block_start" => {
                let block = e.content_block.ok_or_else(|| {
                    DecodeError::Malformed("content_block_start without a block".into())
                })?;
                let index = e.index.unwrap_or(0);
                let raw: serde_json::Value = parse_json(&ev.data)?;
                self.content.start(index, raw["content_block"].clone());
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
                let index = e.index.unwrap_or(0);
                let piece = match d.kind.as_deref() {
                    Some("text_delta") => d.text.as_deref().map(Piece::Text),
                    Some("thinking_delta") => d.thinking.as_deref().map(Piece::Thinking),
                    Some("signature_delta") => d.signature.as_deref().map(Piece::Signature),
                    Some("input_json_delta") => d.partial_json.as_deref().map(Piece::Input),
                    Some("citations_delta") => d.citation.as_ref().map(Piece::Citation),
                    _ => None,
                };
                if let Some(piece) = piece {
                    self.content.delta(index, piece);
                }
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
                if let Some(d) = e.delta {
                    if let Some(r) = d.stop_reason {
                        self.stop_reason = Some(r);
                    }
                    if let Some(x) = d.stop_details.and_then(|s| s.explanation) {
                        self.stop_explanation = Some(shorten(&x));
                    }
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
            "refusal" => FinishKind::Refusal,
            PAUSE_TURN => FinishKind::Pause,
            _ => FinishKind::Other,
        };
        if kind == FinishKind::Pause {
            // The paused content goes back whole, thinking included.
            builder.reasoning_blocks = vec![ReasoningBlock::PausedContent {
                content: me.content.finish().to_string(),
            }];
        }
        let mut step = builder.finish(kind, raw)?;
        step.finish.detail = me.stop_explanation;
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
