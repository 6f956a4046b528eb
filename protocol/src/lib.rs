//! What koi's chat engine says to a front end ([`Event`]) and what a front
//! end tells the engine ([`Op`]), as plain data: no channels, no handles,
//! nothing that cannot be written down. The engine streams [`Event`]s to
//! every front end (the overlay, `k`, `k acp`); `k --json` writes them one
//! per line ([`Event::to_line`]); its JSON Schema is generated from these
//! types ([`event_schema`]), so the shape is written once, here.
//!
//! Versioning: every line carries `"v"` ([`SCHEMA_VERSION`]). Adding a
//! field or an event keeps the version; renaming or removing one bumps it.

#![forbid(unsafe_code)]

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Version of the event schema; bumped only for incompatible changes.
pub const SCHEMA_VERSION: u32 = 1;

/// Who settled an approval request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DecidedBy {
    /// The user answered.
    User,
    /// Nobody could be asked (no terminal): denied.
    NoTty,
    /// Ctrl+C at the prompt: denied and the turn cancelled.
    Interrupt,
}

/// How older history was compacted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CompactionOutcome {
    /// Older rounds were replaced by a summary.
    Summarised,
    /// Near the window's limit, older history was dropped with a marker.
    Dropped,
    /// Old tool results were cut down.
    Trimmed,
    /// A due summary failed; the full history was kept.
    Failed,
    /// There was nothing to compact.
    Nothing,
}

/// A goal's state, or its check's result (goal mode).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GoalStatus {
    /// Being worked on.
    Active,
    /// Paused (a budget, a failure, the user).
    Paused,
    /// The model says it cannot go on without the user.
    Blocked,
    /// The check passed and the model agrees.
    Complete,
    /// The check ran and passed.
    CheckPassed,
    /// The check ran and failed.
    CheckFailed,
}

/// The stable, machine-readable kind of an [`Event::Error`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The user cancelled.
    Cancelled,
    /// Another turn of the conversation is running.
    Busy,
    /// The provider refused the request (4xx).
    Rejected,
    /// Retryable failures did not clear.
    RetriesExhausted,
    /// The connection failed or broke.
    Network,
    /// The response stream was cut or malformed.
    Stream,
    /// A per-response safety limit tripped.
    StreamLimit,
    /// The answer passed the output cap.
    OutputCap,
    /// The model stopped early.
    Incomplete,
    /// The model declined to answer.
    Refused,
    /// The turn used all its rounds.
    RoundLimit,
    /// Misconfiguration.
    Config,
    /// The session log could not be written or read.
    Session,
    /// A bug in koi stopped the turn.
    Internal,
    /// Another open holds the conversation.
    Locked,
    /// Interrupted calls wait for the user's decision.
    Uncertain,
    /// The front end was interrupted (Ctrl+C).
    Interrupted,
}

/// One step of a subagent (an `explore` call's child), nested under its
/// parent's call. Only front ends see these; the parent model sees the
/// child's answer alone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SubagentStep {
    /// The child asks the model.
    Round {
        /// Its round number, from 1.
        #[schemars(range(min = 1))]
        round: usize,
    },
    /// A child call starts.
    ToolStart {
        /// The child's call id (unique within the child only).
        #[schemars(length(min = 1))]
        id: String,
        /// Tool name.
        #[schemars(length(min = 1))]
        name: String,
        /// The arguments summarised for people.
        summary: String,
    },
    /// A child call finished.
    ToolDone {
        /// The child's call id.
        #[schemars(length(min = 1))]
        id: String,
        /// One line saying what it did.
        preview: String,
    },
    /// A child call failed or was refused.
    ToolFailed {
        /// The child's call id.
        #[schemars(length(min = 1))]
        id: String,
        /// Why.
        error: String,
    },
    /// The child ended: what a finished subagent collapses to.
    Finished {
        /// Its totals in one line (`explore: 2 rounds, …`).
        summary: String,
    },
}

/// One event, as `k --json` writes it: `{"v":1,"type":…,…}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Event {
    /// First line of a run: which conversation and model.
    Session {
        /// Session id (for `--resume`).
        #[schemars(length(min = 1))]
        id: String,
        /// Whether an earlier conversation is being continued.
        resumed: bool,
        /// Provider name.
        provider: String,
        /// Model name.
        model: String,
        /// Approval mode in force.
        mode: String,
    },
    /// The model starts a new round of output.
    AssistantStart,
    /// A piece of the answer.
    Token {
        /// The text.
        text: String,
    },
    /// A piece of the model's reasoning (shown apart, never fed back).
    Reasoning {
        /// The text.
        text: String,
    },
    /// A tool call is about to be judged or run.
    ToolStart {
        /// The provider's call id.
        #[schemars(length(min = 1))]
        id: String,
        /// Tool name.
        #[schemars(length(min = 1))]
        name: String,
        /// Arguments shortened to one line.
        args_preview: String,
        /// The arguments summarised for people (`koi-demo.txt (1 line)`).
        summary: String,
    },
    /// How far a running call is (an MCP server's progress).
    ToolProgress {
        /// Call id.
        #[schemars(length(min = 1))]
        id: String,
        /// One line.
        text: String,
    },
    /// A tool call finished.
    ToolDone {
        /// Call id.
        #[schemars(length(min = 1))]
        id: String,
        /// One line saying what it did.
        preview: String,
    },
    /// A tool call failed, was refused or was not run.
    ToolFailed {
        /// Call id.
        #[schemars(length(min = 1))]
        id: String,
        /// Why.
        error: String,
    },
    /// A step of the explore subagent working for the call `parent`; the
    /// model never sees these.
    Subagent {
        /// The parent's call id.
        #[schemars(length(min = 1))]
        parent: String,
        /// What the child did.
        step: SubagentStep,
    },
    /// A call needs consent; answered with [`Op::Approve`].
    ApprovalAsked {
        /// The call's id, as in its `tool_start` (null when there is none).
        id: Option<String>,
        /// One line naming what would run or change.
        summary: String,
        /// Why approval is needed (for edits: the diff).
        detail: String,
    },
    /// How an approval request was settled.
    ApprovalDecided {
        /// Call id.
        id: Option<String>,
        /// Whether the call may run.
        approved: bool,
        /// Who decided.
        by: DecidedBy,
    },
    /// A call a crash interrupted: it may have partly run, and nothing
    /// goes on until it is decided ([`Op::Decide`]; `k --resume SESSION
    /// --rerun ID` or `--abandon ID`).
    Uncertain {
        /// Session id.
        #[schemars(length(min = 1))]
        session: String,
        /// Call id.
        #[schemars(length(min = 1))]
        id: String,
        /// Tool name.
        #[schemars(length(min = 1))]
        name: String,
        /// Its full arguments, secrets masked.
        arguments: String,
        /// When it started (RFC 3339).
        started_at: String,
    },
    /// Token usage of one model round.
    Usage {
        /// Input tokens (cached included).
        input: u64,
        /// Cached input tokens.
        cached_input: u64,
        /// Output tokens (reasoning included).
        output: u64,
        /// Of the output, reasoning tokens (0 where not reported).
        reasoning: u64,
    },
    /// Older history was compacted, or a due compaction failed (the full
    /// history was kept) or dropped history near the window's limit.
    Compaction {
        /// What happened.
        outcome: CompactionOutcome,
        /// Request bytes before, where something changed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bytes_before: Option<usize>,
        /// Request bytes after.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bytes_after: Option<usize>,
        /// One line for people.
        message: String,
    },
    /// Goal mode: the goal's state changed or its check ran.
    Goal {
        /// The state, or the check's result.
        status: GoalStatus,
        /// One line for people.
        message: String,
        /// What the goal is to achieve (with a state, not with a check's
        /// result).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        objective: Option<String>,
        /// The command that proves it done (with a state).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        check: Option<String>,
    },
    /// Something the user should know that is not the answer (e.g. images
    /// left out after the provider rejected them).
    Notice {
        /// One line.
        text: String,
    },
    /// The turn ended with a complete answer.
    Done,
    /// The turn ended without one.
    Error {
        /// A stable machine-readable kind.
        kind: ErrorKind,
        /// One line for people.
        message: String,
    },
}

/// The user's answer to [`Event::ApprovalAsked`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalDecision {
    /// Run this call.
    Approve,
    /// Do not run it; the model is told the user declined.
    Deny,
}

/// The user's choice for a call whose effect is uncertain
/// ([`Event::Uncertain`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum UncertainDecision {
    /// Run it again (once).
    Rerun,
    /// Do not run it; the model is told its effect is unknown.
    Abandon,
}

/// What a front end tells the engine about a conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Op {
    /// A user message: starts a turn.
    Submit {
        /// The message.
        text: String,
    },
    /// Answers the approval request of call `call_id`.
    Approve {
        /// The call, as in its `approval_asked`.
        call_id: String,
        /// Run it or not.
        decision: ApprovalDecision,
    },
    /// Cancels the running turn (prompt: within ~100 ms).
    Cancel,
    /// Decides a call a crash left uncertain.
    Decide {
        /// The call, as in its `uncertain` event.
        call_id: String,
        /// Run it again or give it up.
        decision: UncertainDecision,
    },
    /// Summarises older history now (`/compact`).
    Compact,
}

/// `json` with DEL and the C1 controls written as `\u` escapes. JSON
/// escapes only U+0000..U+001F itself, yet a terminal showing the line
/// could act on an 8-bit CSI (U+009B). They can only occur inside JSON
/// strings, so the line parses to exactly the same values.
fn escape_high_controls(json: &str) -> String {
    if !json.chars().any(|c| ('\u{7f}'..='\u{9f}').contains(&c)) {
        return json.to_string();
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if ('\u{7f}'..='\u{9f}').contains(&c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// A line: `{"v":1,"type":…,…}`.
#[derive(Serialize)]
struct Line<'a> {
    v: u32,
    #[serde(flatten)]
    event: &'a Event,
}

/// Why a line is not an event of this version.
#[derive(Debug)]
pub struct LineError(String);

impl std::fmt::Display for LineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for LineError {}

impl Event {
    /// True for the two events that end a turn ([`Event::Done`] and
    /// [`Event::Error`]); nothing of the turn follows them.
    pub fn is_terminal(&self) -> bool {
        matches!(self, Event::Done | Event::Error { .. })
    }

    /// The event as one JSON line (no trailing newline).
    pub fn to_line(&self) -> String {
        let line = Line {
            v: SCHEMA_VERSION,
            event: self,
        };
        // Serialising plain strings, integers and enums cannot fail; keep
        // a valid line even if it somehow did.
        let json = serde_json::to_string(&line).unwrap_or_else(|e| {
            format!(
                r#"{{"v":{SCHEMA_VERSION},"type":"error","kind":"internal","message":{}}}"#,
                serde_json::Value::String(e.to_string())
            )
        });
        escape_high_controls(&json)
    }

    /// Reads a line [`Event::to_line`] wrote.
    pub fn from_line(line: &str) -> Result<Event, LineError> {
        let mut value: serde_json::Value =
            serde_json::from_str(line).map_err(|e| LineError(e.to_string()))?;
        let object = value
            .as_object_mut()
            .ok_or_else(|| LineError("not a JSON object".into()))?;
        match object.remove("v") {
            Some(v) if v == SCHEMA_VERSION => {}
            other => {
                return Err(LineError(format!(
                    "version {other:?}, not {SCHEMA_VERSION}"
                )))
            }
        }
        serde_json::from_value(value).map_err(|e| LineError(e.to_string()))
    }
}

/// A line for `k`'s other commands' JSON: `{"v":1,"type":TYPE,"KEY":VALUE}`.
pub fn tagged_line<T: Serialize>(ty: &str, key: &str, value: &T) -> String {
    let body = serde_json::to_string(value).unwrap_or_else(|_| "null".into());
    format!(
        r#"{{"v":{SCHEMA_VERSION},"type":{},{}:{body}}}"#,
        serde_json::Value::from(ty),
        serde_json::Value::from(key)
    )
}

mod schema;
pub use schema::{event_schema, op_schema};

#[cfg(test)]
mod tests;
