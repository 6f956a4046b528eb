//! End-to-end engine tests: real HTTP + SSE on loopback against the
//! scripted fake provider, with ai_tools' real tools in temp directories.
//! One test binary (several modules) to keep link time down.

// Test helpers outside #[test] fns: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod agents_md;
mod breakpoints;
mod cache;
mod cancel_approval;
mod codemode;
mod common;
mod compaction;
mod dialects;
mod errors;
mod explore;
mod failures;
mod goal;
mod images;
mod mcp;
mod memory;
mod panics;
mod recorded;
mod recovery;
mod robustness;
mod server_tools;
mod sessions;
mod thinking;
mod turns;
mod usage;
