//! The session log: one append-only JSONL file per conversation. It is the
//! truth; the history the model sees is replayed from it.
//!
//! Every entry is written (and flushed to the OS) as it happens; a tool
//! call's start is also synced to disk before the call runs, so after a
//! crash a start without a result marks a call whose effect is uncertain.
//! A torn last line (crash mid-write) is ignored on load and cut off before
//! the next append.

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::message::{Attachment, Message, ToolCall};
use crate::time::now_rfc3339;

/// Version of the entry format, written in [`Entry::Meta`].
pub const LOG_FORMAT: u32 = 1;

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
    },
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
    },
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
    },
    /// A tool call is about to run (synced before it does).
    ToolStart {
        /// Call id.
        call_id: String,
        /// Tool.
        name: String,
        /// The model's raw arguments.
        arguments: String,
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
    },
    /// Older history replaced by a summary: the model now sees the
    /// environment, this text, then messages from `keep_from` on.
    Summary {
        /// The summary (or placeholder when summarising failed).
        text: String,
        /// Index of the first message kept verbatim.
        keep_from: usize,
        /// `summary` or `dropped`.
        method: String,
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

/// An open, append-only session file.
#[derive(Debug)]
pub struct SessionLog {
    path: PathBuf,
    file: File,
    next_id: u64,
}

impl SessionLog {
    /// Creates `dir/<session>.jsonl` and writes `meta`.
    pub fn create(dir: &Path, session: &str, meta: Entry) -> io::Result<SessionLog> {
        std::fs::create_dir_all(dir)?;
        let path = dir.join(format!("{session}.jsonl"));
        let file = OpenOptions::new()
            .create_new(true)
            .append(true)
            .open(&path)?;
        let mut log = SessionLog {
            path,
            file,
            next_id: 1,
        };
        log.append(meta)?;
        Ok(log)
    }

    /// Opens an existing file for appending, cutting a torn last line.
    pub fn open(path: &Path, records: usize) -> io::Result<SessionLog> {
        let mut file = OpenOptions::new().read(true).write(true).open(path)?;
        let len = file.metadata()?.len();
        if len > 0 {
            let mut last = [0u8; 1];
            file.seek(SeekFrom::Start(len - 1))?;
            std::io::Read::read_exact(&mut file, &mut last)?;
            if last[0] != b'\n' {
                let keep = last_newline_end(path)?;
                file.set_len(keep)?;
            }
        }
        file.seek(SeekFrom::End(0))?;
        Ok(SessionLog {
            path: path.to_path_buf(),
            file,
            next_id: records as u64 + 1,
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn write(&mut self, entry: Entry, sync: bool) -> io::Result<()> {
        let record = Record {
            id: format!("e{}", self.next_id),
            ts: now_rfc3339(),
            entry,
        };
        self.next_id += 1;
        let mut line = serde_json::to_string(&record).map_err(io::Error::other)?;
        line.push('\n');
        // One write per line, so a crash tears at most the last line.
        self.file.write_all(line.as_bytes())?;
        self.file.flush()?;
        if sync {
            self.file.sync_data()?;
        }
        Ok(())
    }

    /// Appends an entry (flushed to the OS).
    pub fn append(&mut self, entry: Entry) -> io::Result<()> {
        self.write(entry, false)
    }

    /// Appends an entry and syncs it to disk (before an effect).
    pub fn append_synced(&mut self, entry: Entry) -> io::Result<()> {
        self.write(entry, true)
    }
}

fn last_newline_end(path: &Path) -> io::Result<u64> {
    let data = std::fs::read(path)?;
    Ok(data
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i as u64 + 1))
}

/// A file read back.
#[derive(Debug, Default)]
pub struct LoadedLog {
    /// Every readable record, in order.
    pub records: Vec<Record>,
    /// True when the last line was torn (and ignored).
    pub torn_tail: bool,
    /// Unreadable lines before the last (should not happen; skipped).
    pub skipped: usize,
}

/// Reads a session file, ignoring a torn last line.
pub fn read_log(path: &Path) -> io::Result<LoadedLog> {
    let reader = BufReader::new(File::open(path)?);
    let mut out = LoadedLog::default();
    let mut bad_last = false;
    for line in reader.split(b'\n') {
        let line = line?;
        if bad_last {
            out.skipped += 1;
            bad_last = false;
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Record>(&line) {
            Ok(r) => out.records.push(r),
            Err(_) => bad_last = true,
        }
    }
    out.torn_tail = bad_last;
    Ok(out)
}

/// A conversation rebuilt from its log.
#[derive(Debug, Default)]
pub struct Replayed {
    /// The history the model sees.
    pub messages: Vec<Message>,
    /// The latest title.
    pub title: Option<String>,
    /// Calls that started but have no result: their effect is unknown.
    pub uncertain: Vec<ToolCall>,
    /// Session id, cwd, provider, model from the meta line.
    pub meta: Option<Entry>,
}

/// What the model is told about a call that started but never finished.
pub const UNCERTAIN_RESULT: &str =
    "uncertain: koi stopped while this call was running, so whether \
it took effect is unknown. Check the current state before repeating it.";

/// What the model is told about a call that never started.
pub const NOT_RUN_RESULT: &str = "not run: koi stopped before this call started.";

/// Rebuilds the model's history (a projection of the log).
pub fn replay(records: &[Record]) -> Replayed {
    let mut out = Replayed::default();
    let mut pending: Vec<ToolCall> = Vec::new();
    let mut started: Vec<String> = Vec::new();
    for r in records {
        match &r.entry {
            Entry::Meta { .. } => out.meta = Some(r.entry.clone()),
            Entry::Environment { text } => out.messages.push(Message::Environment(text.clone())),
            Entry::User { text, attachments } => {
                close_pending(&mut out, &mut pending, &started);
                out.messages.push(Message::User {
                    text: text.clone(),
                    attachments: attachments.clone(),
                });
            }
            Entry::Assistant {
                text, tool_calls, ..
            } => {
                close_pending(&mut out, &mut pending, &started);
                out.messages.push(Message::Assistant {
                    text: text.clone(),
                    tool_calls: tool_calls.clone(),
                });
                pending = tool_calls.clone();
            }
            Entry::ToolStart { call_id, .. } => started.push(call_id.clone()),
            Entry::ToolResult {
                call_id,
                name,
                is_error,
                for_model,
                ..
            } => {
                pending.retain(|c| &c.id != call_id);
                out.messages.push(Message::ToolResult {
                    call_id: call_id.clone(),
                    name: name.clone(),
                    content: for_model.clone(),
                    is_error: *is_error,
                });
            }
            Entry::Notice { text } => {
                close_pending(&mut out, &mut pending, &started);
                out.messages.push(Message::Notice(text.clone()));
            }
            Entry::Summary {
                text, keep_from, ..
            } => {
                close_pending(&mut out, &mut pending, &started);
                out.messages = crate::context::apply_summary(&out.messages, text, *keep_from);
            }
            Entry::Title { text } => out.title = Some(text.clone()),
            Entry::Usage { .. } | Entry::TurnEnd { .. } => {}
        }
    }
    close_pending(&mut out, &mut pending, &started);
    out
}

fn close_pending(out: &mut Replayed, pending: &mut Vec<ToolCall>, started: &[String]) {
    for call in pending.drain(..) {
        let was_started = started.contains(&call.id);
        let content = if was_started {
            out.uncertain.push(call.clone());
            UNCERTAIN_RESULT
        } else {
            NOT_RUN_RESULT
        };
        out.messages.push(Message::ToolResult {
            call_id: call.id,
            name: call.name,
            content: content.to_string(),
            is_error: true,
        });
    }
}

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
    crate::config::data_dir().map(|d| sessions_dir(&d))
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
