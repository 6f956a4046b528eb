//! `/cost`: a conversation's tokens, cache hits, reasoning and money,
//! counted from the session log, so a resumed conversation counts its
//! earlier rounds.

use ai_chat_engine::ProviderKind;
use koi_testkit::openai_responses::ResponsesStream;
use koi_testkit::FakeProvider;

use crate::common::*;

#[test]
fn cost_counts_every_round_of_the_conversation_across_a_resume() {
    let server = FakeProvider::start([
        ResponsesStream::new()
            .function_call("call_1", "fs_list", r#"{"path":"."}"#)
            .completed_reasoning(1_000, 0, 200, 150)
            .reply(),
        ResponsesStream::new()
            .text("Done.")
            .completed(1_200, 1_000, 20)
            .reply(),
        ResponsesStream::new()
            .text("Again.")
            .completed(1_300, 1_200, 10)
            .reply(),
    ]);
    let h = harness_configured(
        &server,
        ProviderKind::OpenAiResponses,
        |c| {
            let mut prices = std::collections::BTreeMap::new();
            prices.insert(
                "main".to_string(),
                ai_chat_engine::ModelPrice {
                    input: 10.0,
                    cached_input: Some(1.0),
                    output: 100.0,
                },
            );
            c.prices = Some(ai_chat_engine::Prices(prices));
        },
        |_| {},
    );
    let prices = h.engine.config().prices.clone();
    let conv = h.engine.new_conversation();
    assert!(is_done(&run(&h.engine, &conv, "list")));
    let id = conv.id();
    drop(conv);
    let conv = load_when_free(&h.engine, &id);
    assert!(is_done(&run(&h.engine, &conv, "again")));
    let r = conv.usage_report(&prices);
    assert_eq!((r.rounds, r.input, r.cached_input), (3, 3_500, 2_200));
    assert_eq!((r.output, r.reasoning), (230, 150));
    // (1300 uncached × 10 + 2200 cached × 1 + 230 out × 100) / 1M
    let want = (1_300.0 * 10.0 + 2_200.0 + 230.0 * 100.0) / 1e6;
    assert!((r.cost.unwrap() - want).abs() < 1e-12, "{r:?}");
    let shown = r.to_string();
    assert!(shown.contains("63% cache hits"), "{shown}");
    assert!(shown.contains("(150 reasoning) over 3 rounds"), "{shown}");
}
