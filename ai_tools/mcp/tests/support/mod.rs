//! What the MCP tests share: where the reference servers are installed,
//! hubs over them, and a way to find a server's process.

#![allow(dead_code, unused_imports, clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use ai_mcp::{Hub, HubEnv, McpConfig};

/// Where the reference servers are installed, and the entry point of one:
/// the testkit's, shared with every other crate's MCP tests.
pub use koi_testkit::mcp_servers::{dir as servers_dir, reference};

pub fn bad_server() -> PathBuf {
    servers_dir().join("bad_server.py")
}

/// A hub over one koi.toml text, working in `ws`.
pub fn hub(toml: &str, ws: &Path) -> Arc<Hub> {
    let cfg = McpConfig::from_toml_str(toml).unwrap();
    Hub::new(
        &cfg,
        HubEnv {
            workspace: ws.to_path_buf(),
            secret_env_vars: vec!["KOI_TEST_SECRET".into()],
        },
    )
}

/// A `[mcp.servers.NAME]` table for a stdio server.
pub fn stdio_server(name: &str, command: &str, args: &[&str], extra: &str) -> String {
    let args: Vec<String> = args.iter().map(|a| format!("{a:?}")).collect();
    format!(
        "[mcp.servers.{name}]\ncommand = {command:?}\nargs = [{}]\n{extra}\n",
        args.join(", ")
    )
}

/// The pids of this process's children whose environment contains
/// `needle` (a `KEY=VALUE` the test set in the server's `env`).
pub fn children_matching(needle: &str) -> Vec<i32> {
    let me = std::process::id().to_string();
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // The ppid is the second field after the parenthesised name.
        let Some(after) = stat.rsplit_once(')').map(|(_, r)| r.to_string()) else {
            continue;
        };
        let ppid = after.split_whitespace().nth(1).unwrap_or("");
        let environ = std::fs::read(entry.path().join("environ")).unwrap_or_default();
        if ppid == me && environ.split(|b| *b == 0).any(|v| v == needle.as_bytes()) {
            out.push(pid);
        }
    }
    out
}

/// A free loopback port (bound, then released).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Whether `cond` holds within `limit`: the testkit's poll.
pub use koi_testkit::poll::within as wait_for;
