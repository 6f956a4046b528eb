//! `[mcp.servers.NAME]` in koi.toml: how to reach each server and how far
//! to trust it.
//!
//! ```toml
//! [mcp.servers.files]
//! command = "mcp-server-filesystem"
//! args = ["/home/me/notes"]
//! env = { LOG_LEVEL = "warn" }
//! trust = "annotations"
//!
//! [mcp.servers.remote]
//! url = "https://example.test/mcp"
//! headers = { "X-Team" = "koi" }
//! bearer_token_env_var = "REMOTE_MCP_TOKEN"
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use ai_tools::McpTrust;
use serde::Deserialize;

use crate::error::McpError;
use crate::naming::valid_server_name;

/// How long a server may take from spawn (or first POST) to the end of
/// `tools/list` by default: `npx` fetching a package on first use takes
/// several seconds, and a start runs in the background anyway.
pub const DEFAULT_STARTUP_TIMEOUT_S: u64 = 30;

/// How long one tool call may run by default: long enough for a build or a
/// slow API, short enough that a hung server is noticed within a turn.
pub const DEFAULT_TOOL_TIMEOUT_S: u64 = 120;

/// How long the first request of a conversation waits for servers that
/// are still starting, by default: a local stdio server is ready in well
/// under a second, and a few seconds is a pause a user accepts once per
/// conversation, not per turn.
pub const DEFAULT_STARTUP_WAIT_S: u64 = 5;

/// The most `startup_wait_s` may be set to: past a minute the user would
/// rather the question went out and the tools came later.
const MAX_STARTUP_WAIT_S: u64 = 60;

/// The most either timeout may be set to (an hour): past that a hang is
/// indistinguishable from work.
const MAX_TIMEOUT_S: u64 = 3600;

/// How koi reaches a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// A program koi starts, speaking JSON-RPC lines on stdin/stdout.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables set on top of the scrubbed environment.
        env: BTreeMap<String, String>,
        /// Where it runs (default: the workspace).
        cwd: Option<PathBuf>,
    },
    /// A Streamable HTTP endpoint.
    Http {
        /// The endpoint URL.
        url: String,
        /// Extra request headers.
        headers: BTreeMap<String, String>,
        /// An environment variable holding a bearer token.
        bearer_token_env_var: Option<String>,
    },
}

/// One configured server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerConfig {
    /// How to reach it.
    pub transport: Transport,
    /// Whether koi uses it at all.
    pub enabled: bool,
    /// Limit for starting (spawn or connect, initialize, tools/list).
    pub startup_timeout: Duration,
    /// Limit for one tool call.
    pub tool_timeout: Duration,
    /// What of the server's own claims the policy believes.
    pub trust: McpTrust,
}

/// Every configured server, by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpConfig {
    /// Servers by their (validated) names.
    pub servers: BTreeMap<String, ServerConfig>,
    /// `[mcp] startup_wait_s`: how long a conversation's first request
    /// waits for servers still starting (0: not at all). A server not
    /// ready by then is announced later.
    pub startup_wait: Duration,
}

impl Default for McpConfig {
    fn default() -> Self {
        McpConfig {
            servers: BTreeMap::new(),
            startup_wait: Duration::from_secs(DEFAULT_STARTUP_WAIT_S),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawServer {
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    cwd: Option<PathBuf>,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    bearer_token_env_var: Option<String>,
    #[serde(default = "yes")]
    enabled: bool,
    startup_timeout_s: Option<u64>,
    tool_timeout_s: Option<u64>,
    #[serde(default)]
    trust: McpTrust,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMcp {
    #[serde(default)]
    servers: BTreeMap<String, RawServer>,
    startup_wait_s: Option<f64>,
}

fn timeout(name: &str, key: &str, value: Option<u64>, default: u64) -> Result<Duration, McpError> {
    let secs = value.unwrap_or(default);
    if secs == 0 || secs > MAX_TIMEOUT_S {
        return Err(McpError::Config(format!(
            "[mcp.servers.{name}] {key} = {secs}: use 1 to {MAX_TIMEOUT_S} seconds"
        )));
    }
    Ok(Duration::from_secs(secs))
}

impl ServerConfig {
    fn from_raw(name: &str, raw: RawServer) -> Result<ServerConfig, McpError> {
        let bad = |why: &str| McpError::Config(format!("[mcp.servers.{name}]: {why}"));
        let transport = match (raw.command, raw.url) {
            (Some(command), None) => {
                if !raw.headers.is_empty() || raw.bearer_token_env_var.is_some() {
                    return Err(bad(
                        "headers and bearer_token_env_var go with url, not command",
                    ));
                }
                if command.trim().is_empty() {
                    return Err(bad("command is empty"));
                }
                Transport::Stdio {
                    command,
                    args: raw.args,
                    env: raw.env,
                    cwd: raw.cwd,
                }
            }
            (None, Some(url)) => {
                if !raw.args.is_empty() || !raw.env.is_empty() || raw.cwd.is_some() {
                    return Err(bad("args, env and cwd go with command, not url"));
                }
                if !(url.starts_with("http://") || url.starts_with("https://")) {
                    return Err(bad("url must start with http:// or https://"));
                }
                Transport::Http {
                    url,
                    headers: raw.headers,
                    bearer_token_env_var: raw.bearer_token_env_var,
                }
            }
            (Some(_), Some(_)) => return Err(bad("set command or url, not both")),
            (None, None) => return Err(bad("set command (a program to start) or url")),
        };
        Ok(ServerConfig {
            transport,
            enabled: raw.enabled,
            startup_timeout: timeout(
                name,
                "startup_timeout_s",
                raw.startup_timeout_s,
                DEFAULT_STARTUP_TIMEOUT_S,
            )?,
            tool_timeout: timeout(
                name,
                "tool_timeout_s",
                raw.tool_timeout_s,
                DEFAULT_TOOL_TIMEOUT_S,
            )?,
            trust: raw.trust,
        })
    }

    /// One line for `k mcp list`: the command line or the URL.
    pub fn target(&self) -> String {
        match &self.transport {
            Transport::Stdio { command, args, .. } => {
                let mut line = command.clone();
                for a in args {
                    line.push(' ');
                    line.push_str(a);
                }
                line
            }
            Transport::Http { url, .. } => url.clone(),
        }
    }
}

impl McpConfig {
    /// The `[mcp]` table of a whole koi.toml (other tables are ignored).
    pub fn from_toml_str(text: &str) -> Result<McpConfig, McpError> {
        let table: toml::Table = text
            .parse()
            .map_err(|e: toml::de::Error| McpError::Config(e.to_string()))?;
        Self::from_table(table.get("mcp"))
    }

    /// The `[mcp]` table itself, as a parsed koi.toml holds it (`None`:
    /// no such table, the empty config).
    pub fn from_table(mcp: Option<&toml::Value>) -> Result<McpConfig, McpError> {
        let Some(mcp) = mcp else {
            return Ok(McpConfig::default());
        };
        let raw: RawMcp = mcp
            .clone()
            .try_into()
            .map_err(|e: toml::de::Error| McpError::Config(format!("[mcp]: {e}")))?;
        let mut servers = BTreeMap::new();
        for (name, server) in raw.servers {
            if !valid_server_name(&name) {
                return Err(McpError::Config(format!(
                    "[mcp.servers.{name}]: a server name is 1 to 32 letters, digits, '-' or single '_'"
                )));
            }
            let cfg = ServerConfig::from_raw(&name, server)?;
            servers.insert(name, cfg);
        }
        let startup_wait = match raw.startup_wait_s {
            None => Duration::from_secs(DEFAULT_STARTUP_WAIT_S),
            Some(s) if s.is_finite() && (0.0..=MAX_STARTUP_WAIT_S as f64).contains(&s) => {
                Duration::from_secs_f64(s)
            }
            Some(s) => {
                return Err(McpError::Config(format!(
                    "[mcp] startup_wait_s = {s}: use 0 to {MAX_STARTUP_WAIT_S} seconds"
                )))
            }
        };
        Ok(McpConfig {
            servers,
            startup_wait,
        })
    }

    /// Reads `path`; a missing file is an empty config.
    pub fn load_from(path: &Path) -> Result<McpConfig, McpError> {
        match std::fs::read_to_string(path) {
            Ok(text) => Self::from_toml_str(&text)
                .map_err(|e| McpError::Config(format!("{}: {e}", path.display()))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(McpConfig::default()),
            Err(e) => Err(McpError::Config(format!("{}: {e}", path.display()))),
        }
    }

    /// Whether any server is enabled.
    pub fn any_enabled(&self) -> bool {
        self.servers.values().any(|s| s.enabled)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_both_transports() {
        let cfg = McpConfig::from_toml_str(
            r#"
[ai]
model = "x"
[mcp.servers.files]
command = "mcp-server-filesystem"
args = ["/tmp"]
env = { A = "1" }
trust = "annotations"
tool_timeout_s = 5
[mcp.servers.remote]
url = "http://127.0.0.1:9/mcp"
headers = { "X-A" = "b" }
bearer_token_env_var = "TOKEN"
enabled = false
"#,
        )
        .unwrap();
        let files = &cfg.servers["files"];
        assert_eq!(files.trust, McpTrust::Annotations);
        assert_eq!(files.tool_timeout, Duration::from_secs(5));
        assert_eq!(files.target(), "mcp-server-filesystem /tmp");
        let remote = &cfg.servers["remote"];
        assert!(!remote.enabled);
        assert_eq!(remote.trust, McpTrust::None);
        assert!(
            matches!(&remote.transport, Transport::Http { bearer_token_env_var: Some(v), .. } if v == "TOKEN")
        );
        assert!(cfg.any_enabled());
        assert_eq!(
            cfg.startup_wait,
            Duration::from_secs(DEFAULT_STARTUP_WAIT_S)
        );
        let cfg = McpConfig::from_toml_str("[mcp]\nstartup_wait_s = 0.5\n").unwrap();
        assert_eq!(cfg.startup_wait, Duration::from_millis(500));
    }

    #[test]
    fn refuses_what_cannot_work() {
        for (text, want) in [
            ("[mcp.servers.a]\n", "set command"),
            (
                "[mcp.servers.a]\ncommand = \"x\"\nurl = \"http://h\"\n",
                "not both",
            ),
            ("[mcp.servers.a]\nurl = \"ftp://h\"\n", "http://"),
            (
                "[mcp.servers.a]\ncommand = \"x\"\nheaders = { A = \"b\" }\n",
                "go with url",
            ),
            (
                "[mcp.servers.a]\ncommand = \"x\"\ntool_timeout_s = 0\n",
                "1 to 3600",
            ),
            (
                "[mcp.servers.a]\ncommand = \"x\"\ntrust = \"all\"\n",
                "unknown variant",
            ),
            (
                "[mcp.servers.a]\ncommand = \"x\"\nwat = 1\n",
                "unknown field",
            ),
            ("[mcp.servers.\"a__b\"]\ncommand = \"x\"\n", "server name"),
            ("[mcp]\nstartup_wait_s = 61\n", "0 to 60"),
            ("[mcp]\nstartup_wait_s = -1\n", "0 to 60"),
        ] {
            let err = McpConfig::from_toml_str(text).unwrap_err().to_string();
            assert!(err.contains(want), "{text}: {err}");
        }
    }
}
