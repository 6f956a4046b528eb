//! Every MCP call passes the one policy: it asks in default mode, is
//! denied where nobody can be asked, and runs unasked only when the user
//! trusts the server's annotations and the tool says it only reads.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::time::Duration;

use ai_tools::policy_table;
use ai_tools::{Decision, Mode, Registry, RegistryConfig, Workspace};
use serde_json::json;
use support::*;

fn codes(reg: &Registry, name: &str, args: &serde_json::Value) -> String {
    policy_table::codes(|mode| reg.decide(name, args, mode))
}

#[test]
fn the_gate_by_trust_and_annotation() {
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("a.txt"), "a").unwrap();
    let root = ws.path().canonicalize().unwrap();
    let fs = reference("server-filesystem");
    let everything = reference("server-everything");
    let toml = format!(
        "{}{}{}",
        stdio_server(
            "trusted",
            "node",
            &[fs.to_str().unwrap(), root.to_str().unwrap()],
            "trust = \"annotations\""
        ),
        stdio_server(
            "untrusted",
            "node",
            &[fs.to_str().unwrap(), root.to_str().unwrap()],
            ""
        ),
        stdio_server(
            "everything",
            "node",
            &[everything.to_str().unwrap(), "stdio"],
            ""
        ),
    );
    let hub = hub(&toml, ws.path());
    hub.start_all();
    hub.wait_started(Duration::from_secs(30));
    let reg = Registry::standard(RegistryConfig::new(Workspace::new(ws.path()).unwrap()))
        .with_source(hub);
    let read = json!({"path": root.join("a.txt")});
    // Modes in Mode::ALL order: default, accept-edits, plan, dont-ask, bypass.
    assert_eq!(Mode::ALL.len(), 5);
    assert_eq!(codes(&reg, "mcp__trusted__read_text_file", &read), "AAAAA");
    assert_eq!(
        codes(&reg, "mcp__untrusted__read_text_file", &read),
        "QQDDA"
    );
    let write = json!({"path": root.join("b.txt"), "content": "b"});
    assert_eq!(codes(&reg, "mcp__trusted__write_file", &write), "QQDDA");
    // The meta-tool is judged by the tool it reaches.
    let via_meta =
        |server: &str, tool: &str| json!({"server": server, "tool": tool, "arguments": read});
    assert_eq!(
        codes(&reg, "mcp_call", &via_meta("trusted", "read_text_file")),
        "AAAAA"
    );
    assert_eq!(
        codes(&reg, "mcp_call", &via_meta("trusted", "write_file")),
        "QQDDA"
    );
    assert_eq!(
        codes(&reg, "mcp_call", &via_meta("trusted", "not_listed")),
        "QQDDA"
    );
    // A read-only hint from a server the user did not trust is only a hint.
    assert_eq!(
        codes(
            &reg,
            "mcp__everything__trigger-long-running-operation",
            &json!({})
        ),
        "QQDDA"
    );

    // The approval shows server, tool and arguments.
    let Decision::Ask { summary, detail } =
        reg.decide("mcp__untrusted__read_text_file", &read, Mode::Default)
    else {
        panic!("expected ask");
    };
    assert!(
        summary.starts_with("MCP untrusted › read_text_file {\"path\":"),
        "{summary}"
    );
    assert!(
        detail.contains("MCP server: untrusted\ntool: read_text_file\narguments:\n{\n  \"path\""),
        "{detail}"
    );
    assert!(detail.contains("a program koi cannot see into"), "{detail}");
    let Decision::Deny { reason } = reg.decide("mcp__untrusted__read_text_file", &read, Mode::Plan)
    else {
        panic!("expected deny");
    };
    assert!(reason.contains("plan mode is read-only"), "{reason}");
    // Parallel only when trusted read-only.
    assert!(reg
        .footprint("mcp__trusted__read_text_file", &read)
        .is_read_only());
    assert!(!reg
        .footprint("mcp__untrusted__read_text_file", &read)
        .is_read_only());
}
