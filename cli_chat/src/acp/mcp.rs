//! The MCP servers a client passes with `session/new` or `session/load`,
//! as koi's server settings: they join the session's MCP hub beside the
//! ones in koi.toml, under the same trust rules (the default trust, the
//! same tool timeouts).

use std::collections::BTreeMap;
use std::time::Duration;

use ai_mcp::config::{DEFAULT_STARTUP_TIMEOUT_S, DEFAULT_TOOL_TIMEOUT_S};
use ai_mcp::{ServerConfig, Transport};
use ai_tools::McpTrust;

use super::rpc::RpcError;
use super::wire::{McpServer, NameValue};

/// `server` as a name and koi's settings for it.
pub fn server_config(server: &McpServer) -> Result<(String, ServerConfig), RpcError> {
    let map = |pairs: &[NameValue]| -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|p| (p.name.clone(), p.value.clone()))
            .collect()
    };
    let (name, transport) = match server {
        McpServer::Stdio {
            name,
            command,
            args,
            env,
        } => (
            name,
            Transport::Stdio {
                command: command.clone(),
                args: args.clone(),
                env: map(env),
                cwd: None,
            },
        ),
        McpServer::Remote {
            kind,
            name,
            url,
            headers,
        } if kind == "http" => (
            name,
            Transport::Http {
                url: url.clone(),
                headers: map(headers),
                bearer_token_env_var: None,
            },
        ),
        McpServer::Remote { kind, name, .. } => {
            return Err(RpcError::invalid_params(format!(
                "MCP server {name:?}: transport {kind:?} is not supported (stdio and http are)"
            )))
        }
    };
    Ok((
        name.clone(),
        ServerConfig {
            transport,
            enabled: true,
            startup_timeout: Duration::from_secs(DEFAULT_STARTUP_TIMEOUT_S),
            tool_timeout: Duration::from_secs(DEFAULT_TOOL_TIMEOUT_S),
            trust: McpTrust::default(),
        },
    ))
}
