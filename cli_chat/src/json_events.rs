//! `k --json`: one JSON object per line for every event of a turn.
//!
//! Every object carries `"v"` ([`SCHEMA_VERSION`]) and `"type"`. The schema
//! is documented in `cli_chat/README.md`; adding a field or an event type
//! keeps the version, renaming or removing one bumps it.

use ai_chat_engine::{CompactionReport, EngineError, GoalReport, GoalState, SubagentStep};
use serde::Serialize;

/// Version of the event schema; bumped only for incompatible changes.
pub const SCHEMA_VERSION: u32 = 1;

/// Who settled an approval request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DecidedBy {
    /// The user answered on the terminal.
    User,
    /// Nobody could be asked (no terminal): denied.
    NoTty,
    /// Ctrl+C at the prompt: denied and the turn cancelled.
    Interrupt,
}

/// One line of `--json` output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// First line of a run: which conversation and model.
    Session {
        /// Session id (for `--resume`).
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
    /// A piece of the model's reasoning.
    Reasoning {
        /// The text.
        text: String,
    },
    /// A tool call is about to run (or be judged).
    ToolStart {
        /// The provider's call id.
        id: String,
        /// Tool name.
        name: String,
        /// Arguments shortened to one line.
        args_preview: String,
        /// The arguments summarised for people (`koi-demo.txt (1 line)`).
        summary: String,
    },
    /// How far a running call is (an MCP server's progress).
    ToolProgress {
        /// Call id.
        id: String,
        /// One line.
        text: String,
    },
    /// A tool call finished.
    ToolDone {
        /// Call id.
        id: String,
        /// One line saying what it did.
        preview: String,
    },
    /// A tool call failed, was refused or was not run.
    ToolFailed {
        /// Call id.
        id: String,
        /// Why.
        error: String,
    },
    /// A step of the subagent working for the call `parent` (an
    /// `explore` call).
    Subagent {
        /// The parent's call id.
        parent: String,
        /// What the child did.
        step: SubagentEvent,
    },
    /// A call needs consent.
    ApprovalAsked {
        /// The call id it belongs to (the latest `tool_start`).
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
    /// goes on until it is decided (`k --resume SESSION --rerun ID` or
    /// `--abandon ID`).
    Uncertain {
        /// Session id.
        session: String,
        /// Call id.
        id: String,
        /// Tool name.
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
    /// Older history was compacted, or a due compaction failed (the
    /// full history was kept) or dropped history near the window's limit.
    Compaction {
        /// `summarised`, `dropped`, `trimmed`, `failed` or `nothing`.
        outcome: String,
        /// Request bytes before, where something changed.
        #[serde(skip_serializing_if = "Option::is_none")]
        bytes_before: Option<usize>,
        /// Request bytes after.
        #[serde(skip_serializing_if = "Option::is_none")]
        bytes_after: Option<usize>,
        /// One line for people.
        message: String,
    },
    /// Goal mode: the goal's state changed or its check ran.
    Goal {
        /// `active`, `paused`, `blocked`, `complete`, `check_passed` or
        /// `check_failed`.
        status: String,
        /// One line for people.
        message: String,
    },
    /// Something the user should know that is not the answer (e.g.
    /// images left out after the provider rejected them).
    Notice {
        /// One line.
        text: String,
    },
    /// The turn ended with a complete answer.
    Done,
    /// The turn ended without one.
    Error {
        /// A stable machine-readable kind.
        kind: String,
        /// One line for people.
        message: String,
    },
}

/// One step of a subagent, `{"kind": …, …}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SubagentEvent {
    /// The child asks the model.
    Round {
        /// Its round number, from 1.
        round: usize,
    },
    /// A child call starts.
    ToolStart {
        /// The child's call id.
        id: String,
        /// Tool name.
        name: String,
        /// The arguments summarised for people.
        summary: String,
    },
    /// A child call finished.
    ToolDone {
        /// The child's call id.
        id: String,
        /// One line saying what it did.
        preview: String,
    },
    /// A child call failed or was refused.
    ToolFailed {
        /// The child's call id.
        id: String,
        /// Why.
        error: String,
    },
    /// The child ended.
    Finished {
        /// Its totals in one line (`explore: 2 rounds, …`).
        summary: String,
    },
}

impl SubagentEvent {
    /// The event for an engine step.
    pub fn from_step(step: &SubagentStep) -> SubagentEvent {
        match step {
            SubagentStep::Round { round } => SubagentEvent::Round { round: *round },
            SubagentStep::ToolStart { id, name, summary } => SubagentEvent::ToolStart {
                id: id.clone(),
                name: name.clone(),
                summary: summary.clone(),
            },
            SubagentStep::ToolDone { id, result_preview } => SubagentEvent::ToolDone {
                id: id.clone(),
                preview: result_preview.clone(),
            },
            SubagentStep::ToolFailed { id, error } => SubagentEvent::ToolFailed {
                id: id.clone(),
                error: error.clone(),
            },
            SubagentStep::Finished(report) => SubagentEvent::Finished {
                summary: report.line(),
            },
        }
    }
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

impl Event {
    /// The event as one JSON line (no trailing newline).
    pub fn to_line(&self) -> String {
        let line = Line {
            v: SCHEMA_VERSION,
            event: self,
        };
        // Serialising plain strings and integers cannot fail; keep a valid
        // line even if it somehow did.
        let json = serde_json::to_string(&line).unwrap_or_else(|e| {
            format!(
                r#"{{"v":{SCHEMA_VERSION},"type":"error","kind":"internal","message":{}}}"#,
                serde_json::Value::String(e.to_string())
            )
        });
        escape_high_controls(&json)
    }

    /// The `compaction` event for a report.
    pub fn from_compaction(r: &CompactionReport) -> Event {
        let (outcome, bytes) = match r {
            CompactionReport::Summarised {
                bytes_before,
                bytes_after,
                ..
            } => ("summarised", Some((*bytes_before, *bytes_after))),
            CompactionReport::Dropped {
                bytes_before,
                bytes_after,
                ..
            } => ("dropped", Some((*bytes_before, *bytes_after))),
            CompactionReport::Trimmed {
                bytes_before,
                bytes_after,
                ..
            } => ("trimmed", Some((*bytes_before, *bytes_after))),
            CompactionReport::Failed { .. } => ("failed", None),
            CompactionReport::NothingToCompact => ("nothing", None),
        };
        Event::Compaction {
            outcome: outcome.to_string(),
            bytes_before: bytes.map(|b| b.0),
            bytes_after: bytes.map(|b| b.1),
            message: r.to_string(),
        }
    }

    /// The `goal` event for a report.
    pub fn from_goal(r: &GoalReport) -> Event {
        let status = match r {
            GoalReport::State(g) => match g.state {
                GoalState::Active => "active",
                GoalState::Paused { .. } => "paused",
                GoalState::Blocked { .. } => "blocked",
                GoalState::Complete => "complete",
            },
            GoalReport::Check(c) if c.passed => "check_passed",
            GoalReport::Check(_) => "check_failed",
        };
        Event::Goal {
            status: status.to_string(),
            message: r.to_string(),
        }
    }

    /// The `error` event for an engine error.
    pub fn from_error(e: &EngineError) -> Event {
        Event::Error {
            kind: error_kind(e).to_string(),
            message: e.to_string(),
        }
    }
}

/// A line for the other commands' JSON: `{"v":1,"type":TYPE,"KEY":VALUE}`.
pub fn tagged_line<T: Serialize>(ty: &str, key: &str, value: &T) -> String {
    let body = serde_json::to_string(value).unwrap_or_else(|_| "null".into());
    format!(
        r#"{{"v":{SCHEMA_VERSION},"type":{},{}:{body}}}"#,
        serde_json::Value::from(ty),
        serde_json::Value::from(key)
    )
}

/// The stable `kind` of an error event.
pub fn error_kind(e: &EngineError) -> &'static str {
    match e {
        EngineError::Cancelled => "cancelled",
        EngineError::Busy => "busy",
        EngineError::Rejected { .. } => "rejected",
        EngineError::RetriesExhausted { .. } => "retries_exhausted",
        EngineError::Network(_) => "network",
        EngineError::Stream(_) => "stream",
        EngineError::StreamLimit(_) => "stream_limit",
        EngineError::OutputCap { .. } => "output_cap",
        EngineError::Incomplete { .. } => "incomplete",
        EngineError::Refused { .. } => "refused",
        EngineError::RoundLimit { .. } => "round_limit",
        EngineError::Config(_) => "config",
        EngineError::Session(_) => "session",
        EngineError::Internal(_) => "internal",
        EngineError::Locked { .. } => "locked",
        EngineError::Uncertain { .. } => "uncertain",
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn no_control_character_is_left_raw_and_the_text_round_trips() {
        let text: String = (0u32..0x100).filter_map(char::from_u32).collect();
        let l = Event::Token { text: text.clone() }.to_line();
        assert!(!l.chars().any(char::is_control), "{l:?}");
        let v: serde_json::Value = serde_json::from_str(&l).unwrap();
        assert_eq!(v["text"], text.as_str());
    }

    #[test]
    fn lines_carry_version_and_type() {
        let l = Event::Token {
            text: "hi\n".into(),
        }
        .to_line();
        assert_eq!(l, r#"{"v":1,"type":"token","text":"hi\n"}"#);
        assert_eq!(Event::Done.to_line(), r#"{"v":1,"type":"done"}"#);
        let e = Event::from_error(&EngineError::Rejected {
            status: 401,
            message: "bad key".into(),
        });
        let v: serde_json::Value = serde_json::from_str(&e.to_line()).unwrap();
        assert_eq!(v["kind"], "rejected");
        let a = Event::ApprovalDecided {
            id: None,
            approved: false,
            by: DecidedBy::NoTty,
        };
        assert_eq!(
            a.to_line(),
            r#"{"v":1,"type":"approval_decided","id":null,"approved":false,"by":"no_tty"}"#
        );
    }
}
