//! Test fixtures shared across koi crates: a strict, scripted fake model
//! provider on loopback.
//!
//! [`FakeProvider`] is a real HTTP/1.1 server on `127.0.0.1` (std
//! `TcpListener` + one thread per connection). Each test scripts the replies
//! it wants — SSE streams in any provider's dialect, error statuses with
//! headers, streams cut mid-way, slow or hanging streams — and afterwards
//! reads back every request the client sent, byte for byte.
//!
//! Every request is checked as it arrives against its dialect's invariants
//! ([`ViolationKind`]): the endpoint and method, the headers, a body that
//! fits the provider's own published definition of a request
//! ([`provider_schema`]) and parses, tool results that answer earlier calls
//! and calls answered before anything else is said, Anthropic's role order,
//! no key or configured token outside the auth header, a history that only
//! grows, byte for byte (a rewrite shows a compaction the engine recorded),
//! and a system prompt and `tools` byte-identical to the previous request
//! of the same conversation. Dropping the server fails the test if anything
//! was violated, a scripted reply went unused (a handler script declares
//! how many requests it answers, [`Expect`]), or a side request (a title, a
//! summary) arrived without a reply scripted for it.
//!
//! Replies are chosen by what a request asks ([`RequestKind`]): unmarked
//! replies answer turns in order; [`Reply::for_title`] and
//! [`Reply::for_summary`] and [`Reply::for_memory`] answer those requests wherever they fall, and
//! [`Builder::always`] answers every one of a kind.
//!
//! ```no_run
//! use koi_testkit::{FakeProvider, openai_chat::ChatStream};
//! let server = FakeProvider::start([
//!     ChatStream::new().text("Hello there").stop().reply(),
//!     ChatStream::new().text("Greeting").stop().reply().for_title(),
//! ]);
//! // point the client at server.base_url() ("http://127.0.0.1:PORT/v1") …
//! let first = &server.requests()[0];
//! assert_eq!(first.path, "/v1/chat/completions");
//! // … and dropping `server` checks the rest.
//! ```
//!
//! The dialect builders ([`openai_chat`], [`openai_responses`],
//! [`anthropic`]) produce the event sequences each provider really sends, so
//! tests read as "the model says this" rather than as raw JSON; a stream
//! made by one also tells the server which dialect to expect.
//!
//! Beside it, what end-to-end tests in several packages share: the
//! workspace's binaries ([`bins`]), a program on a real PTY ([`pty`]),
//! koi's window under Xvfb ([`window`]) and a strict JSON Schema checker
//! ([`json_schema`]).

#![forbid(unsafe_code)]
// Test support: a broken expectation here is a failed test, said with its reason.
#![allow(clippy::expect_used)]

pub mod bins;
mod checks;
mod dialects;
pub mod json_schema;
mod json_span;
pub mod long_session;
pub mod mcp_servers;
pub mod parallel;
pub mod poll;
pub mod provider_schema;
pub mod pty;
mod recorded;
mod reply;
mod script;
mod server;
pub mod session_logs;
pub mod shells;
pub mod skip;
pub mod tmux;
pub mod window;
mod wire;

pub use checks::{
    secret_token, RequestKind, Violation, ViolationKind, MEMORY_MARKER, SUMMARY_MARKER,
    TITLE_MARKER,
};
pub use dialects::{anthropic, openai_chat, openai_responses};
pub use recorded::RecordedRequest;
pub use reply::Reply;
pub use script::Expect;
pub use server::{Builder, FakeProvider};
pub use wire::Dialect;

/// Formats one SSE event: an optional `event:` line, one `data:` line per
/// line of `data`, and the blank line that dispatches it.
pub fn sse_event(event: Option<&str>, data: &str) -> String {
    let mut out = String::new();
    if let Some(name) = event {
        out.push_str("event: ");
        out.push_str(name);
        out.push('\n');
    }
    for line in data.split('\n') {
        out.push_str("data: ");
        out.push_str(line);
        out.push('\n');
    }
    out.push('\n');
    out
}
