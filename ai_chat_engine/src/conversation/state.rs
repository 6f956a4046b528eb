//! The conversation's state under its lock: how each durable event is
//! appended to the log and folded into the projections beside it. A
//! child of `conversation`, which owns the state's fields.

use super::*;

impl ConvState {
    /// A fresh conversation: `persist_dir` is where its log will be.
    pub(crate) fn new(id: String, cwd: &Path, persist_dir: Option<PathBuf>) -> ConvState {
        ConvState {
            id,
            title: None,
            messages: Vec::new(),
            records: Vec::new(),
            sink: persist_dir.map_or(Sink::Off, Sink::Pending),
            cwd: cwd.to_path_buf(),
            env_facts: None,
            title_attempted: false,
            context: ConversationContext::default(),
            forked_from: None,
            strays_ended: Vec::new(),
            compaction: CompactionState::default(),
            goal: None,
            media: MediaLevel::Full,
        }
    }

    /// A conversation rebuilt from its records (the projections replayed).
    pub(crate) fn from_records(
        id: String,
        records: Vec<Record>,
        sink: Sink,
        default_cwd: &Path,
    ) -> ConvState {
        let replayed = session_log::replay(&records);
        let cwd = match &replayed.meta {
            Some(Entry::Meta { cwd, .. }) => PathBuf::from(cwd),
            _ => default_cwd.to_path_buf(),
        };
        let env_facts = crate::project_instructions::environment(&replayed.messages)
            .map(|text| EnvironmentFacts::parse_changeable(text, &cwd));
        ConvState {
            id,
            title: replayed.title,
            messages: replayed.messages,
            records,
            sink,
            cwd,
            env_facts,
            title_attempted: false,
            context: replayed.context,
            forked_from: replayed.forked_from,
            strays_ended: Vec::new(),
            compaction: CompactionState::default(),
            goal: replayed.goal,
            media: replayed.media,
        }
    }

    /// Ends every process still carrying the run tag of an interrupted
    /// call (a crashed run's children go on otherwise, and would change
    /// the state the user is about to decide on). Only the lock holder
    /// does this: it is the one that may rerun the call.
    pub(crate) fn end_strays(&mut self) {
        for u in recovery::unresolved_uncertain(&self.records) {
            let Some(tag) = u.run_tag.as_deref().and_then(RunTag::from_recorded) else {
                continue;
            };
            let n = tag.kill(None);
            if n > 0 {
                self.strays_ended.push((u.call.id, n));
            }
        }
    }

    /// A goal the log left active was cut short (a crash, an exit): it
    /// comes back paused, recorded, and never runs by itself.
    pub(crate) fn pause_interrupted_goal(&mut self) {
        let Some(goal) = self.goal.as_mut() else {
            return;
        };
        if goal.state != GoalState::Active {
            return;
        }
        goal.state = GoalState::Paused {
            reason: RESUMED_PAUSE_REASON.to_string(),
        };
        let record = GoalRecord::Progress {
            state: goal.state.clone(),
            used: goal.used,
        };
        self.record(Entry::Goal(record));
    }

    /// Ends the goal (recorded); `false` when there was none.
    pub(crate) fn clear_goal(&mut self) -> bool {
        if self.goal.take().is_none() {
            return false;
        }
        self.record(Entry::Goal(GoalRecord::Cleared));
        true
    }

    /// Tokens (input and output) the conversation's rounds used so far.
    pub(crate) fn tokens_used(&self) -> u64 {
        self.records
            .iter()
            .map(|r| match &r.entry {
                Entry::Usage { input, output, .. } => input + output,
                _ => 0,
            })
            .sum()
    }

    /// Turns may run on it (it is not someone else's).
    pub(crate) fn writable(&self) -> Result<(), EngineError> {
        match &self.sink {
            Sink::ReadOnly(holder) => Err(EngineError::Session(format!(
                "this conversation is read-only here ({holder})"
            ))),
            _ => Ok(()),
        }
    }

    fn memory_record(&self, entry: Entry) -> Record {
        Record {
            id: format!("e{}", self.records.len() + 1),
            ts: now_rfc3339(),
            entry,
        }
    }

    /// Best effort: the event joins the history in memory whatever
    /// happens; a failed write breaks the log for good (see [`Sink`]).
    pub(crate) fn record(&mut self, entry: Entry) {
        // The failure is kept in the sink (see `log_error`); what needs
        // the disk asks through `record_durable` and is refused there.
        let _ = self.append(entry, false);
    }

    /// The event happens only if it is durably written (or sessions are
    /// not saved at all); otherwise `Err(Session)` and nothing is kept.
    pub(crate) fn record_durable(&mut self, entry: Entry) -> Result<(), EngineError> {
        self.append(entry, true)
    }

    fn append(&mut self, entry: Entry, required: bool) -> Result<(), EngineError> {
        let written = match &mut self.sink {
            Sink::Open(log) => {
                let r = log.append(entry.clone());
                Some(r.map_err(|e| format!("{}: {e}", log.path().display())))
            }
            Sink::Broken(why) | Sink::ReadOnly(why) => Some(Err(why.clone())),
            Sink::Off | Sink::Pending(_) => None,
        };
        let why = match written {
            Some(Ok(record)) => {
                self.records.push(record);
                return Ok(());
            }
            None => {
                let record = self.memory_record(entry);
                self.records.push(record);
                return Ok(());
            }
            Some(Err(why)) => why,
        };
        if matches!(self.sink, Sink::Open(_)) {
            self.sink = Sink::Broken(why.clone());
        }
        if required {
            return Err(EngineError::Session(format!(
                "the session log cannot be written ({why}), so nothing that needs a durable \
                 record may run"
            )));
        }
        let record = self.memory_record(entry);
        self.records.push(record);
        Err(EngineError::Session(why))
    }

    pub(crate) fn push_result(
        &mut self,
        call: &ToolCall,
        content: String,
        full: String,
        err: bool,
    ) {
        let full = if full.is_empty() {
            content.clone()
        } else {
            full
        };
        self.messages.push(Message::ToolResult {
            call_id: call.id.clone(),
            name: call.name.clone(),
            content: content.clone(),
            is_error: err,
        });
        self.record(Entry::ToolResult {
            call_id: call.id.clone(),
            name: call.name.clone(),
            is_error: err,
            for_model: content,
            full,
        });
    }

    /// Replaces older history with a summary or drop marker (recorded);
    /// `bytes` is the request size before and after.
    pub(crate) fn compact(
        &mut self,
        text: String,
        keep_from: usize,
        method: CompactionMethod,
        trigger: Trigger,
        bytes: (usize, usize),
    ) {
        self.messages = crate::compaction::history::apply_summary(&self.messages, &text, keep_from);
        self.record(Entry::Summary {
            text,
            keep_from,
            method,
            trigger: Some(trigger),
            bytes_before: bytes.0,
            bytes_after: bytes.1,
        });
    }

    /// Trims the results of `call_ids` in the model's view (recorded).
    pub(crate) fn trim(&mut self, call_ids: Vec<String>, bytes: (usize, usize)) {
        crate::compaction::history::apply_trim(&mut self.messages, &call_ids);
        self.record(Entry::Trimmed {
            call_ids,
            bytes_before: bytes.0,
            bytes_after: bytes.1,
        });
    }
}

/// Turns a lock failure into the error a front end shows.
pub(crate) fn locked_error(session: &str, e: LockError) -> EngineError {
    match e {
        LockError::Held(holder) => EngineError::Locked {
            session: session.to_string(),
            holder: holder.map_or_else(|| "open elsewhere".to_string(), |h| h.to_string()),
        },
        LockError::Io(e) => EngineError::Session(format!("cannot lock {session}: {e}")),
    }
}
