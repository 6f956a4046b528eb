//! Opening files the way every file tool must: regular files only, never
//! blocking on open, and never reading past a budget whatever the file's
//! size claims to be.
//!
//! A FIFO opened for reading blocks until a writer appears, a character
//! device such as `/dev/zero` never ends, and `/proc` files report a size
//! of 0. So the kind is checked on the opened descriptor (not the path,
//! which could be swapped in between), the open itself is non-blocking,
//! and reads stop at the budget and look at the cancel flag between
//! chunks.

use std::fs::{File, FileType, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use crate::cancel::CancelToken;
use crate::error::ToolError;

/// Bytes asked of the kernel per `read`: large enough that a big source
/// file takes a handful of calls, small enough that the cancel flag is
/// looked at often even on a slow disk or network filesystem.
pub const READ_CHUNK: usize = 64 * 1024;

pub use crate::error::SpecialKind;

/// Opens `path` for reading if it is a regular file. `Ok(None)` when it
/// does not exist; an error naming the kind when it is something else.
///
/// The path is looked at first so that a device is never even opened
/// (opening some devices acts on them); the opened descriptor is then
/// checked again, because the path may have been replaced in between.
pub fn open_regular(path: &Path, shown: &str) -> Result<Option<File>, ToolError> {
    match std::fs::metadata(path) {
        Ok(meta) => refuse_special(meta.file_type(), shown)?,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(ToolError::io(shown, e)),
    }
    let file = match OpenOptions::new()
        .read(true)
        // Non-blocking so that a FIFO swapped in after the check above
        // cannot hang the open; no controlling terminal from a tty device.
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        // open(2) of a unix socket fails with ENXIO: say what it is.
        Err(e) => {
            if let Ok(meta) = std::fs::metadata(path) {
                refuse_special(meta.file_type(), shown)?;
            }
            return Err(ToolError::io(shown, e));
        }
    };
    let meta = file.metadata().map_err(|e| ToolError::io(shown, e))?;
    refuse_special(meta.file_type(), shown)?;
    Ok(Some(file))
}

fn refuse_special(ft: FileType, shown: &str) -> Result<(), ToolError> {
    match SpecialKind::of(ft) {
        None => Ok(()),
        Some(kind) => Err(ToolError::NotRegularFile {
            path: shown.to_string(),
            kind,
        }),
    }
}

/// A reader that ends after `limit` bytes, hands out at most
/// [`READ_CHUNK`] bytes per call, and fails with [`cancelled_error`] once
/// the token is cancelled. Searchers and the whole-file reader share it.
#[derive(Debug)]
pub struct BoundedReader<R> {
    inner: io::Take<R>,
    cancel: CancelToken,
}

impl<R: Read> BoundedReader<R> {
    /// Reads at most `limit` bytes of `inner`.
    pub fn new(inner: R, limit: u64, cancel: &CancelToken) -> Self {
        BoundedReader {
            inner: inner.take(limit),
            cancel: cancel.clone(),
        }
    }
}

impl<R: Read> Read for BoundedReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.cancel.is_cancelled() {
            return Err(cancelled_error());
        }
        let n = buf.len().min(READ_CHUNK);
        self.inner.read(&mut buf[..n])
    }
}

/// The error a [`BoundedReader`] returns once cancelled.
pub fn cancelled_error() -> io::Error {
    io::Error::other(CancelledRead)
}

/// Marker inside the [`io::Error`] of a cancelled read.
#[derive(Debug)]
struct CancelledRead;

impl std::fmt::Display for CancelledRead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("cancelled by the user")
    }
}

impl std::error::Error for CancelledRead {}

/// Whether `e` is a [`BoundedReader`]'s cancel.
pub fn is_cancelled_error(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<CancelledRead>())
}

/// Bytes read under a budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bounded {
    /// At most the budget's worth.
    pub bytes: Vec<u8>,
    /// The source had more than the budget.
    pub cut: bool,
}

/// Reads `source` to its end or to `limit` bytes, whichever comes first,
/// checking `cancel` between chunks. `cut` says whether more was there.
pub fn read_limited<R: Read>(
    source: R,
    limit: u64,
    cancel: &CancelToken,
    shown: &str,
) -> Result<Bounded, ToolError> {
    // One byte past the limit tells a file of exactly `limit` bytes from a
    // longer one without trusting its size.
    let mut reader = BoundedReader::new(source, limit.saturating_add(1), cancel);
    let mut bytes = Vec::new();
    let mut chunk = vec![0u8; READ_CHUNK];
    loop {
        match reader.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => bytes.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if is_cancelled_error(&e) => return Err(ToolError::Cancelled),
            Err(e) => return Err(ToolError::io(shown, e)),
        }
    }
    let cut = bytes.len() as u64 > limit;
    if cut {
        bytes.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    }
    Ok(Bounded { bytes, cut })
}

/// A regular file's first `limit` bytes, or `None` if it does not exist.
pub fn read_regular(
    path: &Path,
    limit: u64,
    cancel: &CancelToken,
    shown: &str,
) -> Result<Option<Bounded>, ToolError> {
    match open_regular(path, shown)? {
        Some(file) => read_limited(file, limit, cancel, shown).map(Some),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// An endless source that yields one byte every `pause`, like a file
    /// on a stalled network filesystem, and cancels `cancel` at its
    /// `cancel_at`th read (mid-read, by event, not after a guessed delay).
    struct Trickle {
        pause: Duration,
        reads: usize,
        cancel_at: usize,
        cancel: CancelToken,
    }

    impl Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            std::thread::sleep(self.pause);
            self.reads += 1;
            if self.reads == self.cancel_at {
                self.cancel.cancel();
            }
            buf[0] = b'x';
            Ok(1)
        }
    }

    #[test]
    fn reads_stop_at_the_limit_and_say_so() {
        let cancel = CancelToken::new();
        let r = read_limited(&b"0123456789"[..], 4, &cancel, "t").unwrap();
        assert_eq!(
            r,
            Bounded {
                bytes: b"0123".to_vec(),
                cut: true
            }
        );
        let r = read_limited(&b"0123"[..], 4, &cancel, "t").unwrap();
        assert_eq!(
            r,
            Bounded {
                bytes: b"0123".to_vec(),
                cut: false
            }
        );
        // An endless source ends at the budget.
        let r = read_limited(io::repeat(b'z'), 1 << 20, &cancel, "t").unwrap();
        assert_eq!((r.bytes.len(), r.cut), (1 << 20, true));
    }

    #[test]
    fn an_endless_slow_read_ends_on_cancel() {
        let cancel = CancelToken::new();
        let source = Trickle {
            pause: Duration::from_millis(1),
            reads: 0,
            cancel_at: 20,
            cancel: cancel.clone(),
        };
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(read_limited(source, u64::MAX, &cancel, "slow"));
        });
        // The source never ends and the budget is unlimited: ending at all
        // is cancel's doing (the guard only turns a hang into a failure).
        let r = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("the read ignored cancel");
        assert!(matches!(r, Err(ToolError::Cancelled)), "{r:?}");
    }

    #[test]
    fn chunks_are_bounded_so_cancel_is_looked_at_often() {
        let cancel = CancelToken::new();
        let mut r = BoundedReader::new(io::repeat(1), u64::MAX, &cancel);
        let mut buf = vec![0u8; READ_CHUNK * 4];
        assert_eq!(r.read(&mut buf).unwrap(), READ_CHUNK);
        cancel.cancel();
        let e = r.read(&mut buf).unwrap_err();
        assert!(is_cancelled_error(&e));
    }
}
