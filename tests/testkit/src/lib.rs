//! Test fixtures shared across koi crates: a scripted fake model provider on
//! loopback.
//!
//! [`FakeProvider`] is a real HTTP/1.1 server on `127.0.0.1` (std
//! `TcpListener` + one thread per connection). Each test scripts the replies
//! it wants — SSE streams in any provider's dialect, error statuses with
//! headers, streams cut mid-way, slow or hanging streams — and afterwards
//! reads back every request the client sent, byte for byte.
//!
//! ```no_run
//! use koi_testkit::{FakeProvider, openai_chat::ChatStream};
//! let server = FakeProvider::start([ChatStream::new().text("Hello there").stop().reply()]);
//! // point the client at server.base_url() ("http://127.0.0.1:PORT/v1") …
//! let first = &server.requests()[0];
//! assert_eq!(first.path, "/v1/chat/completions");
//! ```
//!
//! The dialect builders ([`openai_chat`], [`openai_responses`],
//! [`anthropic`]) produce the event sequences each provider really sends, so
//! tests read as "the model says this" rather than as raw JSON.

mod checks;
mod dialects;
mod json_span;
mod reply;
mod script;
mod server;
mod wire;

pub use checks::{RequestKind, Violation, ViolationKind, SUMMARY_MARKER, TITLE_MARKER};
pub use dialects::{anthropic, openai_chat, openai_responses};
pub use reply::Reply;
pub use server::{Builder, FakeProvider, RecordedRequest};
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
