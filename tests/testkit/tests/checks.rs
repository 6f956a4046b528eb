//! The checker can fail: each invariant has a deliberately bad request,
//! sent with a raw HTTP client, that the server reports.

// Test helpers outside #[test] fns: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use koi_testkit::anthropic::MessagesStream;
use koi_testkit::openai_chat::ChatStream;
use koi_testkit::openai_responses::ResponsesStream;
use koi_testkit::{Dialect, FakeProvider, Reply, RequestKind, ViolationKind};
use serde_json::{json, Value};

const KEY: &str = "sk-test-SECRET-123";

/// Sends one request; returns the raw response.
fn send(
    server: &FakeProvider,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> String {
    let mut s = TcpStream::connect(server.addr()).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: x\r\n");
    if !headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("content-type"))
    {
        req.push_str("content-type: application/json\r\n");
    }
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    s.write_all(req.as_bytes()).unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

fn chat(server: &FakeProvider, body: &Value) -> String {
    let auth = format!("Bearer {KEY}");
    send(
        server,
        "POST",
        "/v1/chat/completions",
        &[("authorization", &auth)],
        &body.to_string(),
    )
}

fn tool() -> Value {
    json!({"type": "function", "function": {"name": "fs_read", "description": "d", "parameters": {}}})
}

fn chat_body(messages: Vec<Value>) -> Value {
    let mut all = vec![json!({"role": "system", "content": "You are koi."})];
    all.extend(messages);
    json!({"model": "m", "stream": true, "tools": [tool()], "messages": all})
}

fn user(text: &str) -> Value {
    json!({"role": "user", "content": text})
}

fn assistant_call(id: &str) -> Value {
    json!({"role": "assistant", "content": null, "tool_calls": [
        {"id": id, "type": "function", "function": {"name": "fs_read", "arguments": "{}"}}]})
}

fn tool_result(id: &str) -> Value {
    json!({"role": "tool", "tool_call_id": id, "content": "ok"})
}

fn reply() -> Reply {
    ChatStream::new().text("ok").stop().reply()
}

/// The violations' kinds, the provider's own schema aside: these bodies
/// are cut down to what each check needs, and
/// `requests_are_checked_against_the_providers_own_definitions` tests it.
fn kinds(server: FakeProvider) -> Vec<ViolationKind> {
    server
        .into_violations()
        .iter()
        .map(|v| v.kind)
        .filter(|k| *k != ViolationKind::ProviderSchema)
        .collect()
}

#[test]
fn a_good_conversation_has_no_violations() {
    let server = FakeProvider::start([reply(), reply()]);
    chat(&server, &chat_body(vec![user("read a")]));
    chat(
        &server,
        &chat_body(vec![
            user("read a"),
            assistant_call("c1"),
            tool_result("c1"),
        ]),
    );
    assert_eq!(kinds(server), []);
}

#[test]
fn wrong_method_and_path_are_reported() {
    let server = FakeProvider::builder()
        .dialect(Dialect::OpenAiChat)
        .start([reply(), reply()]);
    let body = chat_body(vec![user("hi")]).to_string();
    send(&server, "PUT", "/v1/chat/completions", &[], &body);
    send(&server, "POST", "/v1/messages", &[], &body);
    assert_eq!(
        kinds(server),
        [ViolationKind::WrongMethod, ViolationKind::WrongPath]
    );
}

#[test]
fn the_dialect_of_the_scripted_stream_decides_the_path() {
    let server = FakeProvider::start([MessagesStream::new(1, 0, 0)
        .text("x")
        .stop("end_turn", 1)
        .reply()]);
    chat(&server, &chat_body(vec![user("hi")]));
    assert_eq!(kinds(server)[0], ViolationKind::WrongPath);
}

#[test]
fn missing_dialect_headers_are_reported() {
    let server = FakeProvider::start([reply()]);
    let body = chat_body(vec![user("hi")]).to_string();
    send(
        &server,
        "POST",
        "/v1/chat/completions",
        &[("content-type", "text/plain")],
        &body,
    );
    assert_eq!(kinds(server), [ViolationKind::BadHeader]);

    let server = FakeProvider::start([anthropic_reply()]);
    let body = json!({"model": "m", "max_tokens": 10, "system": "s",
        "messages": [{"role": "user", "content": "x"}]});
    send(&server, "POST", "/v1/messages", &[], &body.to_string());
    assert_eq!(kinds(server), [ViolationKind::BadHeader]);
}

#[test]
fn a_body_that_does_not_parse_is_reported() {
    let server = FakeProvider::start([reply(), reply()]);
    send(&server, "POST", "/v1/chat/completions", &[], "{\"model\":");
    send(
        &server,
        "POST",
        "/v1/chat/completions",
        &[],
        r#"{"model":"m"}"#,
    );
    assert_eq!(
        kinds(server),
        [ViolationKind::BadBody, ViolationKind::BadBody]
    );
}

#[test]
fn a_result_without_its_call_is_reported() {
    let server = FakeProvider::start([reply(), reply()]);
    chat(&server, &chat_body(vec![user("x"), tool_result("nobody")]));
    chat(
        &server,
        &chat_body(vec![
            user("y"),
            assistant_call("c"),
            tool_result("c"),
            tool_result("c"),
        ]),
    );
    assert_eq!(
        kinds(server),
        [ViolationKind::OrphanResult, ViolationKind::OrphanResult]
    );
}

#[test]
fn a_call_left_unanswered_is_reported_in_every_dialect() {
    let server = FakeProvider::start([reply(), reply()]);
    chat(
        &server,
        &chat_body(vec![user("x"), assistant_call("c"), user("next")]),
    );
    chat(&server, &chat_body(vec![user("x"), assistant_call("c")]));
    assert_eq!(
        kinds(server),
        [ViolationKind::UnansweredCall, ViolationKind::UnansweredCall]
    );

    let server = FakeProvider::start([ResponsesStream::new().text("x").completed(1, 0, 1).reply()]);
    let body = json!({"model": "m", "instructions": "s", "input": [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "x"}]},
        {"type": "function_call", "call_id": "a", "name": "t", "arguments": "{}"},
        {"type": "function_call", "call_id": "b", "name": "t", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "a", "output": "ok"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "y"}]},
    ]});
    send(&server, "POST", "/v1/responses", &[], &body.to_string());
    assert_eq!(kinds(server), [ViolationKind::UnansweredCall]);
}

fn anthropic_reply() -> Reply {
    MessagesStream::new(1, 0, 0)
        .text("x")
        .stop("end_turn", 1)
        .reply()
}

fn anthropic(server: &FakeProvider, messages: Value) {
    let body = json!({"model": "m", "max_tokens": 10, "system": [{"type": "text", "text": "s"}],
        "messages": messages});
    send(
        server,
        "POST",
        "/v1/messages",
        &[("x-api-key", KEY), ("anthropic-version", "2023-06-01")],
        &body.to_string(),
    );
}

#[test]
fn anthropic_role_order_is_enforced() {
    let server = FakeProvider::start([anthropic_reply(), anthropic_reply(), anthropic_reply()]);
    // Good: user, assistant with a call, user with its result first.
    anthropic(
        &server,
        json!([
            {"role": "user", "content": [{"type": "text", "text": "x"}]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "n", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"},
                {"type": "text", "text": "and"}]},
        ]),
    );
    assert!(server.violations().is_empty(), "{:?}", server.violations());
    // Two user messages in a row.
    anthropic(
        &server,
        json!([
        {"role": "user", "content": "w"}, {"role": "user", "content": "y"}]),
    );
    // Starts with the assistant and ends with it.
    anthropic(&server, json!([{"role": "assistant", "content": "x"}]));
    let found = kinds(server);
    assert!(
        found.iter().all(|k| *k == ViolationKind::RoleOrder),
        "{found:?}"
    );
    assert_eq!(found.len(), 3, "{found:?}");
}

#[test]
fn an_empty_anthropic_text_block_is_reported() {
    let server = FakeProvider::start([anthropic_reply()]);
    anthropic(
        &server,
        json!([{"role": "user", "content": [{"type": "text", "text": ""}]}]),
    );
    assert_eq!(kinds(server), [ViolationKind::BadShape]);
}

#[test]
fn a_key_outside_the_auth_header_is_reported() {
    let server = FakeProvider::start([reply(), reply(), reply()]);
    // The key is learnt from the auth header; the header itself is fine.
    chat(&server, &chat_body(vec![user("hi")]));
    assert!(server.violations().is_empty());
    chat(&server, &chat_body(vec![user(&format!("my key is {KEY}"))]));
    let auth = format!("Bearer {KEY}");
    send(
        &server,
        "POST",
        "/v1/chat/completions",
        &[("authorization", &auth), ("x-debug", KEY)],
        &chat_body(vec![user("a")]).to_string(),
    );
    assert_eq!(
        kinds(server),
        [ViolationKind::SecretLeak, ViolationKind::SecretLeak]
    );

    // A declared secret counts even when no request presents it.
    let server = FakeProvider::builder()
        .secret("hunter2-hunter2")
        .start([reply()]);
    let body = chat_body(vec![user("hunter2-hunter2")]).to_string();
    send(&server, "POST", "/v1/chat/completions", &[], &body);
    assert_eq!(kinds(server), [ViolationKind::SecretLeak]);
}

#[test]
fn the_prompt_and_tools_must_not_move_within_a_conversation() {
    let first = chat_body(vec![user("read a")]);
    let mut changed_system = chat_body(vec![user("read a"), assistant_call("c"), tool_result("c")]);
    changed_system["messages"][0]["content"] = json!("You are koi. Today is Tuesday.");
    // Continues the first request only (not the second).
    let mut changed_tools = chat_body(vec![user("read a"), user("more")]);
    changed_tools["tools"] = json!([tool(), tool()]);
    let server = FakeProvider::start([reply(), reply(), reply()]);
    chat(&server, &first);
    chat(&server, &changed_system);
    chat(&server, &changed_tools);
    assert_eq!(
        kinds(server),
        [ViolationKind::SystemChanged, ViolationKind::ToolsChanged]
    );

    // Byte-identical means bytes: the same tools with keys reordered differ.
    let server = FakeProvider::start([reply(), reply()]);
    chat(&server, &first);
    let again = chat_body(vec![user("read a"), user("more")]).to_string().replace(
        r#"{"function":{"description":"d","name":"fs_read","parameters":{}},"type":"function"}"#,
        r#"{"type":"function","function":{"description":"d","name":"fs_read","parameters":{}}}"#,
    );
    assert!(
        again.contains(r#"{"type":"function","function""#),
        "{again}"
    );
    let auth = format!("Bearer {KEY}");
    send(
        &server,
        "POST",
        "/v1/chat/completions",
        &[("authorization", &auth)],
        &again,
    );
    assert_eq!(kinds(server), [ViolationKind::ToolsChanged]);

    // A different conversation may have its own prompt.
    let server = FakeProvider::start([reply(), reply()]);
    chat(&server, &first);
    let mut other = chat_body(vec![user("something else")]);
    other["messages"][0]["content"] = json!("another prompt");
    chat(&server, &other);
    assert_eq!(kinds(server), []);
}

#[test]
fn history_is_append_only_on_every_request() {
    // What the engine sends first in every conversation.
    let environment = || user("[environment] cwd /ws");
    let first = chat_body(vec![
        environment(),
        user("read a"),
        assistant_call("c1"),
        tool_result("c1"),
    ]);
    // The tool result rewritten: the cached prefix moved.
    let rewritten = chat_body(vec![
        environment(),
        user("read a"),
        assistant_call("c1"),
        json!({"role": "tool", "tool_call_id": "c1", "content": "changed"}),
        user("more"),
    ]);
    let server = FakeProvider::start([reply(), reply()]);
    chat(&server, &first);
    chat(&server, &rewritten);
    assert_eq!(kinds(server), [ViolationKind::HistoryRewritten]);

    // The same items in other bytes (keys reordered) move the cached
    // prefix too.
    let server = FakeProvider::start([reply(), reply()]);
    chat(&server, &chat_body(vec![environment(), user("read a")]));
    let reordered = chat_body(vec![environment(), user("read a"), user("more")])
        .to_string()
        .replace(
            r#"{"content":"read a","role":"user"}"#,
            r#"{"role":"user","content":"read a"}"#,
        );
    assert!(reordered.contains(r#"{"role":"user","content":"read a"}"#));
    let auth = format!("Bearer {KEY}");
    send(
        &server,
        "POST",
        "/v1/chat/completions",
        &[("authorization", &auth)],
        &reordered,
    );
    assert_eq!(kinds(server), [ViolationKind::HistoryRewritten]);

    // A recorded compaction may rewrite history, and the prompt still may
    // not move across it.
    let summary = "[Summary of the earlier part of this conversation, written to fit the \
                   context budget. The full history is in the session log.]\nread a";
    let compacted = chat_body(vec![environment(), user(summary), user("more")]);
    let mut compacted_other_prompt = compacted.clone();
    compacted_other_prompt["messages"][0]["content"] = json!("You are koi, compacted.");
    let server = FakeProvider::start([reply(), reply(), reply()]);
    chat(
        &server,
        &chat_body(vec![environment(), user("read a"), user("then b")]),
    );
    chat(
        &server,
        &chat_body(vec![environment(), user("read a"), user("then c")]),
    );
    chat(&server, &compacted);
    assert_eq!(kinds(server), []);
    let server = FakeProvider::start([reply(), reply()]);
    chat(&server, &first);
    chat(&server, &compacted_other_prompt);
    assert_eq!(kinds(server), [ViolationKind::SystemChanged]);

    // A restart of the same beginning is a conversation of its own, and
    // so is a branch (a shared prefix, a new user message).
    let server = FakeProvider::start([reply(), reply(), reply(), reply()]);
    chat(&server, &chat_body(vec![user("read a")]));
    chat(&server, &first);
    chat(&server, &chat_body(vec![user("read a")]));
    chat(&server, &chat_body(vec![user("read a"), user("or b")]));
    assert_eq!(kinds(server), []);
}

fn title_body() -> Value {
    json!({"model": "fast", "messages": [
        {"role": "system", "content": "You name conversations. Reply with a title."},
        {"role": "user", "content": "fix the build"}]})
}

#[test]
fn replies_are_chosen_by_what_the_request_asks() {
    // Scripted in the "wrong" order: the title reply first.
    let server = FakeProvider::start([
        ChatStream::new()
            .text("Buildfix")
            .stop()
            .reply()
            .for_title(),
        ChatStream::new().text("answer").stop().reply(),
    ]);
    let turn = chat(&server, &chat_body(vec![user("fix the build")]));
    let title = chat(&server, &title_body());
    assert!(
        turn.contains("answer") && !turn.contains("Buildfix"),
        "{turn}"
    );
    assert!(title.contains("Buildfix"), "{title}");
    let got: Vec<_> = server.requests().iter().map(|r| r.kind).collect();
    assert_eq!(got, [RequestKind::Turn, RequestKind::Title]);
    assert_eq!(kinds(server), []);
}

#[test]
fn a_standing_reply_answers_every_request_of_its_kind() {
    let server = FakeProvider::builder()
        .always(ChatStream::new().text("Titled").stop().reply().for_title())
        .start([reply()]);
    for _ in 0..3 {
        assert!(chat(&server, &title_body()).contains("Titled"));
    }
    let turn = chat(&server, &chat_body(vec![user("hi")]));
    assert!(turn.contains("ok") && !turn.contains("Titled"), "{turn}");
    // The single turn reply is used up; a second turn is beyond the script.
    chat(&server, &chat_body(vec![user("hi"), user("again")]));
    assert_eq!(kinds(server), [ViolationKind::ScriptExhausted]);
}

#[test]
fn an_unexpected_side_request_and_unused_replies_are_reported() {
    let server = FakeProvider::start([reply(), reply()]);
    let out = chat(&server, &title_body());
    assert!(out.starts_with("HTTP/1.1 500"), "{out}");
    assert_eq!(
        kinds(server),
        [
            ViolationKind::UnexpectedSideRequest,
            ViolationKind::UnusedReplies
        ]
    );

    let server = FakeProvider::start_with(1, |_, _| reply());
    chat(&server, &title_body());
    assert_eq!(kinds(server), [ViolationKind::UnexpectedSideRequest]);
}

#[test]
#[should_panic(expected = "UnusedReplies")]
fn dropping_a_server_with_violations_fails_the_test() {
    let _server = FakeProvider::start([reply()]);
}

#[test]
#[should_panic(expected = "the test's own failure")]
fn a_failing_test_keeps_its_own_message() {
    let server = FakeProvider::start([reply()]);
    chat(&server, &title_body());
    // Dropping the server while this panic unwinds must not panic again
    // (that would abort the whole test binary).
    panic!("the test's own failure");
}

/// An Anthropic body with these extra top-level members.
fn anthropic_with(server: &FakeProvider, extra: Value, messages: Value) {
    let mut body = json!({"model": "m", "max_tokens": 20000,
        "system": [{"type": "text", "text": "s"}], "messages": messages});
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    send(
        server,
        "POST",
        "/v1/messages",
        &[("x-api-key", KEY), ("anthropic-version", "2023-06-01")],
        &body.to_string(),
    );
}

/// `messages` with its first text asked as `question`: a conversation of
/// its own, for checks that send unrelated requests to one server.
fn asked(mut messages: Value, question: &str) -> Value {
    messages[0]["content"][0]["text"] = json!(question);
    messages
}

#[test]
fn anthropic_thinking_rules_are_enforced() {
    let tool_round = |opener: Value| {
        json!([
            {"role": "user", "content": [{"type": "text", "text": "x"}]},
            {"role": "assistant", "content": [opener,
                {"type": "tool_use", "id": "t", "name": "n", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]},
        ])
    };
    let thought = json!({"type": "thinking", "thinking": "hm", "signature": "c2ln"});
    let budget = json!({"thinking": {"type": "enabled", "budget_tokens": 2048}});
    let server = FakeProvider::start([anthropic_reply(), anthropic_reply()]);
    // Good: the turn the results answer opens with its thinking.
    anthropic_with(&server, budget.clone(), tool_round(thought.clone()));
    anthropic_with(
        &server,
        json!({"thinking": {"type": "adaptive"}, "output_config": {"effort": "low"}}),
        asked(
            tool_round(json!({"type": "redacted_thinking", "data": "ZGF0YQ=="})),
            "x1",
        ),
    );
    assert_eq!(kinds(server), []);

    let server = FakeProvider::start((0..5).map(|_| anthropic_reply()));
    // Thinking on, but the turn opens with text.
    anthropic_with(
        &server,
        budget,
        asked(tool_round(json!({"type": "text", "text": "t"})), "w"),
    );
    // A budget under the floor, and one not below max_tokens.
    anthropic_with(
        &server,
        json!({"thinking": {"type": "enabled", "budget_tokens": 512}}),
        asked(tool_round(thought.clone()), "x2"),
    );
    anthropic_with(
        &server,
        json!({"thinking": {"type": "enabled", "budget_tokens": 20000}}),
        asked(tool_round(thought), "x3"),
    );
    // A thinking block without its signature.
    anthropic_with(
        &server,
        json!({}),
        asked(
            tool_round(json!({"type": "thinking", "thinking": "hm"})),
            "x4",
        ),
    );
    // Adaptive with a budget, and an effort that is no level.
    anthropic_with(
        &server,
        json!({"thinking": {"type": "adaptive", "budget_tokens": 2048},
            "output_config": {"effort": "extreme"}}),
        asked(
            tool_round(json!({"type": "redacted_thinking", "data": "ZGF0YQ=="})),
            "x5",
        ),
    );
    let (schema, found): (Vec<_>, Vec<_>) = server
        .into_violations()
        .into_iter()
        .partition(|v| v.kind == ViolationKind::ProviderSchema);
    assert!(
        found.iter().all(|v| v.kind == ViolationKind::BadShape),
        "{found:?}"
    );
    assert_eq!(found.len(), 6, "{found:#?}");
    // The provider's own definition agrees where it can say.
    let said = |what: &str| schema.iter().any(|v| v.detail.contains(what));
    assert!(said("\"signature\" is a required property"), "{schema:#?}");
    assert!(said("/output_config/effort"), "{schema:#?}");
}

#[test]
fn stateless_reasoning_items_need_their_encrypted_content() {
    let server = FakeProvider::start(
        (0..2).map(|_| ResponsesStream::new().text("x").completed(1, 0, 1).reply()),
    );
    let body = |reasoning: Value, question: &str| {
        json!({"model": "m", "instructions": "s", "store": false, "input": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": question}]},
            reasoning,
            {"type": "function_call", "call_id": "a", "name": "t", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "a", "output": "ok"},
        ]})
        .to_string()
    };
    send(
        &server,
        "POST",
        "/v1/responses",
        &[],
        &body(
            json!({"type": "reasoning", "summary": [], "encrypted_content": "gAAA"}),
            "x",
        ),
    );
    assert!(server.violations().is_empty(), "{:?}", server.violations());
    send(
        &server,
        "POST",
        "/v1/responses",
        &[],
        &body(
            json!({"type": "reasoning", "id": "rs_1", "summary": []}),
            "y",
        ),
    );
    let found = kinds(server);
    assert_eq!(
        found,
        [ViolationKind::BadShape, ViolationKind::BadShape],
        "no content, and an id"
    );
}

#[test]
fn more_than_four_cache_breakpoints_are_reported() {
    let server = FakeProvider::start([anthropic_reply(), anthropic_reply()]);
    let marked = |n: usize| {
        let blocks: Vec<Value> = (0..n)
            .map(|i| {
                json!({"type": "text", "text": format!("b{n}.{i}"),
                "cache_control": {"type": "ephemeral"}})
            })
            .collect();
        json!([{"role": "user", "content": blocks}])
    };
    anthropic(&server, marked(3));
    assert!(server.violations().is_empty(), "{:?}", server.violations());
    anthropic(&server, marked(5));
    assert_eq!(kinds(server), [ViolationKind::BadShape]);
}

#[test]
fn requests_are_checked_against_the_providers_own_definitions() {
    // Chat Completions: a role the API does not have, and a tool without
    // its type.
    let server = FakeProvider::start([reply()]);
    let mut body = chat_body(vec![user("read a")]);
    body["messages"][1]["role"] = json!("narrator");
    body["tools"][0].as_object_mut().unwrap().remove("type");
    chat(&server, &body);
    let found = server.into_violations();
    let schema: Vec<&str> = found
        .iter()
        .filter(|v| v.kind == ViolationKind::ProviderSchema)
        .map(|v| v.detail.as_str())
        .collect();
    assert!(
        schema.iter().any(|d| d.starts_with("/messages/1")),
        "{found:#?}"
    );
    assert!(
        schema.iter().any(|d| d.starts_with("/tools/0")),
        "{found:#?}"
    );

    // Anthropic: max_tokens is required.
    let server = FakeProvider::start([anthropic_reply()]);
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]});
    send(
        &server,
        "POST",
        "/v1/messages",
        &[("x-api-key", KEY), ("anthropic-version", "2023-06-01")],
        &body.to_string(),
    );
    let found = server.into_violations();
    assert!(
        found
            .iter()
            .any(|v| v.kind == ViolationKind::ProviderSchema && v.detail.contains("max_tokens")),
        "{found:#?}"
    );

    // Responses: a good body passes.
    let server = FakeProvider::start([ResponsesStream::new().text("x").completed(1, 0, 1).reply()]);
    let body = json!({"model": "m", "stream": true, "instructions": "s", "input": [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "x"}]}]});
    send(&server, "POST", "/v1/responses", &[], &body.to_string());
    assert_eq!(server.into_violations(), []);
}
