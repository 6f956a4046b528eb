//! koi's MCP client against the MCP project's own reference servers
//! (installed from npm into tests/mcp_servers), over stdio and over
//! Streamable HTTP.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use ai_mcp::{Health, McpError};
use ai_tools::{CancelToken, Registry, RegistryConfig, Workspace};
use serde_json::json;
use support::*;

fn everything_stdio(ws: &std::path::Path) -> std::sync::Arc<ai_mcp::Hub> {
    let script = reference("server-everything");
    hub(
        &stdio_server(
            "everything",
            "node",
            &[script.to_str().unwrap(), "stdio"],
            "",
        ),
        ws,
    )
}

#[test]
fn stdio_handshake_list_call_and_errors() {
    let ws = tempfile::tempdir().unwrap();
    let hub = everything_stdio(ws.path());
    hub.start_all();
    hub.wait_started(Duration::from_secs(30));
    let server = hub.server("everything").unwrap();
    match server.health() {
        Health::Ready {
            protocol,
            server_info,
        } => {
            assert_eq!(protocol, "2025-11-25");
            assert!(server_info.contains("everything"), "{server_info}");
        }
        other => panic!("not ready: {other:?}"),
    }
    let names: Vec<String> = hub.ready().into_iter().map(|e| e.exposed).collect();
    for want in [
        "mcp__everything__echo",
        "mcp__everything__get-sum",
        "mcp__everything__trigger-long-running-operation",
    ] {
        assert!(names.contains(&want.to_string()), "{names:?}");
    }
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted, "the catalogue is sorted");

    // Through the registry, as the engine calls it.
    let reg = Registry::standard(RegistryConfig::new(Workspace::new(ws.path()).unwrap()))
        .with_source(hub.clone());
    let cancel = CancelToken::new();
    let out = reg
        .run(
            "mcp__everything__echo",
            &json!({"message": "héllo"}),
            &cancel,
        )
        .unwrap();
    assert_eq!(out.for_model, "Echo: héllo");
    let sum = reg
        .run(
            "mcp__everything__get-sum",
            &json!({"a": 2, "b": 40}),
            &cancel,
        )
        .unwrap();
    assert!(sum.for_model.contains("42"), "{}", sum.for_model);
    // The same tool through the meta-tool.
    let meta = reg
        .run(
            "mcp_call",
            &json!({"server": "everything", "tool": "echo", "arguments": {"message": "m"}}),
            &cancel,
        )
        .unwrap();
    assert_eq!(meta.for_model, "Echo: m");
    // Structured content reaches the model.
    let structured = reg
        .run(
            "mcp__everything__get-structured-content",
            &json!({"location": "New York"}),
            &cancel,
        )
        .unwrap();
    assert!(
        structured.for_model.contains("temperature"),
        "{}",
        structured.for_model
    );
    // An image is described, not dropped silently.
    let image = reg
        .run("mcp__everything__get-tiny-image", &json!({}), &cancel)
        .unwrap();
    assert!(
        image.for_model.contains("[image image/png"),
        "{}",
        image.for_model
    );
    // A tool error (arguments the server rejects) is an error the model reads.
    let err = reg
        .run("mcp__everything__get-sum", &json!({"a": "two"}), &cancel)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("everything") && err.contains("get-sum"),
        "{err}"
    );
    // An unknown tool through mcp_call: the server's refusal, readable.
    let err = reg
        .run(
            "mcp_call",
            &json!({"server": "everything", "tool": "nope"}),
            &cancel,
        )
        .unwrap_err()
        .to_string();
    assert!(err.contains("nope"), "{err}");
    let err = reg
        .run(
            "mcp_call",
            &json!({"server": "ghost", "tool": "x"}),
            &cancel,
        )
        .unwrap_err()
        .to_string();
    assert!(err.contains("no MCP server named \"ghost\""), "{err}");
}

#[test]
fn stdio_server_env_is_scrubbed_plus_configured() {
    let ws = tempfile::tempdir().unwrap();
    let script = reference("server-everything");
    std::env::set_var("KOI_TEST_SECRET", "sekrit-value-123");
    std::env::set_var("OPENAI_API_KEY", "sk-should-not-leak");
    let hub = hub(
        &stdio_server(
            "everything",
            "node",
            &[script.to_str().unwrap(), "stdio"],
            "env = { KOI_MCP_GIVEN = \"given-value\" }",
        ),
        ws.path(),
    );
    let out = hub
        .server("everything")
        .unwrap()
        .call("get-env", json!({}), &CancelToken::new(), None)
        .unwrap();
    let text = out.to_string();
    assert!(text.contains("given-value"), "the configured env is set");
    assert!(
        !text.contains("sekrit-value-123"),
        "a configured secret var is scrubbed"
    );
    assert!(
        !text.contains("sk-should-not-leak"),
        "API keys are scrubbed"
    );
}

#[test]
fn progress_and_cancel() {
    let ws = tempfile::tempdir().unwrap();
    let hub = everything_stdio(ws.path());
    let server = hub.server("everything").unwrap();
    let seen = std::sync::Arc::new(parking_lot::Mutex::new(Vec::new()));
    let s2 = seen.clone();
    let out = server
        .call(
            "trigger-long-running-operation",
            json!({"duration": 0.6, "steps": 3}),
            &CancelToken::new(),
            Some(Box::new(move |p| s2.lock().push(p.to_string()))),
        )
        .unwrap();
    assert!(out.to_string().contains("completed"));
    assert_eq!(*seen.lock(), vec!["1/3", "2/3", "3/3"]);

    // Cancel mid-call (on the first progress report): the call ends
    // `Cancelled` long before the operation would complete, and the
    // server stays usable. No threshold on how fast (a loaded machine
    // would trip it).
    let cancel = CancelToken::new();
    let c2 = cancel.clone();
    let err = server
        .call(
            "trigger-long-running-operation",
            json!({"duration": 30, "steps": 30}),
            &cancel,
            Some(Box::new(move |_| c2.cancel())),
        )
        .unwrap_err();
    assert!(matches!(err, McpError::Cancelled), "{err}");
    let again = server.call(
        "echo",
        json!({"message": "after"}),
        &CancelToken::new(),
        None,
    );
    assert!(again.unwrap().to_string().contains("after"));
}

#[test]
fn server_killed_mid_call_restarts_on_next_use() {
    let ws = tempfile::tempdir().unwrap();
    let script = reference("server-everything");
    let hub = hub(
        &stdio_server(
            "everything",
            "node",
            &[script.to_str().unwrap(), "stdio"],
            "env = { KOI_MCP_TEST = \"kill\" }",
        ),
        ws.path(),
    );
    let reg = Registry::standard(RegistryConfig::new(Workspace::new(ws.path()).unwrap()))
        .with_source(hub.clone());
    hub.start_all();
    hub.wait_started(Duration::from_secs(30));
    let pids = children_matching("KOI_MCP_TEST=kill");
    assert_eq!(pids.len(), 1, "{pids:?}");
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(400));
        // SAFETY: kill(2) on a pid we just read as our own child.
        unsafe { libc::kill(pids[0], libc::SIGKILL) };
    });
    let t = Instant::now();
    let err = reg
        .run(
            "mcp__everything__trigger-long-running-operation",
            &json!({"duration": 20, "steps": 20}),
            &CancelToken::new(),
        )
        .unwrap_err()
        .to_string();
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    assert!(err.contains("failed during the call"), "{err}");
    assert!(err.contains("restarts the server"), "{err}");
    // The next use starts a new server.
    let out = reg
        .run(
            "mcp__everything__echo",
            &json!({"message": "back"}),
            &CancelToken::new(),
        )
        .unwrap();
    assert_eq!(out.for_model, "Echo: back");
    assert_eq!(children_matching("KOI_MCP_TEST=kill").len(), 1);
}

struct Spawned(Child);
impl Drop for Spawned {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn everything_http() -> (Spawned, String) {
    everything_http_on(free_port())
}

fn everything_http_on(port: u16) -> (Spawned, String) {
    let child = Command::new("node")
        .arg(reference("server-everything"))
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let up = wait_for(Duration::from_secs(20), || {
        std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
    });
    assert!(up, "server-everything did not listen on {port}");
    (Spawned(child), format!("http://127.0.0.1:{port}/mcp"))
}

#[test]
fn streamable_http_handshake_list_call_progress() {
    let ws = tempfile::tempdir().unwrap();
    let (_server, url) = everything_http();
    std::env::set_var("KOI_TEST_MCP_TOKEN", "t0ken");
    let hub = hub(
        &format!(
            "[mcp.servers.remote]\nurl = {url:?}\nheaders = {{ \"X-Koi-Test\" = \"1\" }}\nbearer_token_env_var = \"KOI_TEST_MCP_TOKEN\"\n"
        ),
        ws.path(),
    );
    hub.start_all();
    hub.wait_started(Duration::from_secs(20));
    let server = hub.server("remote").unwrap();
    assert!(
        matches!(server.health(), Health::Ready { .. }),
        "{:?}",
        server.health()
    );
    let names: Vec<String> = hub.ready().into_iter().map(|e| e.tool.name).collect();
    assert!(names.contains(&"echo".to_string()), "{names:?}");
    let out = server
        .call(
            "echo",
            json!({"message": "over http"}),
            &CancelToken::new(),
            None,
        )
        .unwrap();
    assert!(out.to_string().contains("Echo: over http"));
    // Progress arrives on the POST's event stream before the answer.
    let seen = std::sync::Arc::new(parking_lot::Mutex::new(Vec::new()));
    let s2 = seen.clone();
    let out = server
        .call(
            "trigger-long-running-operation",
            json!({"duration": 0.4, "steps": 2}),
            &CancelToken::new(),
            Some(Box::new(move |p| s2.lock().push(p.to_string()))),
        )
        .unwrap();
    assert!(out.to_string().contains("completed"));
    assert_eq!(*seen.lock(), vec!["1/2", "2/2"]);
    // A tool error over HTTP.
    let r = server
        .call("get-sum", json!({"a": "x"}), &CancelToken::new(), None)
        .unwrap();
    assert_eq!(r.get("isError"), Some(&json!(true)));
}

#[test]
fn streamable_http_server_gone_is_an_error_then_restart() {
    let ws = tempfile::tempdir().unwrap();
    let (server_proc, url) = everything_http();
    let hub = hub(
        &format!("[mcp.servers.remote]\nurl = {url:?}\nstartup_timeout_s = 3\n"),
        ws.path(),
    );
    let server = hub.server("remote").unwrap();
    server
        .call("echo", json!({"message": "1"}), &CancelToken::new(), None)
        .unwrap();
    let port: u16 = url
        .trim_start_matches("http://127.0.0.1:")
        .trim_end_matches("/mcp")
        .parse()
        .unwrap();
    drop(server_proc);
    let err = server
        .call("echo", json!({"message": "2"}), &CancelToken::new(), None)
        .unwrap_err();
    assert!(matches!(err, McpError::Gone(_)), "{err}");
    // The endpoint comes back: the next use starts a new session.
    let (_again, _) = everything_http_on(port);
    let out = server
        .call("echo", json!({"message": "3"}), &CancelToken::new(), None)
        .unwrap();
    assert!(out.to_string().contains("Echo: 3"), "{out}");
}

#[test]
fn filesystem_server_reads_a_directory() {
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("note.txt"), "the note\n").unwrap();
    let script = reference("server-filesystem");
    let root = ws.path().canonicalize().unwrap();
    let hub = hub(
        &stdio_server(
            "files",
            "node",
            &[script.to_str().unwrap(), root.to_str().unwrap()],
            "trust = \"annotations\"",
        ),
        ws.path(),
    );
    let reg = Registry::standard(RegistryConfig::new(Workspace::new(ws.path()).unwrap()))
        .with_source(hub.clone());
    hub.start_all();
    hub.wait_started(Duration::from_secs(30));
    let path = root.join("note.txt");
    let out = reg
        .run(
            "mcp__files__read_text_file",
            &json!({"path": path}),
            &CancelToken::new(),
        )
        .unwrap();
    assert!(out.for_model.contains("the note"), "{}", out.for_model);
    let err = reg
        .run(
            "mcp__files__read_text_file",
            &json!({"path": "/etc/passwd"}),
            &CancelToken::new(),
        )
        .unwrap_err()
        .to_string();
    assert!(err.contains("reported an error"), "{err}");
}
