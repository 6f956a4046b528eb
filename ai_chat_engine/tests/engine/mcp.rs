//! MCP tools in conversations, on the strict fake provider (which checks
//! that the system prompt and `tools` stay byte-identical across every
//! request): the tool list is fixed at the first request, later servers
//! and changed tools arrive as notices and are called through mcp_call.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use ai_chat_engine::{Engine, Event, ProviderKind};
use ai_mcp::{Hub, HubEnv, McpConfig};
use ai_tools::{Mode, Registry, RegistryConfig, Workspace};
use koi_testkit::openai_chat::ChatStream;
use koi_testkit::FakeProvider;

use crate::common::*;

fn bad_server_script() -> std::path::PathBuf {
    koi_testkit::mcp_servers::dir().join("bad_server.py")
}

/// An engine whose registry lends out `mode`'s server as `NAME = mode`.
fn mcp_engine(
    server: &FakeProvider,
    ws: &Path,
    data: &Path,
    cfg_dir: &Path,
    mode: &str,
) -> (Engine, Arc<Hub>) {
    let toml = format!(
        "[mcp.servers.{mode}]\ncommand = \"python3\"\nargs = [{:?}, {mode:?}]\n",
        bad_server_script().to_str().unwrap()
    );
    let hub = Hub::new(
        &McpConfig::from_toml_str(&toml).unwrap(),
        HubEnv {
            workspace: ws.to_path_buf(),
            secret_env_vars: Vec::new(),
        },
    );
    let registry = Registry::standard(RegistryConfig::new(Workspace::new(ws).unwrap()))
        .with_source(hub.clone());
    let mut opts = options(data, cfg_dir);
    opts.mode = Some(Mode::Bypass);
    opts.mcp = Some(hub.clone());
    let engine = Engine::new(
        config(server, ProviderKind::OpenAi),
        Arc::new(registry),
        opts,
    )
    .unwrap();
    (engine, hub)
}

fn tool_names(body: &serde_json::Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect()
}

/// The `tools` array as sent (the fake provider also checks it stays
/// byte-identical within a conversation).
fn tools_bytes(body: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(body).unwrap();
    v["tools"].to_string()
}

#[test]
fn tools_stay_byte_identical_while_a_server_changes_its_tools() {
    let server = FakeProvider::start([
        ChatStream::new()
            .tool_call("c1", "mcp__changing__grow", "{}")
            .tool_calls()
            .reply(),
        ChatStream::new()
            .tool_call(
                "c2",
                "mcp_call",
                r#"{"server":"changing","tool":"new_tool_4","arguments":{}}"#,
            )
            .tool_calls()
            .reply(),
        ChatStream::new().text("done").stop().reply(),
    ]);
    let (ws, data, cfg) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    let (engine, hub) = mcp_engine(&server, ws.path(), data.path(), cfg.path(), "changing");
    hub.wait_started(Duration::from_secs(10));
    let conv = engine.new_conversation();
    let msgs = run(&engine, &conv, "grow it, then call the new tool");
    assert!(is_done(&msgs), "{msgs:?}");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    let first = reqs[0].json();
    let names = tool_names(&first);
    // Built-in tools, then mcp_call, then the ready server's tools, sorted.
    let mcp: Vec<&String> = names.iter().filter(|n| n.starts_with("mcp")).collect();
    assert_eq!(
        mcp,
        [
            "mcp_call",
            "mcp__changing__big",
            "mcp__changing__grow",
            "mcp__changing__ok",
            "mcp__changing__stall"
        ]
    );
    assert_eq!(names[0], "fs_read");
    // Byte-identical tools in every request.
    let bodies: Vec<String> = reqs.iter().map(|r| r.body_str()).collect();
    for b in &bodies[1..] {
        assert_eq!(tools_bytes(b), tools_bytes(&bodies[0]));
    }
    // The new tool was announced (with its schema) before request 2.
    let second = reqs[1].body_str();
    assert!(second.contains("new_tool_4"), "{second}");
    assert!(
        second.contains("input schema: {\\\"type\\\":\\\"object\\\"}"),
        "{second}"
    );
    assert!(!bodies[0].contains("new_tool_4"));
    // The call through mcp_call reached it.
    let third = reqs[2].json();
    let last_tool = third["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "tool")
        .unwrap()
        .clone();
    assert!(
        last_tool["content"].as_str().unwrap().contains("ok"),
        "{last_tool}"
    );
    // Announced once: a second turn adds no second notice.
    server.push(ChatStream::new().text("again").stop().reply());
    assert!(is_done(&run(&engine, &conv, "anything new?")));
    let fourth = server.requests()[3].body_str();
    assert_eq!(
        fourth.matches("new_tool_4\\\"").count(),
        second.matches("new_tool_4\\\"").count() + 1
    );
    assert_eq!(tools_bytes(&fourth), tools_bytes(&bodies[0]));
    server.finish();
}

#[test]
fn a_slow_server_never_delays_the_first_answer_and_is_announced_later() {
    let server = FakeProvider::start([
        ChatStream::new().text("first").stop().reply(),
        ChatStream::new().text("second").stop().reply(),
    ]);
    let (ws, data, cfg) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    let (engine, hub) = mcp_engine(&server, ws.path(), data.path(), cfg.path(), "slow");
    let conv = engine.new_conversation();
    // The server answers initialize only once ./release exists: the whole
    // first turn runs while it is still starting.
    let msgs = run(&engine, &conv, "hi");
    assert!(is_done(&msgs), "{msgs:?}");
    let first = server.requests()[0].json();
    let names = tool_names(&first);
    assert!(names.contains(&"mcp_call".to_string()));
    assert!(!names.iter().any(|n| n.starts_with("mcp__")), "{names:?}");
    std::fs::write(ws.path().join("release"), "").unwrap();
    hub.wait_started(Duration::from_secs(10));
    let msgs = run(&engine, &conv, "and now?");
    assert!(is_done(&msgs), "{msgs:?}");
    let reqs = server.requests();
    let second = reqs[1].body_str();
    assert!(second.contains("server slow became ready"), "{second}");
    assert!(second.contains("tool \\\"grow\\\""), "{second}");
    assert_eq!(tools_bytes(&second), tools_bytes(&reqs[0].body_str()));
    // The notice is a message after the first turn: the first request's
    // messages are still a prefix.
    let m1 = reqs[0].json()["messages"].as_array().unwrap().clone();
    let m2 = reqs[1].json()["messages"].as_array().unwrap().clone();
    assert_eq!(m2[..m1.len()], m1[..]);
    assert!(!msgs.iter().any(|m| matches!(m, Event::Error { .. })));
    server.finish();
}

#[test]
fn progress_notifications_are_the_calls_live_status() {
    let everything = koi_testkit::mcp_servers::reference("server-everything");
    let server = FakeProvider::start([
        ChatStream::new()
            .tool_call(
                "p1",
                "mcp__everything__trigger-long-running-operation",
                r#"{"duration":0.6,"steps":3}"#,
            )
            .tool_calls()
            .reply(),
        ChatStream::new().text("done").stop().reply(),
    ]);
    let (ws, data, cfg) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    let toml = format!(
        "[mcp.servers.everything]\ncommand = \"node\"\nargs = [{:?}, \"stdio\"]\n",
        everything.to_str().unwrap()
    );
    let hub = Hub::new(
        &McpConfig::from_toml_str(&toml).unwrap(),
        HubEnv {
            workspace: ws.path().to_path_buf(),
            secret_env_vars: Vec::new(),
        },
    );
    let registry = Registry::standard(RegistryConfig::new(Workspace::new(ws.path()).unwrap()))
        .with_source(hub.clone());
    let mut opts = options(data.path(), cfg.path());
    opts.mode = Some(Mode::Bypass);
    opts.mcp = Some(hub.clone());
    let engine = Engine::new(
        config(&server, ProviderKind::OpenAi),
        Arc::new(registry),
        opts,
    )
    .unwrap();
    hub.wait_started(Duration::from_secs(30));
    let conv = engine.new_conversation();
    let msgs = run(&engine, &conv, "run the long operation");
    assert!(is_done(&msgs), "{msgs:?}");
    let steps: Vec<String> = msgs
        .iter()
        .filter_map(|m| match m {
            Event::ToolStart { .. } => Some("start".to_string()),
            Event::ToolProgress { id, text } if id == "p1" => Some(text.clone()),
            Event::ToolDone { .. } => Some("done".to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(steps, ["start", "1/3", "2/3", "3/3", "done"]);
    // Progress is for the user only: the model's history has the result.
    let second = server.requests()[1].body_str();
    assert!(!second.contains("1/3"), "{second}");
    assert!(
        second.contains("Long running operation completed"),
        "{second}"
    );
    server.finish();
}

#[test]
fn a_summary_request_declares_the_conversations_mcp_tools() {
    let server = FakeProvider::start([
        ChatStream::new().text("one").stop().reply(),
        ChatStream::new().text("two").stop().reply(),
        ChatStream::new().text("three").stop().reply(),
        ChatStream::new()
            .text("SUMMARY: three long questions.")
            .stop()
            .reply()
            .for_summary(),
    ]);
    let (ws, data, cfg) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    let (engine, hub) = mcp_engine(&server, ws.path(), data.path(), cfg.path(), "changing");
    hub.wait_started(Duration::from_secs(10));
    let conv = engine.new_conversation();
    for q in ["first", "second", "third"] {
        let question = format!("{q}: {}", "words ".repeat(400));
        assert!(is_done(&run(&engine, &conv, &question)));
    }
    let (rx, _cancel) = engine.compact(&conv);
    let msgs = collect(&rx);
    assert!(is_done(&msgs), "{msgs:?}");
    let reqs = server.requests();
    let summary = reqs.last().unwrap();
    assert_eq!(summary.kind, koi_testkit::RequestKind::Summary);
    // The summary shares the conversation's prefix: its tools are the
    // conversation's, MCP tools included, byte for byte.
    let tools = tools_bytes(&summary.body_str());
    assert!(tools.contains("mcp__changing__grow"), "{tools}");
    assert_eq!(tools, tools_bytes(&reqs[reqs.len() - 2].body_str()));
    server.finish();
}
