//! Anthropic cache breakpoints: at most four, on the tools, the system
//! prompt, the environment block and the latest block, moved forward each
//! round; a round that adds more blocks than the cache looks back over
//! keeps a breakpoint at the previous request's end instead.

use ai_chat_engine::ProviderKind;
use koi_testkit::anthropic::MessagesStream;
use koi_testkit::FakeProvider;
use serde_json::Value;

use crate::common::*;

/// Where a request marks `cache_control`, as paths like `system[0]`,
/// `tools[last]`, `messages[2][0]`.
fn marked(body: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let has = |v: &Value| v.get("cache_control").is_some();
    for (i, b) in body["system"].as_array().unwrap().iter().enumerate() {
        if has(b) {
            out.push(format!("system[{i}]"));
        }
    }
    let tools = body["tools"].as_array().unwrap();
    for (i, t) in tools.iter().enumerate() {
        if has(t) {
            let at = if i + 1 == tools.len() {
                "last".to_string()
            } else {
                i.to_string()
            };
            out.push(format!("tools[{at}]"));
        }
    }
    for (m, msg) in body["messages"].as_array().unwrap().iter().enumerate() {
        for (b, block) in msg["content"].as_array().unwrap().iter().enumerate() {
            if has(block) {
                out.push(format!("messages[{m}][{b}]"));
            }
        }
    }
    out
}

#[test]
fn four_breakpoints_move_forward_each_round() {
    let server = FakeProvider::start([
        MessagesStream::new(10, 0, 0)
            .tool_use("toolu_1", "fs_list", r#"{"path":"."}"#)
            .stop("tool_use", 5)
            .reply(),
        MessagesStream::new(10, 0, 0)
            .text("Listed.")
            .stop("end_turn", 5)
            .reply(),
        MessagesStream::new(10, 0, 0)
            .text("Again.")
            .stop("end_turn", 5)
            .reply(),
    ]);
    let h = harness_with(&server, ProviderKind::Anthropic, |_| {});
    let conv = h.engine.new_conversation();
    assert!(is_done(&run(&h.engine, &conv, "list")));
    assert!(is_done(&run(&h.engine, &conv, "and again")));
    let reqs: Vec<Value> = server.requests().iter().map(|r| r.json()).collect();
    // messages[0] is the environment block and the question.
    assert_eq!(
        marked(&reqs[0]),
        [
            "system[0]",
            "tools[last]",
            "messages[0][0]",
            "messages[0][1]"
        ]
    );
    // The latest block is the tool result; the environment stays marked.
    assert_eq!(
        marked(&reqs[1]),
        [
            "system[0]",
            "tools[last]",
            "messages[0][0]",
            "messages[2][0]"
        ]
    );
    assert_eq!(reqs[1]["messages"][2]["content"][0]["type"], "tool_result");
    // Next turn: the new question, the tool round's result no longer marked.
    let last = reqs[2]["messages"].as_array().unwrap().len() - 1;
    assert_eq!(
        marked(&reqs[2]),
        [
            "system[0]".to_string(),
            "tools[last]".into(),
            "messages[0][0]".into(),
            format!("messages[{last}][0]")
        ]
    );
}

#[test]
fn a_round_past_the_lookback_keeps_the_previous_end_marked() {
    // Twelve parallel calls: 12 tool_use blocks and 12 results, more than
    // the cache looks back over from the new end.
    let mut wide = MessagesStream::new(10, 0, 0);
    for i in 0..12 {
        wide = wide.tool_use(&format!("toolu_{i}"), "fs_list", r#"{"path":"."}"#);
    }
    let server = FakeProvider::start([
        wide.stop("tool_use", 50).reply(),
        MessagesStream::new(10, 0, 0)
            .text("Done.")
            .stop("end_turn", 5)
            .reply(),
    ]);
    let h = harness_with(&server, ProviderKind::Anthropic, |_| {});
    let conv = h.engine.new_conversation();
    assert!(is_done(&run(&h.engine, &conv, "list a lot")));
    let second = server.requests()[1].json();
    assert_eq!(
        second["messages"][2]["content"].as_array().unwrap().len(),
        12
    );
    // The previous request ended with the question, messages[0][1]: its
    // cached prefix is found there; the new end is cached too.
    assert_eq!(
        marked(&second),
        [
            "system[0]",
            "tools[last]",
            "messages[0][1]",
            "messages[2][11]"
        ]
    );
}
