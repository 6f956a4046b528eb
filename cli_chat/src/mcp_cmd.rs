//! `k mcp list | add | remove`: the `[mcp.servers.NAME]` tables of the
//! config file, and what each server says when started.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use ai_mcp::config_edit::{add_server, remove_server, NewServer};
use ai_mcp::{Health, Hub, HubEnv, McpConfig, ServerStatus};
use anyhow::{anyhow, bail, Context, Result};

use crate::args::McpAdd;

/// Longest `k mcp list` waits for servers to start: their own startup
/// timeouts apply inside it, this only bounds the whole listing.
const LIST_WAIT: Duration = Duration::from_secs(60);

/// The `[mcp]` config of `file` (none when there is no file).
pub fn load(file: Option<&Path>) -> Result<McpConfig> {
    match file {
        Some(f) => McpConfig::load_from(f).map_err(|e| anyhow!("{e}")),
        None => Ok(McpConfig::default()),
    }
}

/// A hub for `file`'s servers, working in `workspace`; `None` when no
/// server is configured.
pub fn hub_for(
    file: Option<&Path>,
    workspace: &Path,
    secret_env_vars: Vec<String>,
) -> Result<Option<Arc<Hub>>> {
    let cfg = load(file)?;
    if cfg.servers.is_empty() {
        return Ok(None);
    }
    Ok(Some(Hub::new(
        &cfg,
        HubEnv {
            workspace: workspace.to_path_buf(),
            secret_env_vars,
        },
    )))
}

fn health_text(h: &Health) -> String {
    match h {
        Health::Disabled => "disabled".into(),
        Health::Idle => "not started".into(),
        Health::Starting => "still starting".into(),
        Health::Ready {
            server_info,
            protocol,
        } => format!("ready ({server_info}, MCP {protocol})"),
        Health::Failed { error, .. } => format!("failed: {error}"),
        Health::GaveUp { error } => format!("gave up: {error}"),
    }
}

/// A duration as `0.42 s`.
pub fn seconds(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}

/// The listing, one block per server.
pub fn list_text(rows: &[ServerStatus]) -> String {
    if rows.is_empty() {
        return "no MCP servers configured; add one with `k mcp add NAME -- CMD ARGS…`\n".into();
    }
    let mut out = String::new();
    for r in rows {
        out.push_str(&format!(
            "{}: {}\n  {}\n  trust: {}\n",
            r.name,
            health_text(&r.health),
            r.target,
            r.trust
        ));
        if let Some(t) = r.start_time {
            out.push_str(&format!("  start time: {}\n", seconds(t)));
        }
        if !r.tools.is_empty() {
            out.push_str(&format!(
                "  tools ({}): {}\n",
                r.tools.len(),
                r.tools.join(", ")
            ));
        }
    }
    out
}

/// One JSON line per server.
pub fn list_json(rows: &[ServerStatus]) -> String {
    rows.iter()
        .map(|r| {
            let v = serde_json::json!({
                "type": "mcp_server",
                "name": r.name,
                "target": r.target,
                "state": health_text(&r.health),
                "ready": matches!(r.health, Health::Ready { .. }),
                "trust": r.trust.as_str(),
                "tools": r.tools,
                "start_time_ms": r.start_time.map(|t| t.as_millis() as u64),
            });
            format!("{v}\n")
        })
        .collect()
}

/// Starts every server and reports.
pub fn list(file: Option<&Path>, json: bool) -> Result<String> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let Some(hub) = hub_for(file, &cwd, Vec::new())? else {
        return Ok(if json { String::new() } else { list_text(&[]) });
    };
    hub.start_all();
    hub.wait_started(LIST_WAIT);
    let rows = hub.status();
    Ok(if json {
        list_json(&rows)
    } else {
        list_text(&rows)
    })
}

fn pairs(items: &[String], what: &str) -> Result<BTreeMap<String, String>> {
    items
        .iter()
        .map(|kv| {
            kv.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .ok_or_else(|| anyhow!("{what} {kv:?} is not NAME=VALUE"))
        })
        .collect()
}

fn write(file: &Path, text: &str) -> Result<()> {
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    std::fs::write(file, text).with_context(|| format!("cannot write {}", file.display()))
}

fn read(file: &Path) -> Result<String> {
    match std::fs::read_to_string(file) {
        Ok(t) => Ok(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(anyhow!("{}: {e}", file.display())),
    }
}

/// Adds a server to `file`.
pub fn add(file: Option<PathBuf>, a: &McpAdd) -> Result<String> {
    let Some(file) = file else {
        bail!("no config directory: pass --config FILE");
    };
    let server = match &a.url {
        Some(url) => NewServer::Http {
            url: url.clone(),
            headers: pairs(&a.headers, "--header")?,
            bearer_token_env_var: a.bearer_token_env_var.clone(),
        },
        None if a.command.is_empty() => bail!("give the server's command after `--`, or --url URL"),
        None => NewServer::Stdio {
            argv: a.command.clone(),
            env: pairs(&a.env, "--env")?,
        },
    };
    let text = read(&file)?;
    let out = add_server(&text, &a.name, &server, a.trust).map_err(|e| anyhow!("{e}"))?;
    write(&file, &out)?;
    Ok(format!(
        "added MCP server {} to {}\n",
        a.name,
        file.display()
    ))
}

/// Removes a server from `file`.
pub fn remove(file: Option<PathBuf>, name: &str) -> Result<String> {
    let Some(file) = file else {
        bail!("no config directory: pass --config FILE");
    };
    let text = read(&file)?;
    let out = remove_server(&text, name).map_err(|e| anyhow!("{e}"))?;
    write(&file, &out)?;
    Ok(format!(
        "removed MCP server {name} from {}\n",
        file.display()
    ))
}
