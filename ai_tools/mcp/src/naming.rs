//! The names the model calls MCP tools by: `mcp__SERVER__TOOL`, made of
//! the characters every provider accepts and no longer than they allow.
//! The same (server, tool) always gets the same name, whatever else is
//! connected or in which order servers became ready.

use sha2::{Digest, Sha256};

/// Providers' limit on a tool name (OpenAI and Anthropic both cap at 64).
pub const MAX_TOOL_NAME: usize = 64;

/// What every exposed name starts with.
pub const PREFIX: &str = "mcp__";

/// Hex digits of the hash that marks a rewritten name: 2^32 names before a
/// collision is even likely, in eight characters.
const HASH_HEX: usize = 8;

fn allowed(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// Whether a server name can be used as is: the characters providers
/// accept, and no `__`, so `mcp__SERVER__TOOL` splits one way only.
pub fn valid_server_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 32
        && name.chars().all(allowed)
        && !name.contains("__")
        && !name.starts_with('_')
        && !name.ends_with('_')
}

/// The exposed name of `tool` on `server`. A name that had to be changed
/// (characters replaced, or cut to the length cap) carries a hash of the
/// original, so two tools that differ only in what was changed still get
/// different names.
pub fn exposed_name(server: &str, tool: &str) -> String {
    let clean: String = tool
        .chars()
        .map(|c| if allowed(c) { c } else { '_' })
        .collect();
    let plain = format!("{PREFIX}{server}__{clean}");
    if clean == tool && !tool.is_empty() && plain.len() <= MAX_TOOL_NAME {
        return plain;
    }
    let mut hasher = Sha256::new();
    hasher.update(server.as_bytes());
    hasher.update([0]);
    hasher.update(tool.as_bytes());
    let digest = hasher.finalize();
    let hash: String = digest
        .iter()
        .take(HASH_HEX / 2)
        .map(|b| format!("{b:02x}"))
        .collect();
    let room = MAX_TOOL_NAME - HASH_HEX - 1;
    let mut head = plain;
    head.truncate(room); // ASCII only, so any cut is a char boundary
    format!("{head}_{hash}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names_stay_readable() {
        assert_eq!(exposed_name("fs", "read_file"), "mcp__fs__read_file");
        assert_eq!(
            exposed_name("everything", "get-sum"),
            "mcp__everything__get-sum"
        );
    }

    #[test]
    fn rewritten_names_are_valid_capped_and_distinct() {
        let a = exposed_name("s", "a.b");
        let b = exposed_name("s", "a b");
        assert_ne!(a, b);
        assert!(a.starts_with("mcp__s__a_b_"));
        let long = exposed_name("server", &"x".repeat(200));
        assert_eq!(long.len(), MAX_TOOL_NAME);
        for n in [&a, &b, &long] {
            assert!(n.chars().all(allowed), "{n}");
        }
        // Deterministic.
        assert_eq!(exposed_name("s", "a.b"), a);
        assert_ne!(exposed_name("s", ""), exposed_name("s", "_"));
    }

    #[test]
    fn server_names() {
        assert!(valid_server_name("my-server_1"));
        for bad in ["", "a__b", "_a", "a_", "a b", "ü"] {
            assert!(!valid_server_name(bad), "{bad}");
        }
    }
}
