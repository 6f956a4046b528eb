//! The MCP project's reference servers the tests drive, installed by
//! `scripts/deps` (`koi_install_mcp_servers`) into `tests/mcp_servers`.

use std::path::PathBuf;

/// `tests/mcp_servers`, where the servers and koi's own test servers live.
pub fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../mcp_servers")
}

/// The entry point of the installed reference server `package`
/// (`server-everything`, `server-filesystem`, …); a test that needs one
/// fails, not skips, when it is missing.
pub fn reference(package: &str) -> PathBuf {
    let p = dir()
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
