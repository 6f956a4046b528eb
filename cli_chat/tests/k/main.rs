//! End-to-end tests of the real `k` binary against the loopback fake
//! provider, in an isolated HOME.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests: a failed unwrap is a failed test.

mod acp;
mod approval;
mod bench;
mod common;
mod crash;
mod escapes;
mod fix;
mod goal;
mod images;
mod json_schema;
mod markdown;
mod mcp;
mod mcp_first;
mod memory;
mod oneshot;
mod pictures;
mod policy;
mod repl;
mod secrets;
mod sessions;
mod suggest;
mod writers;
