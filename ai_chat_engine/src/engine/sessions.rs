//! The engine's saved sessions: listing them, and opening one to continue
//! it, to read it, or to fork it. One writer per conversation: opening to
//! continue takes the conversation's lock.

use std::path::PathBuf;

use super::Engine;
use crate::conversation::{locked_error, ConvState, Conversation, Sink};
use crate::store::session_log::{self, ConversationLock, SessionInfo, SessionLog};
use crate::EngineError;

/// Checks a session id before it becomes part of a path.
fn checked_id(id: &str) -> Result<(), EngineError> {
    if id.is_empty() || id.contains(['/', '\\']) || id.starts_with('.') {
        return Err(EngineError::Session(format!("bad session id {id:?}")));
    }
    Ok(())
}

impl Engine {
    /// Every saved session, most recent first.
    pub fn sessions(&self) -> Vec<SessionInfo> {
        self.sessions_dir
            .as_deref()
            .map(session_log::list_sessions)
            .unwrap_or_default()
    }

    fn session_path(&self, id: &str) -> Result<(PathBuf, PathBuf), EngineError> {
        let dir = self
            .sessions_dir
            .clone()
            .ok_or_else(|| EngineError::Session("sessions are not saved in this engine".into()))?;
        checked_id(id)?;
        let path = session_log::log_path(&dir, id);
        if !path.is_file() {
            return Err(EngineError::Session(format!("no session {id:?}")));
        }
        Ok((dir, path))
    }

    /// Loads a saved conversation to continue it, taking its lock: one
    /// writer per conversation, so a conversation open elsewhere (another
    /// `k`, a koi panel, even in this process) is refused with
    /// [`EngineError::Locked`]; see [`Engine::open_read_only`] and
    /// [`Engine::fork_conversation`].
    pub fn load_conversation(&self, id: &str) -> Result<Conversation, EngineError> {
        let (dir, path) = self.session_path(id)?;
        let lock = ConversationLock::acquire(&dir, id).map_err(|e| locked_error(id, e))?;
        let io = |e: std::io::Error| EngineError::Session(format!("{}: {e}", path.display()));
        let loaded = session_log::read_log(&path).map_err(io)?;
        let log = SessionLog::open(&path, lock, loaded.records.len()).map_err(io)?;
        let mut st = ConvState::from_records(
            id.to_string(),
            loaded.records,
            Sink::Open(log),
            self.workspace(),
        );
        st.end_strays();
        st.pause_interrupted_goal();
        Ok(Conversation::from_state(st))
    }

    /// Opens a saved conversation to read it, whoever holds it; turns on
    /// it are refused.
    pub fn open_read_only(&self, id: &str) -> Result<Conversation, EngineError> {
        let (dir, path) = self.session_path(id)?;
        let holder = match ConversationLock::acquire(&dir, id) {
            Ok(_free) => "not open anywhere else".to_string(),
            Err(e) => e.to_string(),
        };
        let loaded = session_log::read_log(&path)
            .map_err(|e| EngineError::Session(format!("{}: {e}", path.display())))?;
        Ok(Conversation::from_state(ConvState::from_records(
            id.to_string(),
            loaded.records,
            Sink::ReadOnly(holder),
            self.workspace(),
        )))
    }

    /// Copies a saved conversation (open elsewhere or not) into a new one
    /// with a new id, whose log says where it came from. Calls the source
    /// left open are closed in the copy, never continued.
    pub fn fork_conversation(&self, id: &str) -> Result<Conversation, EngineError> {
        let (dir, path) = self.session_path(id)?;
        let source = session_log::read_log(&path)
            .map_err(|e| EngineError::Session(format!("{}: {e}", path.display())))?;
        let new_id = crate::time::new_session_id();
        let cwd = source
            .records
            .iter()
            .find_map(|r| match &r.entry {
                session_log::Entry::Meta { cwd, .. } => Some(cwd.clone()),
                _ => None,
            })
            .unwrap_or_else(|| self.workspace().to_string_lossy().into_owned());
        let entries = crate::store::fork::fork_entries(&source.records, id, &new_id, &cwd);
        let lock =
            ConversationLock::acquire(&dir, &new_id).map_err(|e| locked_error(&new_id, e))?;
        let (log, records) = SessionLog::create(&dir, &new_id, lock, entries)
            .map_err(|e| EngineError::Session(format!("{}: {e}", dir.display())))?;
        Ok(Conversation::from_state(ConvState::from_records(
            new_id,
            records,
            Sink::Open(log),
            self.workspace(),
        )))
    }

    /// The latest conversation started in this engine's workspace (for
    /// `k`), `None` when there is none; `Err(Locked)` when it is open
    /// elsewhere.
    pub fn latest_conversation(&self) -> Result<Option<Conversation>, EngineError> {
        let Some(info) = self.latest_session() else {
            return Ok(None);
        };
        self.load_conversation(&info.id).map(Some)
    }

    /// The latest session started in this engine's workspace.
    pub fn latest_session(&self) -> Option<SessionInfo> {
        let dir = self.sessions_dir.as_deref()?;
        session_log::latest_for_cwd(dir, self.workspace())
    }
}
