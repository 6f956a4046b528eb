//! The fake provider speaks enough HTTP/1.1 for a plain client.

// Test helpers outside #[test] fns: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use koi_testkit::openai_chat::ChatStream;
use koi_testkit::{sse_event, FakeProvider, Reply, ViolationKind};

/// A minimal valid Chat Completions body, tagged so replies can echo it.
fn chat_body(tag: &str) -> String {
    format!(
        r#"{{"model":"m","messages":[{{"role":"system","content":"s"}},{{"role":"user","content":"{tag}"}}]}}"#
    )
}

fn roundtrip(server: &FakeProvider, body: &str) -> String {
    let mut s = TcpStream::connect(server.addr()).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let req = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nX-Test: yes\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

#[test]
fn records_requests_and_serves_the_script_in_order() {
    let server = FakeProvider::start([
        Reply::status(429, "{}").header("Retry-After", "3"),
        ChatStream::new().text("hi there").stop().reply(),
    ]);
    let first = roundtrip(&server, &chat_body("1"));
    assert!(first.starts_with("HTTP/1.1 429"), "{first}");
    assert!(first.contains("retry-after: 3"));
    let second = roundtrip(&server, &chat_body("2"));
    assert!(second.starts_with("HTTP/1.1 200"));
    assert!(second.contains("transfer-encoding: chunked"));
    assert!(second.contains("data: [DONE]"));
    assert!(second.ends_with("0\r\n\r\n"), "clean end");
    let third = roundtrip(&server, &chat_body("3"));
    assert!(third.contains("script exhausted"));
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    assert_eq!(reqs[0].method, "POST");
    assert_eq!(reqs[0].header("x-test"), Some("yes"));
    assert_eq!(reqs[1].json()["messages"][1]["content"], "2");
    assert!(server.wait_for_requests(3, Duration::from_millis(10)));
    let kinds: Vec<_> = server.into_violations().iter().map(|v| v.kind).collect();
    assert_eq!(kinds, [ViolationKind::ScriptExhausted]);
}

#[test]
fn cut_streams_have_no_terminating_chunk() {
    let server =
        FakeProvider::start(
            [Reply::sse([sse_event(None, "1"), sse_event(None, "2")]).cut_after(1)],
        );
    let out = roundtrip(&server, &chat_body("x"));
    assert!(out.contains("data: 1"));
    assert!(!out.contains("data: 2"));
    assert!(!out.ends_with("0\r\n\r\n"));
}

#[test]
fn handler_scripts_see_each_request() {
    let server = FakeProvider::start_with(2, |req, i| {
        Reply::status(
            200,
            &format!("{i}:{}", req.json()["messages"][1]["content"]),
        )
    });
    assert!(roundtrip(&server, &chat_body("x")).ends_with("0:\"x\""));
    assert!(roundtrip(&server, &chat_body("y")).ends_with("1:\"y\""));
}

#[test]
fn dialect_builders_produce_parseable_events() {
    use koi_testkit::anthropic::MessagesStream;
    use koi_testkit::openai_responses::ResponsesStream;
    let events = ResponsesStream::new()
        .function_call("c", "t", r#"{"k":"v"}"#)
        .completed(1, 0, 1)
        .events();
    let data: Vec<serde_json::Value> = events
        .iter()
        .map(|e| {
            let line = e.lines().find(|l| l.starts_with("data: ")).unwrap();
            serde_json::from_str(&line[6..]).unwrap()
        })
        .collect();
    assert_eq!(data.last().unwrap()["type"], "response.completed");
    let args: String = data
        .iter()
        .filter(|d| d["type"] == "response.function_call_arguments.delta")
        .map(|d| d["delta"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(args, r#"{"k":"v"}"#);
    let a = MessagesStream::new(1, 0, 0)
        .text("x")
        .stop("end_turn", 1)
        .events();
    assert!(a[0].starts_with("event: message_start\n"));
    assert!(a.last().unwrap().starts_with("event: message_stop\n"));
}
