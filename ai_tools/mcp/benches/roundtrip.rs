//! MCP overhead per call: p50/p99 round trip of a tool call through the
//! registry to a local stdio server, beside a native `fs_read` of a small
//! file, interleaved in one run. `cargo bench -p ai_mcp --bench roundtrip`.

#![allow(clippy::expect_used)] // A benchmark that cannot set up has nothing to measure.
use std::path::Path;
use std::time::{Duration, Instant};

use ai_mcp::{Hub, HubEnv, McpConfig};
use ai_tools::{CancelToken, Registry, RegistryConfig, Workspace};
use serde_json::json;

/// Calls per row: enough for a stable p99 in a few seconds.
const ROUNDS: usize = 500;

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn main() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let ws = tempfile::tempdir().expect("temp dir");
    let text: String = (1..=40)
        .map(|i| format!("line {i} of the bench file\n"))
        .collect();
    std::fs::write(ws.path().join("f.txt"), text).expect("write");
    let bad = repo.join("tests/mcp_servers/bad_server.py");
    let everything = repo.join(
        "tests/mcp_servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    );
    let toml = format!(
        "[mcp.servers.py]\ncommand = \"python3\"\nargs = [{:?}, \"paged\"]\n[mcp.servers.node]\ncommand = \"node\"\nargs = [{:?}, \"stdio\"]\n",
        bad.display().to_string(),
        everything.display().to_string()
    );
    let hub = Hub::new(
        &McpConfig::from_toml_str(&toml).expect("config"),
        HubEnv {
            workspace: ws.path().to_path_buf(),
            secret_env_vars: Vec::new(),
        },
    );
    hub.start_all();
    hub.wait_started(Duration::from_secs(30));
    let reg = Registry::standard(RegistryConfig::new(Workspace::new(ws.path()).expect("ws")))
        .with_source(hub);
    let cancel = CancelToken::new();
    let calls: [(&str, &str, serde_json::Value); 3] = [
        ("fs_read (native)", "fs_read", json!({"path": "f.txt"})),
        ("MCP stdio, python server", "mcp__py__ok", json!({})),
        (
            "MCP stdio, server-everything echo",
            "mcp__node__echo",
            json!({"message": "x"}),
        ),
    ];
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); calls.len()];
    for round in 0..ROUNDS + 20 {
        for (i, (_, name, args)) in calls.iter().enumerate() {
            let t = Instant::now();
            reg.run(name, args, &cancel).expect("call");
            // The first calls warm caches and JITs.
            if round >= 20 {
                times[i].push(t.elapsed());
            }
        }
    }
    println!("{ROUNDS} calls each, interleaved, through Registry::run");
    println!("| call | p50 | p99 |");
    println!("|---|---|---|");
    for (i, (label, _, _)) in calls.iter().enumerate() {
        times[i].sort();
        println!(
            "| {label} | {:.1} µs | {:.1} µs |",
            percentile(&times[i], 0.5).as_secs_f64() * 1e6,
            percentile(&times[i], 0.99).as_secs_f64() * 1e6
        );
    }
}
