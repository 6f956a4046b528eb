//! MCP tools from a conversation's first request: `k` starts the
//! configured servers as it starts and the first request waits (a
//! bounded time) until they are ready, against the MCP project's
//! reference servers over stdio and Streamable HTTP; a server slower
//! than `[mcp] startup_wait_s` is left out of the first request, named on
//! stderr, and announced in the next request.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use koi_testkit::openai_chat::ChatStream;
use koi_testkit::{FakeProvider, Reply};

use crate::common::Home;

fn reference(name: &str) -> String {
    koi_testkit::mcp_servers::reference(name)
        .display()
        .to_string()
}

struct Spawned(Child);
impl Drop for Spawned {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// server-everything over Streamable HTTP, listening.
fn everything_http() -> (Spawned, String) {
    let port = free_port();
    let child = Command::new("node")
        .arg(reference("server-everything"))
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let child = Spawned(child);
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "server-everything did not listen"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    (child, format!("http://127.0.0.1:{port}/mcp"))
}

/// The `[ai]` table of a home pointed at `server`, plus `mcp`.
fn config(home: &Home, server: &FakeProvider, mcp: &str) {
    home.write_config(&format!(
        "[ai]\nprovider = \"openai\"\nbase_url = \"{}\"\nmodel = \"fake-model\"\nmemory = false\n\n{mcp}",
        server.base_url()
    ));
}

/// A model answering request `i` with `replies[i]`, and no more requests
/// than that, noting when each request arrived.
fn scripted(replies: Vec<Reply>) -> (FakeProvider, Arc<Mutex<Vec<Instant>>>) {
    let arrived: Arc<Mutex<Vec<Instant>>> = Arc::default();
    let seen = Arc::clone(&arrived);
    let expected = replies.len();
    let replies = Mutex::new(replies.into_iter());
    let server = FakeProvider::start_with(expected, move |_, _| {
        seen.lock().unwrap().push(Instant::now());
        replies
            .lock()
            .unwrap()
            .next()
            .unwrap_or_else(|| ChatStream::new().text("extra").stop().reply())
    });
    (server, arrived)
}

fn tool_names(body: &serde_json::Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect()
}

fn path_str(p: &Path) -> String {
    p.display().to_string()
}

#[test]
fn the_first_request_declares_the_tools_of_every_server_ready_in_time() {
    let (_http, url) = everything_http();
    let home = Home::new(None);
    let ws = home.ws().canonicalize().unwrap();
    std::fs::write(ws.join("a.txt"), "hello from a.txt").unwrap();
    let read = serde_json::json!({"path": ws.join("a.txt")}).to_string();
    let (server, _) = scripted(vec![
        ChatStream::new()
            .tool_call("c1", "mcp__fs__read_text_file", &read)
            .tool_calls()
            .reply(),
        ChatStream::new().text("done").stop().reply(),
    ]);
    config(
        &home,
        &server,
        &format!(
            "[mcp]\nstartup_wait_s = 30\n\n[mcp.servers.everything]\ncommand = \"node\"\nargs = [{:?}, \"stdio\"]\n\n\
             [mcp.servers.remote]\nurl = {url:?}\n\n\
             [mcp.servers.fs]\ncommand = \"node\"\nargs = [{:?}, {:?}]\ntrust = \"annotations\"\n",
            reference("server-everything"),
            reference("server-filesystem"),
            path_str(&ws),
        ),
    );
    let run = home.run(&["--new", "read a.txt with the fs tool"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2, "{}", run.stderr);
    let names = tool_names(&reqs[0].json());
    for want in [
        "mcp__everything__echo",
        "mcp__everything__get-sum",
        "mcp__remote__echo",
        "mcp__fs__read_text_file",
        "mcp__fs__write_file",
        "mcp_call",
    ] {
        assert!(
            names.iter().any(|n| n == want),
            "{want} missing from {names:?}"
        );
    }
    // MCP tools follow the built-in ones, sorted (the cache-stable order).
    let mcp: Vec<&String> = names.iter().filter(|n| n.starts_with("mcp__")).collect();
    let mut sorted = mcp.clone();
    sorted.sort();
    assert_eq!(mcp, sorted);
    // The same list in the next request, and no notice: nothing new.
    let second = reqs[1].json();
    assert_eq!(tool_names(&second), names);
    let body = reqs[1].body_str();
    assert!(!body.contains("not in your tool list"), "{body}");
    // The call ran through the gate (trusted read-only: no question).
    assert!(body.contains("hello from a.txt"), "{body}");
    assert!(!run.stderr.contains("not ready"), "{}", run.stderr);
}

#[test]
fn a_server_slower_than_the_wait_is_announced_in_the_next_request() {
    let home = Home::new(None);
    let ws = home.ws().canonicalize().unwrap();
    std::fs::write(ws.join("a.txt"), "A").unwrap();
    // Ready after ~3 s: past the 1 s wait, well within its own timeout.
    let wrapper = home.root().join("slow-everything.sh");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nsleep 3\nexec node {:?} stdio\n",
            reference("server-everything")
        ),
    )
    .unwrap();
    let (server, arrived) = scripted(vec![
        // The round lasts past the server's start, so the next request
        // finds it ready.
        ChatStream::new()
            .tool_call("c1", "fs_read", r#"{"path": "a.txt"}"#)
            .tool_calls()
            .reply()
            .delay(Duration::from_secs(4)),
        ChatStream::new().text("done").stop().reply(),
    ]);
    config(
        &home,
        &server,
        &format!(
            "[mcp]\nstartup_wait_s = 1\n\n[mcp.servers.slow]\ncommand = \"sh\"\nargs = [{:?}]\n",
            path_str(&wrapper)
        ),
    );
    let t0 = Instant::now();
    let run = home.run(&["--new", "echo hello"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2, "{}", run.stderr);
    let first_at = arrived.lock().unwrap()[0].duration_since(t0);
    assert!(
        first_at >= Duration::from_secs(1) && first_at < Duration::from_millis(2900),
        "the first request went out after {first_at:?}"
    );
    let names = tool_names(&reqs[0].json());
    assert!(names.iter().any(|n| n == "mcp_call"), "{names:?}");
    assert!(
        !names.iter().any(|n| n.starts_with("mcp__slow")),
        "{names:?}"
    );
    // The tool list does not change; the notice tells the model.
    let second = reqs[1].json();
    assert_eq!(tool_names(&second), names);
    let body = reqs[1].body_str();
    assert!(
        body.contains("MCP tools are available that are not in your tool list (server slow"),
        "{body}"
    );
    assert!(body.contains(r#"tool \"echo\""#), "{body}");
    assert!(
        !reqs[0].body_str().contains("not in your tool list"),
        "the first request carries no notice"
    );
    // k said what it waited for, and that it went on without the server.
    assert!(
        run.stderr
            .contains("waiting for MCP server slow to start (up to 1 s)"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("MCP server slow not ready after 1 s"),
        "{}",
        run.stderr
    );
}

#[test]
fn mcp_list_shows_each_servers_start_time() {
    let home = Home::new(None);
    home.write_config(&format!(
        "[mcp.servers.everything]\ncommand = \"node\"\nargs = [{:?}, \"stdio\"]\n",
        reference("server-everything")
    ));
    let run = home.run(&["mcp", "list"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let line = run
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with("start time: "))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    let secs: f64 = line
        .trim()
        .trim_start_matches("start time: ")
        .trim_end_matches(" s")
        .parse()
        .unwrap();
    assert!(secs > 0.0 && secs < 30.0, "{line}");
    let run = home.run(&["mcp", "list", "--json"], None);
    let ms = run.events()[0]["start_time_ms"].as_u64().unwrap();
    assert!(ms > 0 && ms < 30_000, "{ms}");
}

#[test]
fn policy_check_knows_mcp_call_and_explore() {
    let home = Home::new(None);
    home.write_config(&format!(
        "[mcp.servers.everything]\ncommand = \"node\"\nargs = [{:?}, \"stdio\"]\n",
        reference("server-everything")
    ));
    for (tool, args) in [
        (
            "mcp_call",
            r#"{"server": "everything", "tool": "echo", "arguments": {"message": "x"}}"#,
        ),
        ("explore", r#"{"task": "where is main?"}"#),
        ("mcp__everything__echo", r#"{"message": "x"}"#),
    ] {
        for v in home.policy_verdicts(tool, args) {
            let reason = v["verdict"]["reason"].as_str().unwrap_or_default();
            assert!(!reason.contains("unknown tool"), "{tool}: {v}");
        }
    }
}
