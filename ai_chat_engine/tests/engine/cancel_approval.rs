//! Cancel (mid-stream, mid-tool, mid-approval) and the approval handshake.

use std::time::{Duration, Instant};

use ai_chat_engine::{ApprovalReply, EngineError, Event, Message, ProviderKind, UserInput};
use koi_testkit::openai_chat::ChatStream;
use koi_testkit::{FakeProvider, Reply};

use crate::common::*;

// How fast cancel ends a turn is measured by `benches/cancel.rs`; these
// tests prove that it does, by events: what is cancelled would otherwise
// outlast the turn timeout.

#[test]
fn cancel_mid_stream_ends_the_turn() {
    let server = FakeProvider::start([ChatStream::new()
        .text("I am thinking very slowly")
        .stop()
        .reply()
        .hang_after(2)]);
    let h = harness(&server);
    let conv = h.engine.new_conversation();
    let (rx, cancel) = h.engine.submit(&conv, UserInput::text("hi"));
    loop {
        if let Event::Token { .. } = rx.recv_timeout(TURN_TIMEOUT).unwrap() {
            break;
        }
    }
    cancel.cancel();
    // The stream hangs for longer than the turn timeout: only the cancel
    // can end the turn in time.
    let rest = collect(&rx);
    assert_eq!(error_of(&rest), &EngineError::Cancelled.to_event());
    assert!(
        !rest.iter().any(|m| matches!(m, Event::Token { .. })),
        "tokens after cancel: {rest:?}"
    );
    assert!(cancel.is_cancelled());
}

#[test]
fn cancel_mid_tool_ends_the_turn() {
    // Longer than the turn timeout: only the cancel can end the turn in time.
    let server = FakeProvider::start([ChatStream::new()
        .tool_call("s1", "shell_exec", r#"{"command":"sleep 100"}"#)
        .tool_calls()
        .reply()]);
    let h = harness(&server);
    let conv = h.engine.new_conversation();
    let (rx, cancel) = h.engine.submit(&conv, UserInput::text("wait"));
    loop {
        if let Event::ToolStart { .. } = rx.recv_timeout(TURN_TIMEOUT).unwrap() {
            break;
        }
    }
    cancel.cancel();
    let rest = collect(&rx);
    assert_eq!(error_of(&rest), &EngineError::Cancelled.to_event());
    // The call still has a result in history, so the next request is valid.
    let history = conv.messages();
    assert!(
        matches!(history.last(), Some(Message::ToolResult { is_error: true, content, .. }) if content.contains("cancelled"))
    );
    assert_eq!(server.request_count(), 1);
}

fn write_call() -> String {
    r#"{"path":"out.txt","content":"approved content\n","expected_revision":"absent"}"#.to_string()
}

/// The model asks to write `out.txt`.
fn write_round() -> Reply {
    ChatStream::new()
        .tool_call("w1", "fs_write", &write_call())
        .tool_calls()
        .reply()
}

fn approval_server() -> FakeProvider {
    FakeProvider::start([
        write_round(),
        ChatStream::new().text("finished").stop().reply(),
    ])
}

/// Runs a turn answering the approval with `answer` (None: never answer).
fn turn_with_approval(h: &Harness, answer: Option<ApprovalReply>) -> (Vec<Event>, usize) {
    let conv = h.engine.new_conversation();
    let (rx, turn) = h.engine.submit(&conv, UserInput::text("write out.txt"));
    let mut msgs = Vec::new();
    let mut asked = 0;
    loop {
        let m = rx.recv_timeout(TURN_TIMEOUT).unwrap();
        if let Event::ApprovalAsked {
            id: Some(id),
            summary,
            ..
        } = &m
        {
            asked += 1;
            assert!(summary.contains("out.txt"), "{summary}");
            if let Some(a) = answer {
                turn.approve(id, a);
            }
        }
        let end = m.is_terminal();
        msgs.push(m);
        if end {
            break;
        }
    }
    (msgs, asked)
}

fn tool_result_text(server: &FakeProvider) -> String {
    let m = second_request_messages(server);
    m[4]["content"].as_str().unwrap().to_string()
}

#[test]
fn approval_approved_runs_the_call() {
    let server = approval_server();
    let h = harness(&server);
    let (msgs, asked) = turn_with_approval(&h, Some(ApprovalReply::Approve));
    assert!(is_done(&msgs), "{msgs:?}");
    assert_eq!(asked, 1);
    assert_eq!(
        std::fs::read_to_string(h.workspace.path().join("out.txt")).unwrap(),
        "approved content\n"
    );
    assert!(msgs.iter().any(|m| matches!(m, Event::ToolDone { .. })));
}

/// The protocol's way: a turn started with `Op::Submit`, its approval
/// answered with `Op::Approve` sent to the engine (no channel in any
/// message); a stale answer for another call changes nothing.
#[test]
fn approval_is_answered_with_an_op_to_the_engine() {
    use ai_chat_engine::protocol::{ApprovalDecision, Op};
    let server = approval_server();
    let h = harness(&server);
    let conv = h.engine.new_conversation();
    let (rx, _turn) = h
        .engine
        .apply(
            &conv,
            Op::Submit {
                text: "write out.txt".into(),
            },
        )
        .unwrap()
        .expect("a submit starts a turn");
    let mut msgs = Vec::new();
    loop {
        let m = rx.recv_timeout(TURN_TIMEOUT).unwrap();
        if let Event::ApprovalAsked { id: Some(id), .. } = &m {
            for (call_id, decision) in [
                ("not-this-call".to_string(), ApprovalDecision::Deny),
                (id.clone(), ApprovalDecision::Approve),
            ] {
                let none = h.engine.apply(&conv, Op::Approve { call_id, decision });
                assert!(none.unwrap().is_none());
            }
        }
        let end = m.is_terminal();
        msgs.push(m);
        if end {
            break;
        }
    }
    assert!(is_done(&msgs), "{msgs:?}");
    assert_eq!(
        std::fs::read_to_string(h.workspace.path().join("out.txt")).unwrap(),
        "approved content\n"
    );
}

#[test]
fn approval_denied_tells_the_model() {
    let server = approval_server();
    let h = harness(&server);
    let (msgs, asked) = turn_with_approval(&h, Some(ApprovalReply::Deny));
    assert!(is_done(&msgs), "{msgs:?}");
    assert_eq!(asked, 1);
    assert!(!h.workspace.path().join("out.txt").exists());
    assert!(tool_result_text(&server).contains("the user declined"));
}

#[test]
fn approval_timeout_denies() {
    let server = approval_server();
    let h = harness_with(&server, ProviderKind::OpenAi, |o| {
        o.approval_timeout = Some(Duration::from_millis(300))
    });
    let t0 = Instant::now();
    let (msgs, asked) = turn_with_approval(&h, None);
    assert!(is_done(&msgs), "{msgs:?}");
    assert_eq!(asked, 1);
    assert!(t0.elapsed() >= Duration::from_millis(300));
    assert!(!h.workspace.path().join("out.txt").exists());
    assert!(tool_result_text(&server).contains("nobody answered"));
}

#[test]
fn dropped_turn_handles_deny_and_cancel_while_waiting_is_prompt() {
    let server = approval_server();
    let h = harness(&server);
    let conv = h.engine.new_conversation();
    let (rx, cancel) = h.engine.submit(&conv, UserInput::text("write"));
    loop {
        if let Event::ApprovalAsked { .. } = rx.recv_timeout(TURN_TIMEOUT).unwrap() {
            break;
        }
    }
    // Nobody is left to answer (the turn's only handle is gone): a deny.
    drop(cancel);
    let msgs = collect(&rx);
    assert!(is_done(&msgs), "{msgs:?}");
    assert!(tool_result_text(&server).contains("without an answer"));

    // Cancelled while waiting: the round after the approval never happens.
    let server = FakeProvider::start([write_round()]);
    let h = harness(&server);
    let conv = h.engine.new_conversation();
    let (rx, cancel) = h.engine.submit(&conv, UserInput::text("write"));
    loop {
        if let Event::ApprovalAsked { .. } = rx.recv_timeout(TURN_TIMEOUT).unwrap() {
            break;
        }
    }
    // The approval would wait 10 s and then deny (and the model would be
    // asked again): Cancelled, with no second request, is the cancel's doing.
    cancel.cancel();
    let rest = collect(&rx);
    assert_eq!(error_of(&rest), &EngineError::Cancelled.to_event());
    assert_eq!(server.request_count(), 1);
    assert!(!h.workspace.path().join("out.txt").exists());
}

/// A reply in `kind`'s dialect asking for `calls` (id, tool, arguments).
fn calls_reply(kind: ProviderKind, calls: &[(&str, &str, &str)]) -> Reply {
    use koi_testkit::anthropic::MessagesStream;
    use koi_testkit::openai_responses::ResponsesStream;
    match kind {
        ProviderKind::Anthropic => calls
            .iter()
            .fold(MessagesStream::new(10, 0, 0), |s, (id, name, args)| {
                s.tool_use(id, name, args)
            })
            .stop("tool_use", 5)
            .reply(),
        ProviderKind::OpenAiResponses => calls
            .iter()
            .fold(ResponsesStream::new(), |s, (id, name, args)| {
                s.function_call(id, name, args)
            })
            .completed(10, 0, 5)
            .reply(),
        _ => calls
            .iter()
            .fold(ChatStream::new(), |s, (id, name, args)| {
                s.tool_call(id, name, args)
            })
            .tool_calls()
            .reply(),
    }
}

fn text_reply(kind: ProviderKind, text: &str) -> Reply {
    use koi_testkit::anthropic::MessagesStream;
    use koi_testkit::openai_responses::ResponsesStream;
    match kind {
        ProviderKind::Anthropic => MessagesStream::new(10, 0, 0)
            .text(text)
            .stop("end_turn", 5)
            .reply(),
        ProviderKind::OpenAiResponses => ResponsesStream::new()
            .text(text)
            .completed(10, 0, 5)
            .reply(),
        _ => ChatStream::new().text(text).stop().reply(),
    }
}

/// A turn cancelled with one call running and one waiting for approval
/// leaves a history the next turn can send: the strict server checks that
/// every call has its result and the prompt did not move, in each dialect.
#[test]
fn a_turn_after_a_cancel_sends_a_valid_history_in_every_dialect() {
    for kind in [
        ProviderKind::OpenAi,
        ProviderKind::OpenAiResponses,
        ProviderKind::Anthropic,
    ] {
        let server = FakeProvider::start([
            calls_reply(
                kind,
                &[
                    ("r1", "shell_exec", r#"{"command":"sleep 2"}"#),
                    ("w1", "fs_write", &write_call()),
                ],
            ),
            text_reply(kind, "Going on."),
        ]);
        let h = harness_with(&server, kind, |_| {});
        let conv = h.engine.new_conversation();
        let (rx, cancel) = h.engine.submit(&conv, UserInput::text("do both"));
        loop {
            if let Event::ApprovalAsked { .. } = rx.recv_timeout(TURN_TIMEOUT).unwrap() {
                break;
            }
        }
        cancel.cancel();
        assert_eq!(
            error_of(&collect(&rx)),
            &EngineError::Cancelled.to_event(),
            "{kind:?}"
        );
        let msgs = run(&h.engine, &conv, "go on");
        assert!(is_done(&msgs), "{kind:?}: {msgs:?}");
        assert_eq!(server.request_count(), 2, "{kind:?}");
        assert!(!h.workspace.path().join("out.txt").exists(), "{kind:?}");
        let violations = server.into_violations();
        assert!(violations.is_empty(), "{kind:?}: {violations:#?}");
    }
}
