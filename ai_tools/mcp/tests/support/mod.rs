//! What the MCP tests share: where the reference servers are installed,
//! hubs over them, and a way to find a server's process.

#![allow(dead_code, clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use ai_mcp::{Hub, HubEnv, McpConfig};

/// `tests/mcp_servers` at the repository root.
pub fn servers_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/mcp_servers")
}

/// The entry point of an installed reference server; the tests fail (not
/// skip) when it is missing.
pub fn reference(package: &str) -> PathBuf {
    let p = servers_dir()
        .join("node_modules/@modelcontextprotocol")
        .join(package)
        .join("dist/index.js");
    assert!(
        p.is_file(),
        "{} is missing: run `source scripts/deps && koi_install_mcp_servers` (npm) first",
        p.display()
    );
    p
}

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

/// Waits for `cond`, up to `limit`.
pub fn wait_for(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let deadline = std::time::Instant::now() + limit;
    while std::time::Instant::now() < deadline {
        if cond() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    cond()
}
