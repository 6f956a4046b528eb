//! The session log: one append-only JSONL file per conversation. It is the
//! truth; the history the model sees, the conversation's state and the
//! recovery plan are projections of it.
//!
//! Every entry is written (and flushed to the OS) as it happens; entries
//! koi acts on ([`Entry::needs_sync`], a tool call's start above all) are
//! also synced to disk first, and a new file's directory is synced once,
//! so the file itself survives a power cut. A write that fails is an
//! error for the caller: a start that is not on disk must not be followed
//! by its effect.
//!
//! Only the holder of the conversation's lock ([`lock`]) writes, so a
//! torn last line is always a crash's leftover, never another writer's
//! line in progress; it is ignored on load and cut off by the next holder.

mod entry;
mod list;
pub mod lock;
mod replay;

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

pub use entry::{
    CompactionMethod, ConversationContext, Decider, Entry, ForkOrigin, Record, StartProof,
    UncertainDecision, LOG_FORMAT,
};
pub use list::{default_sessions_dir, latest_for_cwd, list_sessions, sessions_dir, SessionInfo};
pub use lock::{ConversationLock, Holder, LockError};
pub use replay::{replay, Replayed, NOT_RUN_RESULT, UNCERTAIN_RESULT};

use crate::time::now_rfc3339;

/// An open, append-only session file and the lock that makes this
/// process its only writer.
#[derive(Debug)]
pub struct SessionLog {
    path: PathBuf,
    file: File,
    next_id: u64,
    _lock: ConversationLock,
}

/// `dir/<session>.jsonl`.
pub fn log_path(dir: &Path, session: &str) -> PathBuf {
    dir.join(format!("{session}.jsonl"))
}

impl SessionLog {
    /// Creates `dir/<session>.jsonl` under `lock` and writes `first`
    /// (the meta line and whatever must exist from the start), synced,
    /// then syncs the directory so the new name is durable too.
    pub fn create(
        dir: &Path,
        session: &str,
        lock: ConversationLock,
        first: Vec<Entry>,
    ) -> io::Result<(SessionLog, Vec<Record>)> {
        std::fs::create_dir_all(dir)?;
        let path = log_path(dir, session);
        let file = OpenOptions::new()
            .create_new(true)
            .append(true)
            .open(&path)?;
        let mut log = SessionLog {
            path,
            file,
            next_id: 1,
            _lock: lock,
        };
        let mut records = Vec::with_capacity(first.len());
        for entry in first {
            records.push(log.write(entry, false)?);
        }
        log.file.sync_data()?;
        File::open(dir)?.sync_all()?;
        Ok((log, records))
    }

    /// Opens an existing file for appending under `lock`, cutting a torn
    /// last line (only a lock holder may: see the module notes).
    /// `records` is how many readable records it holds (for ids).
    pub fn open(path: &Path, lock: ConversationLock, records: usize) -> io::Result<SessionLog> {
        let mut file = OpenOptions::new().read(true).write(true).open(path)?;
        let len = file.metadata()?.len();
        if len > 0 {
            let mut last = [0u8; 1];
            file.seek(SeekFrom::Start(len - 1))?;
            std::io::Read::read_exact(&mut file, &mut last)?;
            if last[0] != b'\n' {
                let keep = last_newline_end(path)?;
                file.set_len(keep)?;
                file.sync_data()?;
            }
        }
        file.seek(SeekFrom::End(0))?;
        Ok(SessionLog {
            path: path.to_path_buf(),
            file,
            next_id: records as u64 + 1,
            _lock: lock,
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn write(&mut self, entry: Entry, sync: bool) -> io::Result<Record> {
        let record = Record {
            id: format!("e{}", self.next_id),
            ts: now_rfc3339(),
            entry,
        };
        let mut line = serde_json::to_string(&record).map_err(io::Error::other)?;
        line.push('\n');
        // One write per line, so a crash tears at most the last line.
        self.file.write_all(line.as_bytes())?;
        self.file.flush()?;
        if sync {
            self.file.sync_data()?;
        }
        self.next_id += 1;
        Ok(record)
    }

    /// Appends an entry: flushed to the OS, and synced to disk when the
    /// entry [needs it](Entry::needs_sync). `Ok` means it is as durable as
    /// it has to be; `Err` means it may not be on disk at all.
    pub fn append(&mut self, entry: Entry) -> io::Result<Record> {
        let sync = entry.needs_sync();
        self.write(entry, sync)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(session: &str) -> Entry {
        Entry::Meta {
            session: session.into(),
            cwd: "/w".into(),
            provider: "openai".into(),
            model: "m".into(),
            format: LOG_FORMAT,
            forked_from: None,
        }
    }

    #[test]
    fn a_torn_tail_is_ignored_and_cut_by_the_next_holder() {
        let dir = tempfile::tempdir().unwrap();
        let lock = ConversationLock::acquire(dir.path(), "s").unwrap();
        let (log, _) = SessionLog::create(dir.path(), "s", lock, vec![meta("s")]).unwrap();
        let path = log.path().to_path_buf();
        drop(log);
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(br#"{"id":"e2","ts":"x","type":"us"#).unwrap();
        let loaded = read_log(&path).unwrap();
        assert!(loaded.torn_tail);
        assert_eq!(loaded.records.len(), 1);
        let lock = ConversationLock::acquire(dir.path(), "s").unwrap();
        let mut log = SessionLog::open(&path, lock, 1).unwrap();
        let r = log
            .append(Entry::Notice {
                text: "after".into(),
            })
            .unwrap();
        assert_eq!(r.id, "e2");
        let loaded = read_log(&path).unwrap();
        assert!(!loaded.torn_tail);
        assert_eq!(loaded.records.len(), 2);
    }

    #[test]
    fn a_format_one_start_reads_as_unproven() {
        let line = r#"{"id":"e5","ts":"t","type":"tool_start","call_id":"k1","name":"shell_exec","arguments":"{}"}"#;
        let r: Record = serde_json::from_str(line).unwrap();
        assert!(matches!(
            r.entry,
            Entry::ToolStart {
                proof: StartProof::Unproven,
                run_tag: None,
                ..
            }
        ));
        let ctx = Entry::Context(ConversationContext {
            workspace: "/w".into(),
            tools: vec!["fs_read".into()],
            ..Default::default()
        });
        let text = serde_json::to_string(&ctx).unwrap();
        assert!(text.contains(r#""type":"context""#), "{text}");
        assert_eq!(serde_json::from_str::<Entry>(&text).unwrap(), ctx);
    }
}
