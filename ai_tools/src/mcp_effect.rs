//! What a call to an MCP server's tool is, for the policy. The server is a
//! program (or endpoint) a third party wrote: koi cannot see what a call
//! does, so the policy judges the call by who the user said to trust.

use serde::{Deserialize, Serialize};

use crate::policy::unicode;

/// How far the user trusts one MCP server (`trust` in its config).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum McpTrust {
    /// Every call is a side effect: it asks, or is denied where nobody
    /// can be asked.
    #[default]
    None,
    /// The server's own `readOnlyHint` (with no `destructiveHint`) is
    /// taken as the proof that a tool only reads.
    Annotations,
}

impl McpTrust {
    /// The config spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            McpTrust::None => "none",
            McpTrust::Annotations => "annotations",
        }
    }
}

impl std::fmt::Display for McpTrust {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The hints a server attaches to a tool (MCP `ToolAnnotations`). Hints,
/// not guarantees: only [`McpTrust::Annotations`] lets them count.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpHints {
    /// The tool does not change its environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may destroy or overwrite things.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Repeating a call has no further effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool reaches out to an open world (the web).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

/// One call to a tool of an MCP server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpCall {
    /// The server's name in the config.
    pub server: String,
    /// The tool's name on that server (as the server spells it).
    pub tool: String,
    /// The arguments, as compact JSON.
    pub arguments: String,
    /// What the user trusts of this server.
    pub trust: McpTrust,
    /// What the server says of the tool.
    pub hints: McpHints,
}

/// Longest argument text on the one-line approval summary; the detail
/// carries all of it.
const SUMMARY_ARGS_CHARS: usize = 200;

impl McpCall {
    /// Whether the policy may treat this call as read-only: the user
    /// trusts the server's annotations and the server says so.
    pub fn trusted_read_only(&self) -> bool {
        self.trust == McpTrust::Annotations
            && self.hints.read_only_hint == Some(true)
            && self.hints.destructive_hint != Some(true)
    }

    /// One line: server, tool and (the start of) the arguments, with
    /// control and look-alike characters made visible.
    pub fn summary(&self) -> String {
        let mut args: String = self.arguments.chars().take(SUMMARY_ARGS_CHARS).collect();
        if self.arguments.chars().count() > SUMMARY_ARGS_CHARS {
            args.push('…');
        }
        // koi's own separator is shown as it is; what the server named is
        // made visible.
        format!(
            "MCP {} › {} {}",
            unicode::visible(&self.server),
            unicode::visible(&self.tool),
            unicode::visible(&args)
        )
    }

    /// Why this call needs the user: every line an approval shows.
    pub fn why(&self) -> String {
        let hint = match self.hints.read_only_hint {
            Some(true) if self.trust == McpTrust::None => {
                " (it says it only reads, but the server is not trusted with annotations)"
            }
            _ => "",
        };
        unicode::visible(&format!(
            "calls a tool of MCP server {:?}, a program koi cannot see into{hint}",
            self.server
        ))
    }
}
