//! What a compaction did, as front ends are told it, and the state a
//! conversation keeps between compactions. A leaf: the message types
//! name these without reaching the compactor.

use koi_protocol::{CompactionOutcome, Event};

use super::policy::Trigger;

/// Per-conversation compaction state that is not in the log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CompactionState {
    /// Rounds left before a failed summary may be tried again.
    pub cooldown: u32,
}

/// What a compaction did (or why it did not), as front ends show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompactionReport {
    /// Older history was summarised.
    Summarised {
        /// Why.
        trigger: Trigger,
        /// Request size before.
        bytes_before: usize,
        /// Request size after.
        bytes_after: usize,
        /// Messages folded into the summary.
        messages_folded: usize,
    },
    /// Older history was dropped: the window was nearly full and no
    /// summary could be had. The model was given a marker.
    Dropped {
        /// Why a compaction was due.
        trigger: Trigger,
        /// Request size before.
        bytes_before: usize,
        /// Request size after.
        bytes_after: usize,
        /// Messages dropped.
        messages_dropped: usize,
        /// Why the summary failed.
        error: String,
    },
    /// Large old tool results were trimmed (the estimate said the broken
    /// prefix pays for itself).
    Trimmed {
        /// Results trimmed.
        results: usize,
        /// Request size before.
        bytes_before: usize,
        /// Request size after.
        bytes_after: usize,
    },
    /// The summary failed; the full history is kept.
    Failed {
        /// Why a compaction was due.
        trigger: Trigger,
        /// What went wrong.
        error: String,
        /// Rounds until the next try.
        retry_in_rounds: u32,
    },
    /// Asked for, but the history is too short to fold.
    NothingToCompact,
}

impl std::fmt::Display for CompactionReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kb = |b: &usize| b / 1024;
        match self {
            CompactionReport::Summarised {
                trigger,
                bytes_before,
                bytes_after,
                messages_folded,
            } => write!(
                f,
                "context compacted ({trigger}): {messages_folded} older messages summarised, \
                 {} KB → {} KB",
                kb(bytes_before),
                kb(bytes_after)
            ),
            CompactionReport::Dropped {
                bytes_before,
                bytes_after,
                messages_dropped,
                error,
                ..
            } => write!(
                f,
                "context nearly full and the summary failed ({error}): {messages_dropped} older \
                 messages DROPPED from the model's view (the session log keeps them), {} KB → {} KB",
                kb(bytes_before),
                kb(bytes_after)
            ),
            CompactionReport::Trimmed {
                results,
                bytes_before,
                bytes_after,
            } => write!(
                f,
                "context trimmed: {results} old tool results shortened, {} KB → {} KB",
                kb(bytes_before),
                kb(bytes_after)
            ),
            CompactionReport::Failed {
                trigger,
                error,
                retry_in_rounds,
            } => write!(
                f,
                "compaction ({trigger}) failed: {error}; the full history is kept, retry in \
                 {retry_in_rounds} rounds"
            ),
            CompactionReport::NothingToCompact => {
                f.write_str("nothing to compact yet: the history fits in the verbatim tail")
            }
        }
    }
}

impl CompactionReport {
    /// The report as the event front ends are sent.
    pub fn to_event(&self) -> Event {
        let (outcome, bytes) = match self {
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
            message: self.to_string(),
        }
    }
}
