//! The pump thread: PTY bytes into buffers for the parser thread.
//!
//! Reading a PTY is the kernel copying out of its buffers, and on a busy
//! stream it costs about as much CPU as parsing what was read. The pump
//! does only that, so a second core reads the next slice while the parser
//! works through this one, and the writing program refills the PTY as soon
//! as there is room. Buffers go round a fixed pool ([`POOL`] of
//! [`CHUNK`] bytes): when the parser falls behind the pump waits for one to
//! come back, so output never queues without bound.

use std::io::{ErrorKind, Read};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};

use super::wake::{PtyPoll, WakeReason};
use super::ExitStatus;
use crate::trace::{bursts, latency};

/// Bytes in one buffer: the most the parser takes under one lock hold.
/// 64 KiB parses in well under a millisecond, so the UI thread never waits
/// long for the terminal even during a huge `cat`.
pub(crate) const CHUNK: usize = 64 * 1024;

/// Buffers in the pool: one being filled, one being parsed, two queued.
pub(crate) const POOL: usize = 4;

/// A read needs at least this much room: Linux hands a PTY's output over
/// in pieces of at most 4 KiB.
const MIN_ROOM: usize = 4096;

/// After the child exits, output still in the PTY is drained until this much
/// silence: a grandchild holding the PTY open must not keep the session alive.
const EXIT_DRAIN_IDLE: Duration = Duration::from_millis(50);

/// …and for at most this long, even if a grandchild keeps printing.
const EXIT_DRAIN_MAX: Duration = Duration::from_secs(1);

/// What the pump hands the parser.
pub(crate) enum Fill {
    /// The first `len` bytes of `buf` are output; `buf` goes back to the pool.
    Output { buf: Box<[u8]>, len: usize },
    /// The child exited and its output has been drained.
    Ended(ExitStatus),
}

/// The two ends the pump and the parser share: filled buffers one way,
/// empty ones back.
pub(crate) struct Pipes {
    pub(crate) fills: Receiver<Fill>,
    pub(crate) returns: Sender<Box<[u8]>>,
}

pub(crate) struct Pump {
    pub(crate) pty: Box<dyn Read + Send>,
    pub(crate) poll: PtyPoll,
    pub(crate) exit_status: Receiver<ExitStatus>,
    fills: Sender<Fill>,
    free: Receiver<Box<[u8]>>,
}

impl Pump {
    /// A pump over `pty` and the pipes its parser reads from.
    pub(crate) fn new(
        pty: Box<dyn Read + Send>,
        poll: PtyPoll,
        exit_status: Receiver<ExitStatus>,
    ) -> (Self, Pipes) {
        let (fills, filled) = crossbeam_channel::bounded(POOL + 1);
        let (returns, free) = crossbeam_channel::bounded(POOL);
        for _ in 0..POOL {
            let _ = returns.send(vec![0u8; CHUNK].into_boxed_slice());
        }
        let pump = Self {
            pty,
            poll,
            exit_status,
            fills,
            free,
        };
        (
            pump,
            Pipes {
                fills: filled,
                returns,
            },
        )
    }

    /// Runs until EOF or a drained exit (then tells the parser how the
    /// child ended), or until shutdown (then just stops, and the parser
    /// sees the pipe close).
    pub(crate) fn run(mut self) {
        let mut exited: Option<(ExitStatus, Instant)> = None;
        loop {
            let timeout = exited.as_ref().map(|(_, at)| {
                let deadline = (Instant::now() + EXIT_DRAIN_IDLE).min(*at + EXIT_DRAIN_MAX);
                deadline.saturating_duration_since(Instant::now())
            });
            match self.poll.wait(timeout) {
                WakeReason::Shutdown => return,
                WakeReason::ChildExited => {
                    if exited.is_none() {
                        exited = self
                            .exit_status
                            .try_recv()
                            .ok()
                            .map(|s| (s, Instant::now()));
                    }
                    continue;
                }
                // Only the exit drain sets a timeout: the PTY stayed quiet.
                WakeReason::Timeout => break,
                WakeReason::Readable => latency::hop(latency::Hop::Readable),
            }
            if exited
                .as_ref()
                .is_some_and(|(_, at)| at.elapsed() >= EXIT_DRAIN_MAX)
            {
                break;
            }
            let Ok(buf) = self.free.recv() else { return };
            let (buf, len, eof) = self.fill(buf);
            if len > 0 && self.fills.send(Fill::Output { buf, len }).is_err() {
                return;
            }
            if eof {
                break;
            }
        }
        // On EOF the child is exiting (or being killed by our Drop): wait for it.
        let status = match exited {
            Some((status, _)) => status,
            None => match self.exit_status.recv() {
                Ok(status) => status,
                Err(_) => return,
            },
        };
        let _ = self.fills.send(Fill::Ended(status));
    }

    /// Read what the PTY holds into `buf`, read after read while more is
    /// ready, there is room, and the parser has a buffer queued to work on
    /// meanwhile (an idle parser gets what there is at once). Returns the
    /// buffer, the bytes in it and whether the PTY reached its end.
    fn fill(&mut self, mut buf: Box<[u8]>) -> (Box<[u8]>, usize, bool) {
        let mut len = 0;
        loop {
            let started = Instant::now();
            let Some(n) = read_some(&mut *self.pty, &mut buf[len..]) else {
                return (buf, len, true);
            };
            bursts::read(started, n);
            len += n;
            if buf.len() - len < MIN_ROOM || self.fills.is_empty() || !self.poll.readable_now() {
                return (buf, len, false);
            }
        }
    }
}

/// One read of what the PTY holds (it was readable). `None` on EOF or a
/// dead PTY.
fn read_some(pty: &mut dyn Read, buf: &mut [u8]) -> Option<usize> {
    loop {
        match pty.read(buf) {
            Ok(0) => return None,
            Ok(n) => return Some(n),
            // Interrupted: read again.
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            // EIO is how Linux says the other side of the PTY is gone.
            Err(_) => return None,
        }
    }
}
