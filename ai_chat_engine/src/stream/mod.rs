//! The typed events a turn streams to its front end, and the turn's errors.
//! Plain data: [`StreamMsg::to_event`] (in `event.rs`) is its form in
//! `koi_protocol`, and a front end answers with `koi_protocol::Op`s.

pub(crate) mod emitter;
pub(crate) mod event;
pub mod masking;
pub(crate) mod preview;

/// The user's answer to [`StreamMsg::ApprovalRequired`], sent as
/// [`koi_protocol::Op::Approve`] through the turn's
/// [`crate::CancelHandle`].
pub use koi_protocol::ApprovalDecision as ApprovalReply;

/// One event of a turn. A turn ends with exactly one [`StreamMsg::Done`] or
/// [`StreamMsg::Err`], and nothing follows it.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamMsg {
    /// The model is about to stream text for a new round (insert a bubble).
    AssistantStart,
    /// A piece of the answer.
    Token(String),
    /// A piece of the model's reasoning/thinking (shown apart, never fed back).
    Reasoning(String),
    /// A tool call is about to run.
    ToolStart {
        /// The provider's call id.
        id: String,
        /// The tool's name.
        name: String,
        /// The arguments, shortened to one line.
        args_preview: String,
        /// The arguments summarised for people: `koi-demo.txt (1 line)`,
        /// the command, the pattern and where.
        summary: String,
    },
    /// How far a running call is (an MCP server's progress): its live
    /// status line until it finishes. Never sent to the model.
    ToolProgress {
        /// The provider's call id.
        id: String,
        /// One line, e.g. `3/10 indexing`.
        text: String,
    },
    /// A tool call finished.
    ToolDone {
        /// The provider's call id.
        id: String,
        /// One line saying what it did.
        result_preview: String,
    },
    /// A tool call failed, was refused, or was not run; the model sees why.
    ToolFailed {
        /// The provider's call id.
        id: String,
        /// What went wrong.
        error: String,
    },
    /// A step of the subagent working for the tool call `parent` (an
    /// `explore` call): front ends show it nested under that call's line
    /// and collapse the steps to the `finished` line.
    /// The parent model never sees these.
    Subagent {
        /// The parent's call id (as in its `ToolStart`).
        parent: String,
        /// What the child did.
        step: koi_protocol::SubagentStep,
    },
    /// A call needs the user's consent. The engine blocks until the turn's
    /// handle answers ([`crate::CancelHandle::approve`], an
    /// [`koi_protocol::Op::Approve`] for `id`), the approval timeout
    /// passes, or the turn is cancelled; anything but
    /// [`ApprovalReply::Approve`] denies, and so does dropping every
    /// handle of the turn.
    ApprovalRequired {
        /// The call it is about (as in its `ToolStart`).
        id: String,
        /// One line naming exactly what would run or change.
        summary: String,
        /// Why approval is needed.
        detail: String,
    },
    /// Token usage of one model round, sent the moment its stream ends.
    Usage {
        /// Input tokens, cached ones included.
        input: u64,
        /// Input tokens served from the provider's prompt cache.
        cached_input: u64,
        /// Output tokens (reasoning included).
        output: u64,
        /// Of the output, reasoning tokens, where the provider says (0
        /// otherwise).
        reasoning: u64,
    },
    /// Older history was compacted (or a due compaction failed and the
    /// full history was kept): one line for the user.
    Compaction(crate::compaction::report::CompactionReport),
    /// A goal's state changed or its check ran (goal mode).
    Goal(crate::goal::GoalReport),
    /// Something the user should know that is not the model's answer
    /// (e.g. images left out after a rejection). One line.
    Notice(String),
    /// The model answered without asking for more tools.
    Done,
    /// The turn ended without a complete answer.
    Err(EngineError),
}

impl StreamMsg {
    /// True for the two messages that end a turn.
    pub fn is_terminal(&self) -> bool {
        matches!(self, StreamMsg::Done | StreamMsg::Err(_))
    }
}

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
