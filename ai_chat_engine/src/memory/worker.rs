//! The memory curator's thread: it hears when turns start and end and
//! when front ends close conversations, and curates a conversation once
//! it is idle: closed, or [`MEMORY_IDLE_DELAY`] after its last turn ended
//! with no new turn begun. Only conversations that had a turn in this
//! engine are read, and each message once.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ai_tools::CancelToken;
use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};

use crate::agent::{Agent, Snapshot};
use crate::conversation::Conversation;
use crate::memory::{MemoryError, MemoryPaths, MemoryReport};

/// Reports kept for a front end that does not read them: the newest are
/// dropped past this many, and nothing blocks.
const REPORT_BACKLOG: usize = 64;

/// What one curation came to.
pub type MemoryOutcome = Result<MemoryReport, MemoryError>;

/// What the worker hears.
pub(crate) enum Event {
    /// A turn began: the conversation is not idle.
    TurnStarted(String),
    /// A turn ended: idle from now unless another begins.
    TurnEnded(Snapshot),
    /// The front end is done with it: curate now, and answer here.
    Close(Snapshot, Sender<MemoryOutcome>),
}

/// The engine's handle on the worker.
pub(crate) struct MemoryWorker {
    events: Sender<Event>,
    reports: Receiver<MemoryOutcome>,
    data_dir: PathBuf,
}

/// A conversation waiting to go idle.
struct Pending {
    snap: Snapshot,
    due: Instant,
}

struct State {
    agent: Arc<Agent>,
    data_dir: PathBuf,
    delay: Duration,
    pending: HashMap<String, Pending>,
    /// Messages of each conversation already read.
    read_up_to: HashMap<String, usize>,
    /// Conversations that had a turn in this engine.
    seen: HashSet<String>,
    reports: Sender<MemoryOutcome>,
}

impl MemoryWorker {
    /// Starts the thread; `None` if the system will not start one (memory
    /// is then off for this engine).
    pub fn start(agent: Arc<Agent>, data_dir: PathBuf, delay: Duration) -> Option<MemoryWorker> {
        let (events, rx) = crossbeam_channel::unbounded();
        let (report_tx, reports) = crossbeam_channel::bounded(REPORT_BACKLOG);
        let state = State {
            agent,
            data_dir: data_dir.clone(),
            delay,
            pending: HashMap::new(),
            read_up_to: HashMap::new(),
            seen: HashSet::new(),
            reports: report_tx,
        };
        std::thread::Builder::new()
            .name("koi-memory".into())
            .spawn(move || state.run(&rx))
            .ok()?;
        Some(MemoryWorker {
            events,
            reports,
            data_dir,
        })
    }

    /// A sender for turn threads.
    pub fn events(&self) -> Sender<Event> {
        self.events.clone()
    }

    /// Every curation's outcome, idle and closed alike.
    pub fn reports(&self) -> Receiver<MemoryOutcome> {
        self.reports.clone()
    }

    /// Where the memory of `workspace` lives.
    pub fn paths(&self, workspace: &std::path::Path) -> MemoryPaths {
        MemoryPaths::new(&self.data_dir, workspace)
    }

    /// Asks for `conv` to be curated now; the answer comes on the receiver.
    pub fn close(&self, conv: &Conversation) -> Receiver<MemoryOutcome> {
        let (tx, rx) = crossbeam_channel::bounded(1);
        let _ = self.events.send(Event::Close(Snapshot::of(conv), tx));
        rx
    }
}

impl State {
    fn run(mut self, rx: &Receiver<Event>) {
        loop {
            let next = self.pending.values().map(|p| p.due).min();
            let event = match next {
                Some(due) => rx.recv_timeout(due.saturating_duration_since(Instant::now())),
                None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
            };
            match event {
                Ok(Event::TurnStarted(id)) => {
                    // Seen from the start: the front end may close the
                    // conversation as soon as it has the turn's last
                    // message, before `TurnEnded` arrives here.
                    self.pending.remove(&id);
                    self.seen.insert(id);
                }
                Ok(Event::TurnEnded(snap)) => {
                    let id = snap.id.clone();
                    let due = Instant::now() + self.delay;
                    self.pending.insert(id, Pending { snap, due });
                }
                Ok(Event::Close(snap, answer)) => {
                    self.pending.remove(&snap.id);
                    let outcome = self.curate(&snap);
                    let _ = self.reports.try_send(clone_outcome(&outcome));
                    let _ = answer.send(outcome);
                }
                Err(RecvTimeoutError::Timeout) => {
                    let now = Instant::now();
                    let due: Vec<String> = self
                        .pending
                        .iter()
                        .filter(|(_, p)| p.due <= now)
                        .map(|(id, _)| id.clone())
                        .collect();
                    for id in due {
                        if let Some(p) = self.pending.remove(&id) {
                            let outcome = self.curate(&p.snap);
                            let _ = self.reports.try_send(outcome);
                        }
                    }
                }
                Err(RecvTimeoutError::Disconnected) => return,
            }
        }
    }

    fn curate(&mut self, snap: &Snapshot) -> MemoryOutcome {
        let id = snap.id.clone();
        let from = self.read_up_to.get(&id).copied().unwrap_or(0);
        if !self.seen.contains(&id) || from >= snap.total {
            return Ok(MemoryReport {
                conversation: id,
                changes: Vec::new(),
            });
        }
        let paths = MemoryPaths::new(&self.data_dir, &snap.cwd);
        let outcome = self.agent.curate(snap, from, &paths, &CancelToken::new());
        // Read once, whatever the answer: a refused patch is not asked for
        // again with the same text.
        self.read_up_to.insert(id, snap.total);
        outcome
    }
}

/// The outcome for the second listener (an I/O error cannot be cloned,
/// so it goes on as its message).
fn clone_outcome(outcome: &MemoryOutcome) -> MemoryOutcome {
    match outcome {
        Ok(r) => Ok(r.clone()),
        Err(e) => Err(MemoryError::Request(e.to_string())),
    }
}
