//! What a turn streams to its front end is `koi_protocol::Event`, plain
//! data, and a front end answers with `koi_protocol::Op`s; this module
//! holds the engine's error type and its one conversion into that event.

pub(crate) mod emitter;
pub mod masking;
pub(crate) mod preview;

/// The user's answer to [`Event::ApprovalAsked`], sent as
/// [`koi_protocol::Op::Approve`] through the turn's
/// [`crate::CancelHandle`].
pub use koi_protocol::ApprovalDecision as ApprovalReply;

/// What a turn streams: plain protocol data, the same type `k --json`
/// writes.
pub use koi_protocol::Event;

use koi_protocol::ErrorKind;

/// Why a turn ended without a complete answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    /// The user cancelled.
    #[error("cancelled")]
    Cancelled,
    /// Another turn of this conversation is still running.
    #[error("this conversation is busy with another turn")]
    Busy,
    /// The provider refused the request (4xx other than 429); retrying the
    /// same request cannot help.
    #[error("the provider rejected the request (HTTP {status}): {message}")]
    Rejected {
        /// HTTP status.
        status: u16,
        /// The provider's message, shortened.
        message: String,
    },
    /// Retryable failures (network, 429, 5xx) did not clear.
    #[error("the provider failed {attempts} times; last error: {last}")]
    RetriesExhausted {
        /// Attempts made.
        attempts: usize,
        /// The last failure.
        last: String,
    },
    /// The connection failed or broke mid-response (nothing was executed).
    #[error("network error: {0}")]
    Network(String),
    /// The response stream was cut, malformed or reported an error
    /// (nothing was executed).
    #[error("the model's response was incomplete: {0}")]
    Stream(String),
    /// A per-response safety limit tripped (nothing was executed).
    #[error("the model's response exceeded a limit: {0}")]
    StreamLimit(String),
    /// The turn streamed more than the output cap; what was shown is partial.
    #[error("the answer passed the {limit_bytes}-byte output cap and was stopped; what you see is partial")]
    OutputCap {
        /// The cap.
        limit_bytes: usize,
    },
    /// The model stopped early (length limit, content filter, refusal).
    #[error("the model stopped before finishing ({reason}); the answer is partial")]
    Incomplete {
        /// The provider's raw stop reason.
        reason: String,
    },
    /// The model declined to answer (a refusal stop); what it said, if
    /// anything, was shown.
    #[error("the model declined to answer (refusal){}", explanation.as_deref().map(|e| format!(": {e}")).unwrap_or_default())]
    Refused {
        /// The provider's explanation, shortened, when it gave one.
        explanation: Option<String>,
    },
    /// The turn used all its rounds.
    #[error("stopped after {rounds} model rounds; the task may be half done — ask to continue")]
    RoundLimit {
        /// Rounds used.
        rounds: usize,
    },
    /// Misconfiguration (no key, bad URL, …).
    #[error("configuration: {0}")]
    Config(String),
    /// The session log could not be written (or read, or is not ours):
    /// anything that needed a durable record did not run.
    #[error("session log: {0}")]
    Session(String),
    /// A bug in koi stopped the turn (a panic); the conversation is free
    /// for the next turn.
    #[error("internal error, the turn was stopped: {0}")]
    Internal(String),
    /// Another open holds the conversation's lock (one writer each).
    #[error("conversation {session} is {holder}; open it read-only or fork it (`k --fork {session}`, overlay /fork)")]
    Locked {
        /// Session id.
        session: String,
        /// Who holds it, e.g. `open in koi, pid 4242`.
        holder: String,
    },
    /// Interrupted calls whose effect is unknown wait for the user's
    /// decision; nothing runs and the model is not called until then.
    #[error("{calls} interrupted tool call(s) may have partly run; choose rerun or abandon for each before continuing")]
    Uncertain {
        /// How many calls wait.
        calls: usize,
    },
}

impl EngineError {
    /// The error's stable kind.
    pub fn kind(&self) -> ErrorKind {
        match self {
            EngineError::Cancelled => ErrorKind::Cancelled,
            EngineError::Busy => ErrorKind::Busy,
            EngineError::Rejected { .. } => ErrorKind::Rejected,
            EngineError::RetriesExhausted { .. } => ErrorKind::RetriesExhausted,
            EngineError::Network(_) => ErrorKind::Network,
            EngineError::Stream(_) => ErrorKind::Stream,
            EngineError::StreamLimit(_) => ErrorKind::StreamLimit,
            EngineError::OutputCap { .. } => ErrorKind::OutputCap,
            EngineError::Incomplete { .. } => ErrorKind::Incomplete,
            EngineError::Refused { .. } => ErrorKind::Refused,
            EngineError::RoundLimit { .. } => ErrorKind::RoundLimit,
            EngineError::Config(_) => ErrorKind::Config,
            EngineError::Session(_) => ErrorKind::Session,
            EngineError::Internal(_) => ErrorKind::Internal,
            EngineError::Locked { .. } => ErrorKind::Locked,
            EngineError::Uncertain { .. } => ErrorKind::Uncertain,
        }
    }

    /// The error as the event that ends a turn: its kind, and its message
    /// (which names every field, so nothing is lost to a reader).
    pub fn to_event(&self) -> Event {
        Event::Error {
            kind: self.kind(),
            message: self.to_string(),
        }
    }
}

impl From<EngineError> for Event {
    fn from(e: EngineError) -> Event {
        e.to_event()
    }
}
