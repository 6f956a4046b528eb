//! Each provider's SSE dialect end to end: text, reasoning, tool calls,
//! usage with cached tokens, and what goes back on the next request.

use ai_chat_engine::{EngineError, ProviderKind};
use koi_testkit::anthropic::MessagesStream;
use koi_testkit::openai_chat::ChatStream;
use koi_testkit::openai_responses::ResponsesStream;
use koi_testkit::{sse_event, FakeProvider, Reply};

use crate::common::*;

#[test]
fn openai_chat_reasoning_and_cached_usage() {
    let deepseek_usage = sse_event(
        None,
        r#"{"choices":[],"usage":{"prompt_tokens":50,"completion_tokens":5,"prompt_cache_hit_tokens":40}}"#,
    );
    let mut events = ChatStream::new()
        .reasoning("Thinking it over.")
        .text("Answer.")
        .stop()
        .events();
    events.push(deepseek_usage);
    events.push(sse_event(None, "[DONE]"));
    let server = FakeProvider::start([Reply::sse(events)]);
    let h = harness(&server);
    let conv = h.engine.new_conversation();
    let msgs = run(&h.engine, &conv, "q");
    assert!(is_done(&msgs), "{msgs:?}");
    assert_eq!(reasoning(&msgs), "Thinking it over.");
    assert_eq!(tokens(&msgs), "Answer.");
    assert_eq!(usage(&msgs), vec![(50, 40, 5)]);
    // Reasoning is shown, never sent back.
    let log = std::fs::read_to_string(conv.log_path().unwrap()).unwrap();
    assert!(log.contains("Thinking it over."));
}

#[test]
fn openai_responses_dialect() {
    let server = FakeProvider::start([
        ResponsesStream::new()
            .reasoning("Need to read the file.")
            .text("Reading.")
            .function_call("call_r1", "fs_read", r#"{"path":"a.txt"}"#)
            .completed(900, 800, 30)
            .reply(),
        ResponsesStream::new()
            .text("It says A.")
            .completed(1000, 900, 5)
            .reply(),
    ]);
    let h = harness_with(&server, ProviderKind::OpenAiResponses, |_| {});
    std::fs::write(h.workspace.path().join("a.txt"), "A\n").unwrap();
    let conv = h.engine.new_conversation();
    let msgs = run(&h.engine, &conv, "read a.txt");
    assert!(is_done(&msgs), "{msgs:?}");
    assert_eq!(reasoning(&msgs), "Need to read the file.");
    assert_eq!(tokens(&msgs), "Reading.It says A.");
    assert_eq!(usage(&msgs), vec![(900, 800, 30), (1000, 900, 5)]);
    let reqs = server.requests();
    assert_eq!(reqs[0].path, "/v1/responses");
    let body = reqs[1].json();
    assert_eq!(
        body["instructions"].as_str().unwrap(),
        h.engine.system_prompt()
    );
    assert_eq!(body["store"], false);
    assert_eq!(body["tools"][0]["type"], "function");
    assert_eq!(body["tools"][0]["strict"], false);
    let input = body["input"].as_array().unwrap();
    let call = input.iter().find(|i| i["type"] == "function_call").unwrap();
    assert_eq!(call["call_id"], "call_r1");
    assert_eq!(call["arguments"], r#"{"path":"a.txt"}"#);
    let out = input
        .iter()
        .find(|i| i["type"] == "function_call_output")
        .unwrap();
    assert_eq!(out["call_id"], "call_r1");
    assert!(out["output"].as_str().unwrap().contains("A"));
    // Prefix stability holds for this dialect too.
    let (a, b) = (reqs[0].body_str(), reqs[1].body_str());
    assert!(b.starts_with(a.strip_suffix("]}").unwrap()));
}

#[test]
fn openai_responses_incomplete_and_failed() {
    let server = FakeProvider::start([
        ResponsesStream::new()
            .text("Partial")
            .incomplete("max_output_tokens")
            .reply(),
        ResponsesStream::new().failed("backend on fire").reply(),
        ResponsesStream::new()
            .text("Half an ans")
            .error_nested(
                "context_length_exceeded",
                "Your input exceeds the context window",
            )
            .reply(),
    ]);
    let h = harness_with(&server, ProviderKind::OpenAiResponses, |_| {});
    let conv = h.engine.new_conversation();
    let msgs = run(&h.engine, &conv, "a");
    assert_eq!(
        error_of(&msgs),
        &EngineError::Incomplete {
            reason: "max_output_tokens".into()
        }
        .to_event()
    );
    let msgs = run(&h.engine, &conv, "b");
    assert!(message_of(&msgs).to_string().contains("backend on fire"));
    // The nested `error` event production servers send keeps its words.
    let msgs = run(&h.engine, &conv, "c");
    assert_eq!(tokens(&msgs), "Half an ans");
    assert_eq!(
        error_of(&msgs),
        &EngineError::Stream(
            "the provider reported: context_length_exceeded: Your input exceeds the context window"
                .into()
        )
        .to_event()
    );
}

#[test]
fn anthropic_dialect() {
    let server = FakeProvider::start([
        MessagesStream::new(10, 2000, 300)
            .ping()
            .thinking("Check the file first.")
            .text("Reading.")
            .tool_use("toolu_1", "fs_read", r#"{"path":"b.txt"}"#)
            .stop("tool_use", 40)
            .reply(),
        MessagesStream::new(20, 2300, 0)
            .text("It says B.")
            .stop("end_turn", 6)
            .reply(),
    ]);
    let h = harness_with(&server, ProviderKind::Anthropic, |_| {});
    std::fs::write(h.workspace.path().join("b.txt"), "B\n").unwrap();
    let conv = h.engine.new_conversation();
    let msgs = run(&h.engine, &conv, "read b.txt");
    assert!(is_done(&msgs), "{msgs:?}");
    assert_eq!(reasoning(&msgs), "Check the file first.");
    assert_eq!(tokens(&msgs), "Reading.It says B.");
    // input = uncached + cache reads + cache writes; cached = cache reads.
    assert_eq!(usage(&msgs), vec![(2310, 2000, 40), (2320, 2300, 6)]);
    let reqs = server.requests();
    let r = &reqs[1];
    assert_eq!(r.path, "/v1/messages");
    assert_eq!(r.header("x-api-key"), Some("sk-test-SECRET-123"));
    assert_eq!(r.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(r.header("authorization"), None);
    let body = r.json();
    assert_eq!(
        body["system"][0]["text"].as_str().unwrap(),
        h.engine.system_prompt()
    );
    assert_eq!(body["system"][0]["cache_control"]["type"], "ephemeral");
    assert!(body["max_tokens"].as_u64().unwrap() > 0);
    let m = body["messages"].as_array().unwrap();
    // environment + question merge into one user turn; roles alternate.
    assert_eq!(m.len(), 3);
    assert_eq!(m[0]["role"], "user");
    assert_eq!(m[0]["content"].as_array().unwrap().len(), 2);
    assert_eq!(m[1]["role"], "assistant");
    // The thinking block goes back first, with its signature.
    assert_eq!(m[1]["content"][0]["type"], "thinking");
    assert_eq!(m[1]["content"][0]["thinking"], "Check the file first.");
    assert_eq!(m[1]["content"][0]["signature"], "c2lnbmF0dXJl");
    assert_eq!(m[1]["content"][2]["type"], "tool_use");
    assert_eq!(m[1]["content"][2]["input"]["path"], "b.txt");
    let result = &m[2]["content"][0];
    assert_eq!(result["type"], "tool_result");
    assert_eq!(result["tool_use_id"], "toolu_1");
    assert_eq!(
        result["cache_control"]["type"], "ephemeral",
        "breakpoint on the last block"
    );
    assert!(m[1]["content"][2].get("cache_control").is_none());
}

#[test]
fn anthropic_error_event_and_max_tokens() {
    let server = FakeProvider::start([
        MessagesStream::new(1, 0, 0)
            .error("overloaded_error", "Overloaded")
            .reply(),
        MessagesStream::new(1, 0, 0)
            .text("cut")
            .stop("max_tokens", 9)
            .reply(),
    ]);
    let h = harness_with(&server, ProviderKind::Anthropic, |_| {});
    let conv = h.engine.new_conversation();
    let msgs = run(&h.engine, &conv, "a");
    assert!(
        message_of(&msgs).to_string().contains("Overloaded"),
        "{msgs:?}"
    );
    let msgs = run(&h.engine, &conv, "b");
    assert_eq!(
        error_of(&msgs),
        &EngineError::Incomplete {
            reason: "max_tokens".into()
        }
        .to_event()
    );
    // Usage is reported even though the step failed.
    assert_eq!(usage(&msgs), vec![(1, 0, 9)]);
}
