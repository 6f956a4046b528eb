//! OpenAI Chat Completions over SSE (also Ollama, llama.cpp, LM Studio,
//! vLLM, DeepSeek): `data:` chunks with `choices[0].delta`, a
//! `finish_reason`, an optional usage chunk, then `data: [DONE]`.

use serde::{Deserialize, Serialize};

use super::error::{error_member, shorten};
use super::{
    parse_json, DecodeError, Decoder, Delta, FinishKind, Request, StepBuilder, StepOutput, Usage,
};
use crate::message::Message;
use crate::model::sse::SseEvent;

#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    stream: bool,
    stream_options: StreamOptions,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<ToolJson<'a>>,
    // Last, so each request's body is a byte prefix of the next one's
    // (up to the closing brackets).
    messages: Vec<Msg<'a>>,
}

#[derive(Serialize)]
struct StreamOptions {
    include_usage: bool,
}

#[derive(Serialize)]
struct ToolJson<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    function: FunctionJson<'a>,
}

#[derive(Serialize)]
struct FunctionJson<'a> {
    name: &'a str,
    description: &'a str,
    parameters: &'a serde_json::Value,
}

#[derive(Serialize)]
#[serde(tag = "role", rename_all = "lowercase")]
enum Msg<'a> {
    System {
        content: &'a str,
    },
    User {
        content: UserContent,
    },
    Assistant {
        content: Option<&'a str>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<CallJson<'a>>,
    },
    Tool {
        tool_call_id: &'a str,
        content: &'a str,
    },
}

/// A plain string unless the message has images, so a history without
/// images serialises exactly as it always did.
#[derive(Serialize)]
#[serde(untagged)]
enum UserContent {
    Text(String),
    Parts(Vec<Part>),
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Part {
    ImageUrl { image_url: ImageUrl },
    Text { text: String },
}

#[derive(Serialize)]
struct ImageUrl {
    url: String,
}

#[derive(Serialize)]
struct CallJson<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: CallFunctionJson<'a>,
}

#[derive(Serialize)]
struct CallFunctionJson<'a> {
    name: &'a str,
    arguments: &'a str,
}

fn msg(m: &Message) -> Msg<'_> {
    match m {
        Message::Assistant {
            text, tool_calls, ..
        } => Msg::Assistant {
            content: if text.is_empty() && !tool_calls.is_empty() {
                None
            } else {
                Some(text)
            },
            tool_calls: tool_calls
                .iter()
                .map(|c| CallJson {
                    id: &c.id,
                    kind: "function",
                    function: CallFunctionJson {
                        name: &c.name,
                        arguments: &c.arguments,
                    },
                })
                .collect(),
        },
        Message::ToolResult {
            call_id, content, ..
        } => Msg::Tool {
            tool_call_id: call_id,
            content,
        },
        other => {
            let text = other.user_text().unwrap_or_default();
            let content = match other {
                Message::User { images, .. } if !images.is_empty() => {
                    let mut parts: Vec<Part> = images
                        .iter()
                        .map(|im| Part::ImageUrl {
                            image_url: ImageUrl { url: im.data_url() },
                        })
                        .collect();
                    parts.push(Part::Text { text });
                    UserContent::Parts(parts)
                }
                _ => UserContent::Text(text),
            };
            Msg::User { content }
        }
    }
}

/// The request body.
pub(crate) fn body(req: &Request<'_>) -> String {
    let mut messages = vec![Msg::System {
        content: req.system,
    }];
    messages.extend(req.messages.iter().map(msg));
    let body = Body {
        model: req.model,
        stream: true,
        stream_options: StreamOptions {
            include_usage: true,
        },
        tools: req
            .tools
            .iter()
            .map(|t| ToolJson {
                kind: "function",
                function: FunctionJson {
                    name: &t.name,
                    description: &t.description,
                    parameters: &t.input_schema,
                },
            })
            .collect(),
        messages,
    };
    // Serialising plain structs of strings and `Value`s cannot fail.
    serde_json::to_string(&body).unwrap_or_default()
}

#[derive(Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Vec<Choice>,
    usage: Option<UsageJson>,
    error: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct Choice {
    /// Which of the `n` answers this is; koi asks for one, and a server
    /// that sends more (or ignores `n`) gets its first one used.
    index: Option<usize>,
    /// Absent or `null` in a chunk that only carries a filter result or
    /// the finish reason.
    #[serde(default)]
    delta: Option<DeltaJson>,
    finish_reason: Option<String>,
}

#[derive(Deserialize, Default)]
struct DeltaJson {
    content: Option<String>,
    /// OpenAI's refusal text, streamed instead of `content`: the answer
    /// the user gets, so it is shown as one.
    refusal: Option<String>,
    reasoning_content: Option<String>,
    reasoning: Option<String>,
    tool_calls: Option<Vec<CallDelta>>,
}

#[derive(Deserialize)]
struct CallDelta {
    index: Option<usize>,
    id: Option<String>,
    function: Option<FunctionDelta>,
}

#[derive(Deserialize)]
struct FunctionDelta {
    name: Option<String>,
    arguments: Option<String>,
}

#[derive(Deserialize)]
struct UsageJson {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
    prompt_tokens_details: Option<PromptDetails>,
    completion_tokens_details: Option<CompletionDetails>,
    /// DeepSeek's name for cached input.
    prompt_cache_hit_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct CompletionDetails {
    reasoning_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct PromptDetails {
    cached_tokens: Option<u64>,
}

/// Decoder state for one response.
#[derive(Default)]
pub(crate) struct ChatDecoder {
    step: StepBuilder,
    finish: Option<String>,
    done: bool,
}

impl ChatDecoder {
    fn on_call(&mut self, d: CallDelta) -> Result<(), DecodeError> {
        // Servers that omit `index` send each call whole, in order.
        let key = match d.index {
            Some(i) => i.to_string(),
            None => d.id.clone().unwrap_or_else(|| "last".to_string()),
        };
        let (name, args) = match d.function {
            Some(f) => (f.name, f.arguments),
            None => (None, None),
        };
        let new_id = d.id.filter(|id| !id.is_empty());
        if !self.step.calls.has(&key) || new_id.is_some() && d.index.is_none() {
            self.step.calls.start(
                &key,
                new_id.as_deref().unwrap_or(""),
                name.as_deref().unwrap_or(""),
            )?;
        } else if let Some(n) = name.filter(|n| !n.is_empty()) {
            self.step.calls.push_name(&key, &n)?;
        }
        if let Some(a) = args {
            self.step.calls.push_args(&key, &a)?;
        }
        Ok(())
    }
}

impl Decoder for ChatDecoder {
    fn on_event(&mut self, ev: &SseEvent, out: &mut Vec<Delta>) -> Result<(), DecodeError> {
        if self.done {
            return Ok(());
        }
        if ev.data.trim() == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        let chunk: Chunk = parse_json(&ev.data)?;
        // Servers put an error mid-stream as an object or a bare string.
        if let Some(e) = chunk.error.filter(|e| !e.is_null()) {
            return Err(DecodeError::Provider(
                error_member(&e).unwrap_or_else(|| shorten(&ev.data)),
            ));
        }
        if let Some(u) = chunk.usage {
            let cached = u
                .prompt_tokens_details
                .and_then(|d| d.cached_tokens)
                .or(u.prompt_cache_hit_tokens)
                .unwrap_or(0);
            self.step.usage = Some(Usage {
                input: u.prompt_tokens,
                cached_input: cached,
                output: u.completion_tokens,
                reasoning: u
                    .completion_tokens_details
                    .and_then(|d| d.reasoning_tokens)
                    .unwrap_or(0),
            });
        }
        for choice in chunk
            .choices
            .into_iter()
            .filter(|c| c.index.unwrap_or(0) == 0)
        {
            let d = choice.delta.unwrap_or_default();
            if let Some(r) = d
                .reasoning_content
                .or(d.reasoning)
                .filter(|r| !r.is_empty())
            {
                out.push(Delta::Reasoning(r));
            }
            for t in [d.content, d.refusal].into_iter().flatten() {
                self.step.push_text(t, out);
            }
            for call in d.tool_calls.unwrap_or_default() {
                self.on_call(call)?;
            }
            if let Some(f) = choice.finish_reason.filter(|f| !f.is_empty()) {
                self.finish = Some(f);
            }
        }
        Ok(())
    }

    fn is_complete(&self) -> bool {
        self.done
    }

    fn finish(self: Box<Self>) -> Result<StepOutput, DecodeError> {
        let me = *self;
        let raw = match me.finish {
            Some(f) => f,
            None if me.done => "[DONE]".to_string(),
            None => {
                return Err(DecodeError::Malformed(
                    "the stream ended before the model finished".into(),
                ))
            }
        };
        let has_calls = !me.step.calls.is_empty();
        let kind = match raw.as_str() {
            "tool_calls" | "function_call" => FinishKind::ToolCalls,
            // Some local servers report `stop` after complete tool calls; the
            // stream still ended cleanly, so the calls are whole.
            "stop" | "[DONE]" if has_calls => FinishKind::ToolCalls,
            "stop" | "[DONE]" | "eos" => FinishKind::Stop,
            "length" => FinishKind::Length,
            "content_filter" => FinishKind::ContentFilter,
            _ => FinishKind::Other,
        };
        me.step.finish(kind, raw)
    }

    fn usage(&self) -> Option<Usage> {
        self.step.usage
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(chunks: &[&str]) -> (Vec<Delta>, Result<StepOutput, DecodeError>) {
        let mut d = Box::<ChatDecoder>::default();
        let mut out = Vec::new();
        for c in chunks {
            let ev = SseEvent {
                event: None,
                data: (*c).to_string(),
            };
            if let Err(e) = d.on_event(&ev, &mut out) {
                return (out, Err(e));
            }
        }
        (out, d.finish())
    }

    #[test]
    fn a_null_delta_and_other_choices_are_passed_over() {
        let (out, step) = decode(&[
            r#"{"choices":[{"index":0,"delta":{"content":"a"}},{"index":1,"delta":{"content":"b"}}]}"#,
            r#"{"choices":[{"index":0,"delta":null,"finish_reason":"stop"}]}"#,
        ]);
        assert_eq!(out, vec![Delta::Text("a".into())]);
        let step = step.unwrap();
        assert_eq!(step.text, "a");
        assert_eq!(step.finish.kind, FinishKind::Stop);
    }
}
