//! A recorded-style Anthropic stream in which the provider runs its own
//! tool (web search): `server_tool_use` with streamed input, a
//! `web_search_tool_result`, cited text. koi has nothing to call, the
//! text shows, and the turn ends cleanly.

use ai_chat_engine::config::{SearchProvider, WebSearchConfig};
use ai_chat_engine::{Event, Message, ProviderKind};
use ai_tools::{Registry, RegistryConfig, Workspace};
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
        count(&msgs, |m| matches!(m, Event::ToolStart { .. })),
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

/// An engine whose registry has koi's own `web_search` (a SearXNG that is
/// never called), for `provider`, native search as `native` says.
fn search_harness(
    server: &FakeProvider,
    provider: ProviderKind,
    native: Option<bool>,
) -> (ai_chat_engine::Engine, [tempfile::TempDir; 3]) {
    let dirs = [
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    ];
    // A key configured for the search service: the fake provider watches
    // that it never reaches the model.
    std::env::set_var(
        "KOI_TEST_SEARCH_KEY",
        koi_testkit::secret_token("SEARCH-KEY-5d1c7e29"),
    );
    let search = WebSearchConfig {
        provider: SearchProvider::Searxng,
        url: Some("http://127.0.0.1:9/".into()),
        api_key_env: Some("KOI_TEST_SEARCH_KEY".into()),
    };
    let mut tools = RegistryConfig::new(Workspace::new(dirs[0].path()).unwrap());
    tools.web_search = Some(search.clone());
    let mut cfg = config(server, provider);
    cfg.web_search = Some(search);
    cfg.native_web_search = native;
    let engine = ai_chat_engine::Engine::new(
        cfg,
        std::sync::Arc::new(Registry::standard(tools)),
        options(dirs[1].path(), dirs[2].path()),
    )
    .unwrap();
    (engine, dirs)
}

/// The `type`/`name` of each declared tool (Chat Completions nests the
/// name under `function`).
fn declared(req: &koi_testkit::RecordedRequest) -> Vec<(String, String)> {
    req.json()["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let s = |v: &serde_json::Value| v.as_str().unwrap_or("").to_string();
            let name = t["name"]
                .as_str()
                .map_or_else(|| s(&t["function"]["name"]), str::to_string);
            (s(&t["type"]), name)
        })
        .collect()
}

#[test]
fn anthropic_declares_its_search_tool_only_when_turned_on_and_its_stream_keeps_the_text() {
    let chunks: Vec<Vec<u8>> = WEB_SEARCH
        .as_bytes()
        .chunks(CHUNK)
        .map(<[u8]>::to_vec)
        .collect();
    let server = FakeProvider::start([
        Reply::sse_bytes(chunks),
        MessagesStream::new(10, 0, 0)
            .text("Plain.")
            .stop("end_turn", 1)
            .reply(),
    ]);
    let (on, _dirs) = search_harness(&server, ProviderKind::Anthropic, Some(true));
    assert!(on.config().native_web_search);
    let conv = on.new_conversation();
    let msgs = run(&on, &conv, "what is the latest Rust release?");
    assert!(is_done(&msgs), "{msgs:?}");
    assert!(tokens(&msgs).ends_with("Rust 1.91.0, released on 30 October 2025."));
    assert_eq!(count(&msgs, |m| matches!(m, Event::ToolStart { .. })), 0);

    let (off, _dirs2) = search_harness(&server, ProviderKind::Anthropic, None);
    assert!(!off.config().native_web_search);
    assert!(is_done(&run(&off, &off.new_conversation(), "hi")));

    let reqs = server.requests();
    let with = declared(&reqs[0]);
    assert_eq!(
        with[0],
        ("web_search_20250305".to_string(), "web_search".to_string())
    );
    assert_eq!(reqs[0].json()["tools"][0]["max_uses"], 5);
    assert_eq!(
        with.iter().filter(|(_, n)| n == "web_search").count(),
        1,
        "koi's own web_search gives way to the provider's"
    );
    // The cache breakpoint stays on the last tool.
    let tools = reqs[0].json()["tools"].as_array().unwrap().clone();
    assert!(tools.last().unwrap().get("cache_control").is_some());
    assert!(tools[0].get("cache_control").is_none());
    let without = declared(&reqs[1]);
    assert!(without.iter().all(|(t, _)| !t.starts_with("web_search")));
    assert!(
        without.iter().any(|(_, n)| n == "web_search"),
        "off: koi's own tool is declared"
    );
}

#[test]
fn responses_declares_web_search_when_turned_on_and_its_search_items_leave_the_text_intact() {
    let e = |v: serde_json::Value| koi_testkit::sse_event(v["type"].as_str(), &v.to_string());
    let search = serde_json::json!({"type": "web_search_call", "id": "ws_1", "status": "completed",
        "action": {"type": "search", "query": "rust release"}});
    let events = vec![
        e(serde_json::json!({"type": "response.created", "response": {"id": "resp_1"}})),
        e(
            serde_json::json!({"type": "response.output_item.added", "output_index": 0,
            "item": {"type": "web_search_call", "id": "ws_1", "status": "in_progress"}}),
        ),
        e(
            serde_json::json!({"type": "response.web_search_call.in_progress", "output_index": 0, "item_id": "ws_1"}),
        ),
        e(
            serde_json::json!({"type": "response.web_search_call.searching", "output_index": 0, "item_id": "ws_1"}),
        ),
        e(
            serde_json::json!({"type": "response.web_search_call.completed", "output_index": 0, "item_id": "ws_1"}),
        ),
        e(
            serde_json::json!({"type": "response.output_item.done", "output_index": 0, "item": search}),
        ),
        e(
            serde_json::json!({"type": "response.output_item.added", "output_index": 1,
            "item": {"type": "message", "id": "msg_1", "role": "assistant", "content": []}}),
        ),
        e(
            serde_json::json!({"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 1,
            "content_index": 0, "delta": "Rust 1.91.0 is the latest "}),
        ),
        e(
            serde_json::json!({"type": "response.output_text.annotation.added", "item_id": "msg_1",
            "output_index": 1, "content_index": 0,
            "annotation": {"type": "url_citation", "url": "https://blog.example/", "title": "Rust"}}),
        ),
        e(
            serde_json::json!({"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 1,
            "content_index": 0, "delta": "stable release."}),
        ),
        e(
            serde_json::json!({"type": "response.completed", "response": {"id": "resp_1", "status": "completed",
            "usage": {"input_tokens": 10, "output_tokens": 5}}}),
        ),
    ];
    let server = FakeProvider::start([Reply::sse(events)]);
    let (engine, _dirs) = search_harness(&server, ProviderKind::OpenAiResponses, Some(true));
    let msgs = run(&engine, &engine.new_conversation(), "latest rust?");
    assert!(is_done(&msgs), "{msgs:?}");
    assert_eq!(tokens(&msgs), "Rust 1.91.0 is the latest stable release.");
    let tools = declared(&server.requests()[0]);
    assert_eq!(tools[0], ("web_search".to_string(), String::new()));
    assert!(tools[1..]
        .iter()
        .all(|(t, n)| t == "function" && n != "web_search"));
}

#[test]
fn chat_completions_has_no_native_search_to_declare() {
    let server = FakeProvider::start([koi_testkit::openai_chat::ChatStream::new()
        .text("ok")
        .stop()
        .reply()]);
    let (engine, _dirs) = search_harness(&server, ProviderKind::OpenAi, Some(true));
    assert!(!engine.config().native_web_search);
    assert!(is_done(&run(&engine, &engine.new_conversation(), "hi")));
    let tools = declared(&server.requests()[0]);
    assert_eq!(
        tools.iter().filter(|(_, n)| n == "web_search").count(),
        1,
        "koi's own web_search stays"
    );
}
