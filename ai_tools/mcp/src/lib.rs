//! koi's MCP client. Servers from `[mcp.servers.NAME]` (see [`config`])
//! are reached over stdio or Streamable HTTP, started in the background
//! and in parallel, and restarted on the next use after a crash or hang.
//! Their tools join the registry as `mcp__SERVER__TOOL` (plus the fixed
//! `mcp_call`) through [`Hub`], a [`ai_tools::ToolSource`], so every call
//! passes the same policy and approval gate as a built-in tool.

#![forbid(unsafe_code)]

pub mod config;
pub mod config_edit;
pub mod error;
mod http;
pub mod hub;
pub mod naming;
mod peer;
pub mod result;
pub mod server;
mod stdio;
pub mod tool;

use std::path::PathBuf;

pub use config::{McpConfig, ServerConfig, Transport};
pub use error::McpError;
pub use hub::{Entry, Hub, ServerStatus};
pub use peer::Progress;
pub use server::Health;
pub use tool::META_TOOL;

/// What every server of a hub is started with.
#[derive(Debug, Clone)]
pub struct HubEnv {
    /// The workspace: a stdio server's default directory, and what the
    /// scrubbed `PATH` must not point into.
    pub workspace: PathBuf,
    /// API-key variables scrubbed from a server's environment on top of
    /// the built-in patterns (as for `shell_exec`).
    pub secret_env_vars: Vec<String>,
}
