//! What a tool call would do to the world: the one description the
//! approval policy judges, the sandbox sizes a run by, and the log records.

use std::path::PathBuf;

use crate::mcp_effect::McpCall;

/// What a call would do to the world, in the terms the approval policy
/// judges. Paths are resolved against the workspace but not canonicalised;
/// the policy follows symlinks itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Reads these files or directories.
    Read(Vec<PathBuf>),
    /// Creates, changes or deletes these files.
    Write(Vec<PathBuf>),
    /// Runs a shell command (foreground or background).
    Shell {
        /// The exact command line.
        command: String,
        /// The directory it runs in.
        cwd: PathBuf,
    },
    /// An HTTP GET/HEAD.
    NetworkRead {
        /// Target URL.
        url: String,
    },
    /// Any other HTTP method.
    NetworkWrite {
        /// The method, upper case.
        method: String,
        /// Target URL.
        url: String,
    },
    /// Asks the search service the user configured (a read: the service
    /// and its key are the user's choice, the query is all that varies).
    WebSearch {
        /// The service's name (`brave`, `tavily`, `searxng`).
        provider: String,
        /// What is searched for.
        query: String,
    },
    /// Polls or stops a background process this registry started.
    OwnProcess,
    /// Calls a tool of an MCP server.
    Mcp(McpCall),
}
