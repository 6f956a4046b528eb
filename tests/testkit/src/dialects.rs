//! Builders for the SSE event sequences each provider dialect sends.
//!
//! Text and arguments are split into several deltas, as real servers do, so
//! the client's reassembly is exercised.

use serde_json::{json, Value};

use crate::wire::Dialect;
use crate::{sse_event, Reply};

/// Splits text into a few deltas at word boundaries (each keeps its spaces).
fn pieces(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for ch in text.chars() {
        cur.push(ch);
        if ch == ' ' && cur.len() >= 4 {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() || out.is_empty() {
        out.push(cur);
    }
    out
}

/// Splits arguments in two (at a char boundary) so they arrive as deltas.
fn halves(args: &str) -> Vec<String> {
    let mut mid = args.len() / 2;
    while !args.is_char_boundary(mid) {
        mid -= 1;
    }
    let (a, b) = args.split_at(mid);
    [a, b]
        .into_iter()
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// OpenAI Chat Completions streaming (`data:` chunks, `[DONE]` sentinel).
pub mod openai_chat {
    use super::*;

    /// A Chat Completions stream under construction.
    #[derive(Debug, Clone, Default)]
    pub struct ChatStream {
        events: Vec<String>,
        tool_index: usize,
    }

    fn chunk(delta: Value, finish: Value) -> String {
        let v = json!({
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "fake-model",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        });
        sse_event(None, &v.to_string())
    }

    /// The answer to any title request a front end makes, wherever it
    /// falls (for [`crate::Builder::always`]).
    pub fn title() -> Reply {
        ChatStream::new().text("A title").stop().reply().for_title()
    }

    impl ChatStream {
        /// Starts with the usual role-only first chunk.
        pub fn new() -> ChatStream {
            ChatStream {
                events: vec![chunk(
                    json!({"role": "assistant", "content": ""}),
                    Value::Null,
                )],
                tool_index: 0,
            }
        }

        /// Streams `text` as content deltas.
        pub fn text(mut self, text: &str) -> Self {
            for p in pieces(text) {
                self.events.push(chunk(json!({"content": p}), Value::Null));
            }
            self
        }

        /// Streams `text` as `reasoning_content` deltas (DeepSeek, llama.cpp).
        pub fn reasoning(mut self, text: &str) -> Self {
            for p in pieces(text) {
                self.events
                    .push(chunk(json!({"reasoning_content": p}), Value::Null));
            }
            self
        }

        /// Streams one tool call: a head with id and name, then argument deltas.
        pub fn tool_call(mut self, id: &str, name: &str, args: &str) -> Self {
            let index = self.tool_index;
            self.tool_index += 1;
            self.events.push(chunk(
                json!({"tool_calls": [{"index": index, "id": id, "type": "function",
                    "function": {"name": name, "arguments": ""}}]}),
                Value::Null,
            ));
            for p in halves(args) {
                self.events.push(chunk(
                    json!({"tool_calls": [{"index": index, "function": {"arguments": p}}]}),
                    Value::Null,
                ));
            }
            self
        }

        /// Ends the choice with this `finish_reason`.
        pub fn finish(mut self, reason: &str) -> Self {
            self.events.push(chunk(json!({}), json!(reason)));
            self
        }

        /// `finish("stop")`.
        pub fn stop(self) -> Self {
            self.finish("stop")
        }

        /// `finish("tool_calls")`.
        pub fn tool_calls(self) -> Self {
            self.finish("tool_calls")
        }

        /// An error chunk mid-stream, as OpenAI-compatible servers send one
        /// (`{"error":{"message","type","code"}}`, no `choices`).
        pub fn error(mut self, kind: &str, message: &str) -> Self {
            let v = json!({"error": {"message": message, "type": kind, "param": null,
                "code": null}});
            self.events.push(sse_event(None, &v.to_string()));
            self
        }

        /// The usage chunk sent with `stream_options.include_usage`.
        pub fn usage(mut self, prompt: u64, cached: u64, completion: u64) -> Self {
            let v = json!({
                "id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0,
                "model": "fake-model", "choices": [],
                "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                    "total_tokens": prompt + completion,
                    "prompt_tokens_details": {"cached_tokens": cached}},
            });
            self.events.push(sse_event(None, &v.to_string()));
            self
        }

        /// The events so far, without the `[DONE]` sentinel.
        pub fn events(&self) -> Vec<String> {
            self.events.clone()
        }

        /// A reply streaming the events and then `data: [DONE]`.
        pub fn reply(self) -> Reply {
            let mut events = self.events;
            events.push(sse_event(None, "[DONE]"));
            Reply::sse(events).in_dialect(Dialect::OpenAiChat)
        }
    }
}

/// OpenAI Responses streaming (typed `event:`s, ends with `response.completed`).
pub mod openai_responses {
    use super::*;

    /// A Responses stream under construction.
    #[derive(Debug, Clone, Default)]
    pub struct ResponsesStream {
        events: Vec<String>,
        output_index: usize,
        output: Vec<Value>,
    }

    /// Fills in what the API sends with every event of its kind and the
    /// builders leave to here, as OpenAI's definition of a stream event
    /// requires it (tests/testkit/tests/stream_schemas.rs checks): the
    /// event's sequence number, the response object's own fields, an
    /// item's status, a text's (empty) log-probabilities and annotations.
    fn as_sent(event: &mut Value, sequence_number: usize) {
        let kind = event["type"].as_str().unwrap_or("").to_string();
        let Some(fields) = event.as_object_mut() else {
            return;
        };
        fields
            .entry("sequence_number")
            .or_insert(json!(sequence_number));
        if kind.starts_with("response.output_text.") {
            fields.entry("logprobs").or_insert(json!([]));
        }
        if let Some(response) = fields.get_mut("response").and_then(Value::as_object_mut) {
            for (key, value) in [
                ("object", json!("response")),
                ("created_at", json!(0)),
                ("model", json!("fake-model")),
                ("error", Value::Null),
                ("incomplete_details", Value::Null),
                ("instructions", Value::Null),
                ("metadata", json!({})),
                ("parallel_tool_calls", json!(true)),
                ("temperature", json!(1)),
                ("top_p", json!(1)),
                ("tool_choice", json!("auto")),
                ("tools", json!([])),
            ] {
                response.entry(key).or_insert(value);
            }
            if let Some(details) = response
                .get_mut("usage")
                .and_then(|u| u.get_mut("input_tokens_details"))
                .and_then(Value::as_object_mut)
            {
                details.entry("cache_write_tokens").or_insert(json!(0));
            }
            if let Some(output) = response.get_mut("output").and_then(Value::as_array_mut) {
                for i in output.iter_mut() {
                    item_as_sent(i, "completed");
                }
            }
        }
        let status = if kind.ends_with(".added") {
            "in_progress"
        } else {
            "completed"
        };
        if let Some(item) = fields.get_mut("item") {
            item_as_sent(item, status);
        }
        if let Some(part) = fields.get_mut("part") {
            text_part_as_sent(part);
        }
    }

    fn item_as_sent(item: &mut Value, status: &str) {
        if item["type"] != "reasoning" {
            if let Some(fields) = item.as_object_mut() {
                fields.entry("status").or_insert(json!(status));
            }
        }
        if let Some(parts) = item.get_mut("content").and_then(Value::as_array_mut) {
            parts.iter_mut().for_each(text_part_as_sent);
        }
    }

    fn text_part_as_sent(part: &mut Value) {
        if part["type"] == "output_text" {
            if let Some(fields) = part.as_object_mut() {
                fields.entry("annotations").or_insert(json!([]));
                fields.entry("logprobs").or_insert(json!([]));
            }
        }
    }

    impl ResponsesStream {
        /// Starts with `response.created` and `response.in_progress`.
        pub fn new() -> ResponsesStream {
            let mut s = ResponsesStream::default();
            let resp = json!({"id": "resp_fake", "status": "in_progress", "output": []});
            s.push(json!({"type": "response.created", "response": resp}));
            s.push(json!({"type": "response.in_progress", "response": resp}));
            s
        }

        fn push(&mut self, mut v: Value) {
            as_sent(&mut v, self.events.len());
            let name = v["type"].as_str().unwrap_or("unknown").to_string();
            self.events.push(sse_event(Some(&name), &v.to_string()));
        }

        /// A message item streaming `text` as `output_text` deltas.
        pub fn text(mut self, text: &str) -> Self {
            let oi = self.output_index;
            self.output_index += 1;
            let id = format!("msg_{oi}");
            self.push(
                json!({"type": "response.output_item.added", "output_index": oi,
                "item": {"type": "message", "id": id, "role": "assistant", "content": []}}),
            );
            self.push(json!({"type": "response.content_part.added", "item_id": id,
                "output_index": oi, "content_index": 0,
                "part": {"type": "output_text", "text": ""}}));
            for p in pieces(text) {
                self.push(json!({"type": "response.output_text.delta", "item_id": id,
                    "output_index": oi, "content_index": 0, "delta": p}));
            }
            self.push(json!({"type": "response.output_text.done", "item_id": id,
                "output_index": oi, "content_index": 0, "text": text}));
            let item = json!({"type": "message", "id": id, "role": "assistant",
                "content": [{"type": "output_text", "text": text}]});
            self.push(
                json!({"type": "response.output_item.done", "output_index": oi, "item": item}),
            );
            self.output.push(item);
            self
        }

        /// A reasoning item streaming a reasoning summary.
        pub fn reasoning(mut self, text: &str) -> Self {
            let oi = self.output_index;
            self.output_index += 1;
            let id = format!("rs_{oi}");
            self.push(
                json!({"type": "response.output_item.added", "output_index": oi,
                "item": {"type": "reasoning", "id": id, "summary": []}}),
            );
            for p in pieces(text) {
                self.push(json!({"type": "response.reasoning_summary_text.delta",
                    "item_id": id, "output_index": oi, "summary_index": 0, "delta": p}));
            }
            let item = json!({"type": "reasoning", "id": id,
                "summary": [{"type": "summary_text", "text": text}]});
            self.push(
                json!({"type": "response.output_item.done", "output_index": oi, "item": item}),
            );
            self.output.push(item);
            self
        }

        /// A reasoning item carrying `encrypted_content` (what a stateless
        /// request with `include: ["reasoning.encrypted_content"]` gets).
        pub fn encrypted_reasoning(mut self, summary: &str, encrypted: &str) -> Self {
            let oi = self.output_index;
            self.output_index += 1;
            let id = format!("rs_{oi}");
            self.push(
                json!({"type": "response.output_item.added", "output_index": oi,
                "item": {"type": "reasoning", "id": id, "summary": []}}),
            );
            for p in pieces(summary) {
                self.push(json!({"type": "response.reasoning_summary_text.delta",
                    "item_id": id, "output_index": oi, "summary_index": 0, "delta": p}));
            }
            let item = json!({"type": "reasoning", "id": id,
                "summary": [{"type": "summary_text", "text": summary}],
                "encrypted_content": encrypted});
            self.push(
                json!({"type": "response.output_item.done", "output_index": oi, "item": item}),
            );
            self.output.push(item);
            self
        }

        /// A `function_call` item with streamed arguments.
        pub fn function_call(mut self, call_id: &str, name: &str, args: &str) -> Self {
            let oi = self.output_index;
            self.output_index += 1;
            let id = format!("fc_{oi}");
            self.push(
                json!({"type": "response.output_item.added", "output_index": oi,
                "item": {"type": "function_call", "id": id, "call_id": call_id,
                    "name": name, "arguments": "", "status": "in_progress"}}),
            );
            for p in halves(args) {
                self.push(json!({"type": "response.function_call_arguments.delta",
                    "item_id": id, "output_index": oi, "delta": p}));
            }
            self.push(json!({"type": "response.function_call_arguments.done",
                "item_id": id, "output_index": oi, "name": name, "arguments": args}));
            let item = json!({"type": "function_call", "id": id, "call_id": call_id,
                "name": name, "arguments": args, "status": "completed"});
            self.push(
                json!({"type": "response.output_item.done", "output_index": oi, "item": item}),
            );
            self.output.push(item);
            self
        }

        /// `response.completed` with usage (input includes cached tokens).
        pub fn completed(self, input: u64, cached: u64, output: u64) -> Self {
            self.completed_reasoning(input, cached, output, 0)
        }

        /// `response.completed` whose output counts `reasoning` tokens.
        pub fn completed_reasoning(
            mut self,
            input: u64,
            cached: u64,
            output: u64,
            reasoning: u64,
        ) -> Self {
            let resp = json!({"id": "resp_fake", "status": "completed", "output": self.output,
                "usage": {"input_tokens": input,
                    "input_tokens_details": {"cached_tokens": cached},
                    "output_tokens": output,
                    "output_tokens_details": {"reasoning_tokens": reasoning},
                    "total_tokens": input + output}});
            self.push(json!({"type": "response.completed", "response": resp}));
            self
        }

        /// `response.incomplete` with this reason (e.g. `max_output_tokens`).
        pub fn incomplete(mut self, reason: &str) -> Self {
            let resp = json!({"id": "resp_fake", "status": "incomplete", "output": self.output,
                "incomplete_details": {"reason": reason}});
            self.push(json!({"type": "response.incomplete", "response": resp}));
            self
        }

        /// `response.failed` with an error message.
        pub fn failed(mut self, message: &str) -> Self {
            let resp = json!({"id": "resp_fake", "status": "failed", "output": [],
                "error": {"code": "server_error", "message": message}});
            self.push(json!({"type": "response.failed", "response": resp}));
            self
        }

        /// An `error` event in the nested shape production servers send:
        /// `{"type":"error","error":{"type","code","message","param"}}`.
        pub fn error_nested(mut self, code: &str, message: &str) -> Self {
            self.push(json!({"type": "error", "sequence_number": 3,
                "error": {"type": "invalid_request_error", "code": code,
                    "message": message, "param": null}}));
            self
        }

        /// An `error` event in the flat shape of the API reference:
        /// `{"type":"error","code","message","param"}`.
        pub fn error_flat(mut self, code: &str, message: &str) -> Self {
            self.push(json!({"type": "error", "code": code, "message": message,
                "param": null, "sequence_number": 3}));
            self
        }

        /// The events so far.
        pub fn events(&self) -> Vec<String> {
            self.events.clone()
        }

        /// A reply streaming the events.
        pub fn reply(self) -> Reply {
            Reply::sse(self.events).in_dialect(Dialect::OpenAiResponses)
        }
    }
}

/// Anthropic Messages streaming (`message_start` … `message_stop`).
pub mod anthropic {
    use super::*;

    /// A Messages stream under construction.
    #[derive(Debug, Clone, Default)]
    pub struct MessagesStream {
        events: Vec<String>,
        index: usize,
    }

    impl MessagesStream {
        /// `message_start` reporting this input usage.
        pub fn new(input_tokens: u64, cache_read: u64, cache_creation: u64) -> MessagesStream {
            let mut s = MessagesStream::default();
            s.push(json!({"type": "message_start", "message": {
                "id": "msg_fake", "type": "message", "role": "assistant", "content": [],
                "model": "fake-model", "stop_reason": null, "stop_sequence": null,
                "usage": {"input_tokens": input_tokens,
                    "cache_read_input_tokens": cache_read,
                    "cache_creation_input_tokens": cache_creation,
                    "output_tokens": 1}}}));
            s
        }

        fn push(&mut self, v: Value) {
            let name = v["type"].as_str().unwrap_or("unknown").to_string();
            self.events.push(sse_event(Some(&name), &v.to_string()));
        }

        /// A keep-alive `ping`.
        pub fn ping(mut self) -> Self {
            self.push(json!({"type": "ping"}));
            self
        }

        /// A text block.
        pub fn text(mut self, text: &str) -> Self {
            let i = self.index;
            self.index += 1;
            self.push(json!({"type": "content_block_start", "index": i,
                "content_block": {"type": "text", "text": ""}}));
            for p in pieces(text) {
                self.push(json!({"type": "content_block_delta", "index": i,
                    "delta": {"type": "text_delta", "text": p}}));
            }
            self.push(json!({"type": "content_block_stop", "index": i}));
            self
        }

        /// A thinking block with a signature.
        pub fn thinking(self, text: &str) -> Self {
            self.thinking_signed(text, "c2lnbmF0dXJl")
        }

        /// A thinking block whose signature arrives in two deltas.
        pub fn thinking_signed(mut self, text: &str, signature: &str) -> Self {
            let i = self.index;
            self.index += 1;
            // The API opens the block with an empty signature, as the
            // SDK's ThinkingBlock requires.
            self.push(json!({"type": "content_block_start", "index": i,
                "content_block": {"type": "thinking", "thinking": "", "signature": ""}}));
            for p in pieces(text) {
                self.push(json!({"type": "content_block_delta", "index": i,
                    "delta": {"type": "thinking_delta", "thinking": p}}));
            }
            for p in halves(signature) {
                self.push(json!({"type": "content_block_delta", "index": i,
                    "delta": {"type": "signature_delta", "signature": p}}));
            }
            self.push(json!({"type": "content_block_stop", "index": i}));
            self
        }

        /// A `redacted_thinking` block: its data arrives whole in the start.
        pub fn redacted_thinking(mut self, data: &str) -> Self {
            let i = self.index;
            self.index += 1;
            self.push(json!({"type": "content_block_start", "index": i,
                "content_block": {"type": "redacted_thinking", "data": data}}));
            self.push(json!({"type": "content_block_stop", "index": i}));
            self
        }

        /// A `tool_use` block whose input arrives as JSON deltas.
        pub fn tool_use(mut self, id: &str, name: &str, input_json: &str) -> Self {
            let i = self.index;
            self.index += 1;
            self.push(json!({"type": "content_block_start", "index": i,
                "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}));
            for p in halves(input_json) {
                self.push(json!({"type": "content_block_delta", "index": i,
                    "delta": {"type": "input_json_delta", "partial_json": p}}));
            }
            self.push(json!({"type": "content_block_stop", "index": i}));
            self
        }

        /// `message_delta` with the stop reason, then `message_stop`.
        pub fn stop(mut self, reason: &str, output_tokens: u64) -> Self {
            self.push(json!({"type": "message_delta",
                "delta": {"stop_reason": reason, "stop_sequence": null},
                "usage": {"output_tokens": output_tokens}}));
            self.push(json!({"type": "message_stop"}));
            self
        }

        /// An `error` event (e.g. `overloaded_error`).
        pub fn error(mut self, kind: &str, message: &str) -> Self {
            self.push(json!({"type": "error", "error": {"type": kind, "message": message}}));
            self
        }

        /// The events so far.
        pub fn events(&self) -> Vec<String> {
            self.events.clone()
        }

        /// A reply streaming the events.
        pub fn reply(self) -> Reply {
            Reply::sse(self.events).in_dialect(Dialect::Anthropic)
        }
    }
}
