//! End-to-end engine tests: real HTTP + SSE on loopback against the
//! scripted fake provider, with ai_tools' real tools in temp directories.
//! One test binary (several modules) to keep link time down.

mod cache;
mod cancel_approval;
mod common;
mod dialects;
mod failures;
mod sessions;
mod turns;
