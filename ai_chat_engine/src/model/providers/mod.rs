//! Provider dialects: how a neutral request becomes an HTTP body, and how a
//! provider's SSE events become neutral deltas and one step result.

pub(crate) mod anthropic;
pub(crate) mod demo;
pub(crate) mod error;
pub(crate) mod openai_chat;
pub(crate) mod openai_responses;

use ai_tools::ToolSpec;

use crate::budgets::{MAX_TOOL_ARGS_BYTES, MAX_TOOL_CALLS_PER_RESPONSE};
use crate::config::{ApiKey, ProviderKind};
use crate::message::{Message, ReasoningBlock, ToolCall};
use crate::model::sse::SseEvent;
use crate::model::thinking::Thinking;

/// Everything one model round is built from.
pub(crate) struct Request<'a> {
    pub model: &'a str,
    pub system: &'a str,
    pub messages: &'a [Message],
    pub tools: &'a [ToolSpec],
    /// Declare the provider's own web search tool beside `tools`
    /// (Anthropic and the Responses API; Chat Completions has none).
    pub native_search: bool,
}

/// Searches one Anthropic response may run with its server tool: enough
/// to refine a query twice, few enough to bound the cost of a round.
pub(crate) const NATIVE_SEARCH_MAX_USES: u32 = 5;

/// A ready-to-send HTTP request.
#[derive(Debug, Clone)]
pub(crate) struct HttpRequest {
    pub url: String,
    /// Header pairs. The key header is added at send time, never stored.
    pub headers: Vec<(&'static str, String)>,
    pub body: String,
}

/// Builds the HTTP request for `kind`, asking for `thinking` where the
/// dialect has a way to (Chat Completions has none in common).
pub(crate) fn prepare(
    kind: ProviderKind,
    base_url: &str,
    req: &Request<'_>,
    thinking: Option<Thinking>,
) -> HttpRequest {
    let (path, body) = match kind {
        ProviderKind::OpenAi | ProviderKind::Demo => ("/chat/completions", openai_chat::body(req)),
        ProviderKind::OpenAiResponses => ("/responses", openai_responses::body(req, thinking)),
        ProviderKind::Anthropic => ("/messages", anthropic::body(req, thinking)),
    };
    let mut headers = vec![
        ("content-type", "application/json".to_string()),
        ("accept", "text/event-stream".to_string()),
    ];
    if kind == ProviderKind::Anthropic {
        headers.push(("anthropic-version", anthropic::API_VERSION.to_string()));
    }
    HttpRequest {
        url: format!("{}{path}", base_url.trim_end_matches('/')),
        headers,
        body,
    }
}

/// The auth header for `kind`, built only at send time.
pub(crate) fn auth_header(kind: ProviderKind, key: &ApiKey) -> (&'static str, String) {
    match kind {
        ProviderKind::Anthropic => ("x-api-key", key.expose().to_string()),
        _ => ("authorization", format!("Bearer {}", key.expose())),
    }
}

/// A fresh decoder for `kind`.
pub(crate) fn decoder(kind: ProviderKind) -> Box<dyn Decoder> {
    match kind {
        ProviderKind::OpenAi | ProviderKind::Demo => Box::<openai_chat::ChatDecoder>::default(),
        ProviderKind::OpenAiResponses => Box::<openai_responses::ResponsesDecoder>::default(),
        ProviderKind::Anthropic => Box::<anthropic::MessagesDecoder>::default(),
    }
}

/// A streamed piece the user sees as it arrives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Delta {
    Text(String),
    Reasoning(String),
}

/// Why a response stopped, normalised across providers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FinishKind {
    /// A complete answer.
    Stop,
    /// The model wants tools run.
    ToolCalls,
    /// The output-token limit cut it.
    Length,
    /// A content filter stopped it.
    ContentFilter,
    /// The model declined to answer (Anthropic's `refusal`).
    Refusal,
    /// The provider paused a long turn of its own tools and expects the
    /// content so far back to carry on (Anthropic's `pause_turn`).
    Pause,
    /// Anything else.
    Other,
}

/// A normalised stop reason with the provider's raw value kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finish {
    /// The normalised kind.
    pub kind: FinishKind,
    /// The provider's own word for it.
    pub raw: String,
    /// The provider's explanation, where it gives one (a refusal's).
    pub detail: Option<String>,
}

/// Token usage of one round.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Input tokens, cached included.
    pub input: u64,
    /// Cached input tokens.
    pub cached_input: u64,
    /// Output tokens (reasoning included).
    pub output: u64,
    /// Of the output, reasoning tokens, where the provider says.
    pub reasoning: u64,
}

/// The outcome of one cleanly ended response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StepOutput {
    pub text: String,
    pub tool_calls: Vec<ToolCall>,
    /// Opaque reasoning to send back with this round.
    pub reasoning_blocks: Vec<ReasoningBlock>,
    pub finish: Finish,
    pub usage: Option<Usage>,
}

/// How a stream went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DecodeError {
    /// Not the dialect we expected, or cut before its end.
    Malformed(String),
    /// The provider reported an error inside the stream.
    Provider(String),
    /// A per-response limit tripped.
    Limit(String),
}

/// Turns one dialect's events into deltas and, at a clean end, a step.
pub(crate) trait Decoder: Send {
    /// Handles one event; pushes user-visible deltas to `out`.
    fn on_event(&mut self, ev: &SseEvent, out: &mut Vec<Delta>) -> Result<(), DecodeError>;
    /// True once the dialect's terminal event arrived; later bytes are ignored.
    fn is_complete(&self) -> bool;
    /// Called at end of body: the step, or why the stream was incomplete.
    fn finish(self: Box<Self>) -> Result<StepOutput, DecodeError>;
    /// Usage seen so far (reported even when the step fails).
    fn usage(&self) -> Option<Usage>;
}

/// What a response has said so far; every dialect's decoder keeps one.
#[derive(Debug, Default)]
pub(crate) struct StepBuilder {
    /// The answer text so far.
    pub text: String,
    /// The tool calls being assembled.
    pub calls: CallAssembler,
    /// The latest usage the provider reported.
    pub usage: Option<Usage>,
    /// Opaque reasoning blocks, in the order they were completed.
    pub reasoning_blocks: Vec<ReasoningBlock>,
}

impl StepBuilder {
    /// Adds a piece of the answer and passes it on; empty pieces are dropped.
    pub fn push_text(&mut self, piece: String, out: &mut Vec<Delta>) {
        if !piece.is_empty() {
            self.text.push_str(&piece);
            out.push(Delta::Text(piece));
        }
    }

    /// The step of a stream that ended cleanly, stopped for `kind` (`raw`
    /// in the provider's words).
    pub fn finish(self, kind: FinishKind, raw: String) -> Result<StepOutput, DecodeError> {
        Ok(StepOutput {
            text: self.text,
            tool_calls: self.calls.finish()?,
            reasoning_blocks: self.reasoning_blocks,
            finish: Finish {
                kind,
                raw,
                detail: None,
            },
            usage: self.usage,
        })
    }
}

/// Tool-call assembly shared by the dialects, enforcing the call limits.
#[derive(Debug, Default)]
pub(crate) struct CallAssembler {
    calls: Vec<PartialCall>,
}

#[derive(Debug, Default)]
struct PartialCall {
    key: String,
    id: String,
    name: String,
    args: String,
}

impl CallAssembler {
    /// Starts a call identified by `key` (index or item id).
    pub fn start(&mut self, key: &str, id: &str, name: &str) -> Result<(), DecodeError> {
        if self.calls.len() >= MAX_TOOL_CALLS_PER_RESPONSE {
            return Err(DecodeError::Limit(format!(
                "more than {MAX_TOOL_CALLS_PER_RESPONSE} tool calls in one response"
            )));
        }
        self.calls.push(PartialCall {
            key: key.to_string(),
            id: id.to_string(),
            name: name.to_string(),
            args: String::new(),
        });
        Ok(())
    }

    /// Whether a call with this key exists.
    pub fn has(&self, key: &str) -> bool {
        self.calls.iter().any(|c| c.key == key)
    }

    fn get(&mut self, key: &str) -> Result<&mut PartialCall, DecodeError> {
        self.calls
            .iter_mut()
            .rev()
            .find(|c| c.key == key)
            .ok_or_else(|| {
                DecodeError::Malformed(format!("arguments for unknown tool call {key:?}"))
            })
    }

    /// Appends to a call's name (some servers split it).
    pub fn push_name(&mut self, key: &str, piece: &str) -> Result<(), DecodeError> {
        self.get(key)?.name.push_str(piece);
        Ok(())
    }

    /// Appends an arguments delta.
    pub fn push_args(&mut self, key: &str, piece: &str) -> Result<(), DecodeError> {
        let call = self.get(key)?;
        if call.args.len() + piece.len() > MAX_TOOL_ARGS_BYTES {
            return Err(DecodeError::Limit(format!(
                "tool call arguments passed {MAX_TOOL_ARGS_BYTES} bytes"
            )));
        }
        call.args.push_str(piece);
        Ok(())
    }

    /// Replaces a call's arguments with the authoritative full text.
    pub fn set_args(&mut self, key: &str, full: &str) -> Result<(), DecodeError> {
        if full.len() > MAX_TOOL_ARGS_BYTES {
            return Err(DecodeError::Limit(format!(
                "tool call arguments passed {MAX_TOOL_ARGS_BYTES} bytes"
            )));
        }
        self.get(key)?.args = full.to_string();
        Ok(())
    }

    /// True when no call was started.
    pub fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }

    /// The finished calls; a call without an id or name is malformed.
    pub fn finish(self) -> Result<Vec<ToolCall>, DecodeError> {
        self.calls
            .into_iter()
            .enumerate()
            .map(|(n, c)| {
                if c.name.is_empty() {
                    return Err(DecodeError::Malformed(
                        "a tool call arrived without a name".into(),
                    ));
                }
                // Some local servers leave ids empty; the id only has to pair
                // a call with its result within this history.
                let id = if c.id.is_empty() {
                    format!("call_{n}")
                } else {
                    c.id
                };
                Ok(ToolCall {
                    id,
                    name: c.name,
                    arguments: c.args,
                })
            })
            .collect()
    }
}

/// The arguments to send back in history: the model's own text when it is a
/// JSON object, else `{}` (providers reject non-object arguments, and the
/// tool result already tells the model what was wrong).
pub(crate) fn history_calls(calls: &[ToolCall]) -> Vec<ToolCall> {
    calls
        .iter()
        .map(|c| ToolCall {
            arguments: history_arguments(&c.arguments),
            ..c.clone()
        })
        .collect()
}

/// One call's arguments as sent back in history (see [`history_calls`]).
pub(crate) fn history_arguments(raw: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(raw) {
        Ok(v) if v.is_object() => raw.to_string(),
        _ => "{}".to_string(),
    }
}

/// Parses provider JSON, mapping failure to a malformed-stream error.
pub(crate) fn parse_json<'a, T: serde::Deserialize<'a>>(data: &'a str) -> Result<T, DecodeError> {
    serde_json::from_str(data).map_err(|e| malformed(&e, data))
}

/// The malformed-stream error for an event that did not parse.
pub(crate) fn malformed(e: &serde_json::Error, data: &str) -> DecodeError {
    let mut shown: String = data.chars().take(120).collect();
    if shown.len() < data.len() {
        shown.push('…');
    }
    DecodeError::Malformed(format!("unexpected event ({e}): {shown}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Valid events of every dialect, to be mangled.
    fn samples() -> Vec<(ProviderKind, &'static str)> {
        vec![
            (
                ProviderKind::OpenAi,
                r#"{"choices":[{"index":0,"delta":{"content":"hé","tool_calls":[{"index":0,"id":"c","function":{"name":"t","arguments":"{\"a\":"}}]},"finish_reason":null}]}"#,
            ),
            (
                ProviderKind::OpenAi,
                r#"{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":2}}}"#,
            ),
            (
                ProviderKind::OpenAiResponses,
                r#"{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","id":"fc","call_id":"c","name":"t","arguments":""}}"#,
            ),
            (
                ProviderKind::OpenAiResponses,
                r#"{"type":"response.function_call_arguments.delta","item_id":"fc","delta":"{}"}"#,
            ),
            (
                ProviderKind::OpenAiResponses,
                r#"{"type":"response.completed","response":{"usage":{"input_tokens":5,"output_tokens":1}}}"#,
            ),
            (
                ProviderKind::Anthropic,
                r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t","name":"n","input":{}}}"#,
            ),
            (
                ProviderKind::Anthropic,
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"x\""}}"#,
            ),
            (
                ProviderKind::Anthropic,
                r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":4}}"#,
            ),
        ]
    }

    /// No byte sequence from a provider may panic a decoder: every mangled
    /// event (truncated, byte-flipped, wrong types) is an error or ignored.
    #[test]
    fn decoders_never_panic_on_mangled_events() {
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for (kind, sample) in samples() {
            for cut in 0..sample.len() {
                let mut d = decoder(kind);
                let data = String::from_utf8_lossy(&sample.as_bytes()[..cut]).into_owned();
                let _ = d.on_event(&SseEvent { event: None, data }, &mut Vec::new());
                let _ = d.finish();
            }
            for _ in 0..300 {
                let mut bytes = sample.as_bytes().to_vec();
                for _ in 0..3 {
                    let i = (next() as usize) % bytes.len();
                    bytes[i] = (next() % 128) as u8;
                }
                let data = String::from_utf8_lossy(&bytes).into_owned();
                let mut d = decoder(kind);
                let mut out = Vec::new();
                for _ in 0..2 {
                    let _ = d.on_event(
                        &SseEvent {
                            event: None,
                            data: data.clone(),
                        },
                        &mut out,
                    );
                }
                let _ = d.usage();
                let _ = d.finish();
            }
        }
        let wrong_types = r#"{"choices":[{"delta":{"content":5,"tool_calls":"x"}}],"usage":[]}"#;
        let mut d = decoder(ProviderKind::OpenAi);
        assert!(d
            .on_event(
                &SseEvent {
                    event: None,
                    data: wrong_types.into()
                },
                &mut Vec::new()
            )
            .is_err());
    }

    #[test]
    fn limits_on_calls_and_arguments() {
        let mut a = CallAssembler::default();
        for i in 0..MAX_TOOL_CALLS_PER_RESPONSE {
            a.start(&i.to_string(), "id", "t").unwrap();
        }
        assert!(matches!(
            a.start("x", "id", "t"),
            Err(DecodeError::Limit(_))
        ));
        let mut a = CallAssembler::default();
        a.start("0", "id", "t").unwrap();
        let big = "x".repeat(MAX_TOOL_ARGS_BYTES);
        a.push_args("0", &big).unwrap();
        assert!(matches!(a.push_args("0", "y"), Err(DecodeError::Limit(_))));
        assert!(matches!(
            a.push_args("9", "y"),
            Err(DecodeError::Malformed(_))
        ));
    }

    #[test]
    fn history_arguments_are_always_objects() {
        assert_eq!(history_arguments(r#"{"a":1}"#), r#"{"a":1}"#);
        assert_eq!(history_arguments(r#"{"a":"#), "{}");
        assert_eq!(history_arguments("[1]"), "{}");
        assert_eq!(history_arguments(""), "{}");
    }
}
