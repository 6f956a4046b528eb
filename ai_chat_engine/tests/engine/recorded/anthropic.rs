//! Anthropic Messages recordings: text, tool use (with and without
//! input), thinking with signatures, server tools (web search, web
//! fetch, code execution, MCP, advisor), refusals with stop details,
//! model fallback mid-output, duplicated or spliced `message_start`,
//! and the SDK's own stream fixtures.

use ai_chat_engine::ProviderKind;
use koi_testkit::anthropic::MessagesStream;
use serde_json::Value;

use crate::common::*;

use super::{
    calls_in_order, payloads, recording, replay, replay_all, Case, Expect, Outcome, FOLLOW_UP_TEXT,
};

const DIALECT: &str = "anthropic";

const CASES: &[Case] = &[
    Case {
        name: "text",
        outcome: Outcome::Done,
    },
    Case {
        name: "sdk_basic",
        outcome: Outcome::Done,
    },
    Case {
        name: "sdk_tool_use",
        outcome: Outcome::Done,
    },
    Case {
        name: "sdk_incomplete_partial_json",
        outcome: Outcome::Incomplete("max_tokens"),
    },
    Case {
        name: "tool_no_args",
        outcome: Outcome::Done,
    },
    Case {
        name: "json_tool",
        outcome: Outcome::Done,
    },
    Case {
        name: "text_then_tool",
        outcome: Outcome::Done,
    },
    Case {
        name: "clear_thinking",
        outcome: Outcome::Done,
    },
    Case {
        name: "thinking_summarized",
        outcome: Outcome::Done,
    },
    Case {
        name: "fallback_mid_output",
        outcome: Outcome::Done,
    },
    Case {
        name: "message_delta_input_tokens",
        outcome: Outcome::Done,
    },
    Case {
        name: "duplicate_message_start",
        outcome: Outcome::Done,
    },
    Case {
        name: "spliced_message_start",
        outcome: Outcome::Done,
    },
    Case {
        name: "web_search",
        outcome: Outcome::Done,
    },
    Case {
        name: "web_fetch",
        outcome: Outcome::Done,
    },
    Case {
        name: "code_execution",
        outcome: Outcome::Done,
    },
    Case {
        name: "mcp",
        outcome: Outcome::Done,
    },
    Case {
        name: "advisor_stop_reasons",
        outcome: Outcome::Done,
    },
    Case {
        name: "refusal_stop_details",
        outcome: Outcome::Refused(
            "declined to answer (refusal): This request triggered restrictions on violative cyber content",
        ),
    },
    Case {
        name: "sdk_refusal",
        outcome: Outcome::Refused("declined to answer (refusal): This request was refused due to policy."),
    },
    Case {
        name: "ref_pause_turn",
        outcome: Outcome::Paused,
    },
    Case {
        name: "ref_overloaded_mid_stream",
        outcome: Outcome::Error("overloaded_error: Overloaded"),
    },
];

/// Text and thinking deltas, the client `tool_use` blocks with their
/// streamed input, and the usage: input counts cache reads and writes.
fn expect(bytes: &[u8]) -> Expect {
    let mut e = Expect::default();
    let mut calls: Vec<(String, String, String)> = Vec::new();
    let (mut input, mut cached, mut output) = (None, 0, 0);
    let on_usage = |u: &Value, input: &mut Option<u64>, cached: &mut u64, output: &mut u64| {
        let n = |k: &str| u.get(k).and_then(Value::as_u64);
        if let Some(i) = n("input_tokens") {
            let read = n("cache_read_input_tokens").unwrap_or(0);
            *input = Some(i + read + n("cache_creation_input_tokens").unwrap_or(0));
            *cached = read;
        }
        if let Some(o) = n("output_tokens") {
            *output = o;
        }
    };
    for ev in payloads(bytes) {
        let index = ev["index"].to_string();
        match ev["type"].as_str().unwrap_or("") {
            "message_start" => {
                // A spliced second start begins the message again.
                calls.clear();
                on_usage(
                    &ev["message"]["usage"],
                    &mut input,
                    &mut cached,
                    &mut output,
                )
            }
            "message_delta" => on_usage(&ev["usage"], &mut input, &mut cached, &mut output),
            "content_block_start" if ev["content_block"]["type"] == "tool_use" => {
                let name = ev["content_block"]["name"].as_str().unwrap_or("");
                calls.push((index, name.to_string(), String::new()));
            }
            "content_block_delta" => {
                let d = &ev["delta"];
                match d["type"].as_str().unwrap_or("") {
                    "text_delta" => e.text.push_str(d["text"].as_str().unwrap_or("")),
                    "thinking_delta" => e.reasoning.push_str(d["thinking"].as_str().unwrap_or("")),
                    "input_json_delta" => {
                        if let Some(c) = calls.iter_mut().rev().find(|c| c.0 == index) {
                            c.2.push_str(d["partial_json"].as_str().unwrap_or(""));
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    e.usage = input.map(|i| (i, cached, output));
    e.calls = calls_in_order(calls);
    e
}

#[test]
fn every_recorded_anthropic_stream_replays_in_every_chunking() {
    replay_all(DIALECT, CASES, expect, |case, bytes, expect| {
        replay(ProviderKind::Anthropic, case, bytes, expect, || {
            MessagesStream::new(10, 0, 0)
                .text(FOLLOW_UP_TEXT)
                .stop("end_turn", 2)
                .reply()
        })
    });
}

/// The request after a paused turn ends with the paused content exactly
/// as streamed (server tool input assembled), and the turn carries on;
/// later turns send the paused and the continued content as one turn.
#[test]
fn a_paused_turn_goes_back_as_is_and_carries_on() {
    let paused = recording(DIALECT, "ref_pause_turn");
    let server = koi_testkit::FakeProvider::start([
        koi_testkit::Reply::sse_bytes(vec![paused]),
        MessagesStream::new(10, 0, 0)
            .text(" It is sunny.")
            .stop("end_turn", 5)
            .reply(),
        MessagesStream::new(10, 0, 0)
            .text("You're welcome.")
            .stop("end_turn", 3)
            .reply(),
    ]);
    let h = harness_with(&server, ProviderKind::Anthropic, |_| {});
    let conv = h.engine.new_conversation();
    let msgs = run(&h.engine, &conv, "weather in NYC?");
    assert!(is_done(&msgs), "{msgs:?}");
    assert_eq!(
        tokens(&msgs),
        "I'll check the weather in New York City for you. It is sunny."
    );
    let paused_content = serde_json::json!([
        {"type": "text", "text": "I'll check the weather in New York City for you."},
        {"type": "server_tool_use", "id": "srvtoolu_014hJH82Qum7Td6UV8gDXThB",
         "name": "web_search", "input": {"query": "weather NYC today"}}
    ]);
    let second = server.requests()[1].json();
    let m = second["messages"].as_array().unwrap();
    let last = m.last().unwrap();
    assert_eq!(last["role"], "assistant");
    assert_eq!(last["content"], paused_content);
    // The paused content is in the session log: a reopened conversation
    // still sends it.
    let id = conv.id();
    drop(conv);
    let conv = load_when_free(&h.engine, &id);
    assert!(is_done(&run(&h.engine, &conv, "thanks")));
    let third = server.requests()[2].json();
    let m = third["messages"].as_array().unwrap();
    let turn = &m[m.len() - 2];
    assert_eq!(turn["role"], "assistant");
    let content = turn["content"].as_array().unwrap();
    assert_eq!(content[..2], paused_content.as_array().unwrap()[..]);
    assert_eq!(content[2]["text"], " It is sunny.");
}

/// A provider that pauses every time gets a bounded number of
/// continuations, then the turn ends saying it was paused.
#[test]
fn a_provider_that_always_pauses_is_stopped() {
    let paused = recording(DIALECT, "ref_pause_turn");
    let server = koi_testkit::FakeProvider::start(
        (0..4).map(|_| koi_testkit::Reply::sse_bytes(vec![paused.clone()])),
    );
    let h = harness_with(&server, ProviderKind::Anthropic, |_| {});
    let conv = h.engine.new_conversation();
    let msgs = run(&h.engine, &conv, "weather in NYC?");
    assert_eq!(
        error_of(&msgs),
        &ai_chat_engine::EngineError::Incomplete {
            reason: "pause_turn".into()
        }
        .to_event()
    );
    assert_eq!(
        server.request_count(),
        4,
        "one request and three continuations"
    );
}
