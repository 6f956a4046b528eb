//! Listing saved sessions.

use std::path::{Path, PathBuf};

use super::{read_log, Entry};

/// One session on disk, for listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionInfo {
    /// Session id.
    pub id: String,
    /// Its file.
    pub path: PathBuf,
    /// The latest title, if one was generated.
    pub title: Option<String>,
    /// Working directory it belongs to.
    pub cwd: String,
    /// When it was created (first record's timestamp).
    pub created: String,
    /// When it last changed (last record's timestamp).
    pub updated: String,
    /// User messages in it.
    pub user_messages: usize,
}

/// Where sessions are kept under a data directory (`<data>/sessions`).
pub fn sessions_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("sessions")
}

/// The sessions directory under the platform data directory
/// (`~/.local/share/koi/sessions` on Linux), for listing without an engine.
pub fn default_sessions_dir() -> Option<PathBuf> {
    crate::paths::data_dir().map(|d| sessions_dir(&d))
}

/// Every session in `dir`, most recently updated first.
pub fn list_sessions(dir: &Path) -> Vec<SessionInfo> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<SessionInfo> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .filter_map(|p| session_info(&p))
        .collect();
    out.sort_by(|a, b| b.updated.cmp(&a.updated).then(b.id.cmp(&a.id)));
    out
}

fn session_info(path: &Path) -> Option<SessionInfo> {
    let log = read_log(path).ok()?;
    let first = log.records.first()?;
    let Entry::Meta { session, cwd, .. } = &first.entry else {
        return None;
    };
    let mut title = None;
    let mut user_messages = 0;
    for r in &log.records {
        match &r.entry {
            Entry::Title { text } => title = Some(text.clone()),
            Entry::User { .. } => user_messages += 1,
            _ => {}
        }
    }
    Some(SessionInfo {
        id: session.clone(),
        path: path.to_path_buf(),
        title,
        cwd: cwd.clone(),
        created: first.ts.clone(),
        updated: log.records.last().map(|r| r.ts.clone()).unwrap_or_default(),
        user_messages,
    })
}

/// The most recently updated session that belongs to `cwd`.
pub fn latest_for_cwd(dir: &Path, cwd: &Path) -> Option<SessionInfo> {
    let cwd = cwd.to_string_lossy();
    list_sessions(dir).into_iter().find(|s| s.cwd == cwd)
}
