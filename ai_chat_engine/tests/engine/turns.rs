//! Turns that go right: text, tools, parallel reads, bad calls the model
//! can recover from.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use ai_chat_engine::{Event, Message, ProviderKind, UserInput};
use koi_testkit::openai_chat::ChatStream;
use koi_testkit::FakeProvider;

use crate::common::*;

#[test]
fn text_only_turn() {
    let server = FakeProvider::start([ChatStream::new()
        .text("Hello from the model.")
        .stop()
        .usage(120, 100, 7)
        .reply()]);
    let h = harness(&server);
    let conv = h.engine.new_conversation();
    let msgs = run(&h.engine, &conv, "hi");
    assert!(is_done(&msgs), "{msgs:?}");
    assert!(matches!(msgs[0], Event::AssistantStart));
    assert_eq!(tokens(&msgs), "Hello from the model.");
    assert_eq!(count(&msgs, |m| m.is_terminal()), 1);
    assert!(msgs.iter().any(|m| matches!(
        m,
        Event::Usage {
            input: 120,
            cached_input: 100,
            output: 7,
            reasoning: 0
        }
    )));

    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    let r = &reqs[0];
    assert_eq!(r.path, "/v1/chat/completions");
    assert_eq!(r.header("authorization"), Some("Bearer sk-test-SECRET-123"));
    let body = r.json();
    assert_eq!(body["model"], "main-model");
    assert_eq!(body["stream"], true);
    let m = body["messages"].as_array().unwrap();
    assert_eq!(m[0]["role"], "system");
    assert_eq!(m[0]["content"].as_str().unwrap(), h.engine.system_prompt());
    assert!(m[1]["content"]
        .as_str()
        .unwrap()
        .starts_with("<environment>"));
    assert_eq!(m[2]["content"], "hi");
    assert!(body["tools"].as_array().unwrap().len() > 5);

    // The key reaches the header only: not the body, not the session log.
    assert!(!r.body_str().contains("SECRET"));
    let log = std::fs::read_to_string(conv.log_path().unwrap()).unwrap();
    assert!(!log.contains("SECRET"));
    assert!(log.contains("\"type\":\"assistant\""));
    let history = conv.messages();
    assert_eq!(history.len(), 3);
    assert!(
        matches!(&history[2], Message::Assistant { text, .. } if text == "Hello from the model.")
    );
}

#[test]
fn tool_call_result_then_answer() {
    let server = FakeProvider::start([
        ChatStream::new()
            .text("Let me look.")
            .tool_call("call_1", "fs_read", r#"{"path":"notes.txt"}"#)
            .tool_calls()
            .reply(),
        ChatStream::new().text("It says hello.").stop().reply(),
    ]);
    let h = harness(&server);
    std::fs::write(h.workspace.path().join("notes.txt"), "hello world\n").unwrap();
    let conv = h.engine.new_conversation();
    let msgs = run(&h.engine, &conv, "what do my notes say?");
    assert!(is_done(&msgs), "{msgs:?}");
    assert!(msgs.iter().any(|m| matches!(m,
        Event::ToolStart { id, name, args_preview, summary }
            if id == "call_1" && name == "fs_read" && args_preview.contains("notes.txt")
                && summary == "notes.txt")));
    assert!(msgs
        .iter()
        .any(|m| matches!(m, Event::ToolDone { id, .. } if id == "call_1")));
    assert_eq!(tokens(&msgs), "Let me look.It says hello.");
    assert_eq!(count(&msgs, |m| matches!(m, Event::AssistantStart)), 2);

    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    let m = reqs[1].json()["messages"].as_array().unwrap().clone();
    let assistant = &m[3];
    assert_eq!(assistant["role"], "assistant");
    assert_eq!(assistant["tool_calls"][0]["id"], "call_1");
    assert_eq!(
        assistant["tool_calls"][0]["function"]["arguments"],
        r#"{"path":"notes.txt"}"#
    );
    let tool = &m[4];
    assert_eq!(tool["role"], "tool");
    assert_eq!(tool["tool_call_id"], "call_1");
    let content = tool["content"].as_str().unwrap();
    assert!(
        content.starts_with("<untrusted-data kind=\"tool-output\" label=\"fs_read\">"),
        "{content}"
    );
    assert!(content.contains("hello world"));
}

/// A read-only command that prints when it started and ended (ns since
/// the epoch), so the test can see whether two runs overlapped.
fn timed(tag: &str) -> String {
    let command = format!("date +%s%N; sleep 0.3; echo {tag}; date +%s%N");
    serde_json::json!({ "command": command }).to_string()
}

/// The (start, end) a [`timed`] command reported.
fn interval(output: &str, tag: &str) -> (u128, u128) {
    let stamps: Vec<u128> = output
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect();
    assert!(output.contains(tag), "{output}");
    match stamps[..] {
        [start, end] => (start, end),
        _ => panic!("two timestamps expected in {output}"),
    }
}

#[test]
fn two_read_only_calls_run_in_parallel() {
    let server = FakeProvider::start([
        ChatStream::new()
            .tool_call("a", "shell_exec", &timed("first"))
            .tool_call("b", "shell_exec", &timed("second"))
            .tool_calls()
            .reply(),
        ChatStream::new().text("both done").stop().reply(),
    ]);
    let h = harness(&server);
    let conv = h.engine.new_conversation();
    let msgs = run(&h.engine, &conv, "run both");
    assert!(is_done(&msgs), "{msgs:?}");
    assert_eq!(
        count(&msgs, |m| matches!(m, Event::ToolDone { .. })),
        2,
        "{msgs:?}"
    );
    // Results come back in call order whatever order they finished in.
    let m = second_request_messages(&server);
    assert_eq!(m[4]["tool_call_id"], "a");
    assert_eq!(m[5]["tool_call_id"], "b");
    let a = interval(m[4]["content"].as_str().unwrap(), "first");
    let b = interval(m[5]["content"].as_str().unwrap(), "second");
    // Parallel means each started before the other ended.
    assert!(
        a.0 < b.1 && b.0 < a.1,
        "ran one after the other: {a:?} {b:?}"
    );
}

#[test]
fn unknown_tool_becomes_a_readable_error() {
    let server = FakeProvider::start([
        ChatStream::new()
            .tool_call("c1", "launch_rockets", r#"{"count":3}"#)
            .tool_calls()
            .reply(),
        ChatStream::new().text("Sorry, I cannot.").stop().reply(),
    ]);
    let h = harness(&server);
    let conv = h.engine.new_conversation();
    let msgs = run(&h.engine, &conv, "launch");
    assert!(is_done(&msgs), "{msgs:?}");
    assert!(msgs.iter().any(|m| matches!(m,
        Event::ToolFailed { id, error } if id == "c1" && error.contains("no tool named"))));
    let m = second_request_messages(&server);
    let content = m[4]["content"].as_str().unwrap();
    assert!(
        content.contains("no tool named `launch_rockets`"),
        "{content}"
    );
    assert!(
        content.contains("fs_read"),
        "lists the real tools: {content}"
    );
}

#[test]
fn invalid_json_arguments_are_not_executed() {
    let server = FakeProvider::start([
        ChatStream::new()
            .tool_call("c1", "fs_write", r#"{"path":"x.txt","content":"#)
            .tool_calls()
            .reply(),
        ChatStream::new().text("Let me fix that.").stop().reply(),
    ]);
    let h = harness_with(&server, ProviderKind::OpenAi, |o| {
        o.mode = Some(ai_tools::Mode::Bypass)
    });
    let conv = h.engine.new_conversation();
    let msgs = run(&h.engine, &conv, "write");
    assert!(is_done(&msgs), "{msgs:?}");
    assert!(!h.workspace.path().join("x.txt").exists());
    let m = second_request_messages(&server);
    // History carries a valid object so the provider accepts the request.
    assert_eq!(m[3]["tool_calls"][0]["function"]["arguments"], "{}");
    assert!(m[4]["content"].as_str().unwrap().contains("not valid JSON"));
}

#[test]
fn waker_runs_after_each_message_and_busy_is_reported() {
    let server = FakeProvider::start([ChatStream::new()
        .text("slow answer")
        .stop()
        .reply()
        .delay(Duration::from_millis(300))]);
    let wakes = Arc::new(AtomicUsize::new(0));
    let w = Arc::clone(&wakes);
    let h = harness_with(&server, ProviderKind::OpenAi, move |o| {
        o.waker = Some(Arc::new(move || {
            w.fetch_add(1, Ordering::SeqCst);
        }))
    });
    let conv = h.engine.new_conversation();
    let (rx, _c) = h.engine.submit(&conv, UserInput::text("one"));
    std::thread::sleep(Duration::from_millis(50));
    let (rx2, _c2) = h.engine.submit(&conv, UserInput::text("two"));
    let second = collect(&rx2);
    assert_eq!(
        error_of(&second),
        &ai_chat_engine::EngineError::Busy.to_event()
    );
    let msgs = collect(&rx);
    assert!(is_done(&msgs));
    assert!(
        wakes.load(Ordering::SeqCst) >= msgs.len(),
        "woken {wakes:?} for {}",
        msgs.len()
    );
}

#[test]
fn demo_provider_shows_a_tool_call_and_an_approval() {
    let workspace = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let cfg = ai_chat_engine::AiConfig {
        provider: Some(ProviderKind::Demo),
        ..Default::default()
    };
    let engine = ai_chat_engine::Engine::new(
        cfg,
        registry(workspace.path()),
        options(data.path(), data.path()),
    )
    .unwrap();
    assert!(engine.is_demo());
    let conv = engine.new_conversation();
    let (rx, turn) = engine.submit(&conv, UserInput::text("hello?"));
    let mut msgs = Vec::new();
    loop {
        let m = rx.recv_timeout(TURN_TIMEOUT).unwrap();
        if let Event::ApprovalAsked { id: Some(id), .. } = &m {
            turn.approve(id, ai_chat_engine::ApprovalReply::Deny);
        }
        let end = m.is_terminal();
        msgs.push(m);
        if end {
            break;
        }
    }
    assert!(is_done(&msgs), "{msgs:?}");
    let text = tokens(&msgs);
    assert!(text.contains("demo"), "{text}");
    assert!(text.contains("koi.toml"), "{text}");
    assert!(
        msgs.iter().any(|m| matches!(m, Event::ToolDone { .. })),
        "{msgs:?}"
    );
    assert_eq!(
        count(&msgs, |m| matches!(m, Event::ApprovalAsked { .. })),
        1,
        "{msgs:?}"
    );
    // The approval names the call it is about.
    let started: Vec<&str> = msgs
        .iter()
        .filter_map(|m| match m {
            Event::ToolStart { id, .. } => Some(id.as_str()),
            _ => None,
        })
        .collect();
    let asked = msgs.iter().find_map(|m| match m {
        Event::ApprovalAsked { id: Some(id), .. } => Some(id.as_str()),
        _ => None,
    });
    assert!(
        asked.is_some_and(|id| started.contains(&id)),
        "{asked:?} not in {started:?}"
    );
    assert!(
        !workspace.path().join("koi-demo.txt").exists(),
        "denied, so not written"
    );
}

#[test]
fn arguments_that_miss_the_schema_are_an_error_result() {
    let server = FakeProvider::start([
        ChatStream::new()
            .tool_call("c1", "fs_read", r#"{"file":"notes.txt"}"#)
            .tool_calls()
            .reply(),
        ChatStream::new().text("Retrying.").stop().reply(),
    ]);
    let h = harness(&server);
    let conv = h.engine.new_conversation();
    let msgs = run(&h.engine, &conv, "read");
    assert!(is_done(&msgs), "{msgs:?}");
    let m = second_request_messages(&server);
    let content = m[4]["content"].as_str().unwrap();
    assert!(
        content.starts_with("error: invalid arguments for fs_read"),
        "{content}"
    );
    // The model's own arguments go back unchanged: they were valid JSON.
    assert_eq!(
        m[3]["tool_calls"][0]["function"]["arguments"],
        r#"{"file":"notes.txt"}"#
    );
}

#[test]
fn writes_run_alone_and_in_order_between_reads() {
    let server = FakeProvider::start([
        ChatStream::new()
            .tool_call("r1", "fs_read", r#"{"path":"a.txt"}"#)
            .tool_call(
                "w1",
                "fs_write",
                r#"{"path":"b.txt","content":"new\n","expected_revision":"absent"}"#,
            )
            .tool_call("r2", "fs_read", r#"{"path":"b.txt"}"#)
            .tool_calls()
            .reply(),
        ChatStream::new().text("ok").stop().reply(),
    ]);
    let h = harness_with(&server, ProviderKind::OpenAi, |o| {
        o.mode = Some(ai_tools::Mode::Bypass)
    });
    std::fs::write(h.workspace.path().join("a.txt"), "a\n").unwrap();
    let conv = h.engine.new_conversation();
    assert!(is_done(&run(&h.engine, &conv, "go")));
    // The read after the write sees the write.
    let m = second_request_messages(&server);
    assert!(
        m[6]["content"].as_str().unwrap().contains("new"),
        "{}",
        m[6]
    );
    let log = ai_chat_engine::store::session_log::read_log(&conv.log_path().unwrap()).unwrap();
    let order: Vec<String> = log
        .records
        .iter()
        .filter_map(|r| match &r.entry {
            ai_chat_engine::store::session_log::Entry::ToolStart { call_id, .. } => {
                Some(format!("start {call_id}"))
            }
            ai_chat_engine::store::session_log::Entry::ToolResult { call_id, .. } => {
                Some(format!("result {call_id}"))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        order,
        [
            "start r1",
            "result r1",
            "start w1",
            "result w1",
            "start r2",
            "result r2"
        ]
    );
}

#[test]
fn set_model_switches_the_next_turn_and_keeps_the_prefix() {
    let server = FakeProvider::start([
        ChatStream::new().text("one").stop().reply(),
        ChatStream::new().text("two").stop().reply(),
    ]);
    let h = harness(&server);
    let conv = h.engine.new_conversation();
    assert!(is_done(&run(&h.engine, &conv, "first")));
    assert_eq!(h.engine.model(), "main-model");
    for bad in ["", "   ", "a\nb", &"x".repeat(500)] {
        assert!(h.engine.set_model(bad).is_err(), "{bad:?} accepted");
    }
    assert_eq!(h.engine.model(), "main-model");
    h.engine.set_model(" other-model ").unwrap();
    assert_eq!(h.engine.model(), "other-model");
    assert!(is_done(&run(&h.engine, &conv, "second")));
    let reqs = server.requests();
    let (a, b) = (reqs[0].json(), reqs[1].json());
    assert_eq!(a["model"], "main-model");
    assert_eq!(b["model"], "other-model");
    // Same system prompt and tools: the cacheable prefix is unchanged.
    assert_eq!(a["messages"][0], b["messages"][0]);
    assert_eq!(a["tools"], b["tools"]);
}
