//! A shell (or any command) in a real PTY, read by a pump thread and parsed
//! into alacritty_terminal state by a reader thread, with one ordered writer
//! for input and replies.
//!
//! ```text
//! child ◄──PTY──► pump ──buffers──► reader thread ──advance()──► Arc<FairMutex<Term>>
//!                                      │ replies (DA, DSR, OSC 10/11, DECRQCRA…) ▲ snapshot
//!   input ────────────────────────────►└──► writer thread ──► PTY       │ owner (UI, headless)
//! ```

mod answers;
mod events;
mod osc_scan;
mod pump;
mod reader;
mod requests;
mod seq_scan;
mod shell_state;
mod size;
pub mod terminfo;
mod wake;
mod writer;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use alacritty_terminal::sync::FairMutex;
use alacritty_terminal::term::{Config as TermConfig, Osc52, Term};
use crossbeam_channel::{Receiver, Sender};
use parking_lot::{Condvar, Mutex, RwLock};
use portable_pty::{ChildKiller, CommandBuilder, MasterPty};

pub use events::{EventProxy, SessionEvent};
pub use shell_state::{is_ignored, FreshBlock, LastCommand};
pub use size::GridSize;

use crate::palette::Palette;
use events::Wakeup;
use writer::WriterMsg;

/// A terminal's pictures, shared by the reader thread and the owner.
pub type SharedGraphics = Arc<Mutex<crate::graphics::Graphics>>;

/// The terminal state a session drives.
pub type Terminal = Term<EventProxy>;

/// How long a closing session lets its child react to SIGHUP before SIGKILL.
const HANGUP_GRACE: Duration = Duration::from_millis(300);

/// The shell used when neither the config nor `$SHELL` names one.
const FALLBACK_SHELL: &str = "/bin/sh";

/// How a child process ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExitStatus {
    /// The exit code; 1 when the child was killed by a signal.
    pub code: u32,
    /// The signal's name when the child was killed by one.
    pub signal: Option<String>,
}

impl ExitStatus {
    pub fn success(&self) -> bool {
        self.code == 0 && self.signal.is_none()
    }
}

impl std::fmt::Display for ExitStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.signal {
            Some(signal) => write!(f, "killed by {signal}"),
            None => write!(f, "exit status {}", self.code),
        }
    }
}

impl From<portable_pty::ExitStatus> for ExitStatus {
    fn from(status: portable_pty::ExitStatus) -> Self {
        // portable-pty keeps the signal's name private but prints it.
        let text = status.to_string();
        let signal = text.strip_prefix("Terminated by ").map(str::to_owned);
        Self {
            code: status.exit_code(),
            signal,
        }
    }
}

/// Why a session could not start.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("could not open a PTY: {0}")]
    OpenPty(String),
    #[error("could not start `{program}`: {reason}")]
    Spawn { program: String, reason: String },
    #[error("working directory {0} does not exist or is not a directory")]
    WorkingDirectory(PathBuf),
    #[error("empty command")]
    EmptyCommand,
    #[error("could not start the session's threads: {0}")]
    Io(#[from] std::io::Error),
}

/// Everything needed to start a session.
#[derive(Clone, Debug)]
pub struct SessionOptions {
    /// Program and arguments to run instead of the shell (`koi -e`).
    pub command: Option<Vec<String>>,
    /// The configured shell and its arguments; `$SHELL` then `/bin/sh` if unset.
    pub shell: Option<Vec<String>>,
    pub size: GridSize,
    pub working_directory: Option<PathBuf>,
    /// Extra environment for the child, applied after koi's own variables.
    pub env: Vec<(String, String)>,
    pub scrollback_lines: usize,
    /// Colours reported to applications that query them (OSC 4/10/11).
    pub palette: Palette,
    /// Let applications store text in the clipboard with OSC 52. Loading the
    /// clipboard is never allowed: it would leak it to any program.
    pub osc52_store: bool,
    /// The secret that `k --overlay` must echo (OSC 7717) to open the
    /// assistant; it is exported to the child as `KOI_SESSION_TOKEN`.
    /// `None` ignores every such request.
    pub overlay_token: Option<String>,
    /// Inject koi's shell integration into the shell (bash, zsh, fish)
    /// when it runs the shell rather than a command
    /// ([`crate::shell_integration`]).
    pub shell_integration: bool,
    /// Bytes of decoded pictures (kitty graphics, sixel, iTerm2) the
    /// terminal keeps before evicting the oldest.
    pub picture_budget: usize,
}

impl Default for SessionOptions {
    fn default() -> Self {
        Self {
            command: None,
            shell: None,
            size: GridSize::default(),
            working_directory: None,
            env: Vec::new(),
            scrollback_lines: 10_000,
            palette: Palette::default(),
            osc52_store: true,
            overlay_token: None,
            shell_integration: true,
            picture_budget: crate::graphics::DEFAULT_BUDGET_BYTES,
        }
    }
}

impl SessionOptions {
    /// The program and arguments this session will run.
    pub fn program(&self) -> Result<Vec<String>, SessionError> {
        let argv = match (&self.command, &self.shell) {
            (Some(command), _) => command.clone(),
            (None, Some(shell)) => shell.clone(),
            (None, None) => vec![std::env::var("SHELL")
                .ok()
                .filter(|s| !s.trim().is_empty())
                .unwrap_or_else(|| FALLBACK_SHELL.to_owned())],
        };
        if argv.first().is_none_or(|p| p.is_empty()) {
            return Err(SessionError::EmptyCommand);
        }
        Ok(argv)
    }
}

/// Signalled once the child has exited and its output has been parsed.
#[derive(Default)]
struct ExitCell {
    status: Mutex<Option<ExitStatus>>,
    changed: Condvar,
}

/// A running terminal session. Dropping it hangs up the child, reaps it and
/// joins every thread the session started.
pub struct Session {
    terminal: Arc<FairMutex<Terminal>>,
    master: Mutex<Box<dyn MasterPty + Send>>,
    writer: Sender<WriterMsg>,
    events: Receiver<SessionEvent>,
    wakeup: Wakeup,
    waker: wake::Waker,
    size: Arc<RwLock<GridSize>>,
    palette: Arc<RwLock<Palette>>,
    bytes_read: Arc<AtomicU64>,
    exit: Arc<ExitCell>,
    reaped: Arc<AtomicBool>,
    shell: Arc<Mutex<shell_state::ShellState>>,
    graphics: SharedGraphics,
    killer: Box<dyn ChildKiller + Send + Sync>,
    pid: Option<u32>,
    threads: Vec<JoinHandle<()>>,
}

impl Session {
    /// Start `options`' program in a new PTY. `on_wakeup` is called from the
    /// reader thread when there is new content or an event; it is called once
    /// per batch until the owner calls [`Session::rearm_wakeup`].
    pub fn spawn(
        options: SessionOptions,
        on_wakeup: impl Fn() + Send + Sync + 'static,
    ) -> Result<Self, SessionError> {
        let mut argv = options.program()?;
        let mut integration_env = Vec::new();
        // The child's environment: its own variables first, then koi's.
        let var = |name: &str| {
            options
                .env
                .iter()
                .rev()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.clone())
                .or_else(|| std::env::var(name).ok())
        };
        if options.command.is_none() && options.shell_integration {
            if let Some(launch) = crate::shell_integration::prepare(&argv, &var) {
                argv = launch.argv;
                integration_env = launch.env;
            }
        }
        let size = options.size;
        let pty = portable_pty::native_pty_system()
            .openpty(size.pty_size())
            .map_err(|e| SessionError::OpenPty(e.to_string()))?;

        let mut cmd = CommandBuilder::new(&argv[0]);
        cmd.args(&argv[1..]);
        let term_choice = terminfo::choose(
            &|name| var(name).map(Into::into),
            terminfo::installed_dir().as_deref(),
        );
        cmd.env("TERM", term_choice.term);
        cmd.env("COLORTERM", "truecolor");
        cmd.env("TERM_PROGRAM", "koi");
        cmd.env("TERM_PROGRAM_VERSION", env!("CARGO_PKG_VERSION"));
        crate::raster_threads::scrub(&mut cmd);
        for (key, value) in options.env.iter().chain(&integration_env) {
            cmd.env(key, value);
        }
        if let Some(dirs) = &term_choice.terminfo_dirs {
            cmd.env("TERMINFO_DIRS", dirs);
        }
        if let Some(token) = &options.overlay_token {
            cmd.env(crate::overlay_token::TOKEN_ENV, token);
        }
        let cwd = match &options.working_directory {
            Some(dir) if dir.is_dir() => dir.clone(),
            Some(dir) => return Err(SessionError::WorkingDirectory(dir.clone())),
            None => std::env::current_dir()?,
        };
        cmd.cwd(&cwd);

        let mut child = pty
            .slave
            .spawn_command(cmd)
            .map_err(|e| SessionError::Spawn {
                program: argv[0].clone(),
                reason: e.to_string(),
            })?;
        // The child has its own copy of the slave; ours would keep the PTY
        // open after the child exits and hide the EOF.
        drop(pty.slave);
        let master = pty.master;
        let pid = child.process_id();
        let killer = child.clone_killer();

        let reader_pty = master
            .try_clone_reader()
            .map_err(|e| SessionError::OpenPty(e.to_string()))?;
        let writer_pty = master
            .take_writer()
            .map_err(|e| SessionError::OpenPty(e.to_string()))?;
        #[cfg(unix)]
        let poll_target = master
            .as_raw_fd()
            .ok_or_else(|| SessionError::OpenPty("no master fd".into()))?;
        #[cfg(not(unix))]
        let poll_target = ();
        let (poll, waker) = wake::pair(poll_target)?;

        let (event_tx, events) = crossbeam_channel::unbounded();
        let wakeup = Wakeup::new(Arc::new(on_wakeup));
        let proxy = EventProxy::new(event_tx, wakeup.clone());
        let term_config = TermConfig {
            scrolling_history: options.scrollback_lines,
            kitty_keyboard: true,
            osc52: if options.osc52_store {
                Osc52::OnlyCopy
            } else {
                Osc52::Disabled
            },
            ..TermConfig::default()
        };
        let terminal = Arc::new(FairMutex::new(Term::new(term_config, &size, proxy.clone())));

        let (writer, writer_inbox) = crossbeam_channel::unbounded();
        let (exit_tx, exit_rx) = crossbeam_channel::bounded(1);
        let size = Arc::new(RwLock::new(size));
        let palette = Arc::new(RwLock::new(options.palette));
        let bytes_read = Arc::new(AtomicU64::new(0));
        let exit = Arc::new(ExitCell::default());
        let reaped = Arc::new(AtomicBool::new(false));
        let shell = Arc::new(Mutex::new(shell_state::ShellState::default()));

        let mut threads = Vec::with_capacity(4);
        threads.push(spawn_named("koi-pty-writer", move || {
            writer::run(writer_pty, writer_inbox)
        })?);
        threads.push(spawn_named("koi-pty-waiter", {
            let waker = waker.clone();
            let reaped = reaped.clone();
            move || {
                let status = match child.wait() {
                    Ok(status) => ExitStatus::from(status),
                    Err(_) => ExitStatus {
                        code: 1,
                        signal: None,
                    },
                };
                reaped.store(true, Ordering::Release);
                let _ = exit_tx.send(status);
                waker.child_exited();
            }
        })?);
        let exit_proxy = proxy.clone();
        let (pump, pipes) = pump::Pump::new(reader_pty, poll, exit_rx);
        threads.push(spawn_named("koi-pty-pump", move || pump.run())?);
        let graphics: SharedGraphics = Arc::new(Mutex::new(crate::graphics::Graphics::new(
            options.picture_budget,
        )));
        let reader = reader::Reader {
            terminal: terminal.clone(),
            proxy,
            writer: writer.clone(),
            palette: palette.clone(),
            size: size.clone(),
            bytes_read: bytes_read.clone(),
            shell: shell.clone(),
            overlay_token: options.overlay_token.clone(),
            graphics: graphics.clone(),
        };
        threads.push(spawn_named("koi-pty-reader", {
            let exit = exit.clone();
            move || {
                if let Some(status) = reader.run(pipes) {
                    // The event first, so whoever wakes on the exit cell
                    // finds the event already queued.
                    exit_proxy.emit_exit(status.clone());
                    *exit.status.lock() = Some(status);
                    exit.changed.notify_all();
                }
            }
        })?);

        Ok(Self {
            terminal,
            master: Mutex::new(master),
            writer,
            events,
            wakeup,
            waker,
            size,
            palette,
            bytes_read,
            exit,
            reaped,
            shell,
            graphics,
            killer,
            pid,
            threads,
        })
    }

    /// The terminal's pictures. Lock it after the terminal, never before:
    /// the reader thread takes them in that order.
    pub fn graphics(&self) -> &SharedGraphics {
        &self.graphics
    }

    /// The terminal state. Lock it briefly: the reader thread needs it too.
    pub fn terminal(&self) -> &Arc<FairMutex<Terminal>> {
        &self.terminal
    }

    /// Events (title, bell, clipboard, exit) in the order they happened.
    pub fn events(&self) -> &Receiver<SessionEvent> {
        &self.events
    }

    /// Let the next batch of output call the wakeup callback again. Call this
    /// before taking a snapshot so no update can slip between the two.
    pub fn rearm_wakeup(&self) {
        self.wakeup.rearm();
    }

    /// Send bytes to the application (already encoded: see [`crate::input`]).
    pub fn write(&self, bytes: impl Into<Vec<u8>>) {
        let bytes = bytes.into();
        if !bytes.is_empty() {
            let _ = self.writer.send(WriterMsg::Bytes(bytes));
        }
    }

    /// Resize the PTY first (so the application's SIGWINCH sees the new size),
    /// then the terminal grid.
    pub fn resize(&self, size: GridSize) {
        if *self.size.read() == size {
            return;
        }
        if let Err(e) = self.master.lock().resize(size.pty_size()) {
            log::warn!("PTY resize failed: {e}");
        }
        *self.size.write() = size;
        self.terminal.lock().resize(size);
    }

    pub fn size(&self) -> GridSize {
        *self.size.read()
    }

    /// Change the colours reported to applications (config reload).
    pub fn set_palette(&self, palette: Palette) {
        *self.palette.write() = palette;
    }

    /// Total bytes the application has written to the terminal.
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read.load(Ordering::Relaxed)
    }

    /// The working directory the shell last reported (OSC 7).
    pub fn cwd(&self) -> Option<String> {
        self.shell.lock().cwd.clone()
    }

    /// The last command and its output, when the shell reports them (OSC 133).
    pub fn last_command(&self) -> Option<LastCommand> {
        self.shell.lock().last_command.clone()
    }

    /// The command block that just finished, while nothing but a new
    /// prompt has come since and the user has not dismissed it, with
    /// where its last line is shown now.
    pub fn fresh_block(&self) -> Option<FreshBlock> {
        // The reader thread locks the terminal before the shell state.
        let term = self.terminal.lock();
        self.shell.lock().fresh_block(&*term)
    }

    /// Forget the fresh block: its hint goes away.
    pub fn dismiss_fresh_block(&self) {
        self.shell.lock().dismiss();
    }

    /// The exit status of the last command the shell reported (OSC 133),
    /// without copying its output.
    pub fn last_exit_code(&self) -> Option<i32> {
        self.shell
            .lock()
            .last_command
            .as_ref()
            .and_then(|c| c.exit_code)
    }

    /// Where a new pane next to this one should start: the directory the
    /// shell reported (OSC 7), else the child's own working directory as
    /// the kernel knows it.
    pub fn current_dir(&self) -> Option<PathBuf> {
        if let Some(dir) = self.cwd().map(PathBuf::from).filter(|d| d.is_dir()) {
            return Some(dir);
        }
        #[cfg(target_os = "linux")]
        if let Some(pid) = self.pid {
            if let Ok(dir) = std::fs::read_link(format!("/proc/{pid}/cwd")) {
                return Some(dir);
            }
        }
        None
    }

    /// Whether a job other than the child itself runs in the foreground
    /// (a shell that is running a command): closing would kill it.
    pub fn has_foreground_job(&self) -> bool {
        #[cfg(unix)]
        {
            let leader = self.master.lock().process_group_leader();
            match (leader, self.pid) {
                (Some(group), Some(pid)) => u32::try_from(group).ok() != Some(pid),
                _ => false,
            }
        }
        #[cfg(not(unix))]
        false
    }

    /// The child's process id.
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// How the child ended, once it has and its output has been parsed.
    pub fn exit_status(&self) -> Option<ExitStatus> {
        self.exit.status.lock().clone()
    }

    /// Wait until the child has exited and its output is parsed.
    pub fn wait_exit(&self, timeout: Option<Duration>) -> Option<ExitStatus> {
        let deadline = timeout.map(|t| Instant::now() + t);
        let mut status = self.exit.status.lock();
        while status.is_none() {
            match deadline {
                Some(deadline) => {
                    if self
                        .exit
                        .changed
                        .wait_until(&mut status, deadline)
                        .timed_out()
                    {
                        break;
                    }
                }
                None => self.exit.changed.wait(&mut status),
            }
        }
        status.clone()
    }

    #[cfg(unix)]
    fn signal_group(&self, signal: libc::c_int) {
        if let Some(pid) = self.pid.and_then(|p| i32::try_from(p).ok()) {
            // SAFETY: kill(2) with a negative pid signals that process group;
            // the child leads its own session and group, so this hits only it
            // and its foreground jobs.
            unsafe { libc::kill(-pid, signal) };
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.waker.shutdown();
        let _ = self.writer.send(WriterMsg::Shutdown);
        if !self.reaped.load(Ordering::Acquire) {
            #[cfg(unix)]
            self.signal_group(libc::SIGHUP);
            let _ = self.killer.kill();
            let deadline = Instant::now() + HANGUP_GRACE;
            while !self.reaped.load(Ordering::Acquire) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(5));
            }
            if !self.reaped.load(Ordering::Acquire) {
                #[cfg(unix)]
                self.signal_group(libc::SIGKILL);
                #[cfg(unix)]
                if let Some(pid) = self.pid.and_then(|p| i32::try_from(p).ok()) {
                    // SAFETY: signalling the child we spawned and have not reaped.
                    unsafe { libc::kill(pid, libc::SIGKILL) };
                }
            }
        }
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

fn spawn_named(name: &str, f: impl FnOnce() + Send + 'static) -> std::io::Result<JoinHandle<()>> {
    std::thread::Builder::new().name(name.to_owned()).spawn(f)
}
