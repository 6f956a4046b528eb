//! Chat Completions recordings: OpenAI's own (refusals, logprobs,
//! parallel calls, several choices), and DeepSeek, Groq, Moonshot, xAI,
//! Alibaba and Azure streams (`reasoning_content` / `reasoning` deltas,
//! usage in the last chunk or in a `choices: []` chunk, no `[DONE]`).

use ai_chat_engine::ProviderKind;
use koi_testkit::openai_chat::ChatStream;
use serde_json::Value;

use super::{calls_in_order, payloads, replay, replay_all, Case, Expect, Outcome, FOLLOW_UP_TEXT};

const DIALECT: &str = "openai_chat";

const CASES: &[Case] = &[
    Case {
        name: "openai_text",
        outcome: Outcome::Done,
    },
    Case {
        name: "openai_text_long",
        outcome: Outcome::Done,
    },
    Case {
        name: "openai_logprobs",
        outcome: Outcome::Done,
    },
    Case {
        name: "openai_length",
        outcome: Outcome::Incomplete("length"),
    },
    Case {
        name: "openai_refusal",
        outcome: Outcome::Done,
    },
    Case {
        name: "openai_refusal_logprobs",
        outcome: Outcome::Done,
    },
    Case {
        name: "openai_three_choices",
        outcome: Outcome::Done,
    },
    Case {
        name: "openai_tool_call",
        outcome: Outcome::Done,
    },
    Case {
        name: "openai_tool_call_strict",
        outcome: Outcome::Done,
    },
    Case {
        name: "openai_tool_call_nested",
        outcome: Outcome::Done,
    },
    Case {
        name: "openai_parallel_tool_calls",
        outcome: Outcome::Done,
    },
    Case {
        name: "deepseek_reasoning",
        outcome: Outcome::Done,
    },
    Case {
        name: "deepseek_tool_call",
        outcome: Outcome::Done,
    },
    Case {
        name: "groq_reasoning",
        outcome: Outcome::Done,
    },
    Case {
        name: "groq_tool_call",
        outcome: Outcome::Done,
    },
    Case {
        name: "moonshot_reasoning",
        outcome: Outcome::Done,
    },
    Case {
        name: "xai_text",
        outcome: Outcome::Done,
    },
    Case {
        name: "xai_tool_call",
        outcome: Outcome::Done,
    },
    Case {
        name: "compatible_xai_tool_call",
        outcome: Outcome::Done,
    },
    Case {
        name: "alibaba_tool_call",
        outcome: Outcome::Done,
    },
    Case {
        name: "azure_model_router",
        outcome: Outcome::Done,
    },
    Case {
        name: "ref_error_mid_stream",
        outcome: Outcome::Error("The server had an error while processing your request"),
    },
];

fn str_at<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// The first choice's text (a refusal is the answer the user gets),
/// reasoning and calls, and the last usage.
fn expect(bytes: &[u8]) -> Expect {
    let mut e = Expect::default();
    let mut calls: Vec<(String, String, String)> = Vec::new();
    for chunk in payloads(bytes) {
        if let Some(u) = chunk.get("usage").filter(|u| u.is_object()) {
            let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
            let cached = u
                .pointer("/prompt_tokens_details/cached_tokens")
                .and_then(Value::as_u64)
                .unwrap_or(0);
            e.usage = Some((n("prompt_tokens"), cached, n("completion_tokens")));
        }
        let choices = chunk["choices"].as_array().cloned().unwrap_or_default();
        for choice in choices
            .iter()
            .filter(|c| c["index"].as_u64().unwrap_or(0) == 0)
        {
            let d = &choice["delta"];
            e.text.push_str(str_at(d, "content").unwrap_or(""));
            e.text.push_str(str_at(d, "refusal").unwrap_or(""));
            let r = str_at(d, "reasoning_content").or_else(|| str_at(d, "reasoning"));
            e.reasoning.push_str(r.unwrap_or(""));
            for c in d["tool_calls"].as_array().cloned().unwrap_or_default() {
                let key = c["index"].to_string();
                let name = str_at(&c["function"], "name").unwrap_or("");
                let args = str_at(&c["function"], "arguments").unwrap_or("");
                match calls.iter_mut().find(|(k, _, _)| *k == key) {
                    Some(call) => call.2.push_str(args),
                    None => calls.push((key, name.to_string(), args.to_string())),
                }
            }
        }
    }
    e.calls = calls_in_order(calls);
    e
}

#[test]
fn every_recorded_chat_stream_replays_in_every_chunking() {
    replay_all(DIALECT, CASES, expect, |case, bytes, expect| {
        replay(ProviderKind::OpenAi, case, bytes, expect, || {
            ChatStream::new().text(FOLLOW_UP_TEXT).stop().reply()
        })
    });
}
