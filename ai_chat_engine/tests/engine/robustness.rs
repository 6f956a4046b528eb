//! Odd inputs from outside: byte-split streams, non-SSE replies, probing,
//! huge tool output, cancel during a retry wait.

use std::time::Duration;

use ai_chat_engine::budgets::TOOL_RESULT_MODEL_BYTES;
use ai_chat_engine::store::session_log::{read_log, Entry};
use ai_chat_engine::{EngineError, Event, UserInput};
use koi_testkit::openai_chat::ChatStream;
use koi_testkit::{FakeProvider, Reply, RequestKind};

use crate::common::*;

#[test]
fn stream_split_at_every_few_bytes_with_crlf_and_comments() {
    let mut whole = String::from(": keep-alive\r\n\r\n");
    for e in ChatStream::new()
        .text("Grüße, café — ünïcödé ✓")
        .stop()
        .events()
    {
        whole.push_str(&e.replace('\n', "\r\n"));
    }
    whole.push_str("data: [DONE]\r\n\r\n");
    let chunks: Vec<Vec<u8>> = whole.as_bytes().chunks(7).map(<[u8]>::to_vec).collect();
    let server = FakeProvider::start([Reply::sse_bytes(chunks)]);
    let h = harness(&server);
    let conv = h.engine.new_conversation();
    let msgs = run(&h.engine, &conv, "greet");
    assert!(is_done(&msgs), "{msgs:?}");
    assert_eq!(tokens(&msgs), "Grüße, café — ünïcödé ✓");
}

#[test]
fn a_reply_that_is_not_an_event_stream_is_explained() {
    let server = FakeProvider::start([Reply::status(200, r#"{"detail":"wrong endpoint"}"#)]);
    let h = harness(&server);
    let conv = h.engine.new_conversation();
    let msgs = run(&h.engine, &conv, "hi");
    let e = message_of(&msgs).to_string();
    assert!(
        e.contains("did not send an event stream") && e.contains("wrong endpoint"),
        "{e}"
    );
}

#[test]
fn probe_finds_a_local_openai_compatible_server() {
    let server = FakeProvider::start([Reply::json(&serde_json::json!({
        "object": "list", "data": [{"id": "qwen2.5-coder:7b", "object": "model"}]
    }))
    .for_kind(RequestKind::ModelList)]);
    let port = server.addr().port();
    let found =
        ai_chat_engine::model::probe::probe_local_servers(&[port], Duration::from_millis(500));
    assert_eq!(
        found,
        Some((
            format!("http://127.0.0.1:{port}/v1"),
            Some("qwen2.5-coder:7b".to_string())
        ))
    );
    assert_eq!(server.requests()[0].path, "/v1/models");
    // A port nobody listens on (the server is gone) is skipped on the
    // refusal, not after waiting out the probe's timeout: with an hour's
    // timeout, answering at all proves it.
    drop(server);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(ai_chat_engine::model::probe::probe_local_servers(
            &[port],
            Duration::from_secs(3600),
        ));
    });
    let found = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the probe waited for a refused port");
    assert_eq!(found, None);
}

#[test]
fn huge_tool_output_is_clipped_for_the_model_and_kept_whole_in_the_log() {
    let server = FakeProvider::start([
        ChatStream::new()
            .tool_call("s", "shell_exec", r#"{"command":"seq 1 60000"}"#)
            .tool_calls()
            .reply(),
        ChatStream::new().text("Counted.").stop().reply(),
    ]);
    let h = harness(&server);
    let conv = h.engine.new_conversation();
    assert!(is_done(&run(&h.engine, &conv, "count")));
    let m = second_request_messages(&server);
    let shown = m[4]["content"].as_str().unwrap();
    assert!(
        shown.len() <= TOOL_RESULT_MODEL_BYTES + 1024,
        "{} bytes shown",
        shown.len()
    );
    assert!(
        shown.contains("\n1\n") || shown.contains("1\n2\n"),
        "head kept"
    );
    assert!(shown.contains("60000"), "tail kept");
    let log = read_log(&conv.log_path().unwrap()).unwrap();
    let full = log
        .records
        .iter()
        .find_map(|r| match &r.entry {
            Entry::ToolResult { full, .. } => Some(full.clone()),
            _ => None,
        })
        .unwrap();
    assert!(
        full.len() > shown.len(),
        "the log keeps more than the model saw"
    );
}

#[test]
fn cancel_during_a_retry_wait_is_prompt() {
    // A retry wait longer than the turn timeout: only the cancel ends it in time.
    let server = FakeProvider::start([Reply::status(503, "{}").header("retry-after", "45")]);
    let h = harness(&server);
    let conv = h.engine.new_conversation();
    let (rx, cancel) = h.engine.submit(&conv, UserInput::text("hi"));
    assert!(server.wait_for_requests(1, TURN_TIMEOUT));
    cancel.cancel();
    let msgs = collect(&rx);
    assert_eq!(error_of(&msgs), &EngineError::Cancelled.to_event());
    // The retry never went out.
    assert_eq!(server.request_count(), 1);
}

#[test]
fn a_changed_terminal_size_is_noted_without_rewriting_history() {
    let server = FakeProvider::start([
        ChatStream::new().text("a").stop().reply(),
        ChatStream::new().text("b").stop().reply(),
    ]);
    let h = harness(&server);
    let conv = h.engine.new_conversation();
    for size in [(80, 24), (120, 40)] {
        let input = UserInput {
            terminal_size: Some(size),
            ..UserInput::text("size?")
        };
        let (rx, _c) = h.engine.submit(&conv, input);
        assert!(is_done(&collect(&rx)));
    }
    let reqs = server.requests();
    assert!(reqs[0].body_str().contains("terminal: 80x24"));
    let second = reqs[1].body_str();
    assert!(second.contains("[environment update: terminal is now 120x40]"));
    // The update is appended: the fake provider checks the bytes continue.
    let _ = Event::Done;
}
