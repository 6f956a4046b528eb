//! A conversation: its history (a projection of its session log), the open
//! log file, and whether a turn is running on it.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::message::{Message, ToolCall};
use crate::prompt::EnvironmentFacts;
use crate::session_log::{Entry, SessionLog};

/// Nothing running.
const IDLE: u8 = 0;
/// A turn is running.
const RUNNING: u8 = 1;
/// The turn is over but its title request is still out.
const TITLING: u8 = 2;

pub(crate) struct ConvState {
    pub id: String,
    pub title: Option<String>,
    pub messages: Vec<Message>,
    pub log: Option<SessionLog>,
    /// The first write error, reported once.
    pub log_error: Option<String>,
    pub cwd: PathBuf,
    /// Facts as last told to the model, to notice changes.
    pub env_facts: Option<EnvironmentFacts>,
    pub uncertain: Vec<ToolCall>,
    /// A title request was made (once per conversation, even if it failed).
    pub title_attempted: bool,
    /// Entries in the log file so far (for ids when reopening).
    pub persist_dir: Option<PathBuf>,
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

    /// One-line notes worth telling the user when continuing this
    /// conversation with tools working in `workspace`: that it began
    /// elsewhere, and calls a crash left with an unknown effect.
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
        let uncertain = self.uncertain_calls();
        if !uncertain.is_empty() {
            let names: Vec<_> = uncertain.iter().map(|c| c.name.as_str()).collect();
            out.push(format!(
                "note: {} tool call(s) were interrupted earlier and may have partly run: {}",
                uncertain.len(),
                names.join(", ")
            ));
        }
        out
    }

    /// The history as a front end shows it (see [`crate::transcript`]).
    pub fn transcript(&self) -> Vec<crate::TranscriptItem> {
        crate::transcript::transcript(&self.lock().messages)
    }

    /// The session log file, once the first turn created it.
    pub fn log_path(&self) -> Option<PathBuf> {
        self.lock().log.as_ref().map(|l| l.path().to_path_buf())
    }

    /// Tool calls that started before a crash and never reported back:
    /// their effect is unknown.
    pub fn uncertain_calls(&self) -> Vec<ToolCall> {
        self.lock().uncertain.clone()
    }

    /// Why the session log could not be written, if it could not.
    pub fn log_error(&self) -> Option<String> {
        self.lock().log_error.clone()
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

    /// Appends to the log only (usage, turn ends, tool starts).
    pub(crate) fn record(&self, entry: Entry, synced: bool) {
        let mut st = self.lock();
        st.write(entry, synced);
    }

    /// Appends a message to the history and its entry to the log.
    pub(crate) fn push(&self, message: Message, entry: Entry) {
        let mut st = self.lock();
        st.messages.push(message);
        st.write(entry, false);
    }
}

impl ConvState {
    pub(crate) fn new(id: String, cwd: &Path, persist_dir: Option<PathBuf>) -> ConvState {
        ConvState {
            id,
            title: None,
            messages: Vec::new(),
            log: None,
            log_error: None,
            cwd: cwd.to_path_buf(),
            env_facts: None,
            uncertain: Vec::new(),
            title_attempted: false,
            persist_dir,
        }
    }

    pub(crate) fn write(&mut self, entry: Entry, synced: bool) {
        let Some(log) = self.log.as_mut() else {
            return;
        };
        let r = if synced {
            log.append_synced(entry)
        } else {
            log.append(entry)
        };
        if let Err(e) = r {
            if self.log_error.is_none() {
                self.log_error = Some(format!("{}: {e}", log.path().display()));
            }
        }
    }
}
