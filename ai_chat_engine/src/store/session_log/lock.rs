//! One writer per conversation: an advisory `flock` on a sidecar
//! `ID.lock` while the conversation is open for writing.
//!
//! flock, not fcntl: an fcntl lock belongs to the process, so two panels of
//! one koi would share it; a flock belongs to the open file description, so
//! two opens conflict even inside one process. The kernel drops the lock
//! when the holder dies, kill -9 included, so a crash never leaves a stale
//! lock behind. The file is never deleted: unlinking it while someone else
//! waits on the old inode would let two writers hold "the" lock at once.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Who holds a conversation's lock, as written in its lock file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    /// Process id.
    pub pid: u32,
    /// Program name (`koi`, `k`, …).
    pub program: String,
}

impl std::fmt::Display for Holder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "open in {}, pid {}", self.program, self.pid)
    }
}

impl Holder {
    /// This process.
    pub fn me() -> Holder {
        let program = std::env::args_os()
            .next()
            .and_then(|a| {
                Path::new(&a)
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
            })
            .unwrap_or_else(|| "koi".to_string());
        Holder {
            pid: std::process::id(),
            program,
        }
    }

    fn parse(text: &str) -> Option<Holder> {
        let (pid, program) = text.trim().split_once(' ')?;
        Some(Holder {
            pid: pid.parse().ok()?,
            program: program.to_string(),
        })
    }
}

/// Why a lock could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another open holds it (`None` when the holder had not yet written
    /// its name).
    #[error("{}", match .0 { Some(h) => h.to_string(), None => "open elsewhere".to_string() })]
    Held(Option<Holder>),
    /// The lock file could not be opened or locked.
    #[error("{0}")]
    Io(#[from] io::Error),
}

/// A held conversation lock; dropping it releases the lock.
#[derive(Debug)]
pub struct ConversationLock {
    _file: File,
    path: PathBuf,
}

/// `dir/ID.lock`.
pub fn lock_path(dir: &Path, session: &str) -> PathBuf {
    dir.join(format!("{session}.lock"))
}

impl ConversationLock {
    /// Takes the lock of `session` in `dir` without waiting, and writes
    /// this process's pid and program into it.
    pub fn acquire(dir: &Path, session: &str) -> Result<ConversationLock, LockError> {
        std::fs::create_dir_all(dir)?;
        let path = lock_path(dir, session);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)?;
        // An flock(2) on Unix: released by the kernel when the process dies.
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut text = String::new();
                let _ = file.read_to_string(&mut text);
                return Err(LockError::Held(Holder::parse(&text)));
            }
            Err(TryLockError::Error(err)) => return Err(LockError::Io(err)),
        }
        let me = Holder::me();
        file.set_len(0)?;
        file.seek(SeekFrom::Start(0))?;
        file.write_all(format!("{} {}\n", me.pid, me.program).as_bytes())?;
        Ok(ConversationLock { _file: file, path })
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_open_in_the_same_process_is_refused_and_names_the_holder() {
        let dir = tempfile::tempdir().unwrap();
        let first = ConversationLock::acquire(dir.path(), "s1").unwrap();
        match ConversationLock::acquire(dir.path(), "s1") {
            Err(LockError::Held(Some(h))) => {
                assert_eq!(h.pid, std::process::id());
                assert!(h.to_string().starts_with("open in "), "{h}");
            }
            other => panic!("expected Held, got {other:?}"),
        }
        // Another conversation is independent.
        let _other = ConversationLock::acquire(dir.path(), "s2").unwrap();
        drop(first);
        assert!(ConversationLock::acquire(dir.path(), "s1").is_ok());
    }
}
