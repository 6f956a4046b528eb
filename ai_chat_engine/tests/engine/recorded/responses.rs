//! Responses API recordings: OpenAI and Azure (text, function calls,
//! encrypted reasoning with several summaries, web search annotations,
//! custom tools, phases), LM Studio and GitHub Copilot servers, and the
//! failures: `error` then `response.failed`, `response.failed` alone, an
//! `error` whose code is null.

use ai_chat_engine::ProviderKind;
use koi_testkit::openai_responses::ResponsesStream;
use serde_json::Value;

use super::{calls_in_order, payloads, replay, replay_all, Case, Expect, Outcome, FOLLOW_UP_TEXT};

const DIALECT: &str = "openai_responses";

const CASES: &[Case] = &[
    Case {
        name: "azure_text",
        outcome: Outcome::Done,
    },
    Case {
        name: "azure_tool_call",
        outcome: Outcome::Done,
    },
    Case {
        name: "azure_reasoning_multi_summary",
        outcome: Outcome::Done,
    },
    Case {
        name: "reasoning_encrypted_step1",
        outcome: Outcome::Done,
    },
    Case {
        name: "reasoning_encrypted_step2",
        outcome: Outcome::Done,
    },
    Case {
        name: "reasoning_encrypted_step4",
        outcome: Outcome::Done,
    },
    Case {
        name: "web_search_annotations",
        outcome: Outcome::Done,
    },
    Case {
        name: "custom_tool",
        outcome: Outcome::Done,
    },
    Case {
        name: "phase",
        outcome: Outcome::Done,
    },
    Case {
        name: "copilot_id_rotation",
        outcome: Outcome::Done,
    },
    Case {
        name: "lmstudio_basic",
        outcome: Outcome::Done,
    },
    Case {
        name: "lmstudio_tool_call",
        outcome: Outcome::Done,
    },
    Case {
        name: "error_then_failed",
        outcome: Outcome::Error("insufficient_quota: You exceeded your current quota"),
    },
    Case {
        name: "failed_only",
        outcome: Outcome::Error("rate_limit_exceeded: Request too large for gpt-4o-mini"),
    },
    Case {
        name: "error_null_code",
        outcome: Outcome::Error("server_error: Sorry, something went wrong."),
    },
    Case {
        name: "ref_incomplete_max_output_tokens",
        outcome: Outcome::Incomplete("max_output_tokens"),
    },
    Case {
        name: "ref_error_flat",
        outcome: Outcome::Error("ERR_SOMETHING: Something went wrong"),
    },
];

/// Text and reasoning deltas, the finished function calls, and the
/// usage of the terminal event.
fn expect(bytes: &[u8]) -> Expect {
    let mut e = Expect::default();
    let mut calls: Vec<(String, String, String)> = Vec::new();
    for ev in payloads(bytes) {
        let delta = ev["delta"].as_str().unwrap_or("");
        match ev["type"].as_str().unwrap_or("") {
            "response.output_text.delta" => e.text.push_str(delta),
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                e.reasoning.push_str(delta)
            }
            "response.output_item.done" if ev["item"]["type"] == "function_call" => {
                let item = &ev["item"];
                calls.push((
                    item["call_id"].to_string(),
                    item["name"].as_str().unwrap_or("").to_string(),
                    item["arguments"].as_str().unwrap_or("").to_string(),
                ));
            }
            "response.completed" | "response.incomplete" => {
                let u = &ev["response"]["usage"];
                let n = |p: &str| u.pointer(p).and_then(Value::as_u64).unwrap_or(0);
                if u.is_object() {
                    e.usage = Some((
                        n("/input_tokens"),
                        n("/input_tokens_details/cached_tokens"),
                        n("/output_tokens"),
                    ));
                }
            }
            _ => {}
        }
    }
    e.calls = calls_in_order(calls);
    e
}

#[test]
fn every_recorded_responses_stream_replays_in_every_chunking() {
    replay_all(DIALECT, CASES, expect, |case, bytes, expect| {
        replay(ProviderKind::OpenAiResponses, case, bytes, expect, || {
            ResponsesStream::new()
                .text(FOLLOW_UP_TEXT)
                .completed(10, 0, 2)
                .reply()
        })
    });
}
