//! Session logs: load, continue, torn tails, uncertain calls, titles
//! (compaction has its own module).

use std::io::Write;

use ai_chat_engine::store::session_log::{read_log, Entry};
use ai_chat_engine::{Message, ProviderKind};
use koi_testkit::openai_chat::ChatStream;
use koi_testkit::{FakeProvider, RequestKind};

use crate::common::*;

#[test]
fn load_continue_and_ignore_a_torn_tail() {
    let server = FakeProvider::start([
        ChatStream::new()
            .tool_call("c1", "fs_read", r#"{"path":"n.txt"}"#)
            .tool_calls()
            .reply(),
        ChatStream::new().text("First answer.").stop().reply(),
        ChatStream::new().text("Second answer.").stop().reply(),
    ]);
    let h = harness(&server);
    std::fs::write(h.workspace.path().join("n.txt"), "note\n").unwrap();
    let conv = h.engine.new_conversation();
    assert!(is_done(&run(&h.engine, &conv, "read n.txt")));
    let path = conv.log_path().unwrap();
    assert_eq!(path.parent().unwrap(), h.sessions_dir());

    // Entries were written as they happened, tool start before result.
    let log = read_log(&path).unwrap();
    let kinds: Vec<&str> = log
        .records
        .iter()
        .map(|r| match &r.entry {
            Entry::Meta { .. } => "meta",
            Entry::Environment { .. } => "env",
            Entry::User { .. } => "user",
            Entry::Assistant { .. } => "assistant",
            Entry::ToolStart { .. } => "tool_start",
            Entry::ToolResult { .. } => "tool_result",
            Entry::Usage { .. } => "usage",
            Entry::TurnEnd { .. } => "turn_end",
            Entry::Context(_) => "context",
            Entry::Draft { .. } => "draft",
            _ => "other",
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "meta",
            "context",
            "env",
            "user",
            "draft",
            "assistant",
            "tool_start",
            "tool_result",
            "draft",
            "assistant",
            "turn_end"
        ]
    );
    assert!(log
        .records
        .iter()
        .all(|r| !r.id.is_empty() && r.ts.ends_with('Z')));

    // A crash mid-write leaves a torn line; it is ignored, then cut.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    f.write_all(br#"{"id":"e99","ts":"2026-01-01T00:00:00.000Z","type":"user","te"#)
        .unwrap();
    drop(f);
    assert!(read_log(&path).unwrap().torn_tail);

    let sessions = h.engine.sessions();
    assert_eq!(sessions.len(), 1);
    assert_eq!(sessions[0].id, conv.id());
    assert_eq!(sessions[0].user_messages, 1);
    // One writer: while `conv` is open, loading it again (even in this
    // process) is refused and names the holder.
    match h.engine.latest_conversation() {
        Err(ai_chat_engine::EngineError::Locked { session, holder }) => {
            assert_eq!(session, conv.id());
            assert!(
                holder.contains(&format!("pid {}", std::process::id())),
                "{holder}"
            );
        }
        other => panic!("expected Locked, got {other:?}"),
    }
    let (id, live) = (conv.id(), conv.messages());
    drop(conv);
    let latest = h
        .engine
        .latest_conversation()
        .unwrap()
        .expect("latest for this cwd");
    assert_eq!(latest.id(), id);
    assert_eq!(latest.messages(), live, "replay equals the live history");

    // Continuing after a reload keeps the cache prefix.
    assert!(is_done(&run(&h.engine, &latest, "and again?")));
    // The fake provider checks that its bytes continue the previous request's.
    assert_eq!(server.request_count(), 3);
    let log = read_log(&path).unwrap();
    assert!(!log.torn_tail);
    assert_eq!(log.skipped, 0);
}

#[test]
fn a_started_call_without_result_is_uncertain_after_a_crash() {
    let server = FakeProvider::start([ChatStream::new().text("ok").stop().reply()]);
    let h = harness(&server);
    let dir = h.sessions_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let ws = h.ws();
    let lines = [
        format!(r#"{{"id":"e1","ts":"2026-01-01T00:00:00.000Z","type":"meta","session":"20260101-000000-abcdef","cwd":{:?},"provider":"openai","model":"m","format":1}}"#, ws.to_string_lossy()),
        r#"{"id":"e2","ts":"2026-01-01T00:00:01.000Z","type":"environment","text":"<environment>\ndate: 2026-01-01\n</environment>"}"#.to_string(),
        r#"{"id":"e3","ts":"2026-01-01T00:00:02.000Z","type":"user","text":"delete the cache"}"#.to_string(),
        r#"{"id":"e4","ts":"2026-01-01T00:00:03.000Z","type":"assistant","text":"","tool_calls":[{"id":"k1","name":"shell_exec","arguments":"{\"command\":\"rm -rf cache\"}"},{"id":"k2","name":"fs_list","arguments":"{}"}],"finish":"tool_calls"}"#.to_string(),
        r#"{"id":"e5","ts":"2026-01-01T00:00:04.000Z","type":"tool_start","call_id":"k1","name":"shell_exec","arguments":"{\"command\":\"rm -rf cache\"}"}"#.to_string(),
    ];
    std::fs::write(
        dir.join("20260101-000000-abcdef.jsonl"),
        lines.join("\n") + "\n",
    )
    .unwrap();
    let conv = h
        .engine
        .load_conversation("20260101-000000-abcdef")
        .unwrap();
    let uncertain = conv.uncertain_calls();
    assert_eq!(uncertain.len(), 1);
    assert_eq!(uncertain[0].call.id, "k1");
    assert_eq!(uncertain[0].started_at, "2026-01-01T00:00:04.000Z");
    // The open round has no results yet: what becomes of it is the
    // planner's call, and the uncertain one blocks everything.
    assert_eq!(conv.messages().len(), 3);
    assert!(matches!(
        conv.next_step(),
        ai_chat_engine::Step::ResolveUncertain(ref calls) if calls.len() == 1
    ));
    // Continuing it says so; elsewhere, it also says where it began.
    let notes = conv.resume_notes(h.engine.workspace());
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].contains("1 tool call(s) were interrupted") && notes[0].contains("shell_exec")
    );
    let elsewhere = tempfile::tempdir().unwrap();
    let notes = conv.resume_notes(elsewhere.path());
    assert!(notes[0].contains("this conversation began in"), "{notes:?}");
    // The transcript replays the question and the calls.
    let transcript = conv.transcript();
    assert!(
        matches!(&transcript[0], ai_chat_engine::TranscriptItem::Asked { text, .. } if text == "delete the cache")
    );
    // Nothing runs and the model is not called until the user decides.
    let refused = run(&h.engine, &conv, "what happened?");
    assert!(
        refused.last() == Some(&ai_chat_engine::EngineError::Uncertain { calls: 1 }.to_event()),
        "{refused:?}"
    );
    assert!(server.requests().is_empty());
    conv.decide_uncertain("k1", ai_chat_engine::UncertainDecision::Abandon)
        .unwrap();
    let m = conv.messages();
    assert!(
        matches!(&m[3], Message::ToolResult { call_id, content, .. } if call_id == "k1" && content == ai_chat_engine::ABANDONED_RESULT)
    );
    // Now the committed call that never started runs, then the question.
    assert!(is_done(&run(&h.engine, &conv, "what happened?")));
    let m = conv.messages();
    assert!(
        matches!(&m[4], Message::ToolResult { call_id, is_error: false, .. } if call_id == "k2"),
        "{:?}",
        m[4]
    );
    let body = server.requests()[0].json();
    let msgs = body["messages"].as_array().unwrap();
    assert_eq!(msgs.iter().filter(|m| m["role"] == "tool").count(), 2);
    assert!(h.engine.load_conversation("../etc/passwd").is_err());
}

#[test]
fn title_is_generated_with_the_fast_model() {
    let server = FakeProvider::start([
        ChatStream::new().text("Fixed.").stop().reply(),
        ChatStream::new().text("Anything else?").stop().reply(),
        // Listed last: the title request is served by kind, wherever it falls.
        ChatStream::new()
            .text("\"Fixing the build.\"\n")
            .stop()
            .reply()
            .for_title(),
    ]);
    let h = harness_with(&server, ProviderKind::OpenAi, |o| o.generate_titles = true);
    let conv = h.engine.new_conversation();
    assert!(is_done(&run(&h.engine, &conv, "the build is broken")));
    assert!(is_done(&run(&h.engine, &conv, "thanks")));
    assert_eq!(conv.title().as_deref(), Some("Fixing the build"));
    let reqs = server.requests();
    let kinds: Vec<_> = reqs.iter().map(|r| r.kind).collect();
    assert_eq!(
        kinds.iter().filter(|k| **k == RequestKind::Title).count(),
        1,
        "{kinds:?}"
    );
    let title_req = reqs
        .iter()
        .find(|r| r.kind == RequestKind::Title)
        .unwrap()
        .json();
    assert_eq!(title_req["model"], "fast-model");
    assert!(title_req.get("tools").is_none());
    assert!(title_req["messages"][1]["content"]
        .as_str()
        .unwrap()
        .contains("the build is broken"));
    for turn in reqs.iter().filter(|r| r.kind == RequestKind::Turn) {
        assert_eq!(turn.json()["model"], "main-model");
    }
    assert_eq!(
        h.engine.sessions()[0].title.as_deref(),
        Some("Fixing the build")
    );
}
