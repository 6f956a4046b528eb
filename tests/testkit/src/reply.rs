//! Scripted replies, and what kind of request each one answers.

use std::time::Duration;

use crate::checks::RequestKind;
use crate::wire::Dialect;

/// How a scripted streaming reply ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    /// The terminating zero-length chunk: a clean end of body.
    Clean,
    /// The socket is closed without the terminating chunk: the client sees
    /// a transport error mid-body.
    Cut,
    /// Nothing more is written and the connection stays open until the
    /// client goes away (or [`MAX_CONNECTION_LIFETIME`]).
    Hang,
}

/// One scripted HTTP reply.
#[derive(Debug, Clone)]
pub struct Reply {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    /// Body pieces; a streaming reply writes each as its own HTTP chunk.
    pub(crate) chunks: Vec<Vec<u8>>,
    pub(crate) streaming: bool,
    pub(crate) ending: Ending,
    pub(crate) delay_before: Duration,
    pub(crate) delay_between: Duration,
    /// The kind of request this reply answers; `None` answers turns.
    pub(crate) kind: Option<RequestKind>,
    /// The dialect of the stream, when a dialect builder made it.
    pub(crate) dialect: Option<Dialect>,
}

impl Reply {
    /// A `200 text/event-stream` reply writing each item (an already formatted
    /// SSE event, see [`crate::sse_event`]) as its own chunk.
    pub fn sse<I, S>(events: I) -> Reply
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Reply {
            status: 200,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            chunks: events.into_iter().map(|e| e.into().into_bytes()).collect(),
            streaming: true,
            ending: Ending::Clean,
            delay_before: Duration::ZERO,
            delay_between: Duration::ZERO,
            kind: None,
            dialect: None,
        }
    }

    /// A `200 text/event-stream` reply writing these raw byte pieces as
    /// chunks, split anywhere (even inside a UTF-8 sequence or a CRLF).
    pub fn sse_bytes(chunks: Vec<Vec<u8>>) -> Reply {
        Reply {
            chunks,
            ..Reply::sse(Vec::<String>::new())
        }
    }

    /// A plain (non-streaming) reply with a status and a body.
    pub fn status(status: u16, body: &str) -> Reply {
        Reply {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            chunks: vec![body.as_bytes().to_vec()],
            streaming: false,
            ending: Ending::Clean,
            delay_before: Duration::ZERO,
            delay_between: Duration::ZERO,
            kind: None,
            dialect: None,
        }
    }

    /// A plain `200` JSON reply.
    pub fn json(value: &serde_json::Value) -> Reply {
        Reply::status(200, &value.to_string())
    }

    /// Adds a response header.
    pub fn header(mut self, name: &str, value: &str) -> Reply {
        self.headers.push((name.to_ascii_lowercase(), value.into()));
        self
    }

    /// Waits this long before writing anything (status line included).
    pub fn delay(mut self, d: Duration) -> Reply {
        self.delay_before = d;
        self
    }

    /// Waits this long between chunks (a slow model).
    pub fn chunk_delay(mut self, d: Duration) -> Reply {
        self.delay_between = d;
        self
    }

    /// Keeps only the first `n` chunks and then closes the socket without a
    /// clean end: a stream cut mid-way.
    pub fn cut_after(mut self, n: usize) -> Reply {
        self.chunks.truncate(n);
        self.ending = Ending::Cut;
        self
    }

    /// Closes the socket without a clean end after all chunks.
    pub fn cut(mut self) -> Reply {
        self.ending = Ending::Cut;
        self
    }

    /// Keeps only the first `n` chunks, then writes nothing more and keeps
    /// the connection open: a model that stalls.
    pub fn hang_after(mut self, n: usize) -> Reply {
        self.chunks.truncate(n);
        self.ending = Ending::Hang;
        self
    }

    /// The HTTP status this reply sends.
    pub fn status_code(&self) -> u16 {
        self.status
    }

    /// Answers only a request of this kind; replies without a kind answer
    /// turns. Side requests (titles, summaries) are served only by replies
    /// scripted for them, so a test never depends on where they fall.
    pub fn for_kind(mut self, kind: RequestKind) -> Reply {
        self.kind = Some(kind);
        self
    }

    /// `for_kind(RequestKind::Title)`.
    pub fn for_title(self) -> Reply {
        self.for_kind(RequestKind::Title)
    }

    /// `for_kind(RequestKind::Summary)`.
    pub fn for_summary(self) -> Reply {
        self.for_kind(RequestKind::Summary)
    }

    /// `for_kind(RequestKind::Memory)`.
    pub fn for_memory(self) -> Reply {
        self.for_kind(RequestKind::Memory)
    }

    /// `for_kind(RequestKind::Turn)`: the default, spelt out.
    pub fn for_turn(self) -> Reply {
        self.for_kind(RequestKind::Turn)
    }

    /// The kind of request this reply answers.
    pub fn kind(&self) -> RequestKind {
        self.kind.unwrap_or(RequestKind::Turn)
    }

    pub(crate) fn in_dialect(mut self, dialect: Dialect) -> Reply {
        self.dialect = Some(dialect);
        self
    }
}
