//! Servers that break the rules (tests/mcp_servers/bad_server.py): each
//! becomes an error the model can read, never a hang or a crash of koi.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::time::{Duration, Instant};

use ai_mcp::{Health, McpError};
use ai_tools::{CancelToken, Registry, RegistryConfig, Workspace};
use serde_json::json;
use support::*;

fn bad(mode: &str, extra: &str) -> (tempfile::TempDir, std::sync::Arc<ai_mcp::Hub>) {
    let ws = tempfile::tempdir().unwrap();
    let script = bad_server();
    let h = hub(
        &stdio_server(mode, "python3", &[script.to_str().unwrap(), mode], extra),
        ws.path(),
    );
    (ws, h)
}

#[test]
fn garbage_on_stdout_is_skipped() {
    let (_ws, hub) = bad("garbage", "");
    let server = hub.server("garbage").unwrap();
    let out = server
        .call("ok", json!({}), &CancelToken::new(), None)
        .unwrap();
    assert_eq!(out["content"][0]["text"], "ok");
    assert_eq!(server.known_tools().unwrap().len(), 4);
}

#[test]
fn never_answering_initialize_times_out_and_is_retried_boundedly() {
    let (ws, hub) = bad("silent", "startup_timeout_s = 1");
    let server = hub.server("silent").unwrap();
    let t = Instant::now();
    let err = server
        .call("ok", json!({}), &CancelToken::new(), None)
        .unwrap_err();
    assert!(matches!(err, McpError::StartTimeout { secs: 1 }), "{err}");
    assert!(t.elapsed() < Duration::from_secs(4), "{:?}", t.elapsed());
    for _ in 0..2 {
        let _ = server.call("ok", json!({}), &CancelToken::new(), None);
    }
    assert!(
        matches!(server.health(), Health::GaveUp { .. }),
        "{:?}",
        server.health()
    );
    // Given up: the next call fails at once instead of starting the
    // server and waiting for it again (the server counts its starts).
    let starts = || {
        std::fs::read_to_string(ws.path().join("starts"))
            .unwrap_or_default()
            .lines()
            .count()
    };
    let before = starts();
    assert!(before >= 1, "the server never started");
    let err = server
        .call("ok", json!({}), &CancelToken::new(), None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("stopped trying"), "{err}");
    assert_eq!(starts(), before, "a given-up server was started again");
}

#[test]
fn a_ten_megabyte_result_is_cut_for_the_model() {
    let (ws, hub) = bad("huge", "");
    let reg = Registry::standard(RegistryConfig::new(Workspace::new(ws.path()).unwrap()))
        .with_source(hub.clone());
    hub.start_all();
    hub.wait_started(Duration::from_secs(10));
    let t = Instant::now();
    let out = reg
        .run("mcp__huge__big", &json!({}), &CancelToken::new())
        .unwrap();
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
    assert_eq!(out.full.len(), 10 * 1024 * 1024);
    // The budget, plus the one line that says what was cut.
    assert!(out.for_model.chars().count() < ai_tools::tool::DEFAULT_OUTPUT_BUDGET + 100);
    assert!(
        out.for_model.contains("cut"),
        "the model is told it was cut"
    );
}

#[test]
fn a_hung_call_times_out_and_the_server_restarts() {
    let (_ws, hub) = bad("hang", "tool_timeout_s = 1");
    let server = hub.server("hang").unwrap();
    let t = Instant::now();
    let err = server
        .call("stall", json!({}), &CancelToken::new(), None)
        .unwrap_err();
    assert!(matches!(err, McpError::Timeout { secs: 1 }), "{err}");
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    let out = server
        .call("ok", json!({}), &CancelToken::new(), None)
        .unwrap();
    assert_eq!(out["content"][0]["text"], "ok");
}

#[test]
fn a_crashing_server_is_an_error_with_its_exit_status() {
    let (_ws, hub) = bad("crash", "startup_timeout_s = 2");
    let server = hub.server("crash").unwrap();
    let err = server
        .call("ok", json!({}), &CancelToken::new(), None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("exit status: 3"), "{err}");
}

#[test]
fn paged_tool_lists_are_read_to_the_end() {
    let (_ws, hub) = bad("paged", "");
    hub.start_all();
    hub.wait_started(Duration::from_secs(10));
    let names: Vec<String> = hub.ready().into_iter().map(|e| e.tool.name).collect();
    assert_eq!(names, ["big", "grow", "ok", "stall"]);
}

#[test]
fn list_changed_refreshes_the_catalogue() {
    let (_ws, hub) = bad("changing", "");
    hub.start_all();
    hub.wait_started(Duration::from_secs(10));
    let before = hub.generation();
    assert_eq!(hub.ready().len(), 4);
    hub.server("changing")
        .unwrap()
        .call("grow", json!({}), &CancelToken::new(), None)
        .unwrap();
    assert!(wait_for(Duration::from_secs(5), || hub.ready().len() == 5));
    assert!(hub.generation() > before);
    assert!(hub
        .ready()
        .iter()
        .any(|e| e.exposed == "mcp__changing__new_tool_4"));
}
