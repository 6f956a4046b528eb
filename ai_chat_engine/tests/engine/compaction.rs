//! Cache-aware compaction against the strict fake provider: a scripted
//! 200-round session stays append-only except at recorded compactions,
//! which happen only at thresholds and phase boundaries, in-band; failed
//! summaries keep the full history; only near the window's limit is old
//! history dropped, with a marker; `/compact` forces a summary.

use ai_chat_engine::budgets::MAX_ATTEMPTS;
use ai_chat_engine::compaction::{CompactionToml, BYTES_PER_TOKEN};
use ai_chat_engine::protocol::CompactionOutcome;
use ai_chat_engine::store::session_log::{read_log, CompactionMethod, Entry, Record};
use ai_chat_engine::{
    AttachmentKind, Conversation, Event, Message, ProviderKind, Trigger, UserInput,
};
use ai_tools::Mode;
use koi_testkit::long_session::LongSession;
use koi_testkit::openai_chat::ChatStream;
use koi_testkit::{FakeProvider, RecordedRequest, Reply, RequestKind};
use std::sync::Arc;

use crate::common::*;

/// `[ai.compaction]` naming the test model's window.
fn window(tokens: u64) -> impl FnOnce(&mut ai_chat_engine::AiConfig) {
    move |c| {
        let mut t = CompactionToml::default();
        t.windows.insert("main-model".into(), tokens);
        c.compaction = Some(t);
    }
}

fn records(conv: &Conversation) -> Vec<Record> {
    read_log(&conv.log_path().unwrap()).unwrap().records
}

/// A compaction event's outcome, message and sizes (before, after).
type Shown = (CompactionOutcome, String, Option<usize>, Option<usize>);

fn reports(msgs: &[Event]) -> Vec<Shown> {
    msgs.iter()
        .filter_map(|m| match m {
            Event::Compaction {
                outcome,
                bytes_before,
                bytes_after,
                message,
            } => Some((*outcome, message.clone(), *bytes_before, *bytes_after)),
            _ => None,
        })
        .collect()
}

/// The body's header (model, tools) and its messages, for prefix checks.
fn parts(r: &RecordedRequest) -> (String, String) {
    let body = r.body_str();
    let head = body[..body.find("\"messages\":[").unwrap()].to_string();
    (head, messages_prefix(&body).to_string())
}

/// The size of a conversation's first request with nothing in it.
fn base_bytes() -> usize {
    let probe = FakeProvider::start([ChatStream::new().text("x").stop().reply()]);
    let p = harness(&probe);
    assert!(is_done(&run(&p.engine, &p.engine.new_conversation(), "q")));
    probe.requests()[0].body.len()
}

/// A window (tokens) whose `percent` share is `bytes`.
fn window_for(bytes: usize, percent: u64) -> u64 {
    (bytes as u64 * 100 / percent).div_ceil(BYTES_PER_TOKEN)
}

fn ask_with_log(h: &Harness, conv: &Conversation, q: &str, kb: usize) -> Vec<Event> {
    let input = UserInput::text(q).with_attachment(
        AttachmentKind::CommandOutput,
        &format!("log {q}"),
        &"y".repeat(kb * 1024),
    );
    let (rx, _c) = h.engine.submit(conv, input);
    let msgs = collect(&rx);
    assert!(is_done(&msgs), "{msgs:?}");
    msgs
}

#[test]
fn a_200_round_session_is_append_only_except_at_recorded_compactions() {
    const TOKENS: u64 = 64_000;
    let session = Arc::new(LongSession::new(200));
    let script = Arc::clone(&session);
    // 200 turns and the 10 summaries this window asks for along the way.
    let server = FakeProvider::start_with(210, move |req, _| script.reply(req));
    let h = harness_configured(&server, ProviderKind::OpenAi, window(TOKENS), |o| {
        o.mode = Some(Mode::Bypass)
    });
    session.prepare(h.workspace.path()).unwrap();
    let conv = h.engine.new_conversation();
    let mut shown = Vec::new();
    for t in 0..session.turns() {
        let msgs = run(&h.engine, &conv, &session.prompt(t));
        assert!(is_done(&msgs), "turn {t}: {:?}", msgs.last());
        shown.extend(reports(&msgs));
    }
    // The session's edits ran (the tools took its arguments).
    assert!(h.workspace.path().join("out/t0_4.txt").is_file());
    let reqs = server.requests();
    let turns = reqs.iter().filter(|r| r.kind == RequestKind::Turn).count();
    assert_eq!(turns, 200);

    let window_bytes = (TOKENS * BYTES_PER_TOKEN) as usize;
    let (soft, hard, limit) = (
        window_bytes / 100 * 40,
        window_bytes / 100 * 70,
        window_bytes / 100 * 90,
    );
    let log = records(&conv);
    let compactions: Vec<(Option<Trigger>, usize, usize)> = log
        .iter()
        .filter_map(|r| match &r.entry {
            Entry::Summary {
                method,
                trigger,
                bytes_before,
                bytes_after,
                ..
            } => {
                assert_eq!(*method, CompactionMethod::Summary);
                Some((*trigger, *bytes_before, *bytes_after))
            }
            _ => None,
        })
        .collect();
    assert!(compactions.len() >= 3, "{compactions:?}");
    assert_eq!(
        shown.len(),
        compactions.len(),
        "each compaction is shown: {shown:?}"
    );
    assert_eq!(session.summaries(), compactions.len());
    // Only at thresholds and boundaries.
    let mut at_boundary = 0;
    for (trigger, before, after) in &compactions {
        match trigger {
            Some(Trigger::Boundary(_)) => {
                at_boundary += 1;
                assert!(
                    *before >= soft,
                    "a boundary compaction below soft: {before}"
                );
            }
            Some(Trigger::Hard) => assert!(*before >= hard, "{before}"),
            other => panic!("unexpected trigger {other:?}"),
        }
        assert!(after < before && *after < soft, "{after} after {before}");
    }
    assert!(at_boundary >= 1, "{compactions:?}");
    assert!(!log.iter().any(|r| matches!(r.entry, Entry::Trimmed { .. })));

    // Request N+1 starts with request N's bytes, except across a summary
    // request; the summary request shares the previous request's prefix.
    let mut breaks = 0;
    let mut prev: Option<&RecordedRequest> = None;
    let mut compacted_since = false;
    for r in &reqs {
        match r.kind {
            RequestKind::Summary => {
                let p = prev.expect("a summary after a turn request");
                let ((ph, pm), (sh, sm)) = (parts(p), parts(r));
                assert_eq!(ph, sh, "the summary request changes model or tools");
                assert!(sm.starts_with(&pm), "the summary request is not in-band");
                compacted_since = true;
            }
            RequestKind::Turn => {
                assert!(r.body.len() < limit, "a request near the window's limit");
                if let Some(p) = prev {
                    let ((ph, pm), (nh, nm)) = (parts(p), parts(r));
                    assert_eq!(ph, nh);
                    if compacted_since {
                        assert!(!nm.starts_with(&pm));
                        breaks += 1;
                    } else {
                        assert!(nm.starts_with(&pm), "the prefix broke without a compaction");
                    }
                }
                prev = Some(r);
                compacted_since = false;
            }
            _ => panic!("unexpected request {:?}", r.kind),
        }
    }
    assert_eq!(breaks, compactions.len());

    // Resume reproduces the compacted history from the log.
    let (id, live) = (conv.id(), conv.messages());
    assert!(matches!(live[1], Message::Summary(_)));
    drop(conv);
    let loaded = load_when_free(&h.engine, &id);
    assert_eq!(loaded.messages(), live);
}

/// Turns with 20 KB attachments where the third crosses the soft
/// threshold (at a turn boundary); summary replies from `summary`, `turns`
/// turn requests.
fn failing_summary_case(summary: Reply, at_percent: u64, turns: usize) -> (FakeProvider, Harness) {
    let base = base_bytes();
    let server = FakeProvider::builder()
        .always(summary)
        .start_with(turns, |_, _| ChatStream::new().text("ok").stop().reply());
    let tokens = window_for(base + 50 * 1024, at_percent);
    let h = harness_configured(&server, ProviderKind::OpenAi, window(tokens), |_| {});
    (server, h)
}

#[test]
fn a_failed_summary_keeps_the_full_history_and_retries_after_the_cooldown() {
    let (server, h) = failing_summary_case(
        Reply::status(500, r#"{"error":{"message":"overloaded"}}"#).for_summary(),
        40,
        7,
    );
    let conv = h.engine.new_conversation();
    ask_with_log(&h, &conv, "first", 20);
    ask_with_log(&h, &conv, "second", 20);
    let third = ask_with_log(&h, &conv, "third", 20);
    let r = reports(&third);
    assert!(
        matches!(&r[..], [(CompactionOutcome::Failed, m, ..)] if m.contains("overloaded") && m.contains("retry in 3 rounds")),
        "{r:?}"
    );
    let summary_requests = |s: &FakeProvider| {
        s.requests()
            .iter()
            .filter(|r| r.kind == RequestKind::Summary)
            .count()
    };
    assert_eq!(summary_requests(&server), MAX_ATTEMPTS);
    // Three rounds of cooldown: no summary is asked for.
    for q in ["4", "5", "6"] {
        let msgs = run(&h.engine, &conv, q);
        assert!(is_done(&msgs) && reports(&msgs).is_empty(), "{msgs:?}");
    }
    assert_eq!(summary_requests(&server), MAX_ATTEMPTS);
    let seventh = run(&h.engine, &conv, "7");
    assert!(matches!(
        reports(&seventh)[..],
        [(CompactionOutcome::Failed, ..)]
    ));
    assert_eq!(summary_requests(&server), 2 * MAX_ATTEMPTS);
    // Nothing was lost: every message is still in the model's history.
    let history = conv.messages();
    assert!(!history.iter().any(|m| matches!(m, Message::Summary(_))));
    let users = history
        .iter()
        .filter(|m| matches!(m, Message::User { .. }))
        .count();
    assert_eq!(users, 7);
    let last = server.requests().last().unwrap().body_str();
    assert!(last.contains("log first") && last.contains("log third"));
    let failed = records(&conv)
        .iter()
        .filter(|r| matches!(r.entry, Entry::CompactionFailed { .. }))
        .count();
    assert_eq!(failed, 2);
}

#[test]
fn a_tool_call_instead_of_a_summary_keeps_the_full_history() {
    let (_server, h) = failing_summary_case(
        ChatStream::new()
            .tool_call("c1", "fs_list", r#"{"path":"."}"#)
            .tool_calls()
            .reply()
            .for_summary(),
        40,
        3,
    );
    let conv = h.engine.new_conversation();
    ask_with_log(&h, &conv, "first", 20);
    ask_with_log(&h, &conv, "second", 20);
    let third = ask_with_log(&h, &conv, "third", 20);
    let r = reports(&third);
    assert!(
        matches!(&r[..], [(CompactionOutcome::Failed, m, ..)] if m.contains("text only")),
        "{r:?}"
    );
    assert!(!conv
        .messages()
        .iter()
        .any(|m| matches!(m, Message::Summary(_))));
    // No tool ran for the summary's call.
    assert!(!third.iter().any(|m| matches!(m, Event::ToolStart { .. })));
}

#[test]
fn near_the_limit_a_failed_summary_drops_old_history_with_a_marker() {
    let (server, h) = failing_summary_case(
        Reply::status(500, r#"{"error":{"message":"overloaded"}}"#).for_summary(),
        90,
        3,
    );
    let conv = h.engine.new_conversation();
    ask_with_log(&h, &conv, "first", 20);
    ask_with_log(&h, &conv, "second", 20);
    let third = ask_with_log(&h, &conv, "third", 20);
    let r = reports(&third);
    assert!(
        matches!(&r[..], [(CompactionOutcome::Dropped, m, ..)] if dropped_count(m) >= 2),
        "{r:?}"
    );
    assert!(r[0].1.contains("DROPPED"));
    let history = conv.messages();
    assert!(
        matches!(&history[1], Message::Summary(t) if t.contains("DROPPED") && t.contains("\"first\""))
    );
    let sent = server.requests().last().unwrap().body_str();
    assert!(sent.contains("were DROPPED from your context"));
    assert!(!sent.contains("log first"));
    assert!(sent.contains("log third"));
    let log = records(&conv);
    assert!(log
        .iter()
        .any(|r| matches!(r.entry, Entry::CompactionFailed { .. })));
    assert!(log.iter().any(|r| matches!(
        r.entry,
        Entry::Summary {
            method: CompactionMethod::Dropped,
            trigger: Some(Trigger::Hard),
            ..
        }
    )));
    let (id, live) = (conv.id(), conv.messages());
    drop(conv);
    assert_eq!(load_when_free(&h.engine, &id).messages(), live);
}

#[test]
fn slash_compact_forces_an_in_band_summary() {
    let server = FakeProvider::start([
        ChatStream::new().text("one").stop().reply(),
        ChatStream::new().text("two").stop().reply(),
        ChatStream::new().text("three").stop().reply(),
        ChatStream::new().text("four").stop().reply(),
        ChatStream::new()
            .text("SUMMARY: four logs were pasted.")
            .stop()
            .reply()
            .for_summary(),
        ChatStream::new().text("five").stop().reply(),
    ]);
    // A large window: nothing would compact by itself.
    let h = harness_configured(&server, ProviderKind::OpenAi, window(1_000_000), |_| {});
    let conv = h.engine.new_conversation();
    for q in ["first", "second", "third", "fourth"] {
        assert!(reports(&ask_with_log(&h, &conv, q, 20)).is_empty());
    }
    let (rx, _c) = h.engine.compact(&conv);
    let msgs = collect(&rx);
    assert!(is_done(&msgs), "{msgs:?}");
    let r = reports(&msgs);
    assert!(
        matches!(&r[..], [(CompactionOutcome::Summarised, m, Some(before), Some(after))] if after < before && m.contains("(asked for)")),
        "{r:?}"
    );
    let reqs = server.requests();
    let (ph, pm) = parts(&reqs[3]);
    let (sh, sm) = parts(&reqs[4]);
    assert_eq!(reqs[4].kind, RequestKind::Summary);
    assert_eq!(ph, sh);
    assert!(sm.starts_with(&pm));
    assert!(reqs[4].json()["model"] == "main-model");
    assert!(is_done(&run(&h.engine, &conv, "and now?")));
    let after = server.requests()[5].body_str();
    assert!(after.contains("SUMMARY: four logs were pasted."));
    assert!(!after.contains("log first"));
}

/// How many messages a "dropped" compaction message says were dropped.
fn dropped_count(message: &str) -> usize {
    message
        .split(" older messages DROPPED")
        .next()
        .and_then(|head| head.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}
