//! A conversation: its durable events (the truth), the projections kept
//! beside them (the model's history, title, context), where they are
//! written, and whether a turn is running on it.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use ai_tools::run_tag::RunTag;

use crate::compaction::policy::Trigger;
use crate::compaction::report::CompactionState;
use crate::cost::{Prices, UsageReport};
use crate::goal::{Goal, GoalRecord, GoalState, RESUMED_PAUSE_REASON};
use crate::image::MediaLevel;
use crate::message::{Message, ToolCall};
use crate::prompt::EnvironmentFacts;
use crate::store::recovery::{self, Step, UncertainCall};
use crate::store::session_log::{
    self, CompactionMethod, ConversationContext, ConversationLock, Entry, ForkOrigin, LockError,
    Record, SessionLog, UncertainDecision, LOG_FORMAT,
};
use crate::stream::EngineError;
use crate::time::now_rfc3339;

/// Nothing running.
const IDLE: u8 = 0;
/// A turn is running.
const RUNNING: u8 = 1;
/// The turn is over but its title request is still out.
const TITLING: u8 = 2;

/// What the model is told about an uncertain call the user abandoned.
pub const ABANDONED_RESULT: &str = "abandoned by the user; its effect is unknown. koi stopped \
while this call was running, and the user chose not to run it again. Check the current state \
before relying on it or repeating it.";

/// Where a conversation's events go.
#[derive(Debug)]
pub(crate) enum Sink {
    /// Sessions are not saved by this engine.
    Off,
    /// Saved; the file is created with the first turn.
    Pending(PathBuf),
    /// Open for writing (holding its lock).
    Open(SessionLog),
    /// A write failed: nothing reaches disk any more, and nothing that
    /// needs a durable record (a tool's start) may happen.
    Broken(String),
    /// Opened to read while someone else holds it.
    ReadOnly(String),
}

/// Who made the conversation's first line (for its meta record).
pub(crate) struct Origin {
    pub provider: String,
    pub model: String,
    pub context: ConversationContext,
}

pub(crate) struct ConvState {
    pub id: String,
    pub title: Option<String>,
    pub messages: Vec<Message>,
    /// Every event so far, in order: what the planner reads.
    records: Vec<Record>,
    sink: Sink,
    pub cwd: PathBuf,
    /// Facts as last told to the model, to notice changes.
    pub env_facts: Option<EnvironmentFacts>,
    /// A title request was made (once per conversation, even if it failed).
    pub title_attempted: bool,
    pub context: ConversationContext,
    forked_from: Option<ForkOrigin>,
    /// Processes ended on load because an interrupted call left them
    /// running: (call id, how many).
    strays_ended: Vec<(String, usize)>,
    /// Compaction's cooldown after a failed summary.
    pub compaction: CompactionState,
    /// Goal mode's goal, if one is set.
    pub goal: Option<Goal>,
    /// How much of the history's media requests carry.
    pub media: MediaLevel,
}

struct Shared {
    state: Mutex<ConvState>,
    phase: AtomicU8,
}

/// A handle to one conversation; clones share it. Read its history at any
/// time; submit turns through [`crate::Engine::submit`].
#[derive(Clone)]
pub struct Conversation {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Conversation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Conversation")
            .field("id", &self.id())
            .field("messages", &self.lock().messages.len())
            .finish()
    }
}

impl Conversation {
    pub(crate) fn from_state(state: ConvState) -> Conversation {
        Conversation {
            shared: Arc::new(Shared {
                state: Mutex::new(state),
                phase: AtomicU8::new(IDLE),
            }),
        }
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, ConvState> {
        // A panicked turn must not make the history unreadable.
        self.shared
            .state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The session id (also the log file's stem).
    pub fn id(&self) -> String {
        self.lock().id.clone()
    }

    /// The generated title, once there is one.
    pub fn title(&self) -> Option<String> {
        self.lock().title.clone()
    }

    /// A snapshot of the history the model sees.
    pub fn messages(&self) -> Vec<Message> {
        self.lock().messages.clone()
    }

    /// The tokens every round of this conversation used (earlier
    /// processes' rounds included), priced with `prices`.
    pub fn usage_report(&self, prices: &Prices) -> UsageReport {
        let st = self.lock();
        UsageReport::from_entries(st.records.iter().map(|r| &r.entry), prices)
    }

    /// One-line notes worth telling the user when continuing this
    /// conversation with tools working in `workspace`: that it began
    /// elsewhere, that it is a fork, and calls a crash left with an
    /// unknown effect.
    pub fn resume_notes(&self, workspace: &Path) -> Vec<String> {
        let mut out = Vec::new();
        let there = self.cwd();
        if workspace.canonicalize().ok() != there.canonicalize().ok() {
            out.push(format!(
                "note: this conversation began in {}; tools work in {}",
                there.display(),
                workspace.display()
            ));
        }
        if let Some(origin) = self.forked_from() {
            out.push(format!("note: a fork of session {}", origin.session));
        }
        for (call, n) in &self.lock().strays_ended {
            out.push(format!(
                "note: ended {n} process(es) the interrupted call {call} left running"
            ));
        }
        if let Some(goal) = self.goal().filter(|g| g.state != GoalState::Complete) {
            out.push(format!(
                "note: {goal} (/goal resume goes on, /goal clear ends it)"
            ));
        }
        let uncertain = self.uncertain_calls();
        if !uncertain.is_empty() {
            let names: Vec<_> = uncertain.iter().map(|c| c.call.name.as_str()).collect();
            out.push(format!(
                "note: {} tool call(s) were interrupted earlier and may have partly run: {}; \
                 nothing runs again until you choose rerun or abandon",
                uncertain.len(),
                names.join(", ")
            ));
        }
        out
    }

    /// The history as a front end shows it (see [`crate::store::transcript`]).
    pub fn transcript(&self) -> Vec<crate::TranscriptItem> {
        crate::store::transcript::transcript(&self.lock().messages)
    }

    /// The session log file, once the first turn created it.
    pub fn log_path(&self) -> Option<PathBuf> {
        match &self.lock().sink {
            Sink::Open(l) => Some(l.path().to_path_buf()),
            _ => None,
        }
    }

    /// Tool calls that started and never reported back, with no decision
    /// yet: their effect is unknown. Decide each with
    /// [`Conversation::decide_uncertain`]. Empty while a turn runs here
    /// (its started calls are running, not interrupted).
    pub fn uncertain_calls(&self) -> Vec<UncertainCall> {
        if self.is_busy() {
            return Vec::new();
        }
        recovery::unresolved_uncertain(&self.lock().records)
    }

    /// The one safe next step, as the recovery planner reads the log:
    /// anything but [`Step::Idle`] means an interrupted turn can be
    /// continued with [`crate::Engine::resume`].
    pub fn next_step(&self) -> Step {
        self.plan()
    }

    pub(crate) fn plan(&self) -> Step {
        recovery::plan(&self.lock().records)
    }

    /// Records the user's choice for an uncertain call. `Abandon` gives
    /// the call its result (the model is told its effect is unknown);
    /// `Rerun` lets the next turn (or [`crate::Engine::resume`]) run it
    /// once more.
    pub fn decide_uncertain(
        &self,
        call_id: &str,
        decision: UncertainDecision,
    ) -> Result<(), EngineError> {
        if self.is_busy() {
            return Err(EngineError::Busy);
        }
        let mut st = self.lock();
        let Some(u) = recovery::unresolved_uncertain(&st.records)
            .into_iter()
            .find(|u| u.call.id == call_id)
        else {
            return Err(EngineError::Session(format!(
                "no undecided interrupted call {call_id:?} in this conversation"
            )));
        };
        st.record_durable(Entry::UncertainDecided {
            call_id: call_id.to_string(),
            decision,
        })?;
        // Only a call of the open round gets its result now; a format-1
        // log already gave it a placeholder.
        let open_round = matches!(
            recovery::plan(&st.records),
            Step::Close { ref call, .. } if call.id == u.call.id
        );
        if open_round {
            st.push_result(&u.call, ABANDONED_RESULT.to_string(), String::new(), true);
        }
        Ok(())
    }

    /// Why the session log could not be written, if it could not.
    pub fn log_error(&self) -> Option<String> {
        match &self.lock().sink {
            Sink::Broken(why) => Some(why.clone()),
            _ => None,
        }
    }

    /// True when opened read-only because another process holds it.
    pub fn is_read_only(&self) -> bool {
        matches!(self.lock().sink, Sink::ReadOnly(_))
    }

    /// The goal (goal mode), if one is set.
    pub fn goal(&self) -> Option<Goal> {
        self.lock().goal.clone()
    }

    /// The per-conversation context (workspace, tools, provider blocks),
    /// as its log last recorded it.
    pub fn context(&self) -> ConversationContext {
        self.lock().context.clone()
    }

    /// Where this conversation was forked from, if it is a fork.
    pub fn forked_from(&self) -> Option<ForkOrigin> {
        self.lock().forked_from.clone()
    }

    /// The working directory this conversation belongs to.
    pub fn cwd(&self) -> PathBuf {
        self.lock().cwd.clone()
    }

    /// True while a turn (or its title request) is running.
    pub fn is_busy(&self) -> bool {
        self.shared.phase.load(Ordering::SeqCst) != IDLE
    }

    /// Claims the conversation for a turn: `Ok` when it was idle, `Err(true)`
    /// when only a title request is out (wait), `Err(false)` when a turn runs.
    pub(crate) fn try_begin(&self) -> Result<(), bool> {
        match self
            .shared
            .phase
            .compare_exchange(IDLE, RUNNING, Ordering::SeqCst, Ordering::SeqCst)
        {
            Ok(_) => Ok(()),
            Err(TITLING) => Err(true),
            Err(_) => Err(false),
        }
    }

    pub(crate) fn set_titling(&self) {
        self.shared.phase.store(TITLING, Ordering::SeqCst);
    }

    pub(crate) fn end(&self) {
        self.shared.phase.store(IDLE, Ordering::SeqCst);
    }

    /// Appends to the log only (usage, turn ends, drafts, approvals).
    pub(crate) fn record(&self, entry: Entry) {
        self.lock().record(entry);
    }

    /// Appends an entry that must be on disk before koi goes on.
    pub(crate) fn record_durable(&self, entry: Entry) -> Result<(), EngineError> {
        self.lock().record_durable(entry)
    }

    /// Appends a message to the history and its entry to the log.
    pub(crate) fn push(&self, message: Message, entry: Entry) {
        let mut st = self.lock();
        st.messages.push(message);
        st.record(entry);
    }

    /// Appends a notice and the context it brought (the log records the
    /// context after the notice, so a resume knows what was told).
    pub(crate) fn notice_with_context(&self, text: String, context: ConversationContext) {
        let mut st = self.lock();
        st.messages.push(Message::Notice(text.clone()));
        st.record(Entry::Notice { text });
        st.record(Entry::Context(context.clone()));
        st.context = context;
    }

    /// Appends a tool result to history and log.
    pub(crate) fn push_result(&self, call: &ToolCall, content: String, full: String, err: bool) {
        self.lock().push_result(call, content, full, err);
    }

    /// A model call identical to an uncertain, undecided one (same tool,
    /// same arguments as JSON): running it would repeat an effect nobody
    /// has confirmed.
    pub(crate) fn repeats_uncertain(&self, call: &ToolCall) -> Option<UncertainCall> {
        let same_args = |a: &str, b: &str| match (
            serde_json::from_str::<serde_json::Value>(a),
            serde_json::from_str::<serde_json::Value>(b),
        ) {
            (Ok(x), Ok(y)) => x == y,
            _ => a.trim() == b.trim(),
        };
        let open = recovery::unresolved_uncertain(&self.lock().records);
        open.into_iter().find(|u| {
            u.call.id != call.id
                && u.call.name == call.name
                && same_args(&u.call.arguments, &call.arguments)
        })
    }

    /// Creates the session file (under its lock) on the first turn.
    pub(crate) fn ensure_log(&self, origin: Origin) {
        let mut st = self.lock();
        if matches!(st.sink, Sink::Off) && st.messages.is_empty() {
            // Not saved, but its tool list is still fixed from now on.
            st.context = origin.context;
            return;
        }
        let Sink::Pending(dir) = &st.sink else {
            return;
        };
        let dir = dir.clone();
        let meta = Entry::Meta {
            session: st.id.clone(),
            cwd: st.cwd.to_string_lossy().into_owned(),
            provider: origin.provider,
            model: origin.model,
            format: LOG_FORMAT,
            forked_from: None,
        };
        let first = vec![meta, Entry::Context(origin.context.clone())];
        st.context = origin.context;
        let opened = ConversationLock::acquire(&dir, &st.id)
            .map_err(|e| e.to_string())
            .and_then(|lock| {
                SessionLog::create(&dir, &st.id, lock, first).map_err(|e| e.to_string())
            });
        st.sink = match opened {
            Ok((log, records)) => {
                st.records.extend(records);
                Sink::Open(log)
            }
            Err(e) => Sink::Broken(format!("{}: {e}", dir.display())),
        };
    }
}

mod state;

pub(crate) use state::locked_error;
