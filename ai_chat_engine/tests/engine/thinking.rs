//! Thinking carried through tool rounds: what each level asks each
//! provider for, the blocks and encrypted reasoning sent back exactly as
//! received, a refused thinking mode switched within the turn, and the
//! blocks surviving a resume from the session log.

use ai_chat_engine::store::session_log::{read_log, Entry};
use ai_chat_engine::{Message, ProviderKind, ReasoningBlock, ThinkingLevel};
use koi_testkit::anthropic::MessagesStream;
use koi_testkit::openai_responses::ResponsesStream;
use koi_testkit::{FakeProvider, Reply};
use serde_json::json;

use crate::common::*;

/// A signature with the characters a base64 signature carries.
const SIGNATURE: &str = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds+/=Zz";
/// Redacted thinking's data, opaque to koi.
const REDACTED: &str = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP==";
/// Thinking text with what JSON must escape and multi-byte characters.
const THOUGHT: &str = "Plan: read \"c.txt\" first.\n\tThen answer — carefully ✓";

fn thinking_turn(server_model: &str) -> (FakeProvider, Harness) {
    let server = FakeProvider::start([
        MessagesStream::new(10, 0, 0)
            .thinking_signed(THOUGHT, SIGNATURE)
            .redacted_thinking(REDACTED)
            .text("Reading.")
            .tool_use("toolu_1", "fs_read", r#"{"path":"c.txt"}"#)
            .stop("tool_use", 40)
            .reply(),
        MessagesStream::new(20, 0, 0)
            .text("It says C.")
            .stop("end_turn", 6)
            .reply(),
    ]);
    let model = server_model.to_string();
    let h = harness_configured(
        &server,
        ProviderKind::Anthropic,
        |c| {
            c.model = Some(model);
            c.thinking = Some(ThinkingLevel::Medium);
        },
        |_| {},
    );
    std::fs::write(h.workspace.path().join("c.txt"), "C\n").unwrap();
    (server, h)
}

/// The assistant turn with the tool_use, as sent in the second request.
fn assert_blocks_sent_back(assistant: &serde_json::Value) {
    let content = assistant["content"].as_array().unwrap();
    assert_eq!(
        content[0],
        json!({"type": "thinking", "thinking": THOUGHT, "signature": SIGNATURE})
    );
    assert_eq!(
        content[1],
        json!({"type": "redacted_thinking", "data": REDACTED})
    );
    assert_eq!(content[2]["type"], "text");
    assert_eq!(content[3]["type"], "tool_use");
}

#[test]
fn anthropic_budget_thinking_round_trips_its_blocks() {
    let (server, h) = thinking_turn("claude-sonnet-4-5-20250929");
    let conv = h.engine.new_conversation();
    let msgs = run(&h.engine, &conv, "read c.txt");
    assert!(is_done(&msgs), "{msgs:?}");
    assert_eq!(reasoning(&msgs), THOUGHT, "shown as it streamed");
    let reqs = server.requests();
    for r in &reqs {
        let body = r.json();
        assert_eq!(
            body["thinking"],
            json!({"type": "enabled", "budget_tokens": 4096})
        );
        assert_eq!(body["max_tokens"], 16_384 + 4096);
        assert!(body.get("output_config").is_none());
    }
    let second = second_request_messages(&server);
    assert_blocks_sent_back(&second[1]);
    // Out of the user's history view.
    let view = format!("{:?}", conv.transcript());
    assert!(
        !view.contains(SIGNATURE) && !view.contains(REDACTED),
        "{view}"
    );
}

#[test]
fn anthropic_adaptive_thinking_for_newer_models() {
    let (server, h) = thinking_turn("claude-opus-4-6");
    let conv = h.engine.new_conversation();
    assert!(is_done(&run(&h.engine, &conv, "read c.txt")));
    for r in server.requests() {
        let body = r.json();
        assert_eq!(body["thinking"], json!({"type": "adaptive"}));
        assert_eq!(body["output_config"], json!({"effort": "medium"}));
    }
    assert_blocks_sent_back(&second_request_messages(&server)[1]);
}

#[test]
fn a_refused_thinking_mode_is_switched_in_the_turn_and_remembered() {
    let refusal = r#"{"type":"error","error":{"type":"invalid_request_error","message":"thinking.type.enabled is not supported for this model. Use thinking.type.adaptive and output_config.effort instead."}}"#;
    let server = FakeProvider::start([
        Reply::status(400, refusal),
        MessagesStream::new(10, 0, 0)
            .thinking_signed(THOUGHT, SIGNATURE)
            .tool_use("toolu_1", "fs_read", r#"{"path":"c.txt"}"#)
            .stop("tool_use", 40)
            .reply(),
        MessagesStream::new(20, 0, 0)
            .text("It says C.")
            .stop("end_turn", 6)
            .reply(),
    ]);
    // A name koi cannot place: it guesses the budget, which is refused.
    let h = harness_configured(
        &server,
        ProviderKind::Anthropic,
        |c| {
            c.model = Some("acme-claude-next".into());
            c.thinking = Some(ThinkingLevel::High);
        },
        |_| {},
    );
    std::fs::write(h.workspace.path().join("c.txt"), "C\n").unwrap();
    let conv = h.engine.new_conversation();
    let msgs = run(&h.engine, &conv, "read c.txt");
    assert!(is_done(&msgs), "{msgs:?}");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    assert_eq!(reqs[0].json()["thinking"]["type"], "enabled");
    assert_eq!(reqs[0].json()["thinking"]["budget_tokens"], 12_000);
    // Same turn, the other mode; then the model keeps it.
    assert_eq!(reqs[1].json()["thinking"], json!({"type": "adaptive"}));
    assert_eq!(reqs[1].json()["output_config"], json!({"effort": "high"}));
    assert_eq!(reqs[2].json()["thinking"], json!({"type": "adaptive"}));
    assert_eq!(
        reqs[0].json()["messages"],
        reqs[1].json()["messages"],
        "the retry asks the same"
    );
    let m = reqs[2].json()["messages"].clone();
    assert_eq!(m[1]["content"][0]["signature"], SIGNATURE);

    // A later process on the same data dir asks the found mode at once.
    let later = FakeProvider::start([MessagesStream::new(1, 0, 0)
        .text("Hi.")
        .stop("end_turn", 1)
        .reply()]);
    let mut cfg = config(&later, ProviderKind::Anthropic);
    cfg.model = Some("acme-claude-next".into());
    cfg.thinking = Some(ThinkingLevel::High);
    let engine = ai_chat_engine::Engine::new(
        cfg,
        registry(h.workspace.path()),
        options(h.data.path(), h.workspace.path()),
    )
    .unwrap();
    let conv = engine.new_conversation();
    assert!(is_done(&run(&engine, &conv, "hello")));
    assert_eq!(later.requests().len(), 1, "no refusal this time");
    assert_eq!(
        later.requests()[0].json()["thinking"],
        json!({"type": "adaptive"})
    );
}

#[test]
fn thinking_blocks_survive_the_session_log_and_a_resume() {
    let (server, h) = thinking_turn("claude-sonnet-4-5");
    server.push(
        MessagesStream::new(30, 0, 0)
            .text("Still C.")
            .stop("end_turn", 3)
            .reply(),
    );
    let conv = h.engine.new_conversation();
    assert!(is_done(&run(&h.engine, &conv, "read c.txt")));
    let log = read_log(&conv.log_path().unwrap()).unwrap();
    let stored = log
        .records
        .iter()
        .find_map(|r| match &r.entry {
            Entry::Assistant {
                reasoning_blocks, ..
            } if !reasoning_blocks.is_empty() => Some(reasoning_blocks.clone()),
            _ => None,
        })
        .expect("the round's blocks are in the log");
    assert_eq!(
        stored,
        vec![
            ReasoningBlock::Thinking {
                thinking: THOUGHT.into(),
                signature: SIGNATURE.into()
            },
            ReasoningBlock::RedactedThinking {
                data: REDACTED.into()
            },
        ]
    );
    let (id, live) = (conv.id(), conv.messages());
    drop(conv);
    let loaded = load_when_free(&h.engine, &id);
    assert_eq!(loaded.messages(), live, "replay rebuilds the blocks");
    assert!(loaded.messages().iter().any(|m| matches!(
        m,
        Message::Assistant { reasoning_blocks, .. } if reasoning_blocks.len() == 2
    )));
    assert!(is_done(&run(&h.engine, &loaded, "and now?")));
    let third = server.requests()[2].json();
    assert_blocks_sent_back(&third["messages"][1]);
}

#[test]
fn responses_encrypted_reasoning_comes_back_next_round() {
    let server = FakeProvider::start([
        ResponsesStream::new()
            .encrypted_reasoning("Need the file.", "gAAAAABo-encrypted+/==")
            .function_call("call_1", "fs_read", r#"{"path":"c.txt"}"#)
            .completed_reasoning(900, 0, 300, 256)
            .reply(),
        ResponsesStream::new()
            .text("It says C.")
            .completed(1000, 900, 5)
            .reply(),
    ]);
    let h = harness_configured(
        &server,
        ProviderKind::OpenAiResponses,
        |c| c.thinking = Some(ThinkingLevel::Low),
        |_| {},
    );
    std::fs::write(h.workspace.path().join("c.txt"), "C\n").unwrap();
    let conv = h.engine.new_conversation();
    let msgs = run(&h.engine, &conv, "read c.txt");
    assert!(is_done(&msgs), "{msgs:?}");
    let usage: Vec<u64> = msgs
        .iter()
        .filter_map(|m| match m {
            ai_chat_engine::Event::Usage { reasoning, .. } => Some(*reasoning),
            _ => None,
        })
        .collect();
    assert_eq!(usage, [256, 0], "reasoning tokens per round");
    let reqs = server.requests();
    for r in &reqs {
        let body = r.json();
        assert_eq!(body["store"], false);
        assert_eq!(body["reasoning"], json!({"effort": "low"}));
        assert_eq!(body["include"], json!(["reasoning.encrypted_content"]));
    }
    let input = reqs[1].json()["input"].as_array().unwrap().clone();
    let at = input.iter().position(|i| i["type"] == "reasoning").unwrap();
    assert_eq!(
        input[at],
        json!({"type": "reasoning",
            "summary": [{"type": "summary_text", "text": "Need the file."}],
            "encrypted_content": "gAAAAABo-encrypted+/=="})
    );
    assert_eq!(input[at + 1]["type"], "function_call", "before its call");
}

#[test]
fn thinking_off_asks_for_nothing() {
    let server = FakeProvider::start([ResponsesStream::new().text("a").completed(1, 0, 1).reply()]);
    let h = harness_with(&server, ProviderKind::OpenAiResponses, |_| {});
    let conv = h.engine.new_conversation();
    assert!(is_done(&run(&h.engine, &conv, "q")));
    let body = server.requests()[0].json();
    assert!(body.get("reasoning").is_none() && body.get("include").is_none());
    let server = FakeProvider::start([MessagesStream::new(1, 0, 0)
        .text("b")
        .stop("end_turn", 1)
        .reply()]);
    let h = harness_with(&server, ProviderKind::Anthropic, |_| {});
    let conv = h.engine.new_conversation();
    assert!(is_done(&run(&h.engine, &conv, "q")));
    let body = server.requests()[0].json();
    assert!(body.get("thinking").is_none() && body.get("output_config").is_none());
    assert_eq!(body["max_tokens"], 16_384);
}

#[test]
fn a_cut_round_keeps_its_text_but_not_its_thinking() {
    let cut = MessagesStream::new(10, 0, 0)
        .thinking_signed(THOUGHT, SIGNATURE)
        .text("Half of the ans");
    let n = cut.events().len();
    let server = FakeProvider::start([
        cut.reply().cut_after(n),
        MessagesStream::new(10, 0, 0)
            .thinking_signed("fresh", SIGNATURE)
            .text("Whole.")
            .stop("end_turn", 4)
            .reply(),
    ]);
    let h = harness_configured(
        &server,
        ProviderKind::Anthropic,
        |c| {
            c.model = Some("claude-sonnet-4-5".into());
            c.thinking = Some(ThinkingLevel::Low);
        },
        |_| {},
    );
    let conv = h.engine.new_conversation();
    let msgs = run(&h.engine, &conv, "go");
    assert!(kind_of(&msgs) == ErrorKind::Stream, "{msgs:?}");
    // The partial answer the user saw is kept, without the thinking.
    assert!(conv.messages().iter().any(|m| matches!(
        m,
        Message::Assistant { text, reasoning_blocks, .. }
            if text == "Half of the ans" && reasoning_blocks.is_empty()
    )));
    assert!(is_done(&run(&h.engine, &conv, "again")));
    let second = server.requests()[1].body_str();
    assert!(second.contains("Half of the ans"));
    assert!(
        !second.contains(SIGNATURE),
        "no half round's signature goes back"
    );
}
