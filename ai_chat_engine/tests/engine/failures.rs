//! Turns that go wrong: cut streams, HTTP errors and retries, budgets.

use std::time::{Duration, Instant};

use ai_chat_engine::budgets::{MAX_ROUNDS, MAX_STREAMED_OUTPUT_BYTES};
use ai_chat_engine::{EngineError, Event, ProviderKind, WRAP_UP_NOTICE};
use koi_testkit::openai_chat::ChatStream;
use koi_testkit::{FakeProvider, Reply};

use crate::common::*;

#[test]
fn stream_cut_mid_tool_call_executes_nothing() {
    let stream = ChatStream::new().text("Writing it now.").tool_call(
        "w1",
        "fs_write",
        r#"{"path":"victim.txt","content":"boom","expected_revision":"absent"}"#,
    );
    // Role chunk, 2 text pieces, call head, first half of the arguments.
    let n = stream.events().len() - 1;
    let server = FakeProvider::start([stream.reply().cut_after(n)]);
    let h = harness_with(&server, ProviderKind::OpenAi, |o| {
        o.mode = Some(ai_tools::Mode::Bypass)
    });
    let conv = h.engine.new_conversation();
    let msgs = run(&h.engine, &conv, "write the file");
    assert!(kind_of(&msgs) == ErrorKind::Stream, "{msgs:?}");
    assert_eq!(count(&msgs, |m| matches!(m, Event::ToolStart { .. })), 0);
    assert!(!h.workspace.path().join("victim.txt").exists());
    assert_eq!(server.request_count(), 1);
    // Even a clean end of body without a finish reason executes nothing.
    let stream = ChatStream::new().tool_call(
        "w2",
        "fs_write",
        r#"{"path":"victim.txt","content":"boom","expected_revision":"absent"}"#,
    );
    let server = FakeProvider::start([Reply::sse(stream.events())]);
    let h2 = harness_with(&server, ProviderKind::OpenAi, |o| {
        o.mode = Some(ai_tools::Mode::Bypass)
    });
    let conv = h2.engine.new_conversation();
    let msgs = run(&h2.engine, &conv, "write the file");
    assert!(kind_of(&msgs) == ErrorKind::Stream, "{msgs:?}");
    assert!(!h2.workspace.path().join("victim.txt").exists());
    // The partial text the user saw is kept; no tool call is.
    let history = conv.messages();
    assert!(history.iter().all(|m| !matches!(m, ai_chat_engine::Message::Assistant { tool_calls, .. } if !tool_calls.is_empty())));
}

#[test]
fn rate_limit_then_success_honours_retry_after() {
    let server = FakeProvider::start([
        Reply::status(429, r#"{"error":{"message":"slow down"}}"#).header("retry-after", "1"),
        ChatStream::new().text("ok").stop().reply(),
    ]);
    let h = harness(&server);
    let conv = h.engine.new_conversation();
    let t0 = Instant::now();
    let msgs = run(&h.engine, &conv, "hi");
    assert!(is_done(&msgs), "{msgs:?}");
    assert_eq!(tokens(&msgs), "ok");
    assert!(
        t0.elapsed() >= Duration::from_millis(950),
        "{:?}",
        t0.elapsed()
    );
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(
        reqs[0].body, reqs[1].body,
        "a retry resends the same request"
    );
}

#[test]
fn server_error_three_times_is_a_clear_error() {
    let server = FakeProvider::start(
        (0..3).map(|_| Reply::status(500, r#"{"error":{"message":"upstream exploded"}}"#)),
    );
    let h = harness(&server);
    let conv = h.engine.new_conversation();
    let msgs = run(&h.engine, &conv, "hi");
    assert_eq!(kind_of(&msgs), ErrorKind::RetriesExhausted);
    let text = message_of(&msgs);
    assert!(text.contains("failed 3 times"), "{text}");
    assert!(
        text.contains("HTTP 500") && text.contains("upstream exploded"),
        "{text}"
    );
    assert_eq!(server.request_count(), 3);
}

#[test]
fn client_errors_are_never_retried() {
    let server = FakeProvider::start([Reply::status(401, r#"{"error":{"message":"bad key"}}"#)]);
    let h = harness(&server);
    let conv = h.engine.new_conversation();
    let msgs = run(&h.engine, &conv, "hi");
    assert_eq!(
        error_of(&msgs),
        &EngineError::Rejected {
            status: 401,
            message: "bad key".into()
        }
        .to_event()
    );
    assert_eq!(server.request_count(), 1);
}

#[test]
fn round_limit_with_wrap_up_notice_at_round_twenty() {
    let server = FakeProvider::start_with(MAX_ROUNDS, |_, i| {
        ChatStream::new()
            .tool_call(&format!("c{i}"), "fs_list", r#"{"path":"."}"#)
            .tool_calls()
            .reply()
    });
    let h = harness(&server);
    let conv = h.engine.new_conversation();
    let msgs = run(&h.engine, &conv, "loop forever");
    assert_eq!(
        error_of(&msgs),
        &EngineError::RoundLimit { rounds: MAX_ROUNDS }.to_event()
    );
    let reqs = server.requests();
    assert_eq!(reqs.len(), MAX_ROUNDS);
    let has_notice = |i: usize| reqs[i].body_str().contains(&WRAP_UP_NOTICE[..40]);
    assert!(!has_notice(18), "request 19 has no notice yet");
    assert!(has_notice(19), "request 20 carries the wrap-up notice");
    // Round 25's call is answered in history but never run.
    assert_eq!(
        count(&msgs, |m| matches!(m, Event::ToolDone { .. })),
        MAX_ROUNDS - 1
    );
    assert!(matches!(msgs[msgs.len() - 2], Event::ToolFailed { .. }));
    let last = conv.messages();
    assert!(matches!(
        last.last(),
        Some(ai_chat_engine::Message::ToolResult { is_error: true, .. })
    ));
}

#[test]
fn output_cap_ends_with_a_partial_error_never_done() {
    let chunk = "x".repeat(8 * 1024);
    let mut stream = ChatStream::new();
    for _ in 0..(MAX_STREAMED_OUTPUT_BYTES / chunk.len() + 4) {
        stream = stream.text(&chunk);
    }
    let server = FakeProvider::start([stream.stop().reply()]);
    let h = harness(&server);
    let conv = h.engine.new_conversation();
    let msgs = run(&h.engine, &conv, "talk forever");
    assert!(kind_of(&msgs) == ErrorKind::OutputCap, "{:?}", msgs.last());
    assert!(message_of(&msgs).to_string().contains("partial"));
    assert_eq!(count(&msgs, |m| matches!(m, Event::Done)), 0);
    let shown = tokens(&msgs).len();
    assert!(shown <= MAX_STREAMED_OUTPUT_BYTES && shown > MAX_STREAMED_OUTPUT_BYTES - 16 * 1024);
}

#[test]
fn length_stop_is_an_incomplete_error() {
    let server = FakeProvider::start([ChatStream::new()
        .text("The answer is")
        .finish("length")
        .reply()]);
    let h = harness(&server);
    let conv = h.engine.new_conversation();
    let msgs = run(&h.engine, &conv, "hi");
    assert_eq!(
        error_of(&msgs),
        &EngineError::Incomplete {
            reason: "length".into()
        }
        .to_event()
    );
}

#[test]
fn provider_error_event_and_garbage_end_the_turn() {
    let server = FakeProvider::start([
        Reply::sse([koi_testkit::sse_event(
            None,
            r#"{"error":{"message":"model overloaded"}}"#,
        )]),
        Reply::sse([koi_testkit::sse_event(None, "<html>not json</html>")]),
    ]);
    let h = harness(&server);
    let conv = h.engine.new_conversation();
    let msgs = run(&h.engine, &conv, "a");
    assert!(message_of(&msgs).to_string().contains("model overloaded"));
    let msgs = run(&h.engine, &conv, "b");
    assert!(kind_of(&msgs) == ErrorKind::Stream, "{msgs:?}");
}
