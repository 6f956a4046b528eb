//! What one line of a session log records.
//!
//! Format history: 1 had no approvals, drafts, decisions or proofs; 2 adds
//! them and the per-conversation context, and later an assistant round's
//! opaque `reasoning_blocks` and a round's `reasoning` tokens, then a user
//! line's `images` and the `media` level. Every field
//! added in 2 has a default, so a format-1 log still reads (its calls
//! count as unproven) and an older format-2 log has no reasoning blocks.

use serde::{Deserialize, Serialize};

use crate::compaction::Trigger;
use crate::goal::GoalRecord;
use crate::image::{Image, MediaLevel};
use crate::message::{Attachment, ReasoningBlock, ToolCall};

/// Version of the entry format, written in [`Entry::Meta`].
pub const LOG_FORMAT: u32 = 2;

/// One line: an id, a timestamp and the entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Unique within the file (`e1`, `e2`, …).
    pub id: String,
    /// RFC 3339 UTC.
    pub ts: String,
    /// What happened.
    #[serde(flatten)]
    pub entry: Entry,
}

/// Where a forked conversation came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForkOrigin {
    /// The source session id.
    pub session: String,
    /// How many of its records were copied.
    pub records: usize,
}

/// The per-conversation context: what the conversation runs against,
/// beside its history. Other parts of koi extend it; every field must
/// have a default so older logs keep loading.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ConversationContext {
    /// The directory tools work in.
    #[serde(default)]
    pub workspace: String,
    /// Names of the tools offered to the model.
    #[serde(default)]
    pub tools: Vec<String>,
    /// The MCP tools declared in the conversation's first request (sorted
    /// by name): part of its `tools`, kept here so a resumed conversation
    /// sends the same bytes whatever the servers offer now.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mcp_tools: Vec<ai_tools::ToolSpec>,
    /// MCP tools told to the model in a notice since (exposed name to a
    /// fingerprint of its spec), so each change is announced once.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub mcp_announced: std::collections::BTreeMap<String, String>,
    /// Opaque provider state that must travel with the conversation
    /// (thinking signatures and the like), by provider name.
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub provider_blocks: serde_json::Map<String, serde_json::Value>,
}

/// How older history left the model's view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompactionMethod {
    /// Replaced by the model's summary.
    Summary,
    /// Replaced by a marker saying what was dropped (the window was
    /// nearly full and no summary could be had).
    Dropped,
}

/// What the policy proved about a call when it started.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StartProof {
    /// Proven to change nothing: safe to run again after a crash.
    ReadOnly,
    /// Anything else (and every format-1 start).
    #[default]
    Unproven,
}

/// Who or what settled an approval request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decider {
    /// The user answered.
    User,
    /// Nobody answered in time.
    Timeout,
    /// The request was dismissed without an answer.
    Dismissed,
}

/// The user's choice for a call whose effect is uncertain (the
/// protocol's [`koi_protocol::Op::Decide`] carries it; logged as is).
pub use koi_protocol::UncertainDecision;

/// What a line records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Entry {
    /// First line: which session, where, with what.
    Meta {
        /// Session id (also the file stem).
        session: String,
        /// Working directory the conversation belongs to.
        cwd: String,
        /// Provider name.
        provider: String,
        /// Model name.
        model: String,
        /// [`LOG_FORMAT`].
        format: u32,
        /// Set when this conversation is a copy of another.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        forked_from: Option<ForkOrigin>,
    },
    /// The conversation's context (the latest one holds).
    Context(ConversationContext),
    /// The environment message.
    Environment {
        /// Its text.
        text: String,
    },
    /// A user message.
    User {
        /// What they typed.
        text: String,
        /// Attached context.
        #[serde(default)]
        attachments: Vec<Attachment>,
        /// Attached images, base64 inline (see [`crate::image`]).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        images: Vec<Image>,
    },
    /// A model round began streaming; until its [`Entry::Assistant`],
    /// whatever it streams is a draft with no right to act.
    Draft {
        /// The round within its turn (1-based).
        round: usize,
    },
    /// A draft left by a crash was thrown away.
    DraftDiscarded,
    /// A model round's committed answer.
    Assistant {
        /// Text.
        text: String,
        /// Reasoning shown to the user (never sent back).
        #[serde(default)]
        reasoning: String,
        /// Tool calls (arguments as sent back to the provider).
        #[serde(default)]
        tool_calls: Vec<ToolCall>,
        /// The provider's raw stop reason.
        #[serde(default)]
        finish: String,
        /// Opaque reasoning the provider needs back with this round
        /// (thinking blocks with signatures, encrypted reasoning), kept
        /// exactly as received so a resumed conversation still has it.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        reasoning_blocks: Vec<ReasoningBlock>,
    },
    /// A committed call needs the user's consent.
    ApprovalAsked {
        /// Call id.
        call_id: String,
        /// What would run or change.
        summary: String,
    },
    /// How an approval request was settled.
    ApprovalDecided {
        /// Call id.
        call_id: String,
        /// Whether the call may run.
        approved: bool,
        /// Who settled it.
        by: Decider,
    },
    /// A tool call is about to run (synced to disk before it does).
    ToolStart {
        /// Call id.
        call_id: String,
        /// Tool.
        name: String,
        /// The model's raw arguments.
        arguments: String,
        /// What the policy proved about it.
        #[serde(default)]
        proof: StartProof,
        /// The tag its processes carry (to find strays after a crash).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        run_tag: Option<String>,
    },
    /// A tool call's result.
    ToolResult {
        /// Call id.
        call_id: String,
        /// Tool.
        name: String,
        /// Error, refusal or not run.
        is_error: bool,
        /// What the model was shown.
        for_model: String,
        /// The whole result.
        full: String,
    },
    /// The result of a call a `run_code` program made: recorded like a
    /// direct call's result (its start, approval and result are in the
    /// log), but never part of the history, where only the program's own
    /// result is. `call_id` is the program's call id, a dot and the call's
    /// number.
    CodeCallResult {
        /// The `run_code` call whose program made it.
        parent: String,
        /// Call id.
        call_id: String,
        /// Tool.
        name: String,
        /// Error, refusal or not run.
        is_error: bool,
        /// What the program was given.
        for_model: String,
    },
    /// The user decided what becomes of a call whose effect is uncertain.
    UncertainDecided {
        /// Call id.
        call_id: String,
        /// Rerun or abandon.
        decision: UncertainDecision,
    },
    /// An engine notice shown to the model.
    Notice {
        /// Its text.
        text: String,
    },
    /// Token usage of one round.
    Usage {
        /// Model used.
        model: String,
        /// Input tokens (cached included).
        input: u64,
        /// Cached input tokens.
        cached_input: u64,
        /// Output tokens.
        output: u64,
        /// Of the output, reasoning tokens (0 where not reported).
        #[serde(default, skip_serializing_if = "is_zero")]
        reasoning: u64,
    },
    /// Older history replaced by a summary: the model now sees the
    /// environment, this text, then messages from `keep_from` on.
    Summary {
        /// The summary (or the drop marker).
        text: String,
        /// Index of the first message kept verbatim.
        keep_from: usize,
        /// Summarised, or dropped because no summary could be had.
        method: CompactionMethod,
        /// Why it happened (absent in logs written before triggers).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        trigger: Option<Trigger>,
        /// Request bytes before.
        #[serde(default)]
        bytes_before: usize,
        /// Request bytes after.
        #[serde(default)]
        bytes_after: usize,
    },
    /// Large old tool results shortened in the model's view (see
    /// [`crate::compaction::trimmed_result`]); the results here keep them.
    Trimmed {
        /// The calls whose results were trimmed.
        call_ids: Vec<String>,
        /// Request bytes before.
        bytes_before: usize,
        /// Request bytes after.
        bytes_after: usize,
    },
    /// A summary was due but failed; the history was kept whole.
    CompactionFailed {
        /// Why it was due.
        trigger: Trigger,
        /// What went wrong.
        error: String,
        /// Request bytes at the time.
        bytes: usize,
    },
    /// Goal mode: a goal set, its state, a check, or its end.
    Goal(GoalRecord),
    /// The provider rejected the history's images: from here on
    /// requests are built at this level (see [`MediaLevel`]).
    Media {
        /// The level now in force.
        level: MediaLevel,
    },
    /// The conversation's title.
    Title {
        /// The title.
        text: String,
    },
    /// A turn ended.
    TurnEnd {
        /// `done` or the error.
        outcome: String,
    },
}

impl Entry {
    /// Entries that must be on disk before koi acts on them: the start
    /// of a call that may have an effect (before the effect), and the
    /// user's choice about an uncertain call. A proven read-only start
    /// is only written: lost in a crash, it leaves a committed call that
    /// never started, which runs again just as a started read-only call
    /// would, so syncing it would buy nothing.
    pub fn needs_sync(&self) -> bool {
        match self {
            Entry::ToolStart { proof, .. } => *proof != StartProof::ReadOnly,
            Entry::UncertainDecided { .. } => true,
            _ => false,
        }
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}
