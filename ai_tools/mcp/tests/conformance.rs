//! The MCP project's conformance suite (`@modelcontextprotocol/conformance`,
//! pinned in tests/mcp_servers/package.json) against koi's client: every
//! client scenario that applies to a client with tools, each run
//! `KOI_CONFORMANCE_RUNS` times in a row (default 10).
//!
//! This is one executable with two roles (`harness = false`): run by
//! cargo it is the runner, which starts the suite once per scenario and
//! run with itself as the client command; run by the suite (which sets
//! `MCP_CONFORMANCE_SCENARIO` and appends the server's URL) it is the
//! client: koi's hub connects over Streamable HTTP, lists the tools and
//! calls the scenario's tool, as the engine would.
//!
//! Not applicable, so not run: the `auth/*` scenarios (koi takes a bearer
//! token from the environment and does no OAuth) and
//! `elicitation-sep1034-client-defaults` (koi declares no elicitation
//! capability, so a server must not ask it).

#![allow(clippy::unwrap_used, clippy::print_stdout, clippy::print_stderr)]

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use ai_mcp::{Health, Hub, HubEnv, McpConfig};
use ai_tools::CancelToken;
use serde_json::{json, Value};

/// The scenarios that apply to koi's client.
const SCENARIOS: [&str; 3] = ["initialize", "tools_call", "sse-retry"];

/// Runs of each scenario by default: the "ten times in a row".
const DEFAULT_RUNS: usize = 10;

fn main() {
    if let Ok(scenario) = std::env::var("MCP_CONFORMANCE_SCENARIO") {
        std::process::exit(client(&scenario));
    }
    // `cargo test` passes libtest's flags; a filter that names none of
    // this file's one "test" skips it.
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--list") {
        println!("conformance: test");
        return;
    }
    if let Some(filter) = args.iter().find(|a| !a.starts_with('-')) {
        if !"conformance".contains(filter.as_str()) {
            return;
        }
    }
    runner();
}

fn suite() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(
        "../../tests/mcp_servers/node_modules/@modelcontextprotocol/conformance/dist/index.js",
    )
}

fn have(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn runner() {
    if !have("node") || !have("npm") {
        println!(
            "conformance: SKIPPED: node and npm are not installed (CI installs them; \
             `source scripts/deps && koi_install_mcp_servers` sets up the suite)"
        );
        return;
    }
    let suite = suite();
    assert!(
        suite.is_file(),
        "{} is missing: run `source scripts/deps && koi_install_mcp_servers`",
        suite.display()
    );
    let runs: usize = std::env::var("KOI_CONFORMANCE_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(DEFAULT_RUNS);
    let me = std::env::current_exe().unwrap();
    let mut failed = Vec::new();
    for scenario in SCENARIOS {
        let mut passed = 0;
        let started = Instant::now();
        for run in 1..=runs {
            let out = Command::new("node")
                .arg(&suite)
                .args(["client", "--scenario", scenario, "--timeout", "20000"])
                .arg("--command")
                .arg(me.display().to_string())
                .output()
                .unwrap();
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            if out.status.success() && clean_pass(&text) {
                passed += 1;
            } else {
                failed.push(format!("{scenario} run {run}:\n{text}"));
            }
        }
        println!(
            "conformance: {scenario}: {passed}/{runs} runs passed every check in {:.1} s",
            started.elapsed().as_secs_f64()
        );
    }
    assert!(failed.is_empty(), "{}", failed.join("\n---\n"));
}

/// Whether the suite's report shows every check passed with no warning
/// (the suite itself counts a warning against the run): its summary line
/// reads `Passed: N/N, 0 failed, 0 warnings`, and no `OVERALL: FAILED`.
fn clean_pass(text: &str) -> bool {
    let Some(summary) = text.lines().rev().find(|l| l.starts_with("Passed:")) else {
        return false;
    };
    let numbers: Vec<u64> = summary
        .split(|c: char| !c.is_ascii_digit())
        .filter(|w| !w.is_empty())
        .filter_map(|w| w.parse().ok())
        .collect();
    let [passed, of, failed, warnings] = numbers[..] else {
        return false;
    };
    passed == of && of > 0 && failed == 0 && warnings == 0 && !text.contains("OVERALL: FAILED")
}

/// What koi calls in each scenario: the tool the scenario's server offers.
fn call_for(scenario: &str) -> Option<(&'static str, Value)> {
    match scenario {
        "tools_call" => Some(("add_numbers", json!({"a": 2, "b": 40}))),
        "sse-retry" => Some(("test_reconnection", json!({}))),
        _ => None,
    }
}

/// The client: one hub with the suite's server, as `k` builds it.
fn client(scenario: &str) -> i32 {
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("no server URL");
        return 2;
    };
    let cfg = McpConfig::from_toml_str(&format!(
        "[mcp.servers.suite]\nurl = {url:?}\nstartup_timeout_s = 15\ntool_timeout_s = 15\n"
    ))
    .unwrap();
    let ws = std::env::temp_dir();
    let hub = Hub::new(
        &cfg,
        HubEnv {
            workspace: ws,
            secret_env_vars: Vec::new(),
        },
    );
    let waited = hub.wait_ready(Duration::from_secs(15), &|| false);
    let server = hub.server("suite").unwrap();
    if !waited.is_empty() || !matches!(server.health(), Health::Ready { .. }) {
        eprintln!("not ready: {:?}", server.health());
        return 1;
    }
    let names: Vec<String> = hub.ready().into_iter().map(|e| e.tool.name).collect();
    eprintln!("tools: {names:?}");
    let code = match call_for(scenario) {
        Some((tool, args)) if names.iter().any(|n| n == tool) => {
            match server.call(tool, args, &CancelToken::new(), None) {
                Ok(v) => {
                    eprintln!("{tool}: {v}");
                    0
                }
                Err(e) => {
                    eprintln!("{tool}: {e}");
                    1
                }
            }
        }
        Some((tool, _)) => {
            eprintln!("the server does not offer {tool}");
            1
        }
        None => 0,
    };
    hub.shutdown();
    code
}
