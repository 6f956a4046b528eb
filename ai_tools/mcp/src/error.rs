//! What can go wrong talking to an MCP server. `Display` is written for the
//! model (a tool error) and for `k mcp list`.

/// One failure of a server or a call.
#[derive(Debug, Clone, thiserror::Error)]
pub enum McpError {
    /// The config cannot be used.
    #[error("{0}")]
    Config(String),
    /// The server could not be started or reached.
    #[error("could not start: {0}")]
    Start(String),
    /// The server did not finish starting in time.
    #[error("did not answer initialize within {secs} s")]
    StartTimeout {
        /// The configured `startup_timeout_s`.
        secs: u64,
    },
    /// The server stopped or the connection broke.
    #[error("the server stopped: {0}")]
    Gone(String),
    /// A request was not answered in time (the server was told to cancel).
    #[error("no answer within {secs} s; the request was cancelled")]
    Timeout {
        /// The limit that passed.
        secs: u64,
    },
    /// The user cancelled (the server was told to cancel).
    #[error("cancelled by the user")]
    Cancelled,
    /// The server answered with a JSON-RPC error.
    #[error("the server answered error {code}: {message}")]
    Rpc {
        /// JSON-RPC error code.
        code: i64,
        /// Its message.
        message: String,
    },
    /// The server sent something the protocol does not allow.
    #[error("protocol error: {0}")]
    Protocol(String),
}
