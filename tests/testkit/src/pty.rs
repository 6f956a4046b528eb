//! A program on a real pseudo-terminal (its controlling terminal), its
//! output collected as it comes and keys written to it.

use std::io::{Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use portable_pty::{native_pty_system, CommandBuilder, PtySize};

/// A process on a fresh PTY.
pub struct PtyRun {
    pub child: Box<dyn portable_pty::Child + Send + Sync>,
    pub writer: Box<dyn Write + Send>,
    pub screen: Arc<Mutex<Vec<u8>>>,
    /// Says when the reader has seen the end of the output.
    drained: signal::Done,
    _master: Box<dyn portable_pty::MasterPty + Send>,
}

/// How long [`PtyRun::wait_exit`] waits for the output's end after the
/// program exited: a process it left behind may hold the terminal open
/// for ever, and then what was read by now is all there is.
const DRAIN_WAIT: Duration = Duration::from_secs(5);

impl PtyRun {
    /// Starts `program args` in `cwd` on a 120×40 PTY with exactly `env`
    /// (nothing inherited).
    pub fn spawn(program: &Path, args: &[&str], cwd: &Path, env: &[(String, String)]) -> PtyRun {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: 40,
                cols: 120,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("a PTY");
        let mut cmd = CommandBuilder::new(program);
        cmd.args(args);
        cmd.cwd(cwd);
        cmd.env_clear();
        for (k, v) in env {
            cmd.env(k, v);
        }
        let child = pair
            .slave
            .spawn_command(cmd)
            .unwrap_or_else(|e| panic!("start {}: {e}", program.display()));
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().expect("the PTY's reader");
        let writer = pair.master.take_writer().expect("the PTY's writer");
        let screen = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&screen);
        let (drained, done) = signal::done();
        std::thread::spawn(move || {
            let _done = done;
            let mut buf = [0u8; 4096];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .extend_from_slice(&buf[..n]);
            }
        });
        PtyRun {
            child,
            writer,
            screen,
            drained,
            _master: pair.master,
        }
    }

    /// Everything the program wrote so far.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.screen.lock().unwrap_or_else(PoisonError::into_inner))
            .into_owned()
    }

    /// Waits until the output contains `needle`.
    pub fn wait_for(&self, needle: &str, limit: Duration) {
        self.wait_until(&format!("{needle:?}"), limit, |text| text.contains(needle));
    }

    /// Waits until `done` holds for the output so far; returns it.
    pub fn wait_until(&self, what: &str, limit: Duration, done: impl Fn(&str) -> bool) -> String {
        crate::poll::until(what, limit, || {
            let text = self.text();
            if done(&text) {
                Ok(text)
            } else {
                Err(format!("output so far:\n{text}"))
            }
        })
    }

    /// The output so far, which is forgotten: what comes next starts empty.
    pub fn take(&self) -> String {
        let bytes =
            std::mem::take(&mut *self.screen.lock().unwrap_or_else(PoisonError::into_inner));
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// Writes `bytes` as if typed.
    pub fn send(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).expect("write to the PTY");
        self.writer.flush().expect("flush the PTY");
    }

    /// Types an answer and Enter in one write (as a fast typist or a paste
    /// would; rustyline's `signal-hook` feature would lose the Enter).
    pub fn answer(&mut self, text: &str) {
        self.send(format!("{text}\r").as_bytes());
    }

    /// Waits for exit and returns the code, once the output read so far
    /// has been drained; kills the program and panics after `limit`.
    pub fn wait_exit(&mut self, limit: Duration) -> u32 {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().expect("the child's status") {
                self.drained.wait(DRAIN_WAIT);
                return status.exit_code();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        panic!("the program did not exit; output:\n{}", self.text());
    }
}

impl Drop for PtyRun {
    /// A program still running when its test ends is killed with it.
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// A one-shot "finished" signal: the sender's drop is the event.
mod signal {
    use std::sync::mpsc::{channel, Receiver, Sender};
    use std::time::Duration;

    /// The waiting side.
    pub struct Done(Receiver<()>);

    /// A pair: dropping the [`Sender`] signals.
    pub fn done() -> (Done, Sender<()>) {
        let (tx, rx) = channel();
        (Done(rx), tx)
    }

    impl Done {
        /// Waits for the signal, at most `limit`.
        pub fn wait(&self, limit: Duration) {
            // Disconnected is the signal; a timeout is the caller's limit.
            let _ = self.0.recv_timeout(limit);
        }
    }
}
