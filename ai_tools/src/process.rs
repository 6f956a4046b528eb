//! Child processes: own process group, scrubbed environment, closed stdin,
//! group kill on timeout or cancel; and the table of background processes
//! that all die with the registry.

use std::collections::{HashMap, VecDeque};
use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::cancel::{CancelToken, CANCEL_POLL};
use crate::error::ToolError;
use crate::run_tag::{RunTag, RUN_TAG_VAR};
use crate::sandbox::{self, Level, RunDir, RunSandbox};
use crate::secrets;
use crate::spawn;

/// Bytes of each stream kept for the session log: half from the start,
/// half from the end. Enough for any build log worth reading, small enough
/// that a runaway `yes` cannot exhaust memory.
pub const MAX_CAPTURE_BYTES: usize = 4 * 1024 * 1024;

/// How long to wait for output pipes to drain after the process group was
/// killed; a daemon that escaped the group must not hang the tool.
pub const PIPE_DRAIN_GRACE: Duration = Duration::from_millis(500);

/// Output kept per background process (the most recent bytes).
pub const MAX_BG_BUFFER: usize = 1024 * 1024;

/// Background processes one registry may run at once.
pub const MAX_BG_PROCESSES: usize = 16;

/// Captured bytes of one stream: the head and the tail, and how many bytes
/// in between were dropped.
#[derive(Debug, Default)]
pub struct Capture {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    dropped: u64,
}

impl Capture {
    fn push(&mut self, bytes: &[u8]) {
        let half = MAX_CAPTURE_BYTES / 2;
        let room = half.saturating_sub(self.head.len());
        let (to_head, rest) = bytes.split_at(room.min(bytes.len()));
        self.head.extend_from_slice(to_head);
        self.tail.extend(rest);
        while self.tail.len() > half {
            self.tail.pop_front();
            self.dropped += 1;
        }
    }

    /// The captured text (lossy UTF-8) with a marker where bytes were dropped.
    pub fn text(&self) -> String {
        let mut out = String::from_utf8_lossy(&self.head).into_owned();
        if self.dropped > 0 {
            out.push_str(&format!("\n[… {} bytes not kept …]\n", self.dropped));
        }
        let tail: Vec<u8> = self.tail.iter().copied().collect();
        out.push_str(&String::from_utf8_lossy(&tail));
        out
    }
}

/// The shell that runs commands: bash when present (the policy parses
/// bash syntax), else POSIX sh.
fn shell_program() -> &'static str {
    if Path::new("/bin/bash").exists() {
        "/bin/bash"
    } else {
        "/bin/sh"
    }
}

/// Build the command: `shell -c command` in `cwd`, scrubbed environment
/// carrying the run's `tag`, stdin closed, stdout/stderr piped. Spawn it
/// through [`crate::spawn::spawn`], never directly, so it dies with koi
/// and runs in a session (and process group) of its own.
pub fn shell_command(
    command: &str,
    cwd: &Path,
    workspace: &Path,
    extra_secrets: &[String],
    tag: &RunTag,
) -> Command {
    let mut cmd = Command::new(shell_program());
    cmd.arg("-c")
        .arg(command)
        .current_dir(cwd)
        .env_clear()
        .envs(secrets::scrubbed_env(extra_secrets, workspace))
        .env(RUN_TAG_VAR, tag.value())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// A started shell: the child, and its temp dir (removed when the run is
/// dropped) when sandboxed.
struct Started {
    child: Child,
    run_dir: Option<RunDir>,
}

/// One shell command to start: what runs, where, under which tag and
/// confinement. The caller makes the tag so it can record it before the
/// run (a later start can then find what a crashed run left behind).
#[derive(Debug, Clone, Copy)]
pub struct ShellJob<'a> {
    /// The command line, run by `bash -c`.
    pub command: &'a str,
    /// The directory it starts in.
    pub cwd: &'a Path,
    /// The workspace root (writable under workspace-write).
    pub workspace: &'a Path,
    /// Configured secret variable names scrubbed on top of the built-in ones.
    pub extra_secrets: &'a [String],
    /// The tag every process of the run carries.
    pub tag: &'a RunTag,
    /// How the run is confined.
    pub sandbox: &'a RunSandbox,
}

/// Build the run's confinement in this thread, then spawn the shell from
/// the spawner thread (see [`crate::spawn`]).
fn start_shell(job: &ShellJob<'_>) -> Result<Started, ToolError> {
    let prepared = sandbox::prepare(job.sandbox, job.workspace, job.tag)
        .map_err(|e| ToolError::Failed(format!("could not sandbox the command: {e}")))?;
    let mut cmd = shell_command(
        job.command,
        job.cwd,
        job.workspace,
        job.extra_secrets,
        job.tag,
    );
    cmd.envs(prepared.env);
    let child = spawn::spawn(cmd, prepared.confinement)
        .map_err(|e| ToolError::Failed(format!("could not start the shell: {e}")))?;
    Ok(Started {
        child,
        run_dir: prepared.run_dir,
    })
}

/// Reads `src` to its end (or first error), handing each chunk to `push`.
fn drain<R: Read>(mut src: R, mut push: impl FnMut(&[u8])) {
    let mut buf = [0u8; 8192];
    loop {
        match src.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => push(&buf[..n]),
        }
    }
}

fn spawn_reader<R: Read + Send + 'static>(
    src: R,
    sink: Arc<Mutex<Capture>>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        drain(src, |bytes| {
            if let Ok(mut c) = sink.lock() {
                c.push(bytes);
            }
        });
    })
}

/// How a foreground run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// Exited with this code.
    Exited(i32),
    /// Killed by this signal.
    Signal(i32),
    /// Ran past its timeout; the group was killed.
    TimedOut,
}

/// The result of a foreground run.
#[derive(Debug)]
pub struct RunResult {
    /// How it ended.
    pub ended: Ended,
    /// Captured stdout.
    pub stdout: String,
    /// Captured stderr.
    pub stderr: String,
    /// Wall time.
    pub elapsed: Duration,
}

fn status_to_ended(status: ExitStatus) -> Ended {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => Ended::Exited(code),
        (None, Some(sig)) => Ended::Signal(sig),
        (None, None) => Ended::Exited(-1),
    }
}

/// Run a shell command to completion, its timeout, or cancel, confined as
/// `job.sandbox` says. On timeout or cancel the whole run is killed (its
/// process group and whatever left the group); after a normal exit any
/// stragglers are killed too.
pub fn run_foreground(
    job: &ShellJob<'_>,
    timeout: Duration,
    cancel: &CancelToken,
) -> Result<RunResult, ToolError> {
    let start = Instant::now();
    let tag = job.tag;
    // `_run_dir` lives to the end of this function: after the kill below.
    let Started {
        mut child,
        run_dir: _run_dir,
    } = start_shell(job)?;
    let pgid = child.id();
    let out = Arc::new(Mutex::new(Capture::default()));
    let err = Arc::new(Mutex::new(Capture::default()));
    let mut readers = Vec::new();
    if let Some(s) = child.stdout.take() {
        readers.push(spawn_reader(s, Arc::clone(&out)));
    }
    if let Some(s) = child.stderr.take() {
        readers.push(spawn_reader(s, Arc::clone(&err)));
    }
    let ended = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status_to_ended(status),
            Ok(None) => {}
            Err(e) => {
                tag.kill(Some(pgid));
                let _ = child.wait();
                return Err(ToolError::Failed(format!(
                    "waiting for the command failed: {e}"
                )));
            }
        }
        if cancel.is_cancelled() {
            tag.kill(Some(pgid));
            let _ = child.wait();
            return Err(ToolError::Cancelled);
        }
        if start.elapsed() >= timeout {
            tag.kill(Some(pgid));
            let _ = child.wait();
            break Ended::TimedOut;
        }
        std::thread::sleep(CANCEL_POLL);
    };
    tag.kill(Some(pgid));
    let deadline = Instant::now() + PIPE_DRAIN_GRACE;
    for r in readers {
        while !r.is_finished() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        if r.is_finished() {
            let _ = r.join();
        }
    }
    let values = secrets::secret_values(job.extra_secrets);
    let text = |c: &Arc<Mutex<Capture>>| {
        c.lock()
            .map(|c| secrets::redact(&c.text(), &values))
            .unwrap_or_default()
    };
    Ok(RunResult {
        ended,
        stdout: text(&out),
        stderr: text(&err),
        elapsed: start.elapsed(),
    })
}

/// Output of a background process: the most recent bytes, with absolute
/// offsets so polls return only what is new.
#[derive(Debug, Default)]
struct BgBuffer {
    data: VecDeque<u8>,
    /// Absolute offset of `data[0]`.
    start: u64,
    /// Output pipes not yet at end of file. A poll that sees the process
    /// exit waits (up to [`PIPE_DRAIN_GRACE`]) for these to close, so the
    /// last bytes it wrote are not reported after its exit status.
    open_streams: u8,
}

impl BgBuffer {
    fn push(&mut self, bytes: &[u8]) {
        self.data.extend(bytes);
        let excess = self.data.len().saturating_sub(MAX_BG_BUFFER);
        if excess > 0 {
            self.data.drain(..excess);
            self.start += excess as u64;
        }
    }

    fn end(&self) -> u64 {
        self.start + self.data.len() as u64
    }
}

struct BgProc {
    command: String,
    child: Child,
    tag: RunTag,
    /// The sandbox level it runs at (`None`: unconfined).
    level: Option<Level>,
    /// Its temp dir, removed when the entry is dropped.
    _run_dir: Option<RunDir>,
    buffer: Arc<Mutex<BgBuffer>>,
    read_pos: u64,
    exit: Option<Ended>,
    /// When a poll first saw `exit`; bounds the wait for pipes to drain.
    exited_at: Option<Instant>,
}

impl BgProc {
    /// Kills the run and reaps the shell, recording how it ended. Only a
    /// group whose leader is not yet reaped is signalled (a reaped pid may
    /// be reused); tagged processes are found whatever became of the shell.
    fn stop(&mut self) {
        if self.exit.is_none() {
            if let Ok(Some(status)) = self.child.try_wait() {
                self.exit = Some(status_to_ended(status));
            }
        }
        let group = self.exit.is_none().then(|| self.child.id());
        self.tag.kill(group);
        if self.exit.is_none() {
            if let Ok(status) = self.child.wait() {
                self.exit = Some(status_to_ended(status));
            }
        }
    }
}

/// What a poll saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BgPoll {
    /// The command line.
    pub command: String,
    /// Output since the previous poll (stdout and stderr interleaved).
    pub output: String,
    /// Bytes that scrolled out of the buffer before this poll.
    pub missed: u64,
    /// `None` while running.
    pub exit: Option<Ended>,
    /// The sandbox level it runs at (`None`: unconfined).
    pub level: Option<Level>,
}

/// Background processes started by `shell_bg`, shared by every clone.
#[derive(Clone, Default)]
pub struct BackgroundTable {
    inner: Arc<Mutex<BgInner>>,
}

impl std::fmt::Debug for BackgroundTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BackgroundTable").finish_non_exhaustive()
    }
}

#[derive(Default)]
struct BgInner {
    next_id: u64,
    procs: HashMap<u64, BgProc>,
}

fn pump<R: Read + Send + 'static>(src: R, sink: Arc<Mutex<BgBuffer>>) {
    if let Ok(mut b) = sink.lock() {
        b.open_streams += 1;
    }
    std::thread::spawn(move || {
        drain(src, |bytes| {
            if let Ok(mut b) = sink.lock() {
                b.push(bytes);
            }
        });
        if let Ok(mut b) = sink.lock() {
            b.open_streams = b.open_streams.saturating_sub(1);
        }
    });
}

impl BackgroundTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, BgInner>, ToolError> {
        self.inner
            .lock()
            .map_err(|_| ToolError::Failed("the background table is unavailable".into()))
    }

    /// Start a command in the background, confined as `job.sandbox` says;
    /// returns its id.
    pub fn start(&self, job: &ShellJob<'_>) -> Result<u64, ToolError> {
        let mut inner = self.lock()?;
        let running = inner.procs.values().filter(|p| p.exit.is_none()).count();
        if running >= MAX_BG_PROCESSES {
            return Err(ToolError::Failed(format!(
                "{running} background processes are already running; kill one with shell_kill first"
            )));
        }
        let tag = job.tag.clone();
        let Started { mut child, run_dir } = start_shell(job)?;
        let buffer = Arc::new(Mutex::new(BgBuffer::default()));
        if let Some(s) = child.stdout.take() {
            pump(s, Arc::clone(&buffer));
        }
        if let Some(s) = child.stderr.take() {
            pump(s, Arc::clone(&buffer));
        }
        inner.next_id += 1;
        let id = inner.next_id;
        inner.procs.insert(
            id,
            BgProc {
                command: job.command.to_string(),
                child,
                tag,
                level: job.sandbox.level(),
                _run_dir: run_dir,
                buffer,
                read_pos: 0,
                exit: None,
                exited_at: None,
            },
        );
        Ok(id)
    }

    /// New output and status of `id`, waiting up to `wait` for it to exit
    /// (returns early on exit or cancel). An exit is reported together with
    /// all the output written before it.
    pub fn poll(
        &self,
        id: u64,
        wait: Duration,
        cancel: &CancelToken,
        extra_secrets: &[String],
    ) -> Result<BgPoll, ToolError> {
        let deadline = Instant::now() + wait;
        loop {
            {
                let mut inner = self.lock()?;
                let proc_ = inner.procs.get_mut(&id).ok_or_else(|| {
                    ToolError::Failed(format!("no background process with id {id}"))
                })?;
                if proc_.exit.is_none() {
                    if let Ok(Some(status)) = proc_.child.try_wait() {
                        proc_.exit = Some(status_to_ended(status));
                    }
                }
                let now = Instant::now();
                if proc_.exit.is_some() && proc_.exited_at.is_none() {
                    proc_.exited_at = Some(now);
                }
                let drained = proc_.exited_at.is_some_and(|at| {
                    now >= at + PIPE_DRAIN_GRACE
                        || proc_.buffer.lock().map_or(true, |b| b.open_streams == 0)
                });
                // Once it has exited, wait for the drain (bounded by the
                // grace) even past `wait`: its last output comes with its status.
                let waited = now >= deadline && proc_.exit.is_none();
                if drained || waited || cancel.is_cancelled() {
                    let (output, missed) = match proc_.buffer.lock() {
                        Ok(buf) => {
                            let from = proc_.read_pos.max(buf.start);
                            let missed = from - proc_.read_pos;
                            let skip = usize::try_from(from - buf.start).unwrap_or(usize::MAX);
                            let bytes: Vec<u8> = buf.data.iter().skip(skip).copied().collect();
                            proc_.read_pos = buf.end();
                            (String::from_utf8_lossy(&bytes).into_owned(), missed)
                        }
                        Err(_) => (String::new(), 0),
                    };
                    let values = secrets::secret_values(extra_secrets);
                    return Ok(BgPoll {
                        command: proc_.command.clone(),
                        output: secrets::redact(&output, &values),
                        missed,
                        // Exit is reported once the output is complete, so
                        // a poll never says "exited" while bytes are in flight.
                        exit: proc_.exit.filter(|_| drained),
                        level: proc_.level,
                    });
                }
            }
            std::thread::sleep(CANCEL_POLL);
        }
    }

    /// Kill `id`: its process group and whatever it started outside the
    /// group. Returns its command line.
    pub fn kill(&self, id: u64) -> Result<String, ToolError> {
        let mut inner = self.lock()?;
        let proc_ = inner
            .procs
            .get_mut(&id)
            .ok_or_else(|| ToolError::Failed(format!("no background process with id {id}")))?;
        if proc_.exit.is_none() {
            if let Ok(Some(status)) = proc_.child.try_wait() {
                proc_.exit = Some(status_to_ended(status));
            }
        }
        proc_.stop();
        Ok(proc_.command.clone())
    }

    /// Ids and command lines of every process, with whether it still runs.
    pub fn list(&self) -> Vec<(u64, String, bool)> {
        let Ok(mut inner) = self.inner.lock() else {
            return Vec::new();
        };
        let mut out: Vec<(u64, String, bool)> = inner
            .procs
            .iter_mut()
            .map(|(id, p)| {
                if p.exit.is_none() {
                    if let Ok(Some(status)) = p.child.try_wait() {
                        p.exit = Some(status_to_ended(status));
                    }
                }
                (*id, p.command.clone(), p.exit.is_none())
            })
            .collect();
        out.sort_by_key(|(id, _, _)| *id);
        out
    }

    /// Kill every background process (and what each started) and forget
    /// them.
    pub fn kill_all(&self) {
        let Ok(mut inner) = self.inner.lock() else {
            return;
        };
        for (_, mut p) in inner.procs.drain() {
            p.stop();
        }
    }
}
