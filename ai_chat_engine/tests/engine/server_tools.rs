//! A recorded-style Anthropic stream in which the provider runs its own
//! tool (web search): `server_tool_use` with streamed input, a
//! `web_search_tool_result`, cited text. koi has nothing to call, the
//! text shows, and the turn ends cleanly.

use ai_chat_engine::{Message, ProviderKind, StreamMsg};
use koi_testkit::anthropic::MessagesStream;
use koi_testkit::{FakeProvider, Reply};

use crate::common::*;

/// Written from Anthropic's documented web-search stream.
const WEB_SEARCH: &str = include_str!("fixtures/anthropic_web_search.sse");

/// Bytes per chunk: odd, so chunks split lines, events and JSON anywhere.
const CHUNK: usize = 37;

#[test]
fn a_server_tool_stream_shows_its_text_and_calls_nothing() {
    let chunks: Vec<Vec<u8>> = WEB_SEARCH
        .as_bytes()
        .chunks(CHUNK)
        .map(<[u8]>::to_vec)
        .collect();
    let server = FakeProvider::start([
        Reply::sse_bytes(chunks),
        MessagesStream::new(10, 0, 0)
            .text("You're welcome.")
            .stop("end_turn", 4)
            .reply(),
    ]);
    let h = harness_with(&server, ProviderKind::Anthropic, |_| {});
    let conv = h.engine.new_conversation();
    let msgs = run(&h.engine, &conv, "what is the latest Rust release?");
    assert!(is_done(&msgs), "{msgs:?}");
    assert_eq!(
        tokens(&msgs),
        "I'll search for the latest Rust release.The latest stable release is Rust 1.91.0, \
         released on 30 October 2025."
    );
    assert_eq!(
        count(&msgs, |m| matches!(m, StreamMsg::ToolStart { .. })),
        0,
        "the provider ran the search; koi runs nothing"
    );
    assert!(conv.messages().iter().any(|m| matches!(
        m,
        Message::Assistant { text, tool_calls, .. }
            if text.ends_with("October 2025.") && tool_calls.is_empty()
    )));
    // The next turn's history is a valid request (the strict server checks).
    assert!(is_done(&run(&h.engine, &conv, "thanks")));
    let second = server.requests()[1].json();
    assert_eq!(second["messages"][1]["role"], "assistant");
    assert_eq!(second["messages"][1]["content"][0]["type"], "text");
}
