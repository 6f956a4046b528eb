//! The streams the dialect builders make are ones the provider could send:
//! every event of every builder, checked against the provider's own
//! definition of an event of its stream (tests/testkit/schemas).

// Test helpers outside #[test] fns: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use koi_testkit::anthropic::MessagesStream;
use koi_testkit::openai_chat::ChatStream;
use koi_testkit::openai_responses::ResponsesStream;
use koi_testkit::provider_schema::check_stream_event;
use koi_testkit::Dialect;

/// Every event's problems, as `event n (type): problem` lines.
fn problems(dialect: Dialect, events: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for (n, event) in events.iter().enumerate() {
        let data: String = event
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .collect::<Vec<_>>()
            .join("\n");
        if data == "[DONE]" {
            continue;
        }
        let json: serde_json::Value = serde_json::from_str(&data).unwrap();
        // Anthropic's `ping` and `error` events are in its streaming
        // documentation, outside the SDK's RawMessageStreamEvent.
        if dialect == Dialect::Anthropic && matches!(json["type"].as_str(), Some("ping" | "error"))
        {
            continue;
        }
        for p in check_stream_event(dialect, &json) {
            out.push(format!("event {n} ({}): {p}", json["type"]));
        }
    }
    out
}

#[test]
fn chat_completions_streams_fit_openais_definition() {
    let streams = [
        ChatStream::new()
            .text("Hello there, friend")
            .stop()
            .usage(10, 4, 3),
        ChatStream::new()
            .reasoning("thinking about it")
            .text("Reading.")
            .tool_call("c1", "fs_read", r#"{"path":"a.txt"}"#)
            .tool_call("c2", "fs_list", "{}")
            .tool_calls(),
        ChatStream::new().text("cut").finish("length"),
    ];
    let found: Vec<String> = streams
        .iter()
        .flat_map(|s| problems(Dialect::OpenAiChat, &s.events()))
        .collect();
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn responses_streams_fit_openais_definition() {
    let streams = [
        ResponsesStream::new()
            .text("Hello there")
            .completed(10, 4, 3),
        ResponsesStream::new()
            .reasoning("thinking")
            .encrypted_reasoning("a summary", "gAAAA")
            .text("Reading.")
            .function_call("c1", "fs_read", r#"{"path":"a.txt"}"#)
            .completed_reasoning(10, 0, 3, 2),
        ResponsesStream::new()
            .text("cut")
            .incomplete("max_output_tokens"),
        ResponsesStream::new().failed("overloaded"),
    ];
    let found: Vec<String> = streams
        .iter()
        .flat_map(|s| problems(Dialect::OpenAiResponses, &s.events()))
        .collect();
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn anthropic_streams_fit_anthropics_definition() {
    let streams = [
        MessagesStream::new(10, 4, 2)
            .ping()
            .text("Hello there")
            .stop("end_turn", 3),
        MessagesStream::new(10, 0, 0)
            .thinking_signed("thinking", "c2ln")
            .redacted_thinking("ZGF0YQ==")
            .text("Reading.")
            .tool_use("t1", "fs_read", r#"{"path":"a.txt"}"#)
            .stop("tool_use", 5),
        MessagesStream::new(10, 0, 0).error("overloaded_error", "Overloaded"),
    ];
    let found: Vec<String> = streams
        .iter()
        .flat_map(|s| problems(Dialect::Anthropic, &s.events()))
        .collect();
    assert!(found.is_empty(), "{}", found.join("\n"));
}
