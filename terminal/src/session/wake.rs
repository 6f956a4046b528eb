//! Waiting for PTY output, a synchronized-update deadline, the child's exit
//! or shutdown, all in one blocking call: the reader thread sleeps in
//! `poll(2)` and uses no CPU while the terminal is idle.

use std::time::Duration;

/// Why [`PtyPoll::wait`] returned.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum WakeReason {
    Readable,
    Timeout,
    ChildExited,
    Shutdown,
}

const MSG_SHUTDOWN: u8 = b'q';
const MSG_CHILD_EXITED: u8 = b'x';

#[cfg(unix)]
mod imp {
    use super::*;
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

    /// Polls the PTY master and a self-pipe.
    pub(crate) struct PtyPoll {
        master: RawFd,
        pipe_read: OwnedFd,
    }

    /// The write end of the self-pipe, used to wake the reader.
    #[derive(Clone)]
    pub(crate) struct Waker {
        pipe_write: std::sync::Arc<OwnedFd>,
    }

    pub(crate) fn pair(master: RawFd) -> std::io::Result<(PtyPoll, Waker)> {
        let mut fds = [0; 2];
        // SAFETY: `fds` is a valid two-element array for pipe2 to fill.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: pipe2 succeeded, so both descriptors are open and ours alone.
        let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        Ok((
            PtyPoll {
                master,
                pipe_read: read,
            },
            Waker {
                pipe_write: std::sync::Arc::new(write),
            },
        ))
    }

    impl Waker {
        fn send(&self, byte: u8) {
            // SAFETY: writing one byte from a valid buffer to an open pipe.
            // A full pipe already holds a wake-up, so a failed write loses nothing.
            unsafe { libc::write(self.pipe_write.as_raw_fd(), (&byte as *const u8).cast(), 1) };
        }

        pub(crate) fn shutdown(&self) {
            self.send(MSG_SHUTDOWN);
        }

        pub(crate) fn child_exited(&self) {
            self.send(MSG_CHILD_EXITED);
        }
    }

    impl PtyPoll {
        pub(crate) fn wait(&mut self, timeout: Option<Duration>) -> WakeReason {
            let mut fds = [
                libc::pollfd {
                    fd: self.pipe_read.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                },
                libc::pollfd {
                    fd: self.master,
                    events: libc::POLLIN,
                    revents: 0,
                },
            ];
            let timeout_ms = timeout.map_or(-1, |t| t.as_millis().min(i32::MAX as u128) as i32);
            loop {
                // SAFETY: `fds` is a valid array of two pollfd structs.
                let n = unsafe { libc::poll(fds.as_mut_ptr(), 2, timeout_ms) };
                if n < 0 {
                    if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                        continue;
                    }
                    return WakeReason::Shutdown;
                }
                if n == 0 {
                    return WakeReason::Timeout;
                }
                break;
            }
            if fds[0].revents != 0 {
                let mut byte = 0u8;
                // SAFETY: reading one byte into a valid buffer from our pipe.
                let got = unsafe {
                    libc::read(self.pipe_read.as_raw_fd(), (&mut byte as *mut u8).cast(), 1)
                };
                return match (got, byte) {
                    (1, MSG_CHILD_EXITED) => WakeReason::ChildExited,
                    _ => WakeReason::Shutdown,
                };
            }
            // POLLHUP/POLLERR also count: the read that follows reports EOF.
            WakeReason::Readable
        }

        /// Whether more PTY output is ready right now.
        pub(crate) fn readable_now(&self) -> bool {
            let mut fd = libc::pollfd {
                fd: self.master,
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd, zero timeout.
            unsafe { libc::poll(&mut fd, 1, 0) == 1 && fd.revents & libc::POLLIN != 0 }
        }
    }
}

#[cfg(not(unix))]
mod imp {
    //! Without poll(2) the reader blocks in `read`; shutdown closes the PTY.
    use super::*;
    use std::sync::atomic::{AtomicU8, Ordering};
    use std::sync::Arc;

    pub(crate) struct PtyPoll {
        state: Arc<AtomicU8>,
    }

    #[derive(Clone)]
    pub(crate) struct Waker {
        state: Arc<AtomicU8>,
    }

    pub(crate) fn pair(_master: ()) -> std::io::Result<(PtyPoll, Waker)> {
        let state = Arc::new(AtomicU8::new(0));
        Ok((
            PtyPoll {
                state: state.clone(),
            },
            Waker { state },
        ))
    }

    impl Waker {
        pub(crate) fn shutdown(&self) {
            self.state.store(MSG_SHUTDOWN, Ordering::Release);
        }
        pub(crate) fn child_exited(&self) {
            let _ = self.state.compare_exchange(
                0,
                MSG_CHILD_EXITED,
                Ordering::AcqRel,
                Ordering::Acquire,
            );
        }
    }

    impl PtyPoll {
        pub(crate) fn wait(&mut self, _timeout: Option<Duration>) -> WakeReason {
            match self.state.swap(0, Ordering::AcqRel) {
                MSG_SHUTDOWN => WakeReason::Shutdown,
                MSG_CHILD_EXITED => WakeReason::ChildExited,
                _ => WakeReason::Readable,
            }
        }
        pub(crate) fn readable_now(&self) -> bool {
            false
        }
    }
}

pub(crate) use imp::{pair, PtyPoll, Waker};
