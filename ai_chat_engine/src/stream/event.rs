//! The engine's messages as `koi_protocol` data: what `k --json` writes
//! and any front end outside the process reads. Kept apart from
//! `stream` so the message type depends on nothing it reports.

use koi_protocol::{CompactionOutcome, ErrorKind, Event, GoalStatus};

use crate::compaction::report::CompactionReport;
use crate::goal::{GoalReport, GoalState};
use crate::stream::{EngineError, StreamMsg};

impl StreamMsg {
    /// This message as a protocol event.
    pub fn to_event(&self) -> Event {
        match self {
            StreamMsg::AssistantStart => Event::AssistantStart,
            StreamMsg::Token(text) => Event::Token { text: text.clone() },
            StreamMsg::Reasoning(text) => Event::Reasoning { text: text.clone() },
            StreamMsg::ToolStart {
                id,
                name,
                args_preview,
                summary,
            } => Event::ToolStart {
                id: id.clone(),
                name: name.clone(),
                args_preview: args_preview.clone(),
                summary: summary.clone(),
            },
            StreamMsg::ToolProgress { id, text } => Event::ToolProgress {
                id: id.clone(),
                text: text.clone(),
            },
            StreamMsg::ToolDone { id, result_preview } => Event::ToolDone {
                id: id.clone(),
                preview: result_preview.clone(),
            },
            StreamMsg::ToolFailed { id, error } => Event::ToolFailed {
                id: id.clone(),
                error: error.clone(),
            },
            StreamMsg::Subagent { parent, step } => Event::Subagent {
                parent: parent.clone(),
                step: step.clone(),
            },
            StreamMsg::ApprovalRequired {
                id,
                summary,
                detail,
            } => Event::ApprovalAsked {
                id: Some(id.clone()),
                summary: summary.clone(),
                detail: detail.clone(),
            },
            StreamMsg::Usage {
                input,
                cached_input,
                output,
                reasoning,
            } => Event::Usage {
                input: *input,
                cached_input: *cached_input,
                output: *output,
                reasoning: *reasoning,
            },
            StreamMsg::Compaction(report) => compaction_event(report),
            StreamMsg::Goal(report) => goal_event(report),
            StreamMsg::Notice(text) => Event::Notice { text: text.clone() },
            StreamMsg::Done => Event::Done,
            StreamMsg::Err(e) => error_event(e),
        }
    }
}

/// The `error` event for an engine error.
pub fn error_event(e: &EngineError) -> Event {
    Event::Error {
        kind: e.kind(),
        message: e.to_string(),
    }
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
}

fn compaction_event(r: &CompactionReport) -> Event {
    let (outcome, bytes) = match r {
        CompactionReport::Summarised {
            bytes_before,
            bytes_after,
            ..
        } => (
            CompactionOutcome::Summarised,
            Some((*bytes_before, *bytes_after)),
        ),
        CompactionReport::Dropped {
            bytes_before,
            bytes_after,
            ..
        } => (
            CompactionOutcome::Dropped,
            Some((*bytes_before, *bytes_after)),
        ),
        CompactionReport::Trimmed {
            bytes_before,
            bytes_after,
            ..
        } => (
            CompactionOutcome::Trimmed,
            Some((*bytes_before, *bytes_after)),
        ),
        CompactionReport::Failed { .. } => (CompactionOutcome::Failed, None),
        CompactionReport::NothingToCompact => (CompactionOutcome::Nothing, None),
    };
    Event::Compaction {
        outcome,
        bytes_before: bytes.map(|b| b.0),
        bytes_after: bytes.map(|b| b.1),
        message: r.to_string(),
    }
}

fn goal_event(r: &GoalReport) -> Event {
    let status = match r {
        GoalReport::State(g) => match g.state {
            GoalState::Active => GoalStatus::Active,
            GoalState::Paused { .. } => GoalStatus::Paused,
            GoalState::Blocked { .. } => GoalStatus::Blocked,
            GoalState::Complete => GoalStatus::Complete,
        },
        GoalReport::Check(c) if c.passed => GoalStatus::CheckPassed,
        GoalReport::Check(_) => GoalStatus::CheckFailed,
    };
    Event::Goal {
        status,
        message: r.to_string(),
    }
}
