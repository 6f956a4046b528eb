//! The reader thread: PTY bytes → parser → `Term`, in bounded slices.

use std::io::{ErrorKind, Read};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ai_chat_engine::FailedCommand;
use alacritty_terminal::sync::FairMutex;
use alacritty_terminal::term::Term;
use alacritty_terminal::vte::ansi::{Processor, StdSyncHandler};
use crossbeam_channel::{Receiver, Sender};
use parking_lot::RwLock;

use super::events::EventProxy;
use super::osc_scan::Marker;
use super::requests::{self, Action, Tracked};
use super::seq_scan::SeqScanner;
use super::shell_state::ShellState;
use super::wake::WakeReason;
use super::writer::WriterMsg;
use super::{ExitStatus, GridSize};
use crate::latency_trace::{self, Hop};
use crate::palette::Palette;

/// Bytes parsed per lock hold. 64 KiB parses in well under a millisecond, so
/// the UI thread never waits long for the terminal even during a huge `cat`.
pub(crate) const MAX_LOCKED_SLICE: usize = 64 * 1024;

/// After the child exits, output still in the PTY is drained until this much
/// silence: a grandchild holding the PTY open must not keep the session alive.
const EXIT_DRAIN_IDLE: Duration = Duration::from_millis(50);

/// …and for at most this long, even if a grandchild keeps printing.
const EXIT_DRAIN_MAX: Duration = Duration::from_secs(1);

pub(crate) struct Reader {
    pub(crate) pty: Box<dyn Read + Send>,
    pub(crate) poll: super::wake::PtyPoll,
    pub(crate) terminal: Arc<FairMutex<Term<EventProxy>>>,
    pub(crate) proxy: EventProxy,
    pub(crate) writer: Sender<WriterMsg>,
    pub(crate) palette: Arc<RwLock<Palette>>,
    pub(crate) size: Arc<RwLock<GridSize>>,
    pub(crate) bytes_read: Arc<AtomicU64>,
    pub(crate) exit_status: Receiver<ExitStatus>,
    pub(crate) shell: Arc<parking_lot::Mutex<ShellState>>,
    /// The secret an OSC 7717 request must carry to open the overlay.
    pub(crate) overlay_token: Option<String>,
}

impl Reader {
    /// Runs until EOF, shutdown or a drained exit; returns the exit status
    /// unless the session was shut down first.
    pub(crate) fn run(mut self) -> Option<ExitStatus> {
        let mut parser: Processor<StdSyncHandler> = Processor::new();
        let mut buf = vec![0u8; MAX_LOCKED_SLICE];
        let mut scanner = SeqScanner::default();
        let mut actions: Vec<(usize, Action)> = Vec::new();
        let mut tracked = Tracked::default();
        let mut exited: Option<(ExitStatus, Instant)> = None;

        loop {
            let deadline = match &exited {
                Some((_, at)) => Some((Instant::now() + EXIT_DRAIN_IDLE).min(*at + EXIT_DRAIN_MAX)),
                None => parser.sync_timeout().sync_timeout(),
            };
            let timeout = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            match self.poll.wait(timeout) {
                WakeReason::Shutdown => return None,
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
                WakeReason::Timeout => {
                    if exited
                        .as_ref()
                        .is_some_and(|(_, at)| at.elapsed() >= EXIT_DRAIN_IDLE)
                    {
                        break;
                    }
                    // A synchronized update (mode 2026) timed out: show what we have.
                    let mut term = self.terminal.lock();
                    parser.stop_sync(&mut *term);
                    self.flush_replies(&term);
                    drop(term);
                    self.proxy_wakeup();
                    continue;
                }
                WakeReason::Readable => latency_trace::hop(Hop::Readable),
            }

            if exited
                .as_ref()
                .is_some_and(|(_, at)| at.elapsed() >= EXIT_DRAIN_MAX)
            {
                break;
            }
            // Parse each read as it comes, under one lock for up to a
            // slice: while a read is parsed the writer refills the PTY, so
            // the next read rarely waits, and the lock, the replies and the
            // wakeup are paid once per slice, not once per read.
            let mut term = None;
            let mut parsed = 0;
            let mut eof = false;
            loop {
                let Some(filled) = read_some(&mut *self.pty, &mut buf) else {
                    eof = true;
                    break;
                };
                self.bytes_read.fetch_add(filled as u64, Ordering::Relaxed);
                let term = term.get_or_insert_with(|| self.terminal.lock());
                self.parse(
                    term,
                    &mut parser,
                    &mut scanner,
                    &mut actions,
                    &mut tracked,
                    &buf[..filled],
                );
                parsed += filled;
                if parsed >= MAX_LOCKED_SLICE || !self.poll.readable_now() {
                    break;
                }
            }
            if let Some(term) = term {
                self.flush_replies(&term);
                drop(term);
                if parser.sync_bytes_count() == 0 {
                    self.proxy_wakeup();
                    latency_trace::hop(Hop::Parsed);
                }
            }
            if eof {
                break;
            }
        }

        // EOF or drained after exit: flush anything a sync update held back.
        {
            let mut term = self.terminal.lock();
            parser.stop_sync(&mut *term);
            self.flush_replies(&term);
        }
        // On EOF the child is exiting (or being killed by our Drop): wait for it.
        let status = match exited {
            Some((status, _)) => status,
            None => self.exit_status.recv().ok()?,
        };
        Some(status)
    }

    /// Feeds `bytes` to the parser, stopping at each request koi answers
    /// itself so its reply sees the screen as it was there and queues
    /// behind the parser's earlier replies.
    fn parse(
        &self,
        term: &mut Term<EventProxy>,
        parser: &mut Processor<StdSyncHandler>,
        scanner: &mut SeqScanner,
        actions: &mut Vec<(usize, Action)>,
        tracked: &mut Tracked,
        bytes: &[u8],
    ) {
        actions.clear();
        scanner.scan(bytes, |end, seq| {
            if let Some(action) = requests::classify(seq) {
                actions.push((end, action));
            }
        });
        let mut done = 0;
        for (end, action) in actions.drain(..) {
            parser.advance(term, &bytes[done..end]);
            done = end;
            if action.needs_current_state() && parser.sync_bytes_count() > 0 {
                // A query inside a synchronized update: the update ends
                // here, or the answer would describe an older screen.
                parser.stop_sync(term);
            }
            self.on_action(term, tracked, action);
        }
        parser.advance(term, &bytes[done..]);
    }

    fn on_action(&self, term: &mut Term<EventProxy>, tracked: &mut Tracked, action: Action) {
        if let Action::Marker(marker) = action {
            return self.on_marker(term, marker);
        }
        let size = *self.size.read();
        let response = super::answers::respond(term, tracked, size, action);
        if let Some(core_reply) = response.replaces {
            self.proxy.withdraw_reply(&core_reply);
        }
        if let Some(reply) = response.reply {
            self.proxy.queue_reply(reply);
        }
    }

    fn on_marker(&self, term: &Term<EventProxy>, marker: Marker) {
        match marker {
            Marker::Shell(mark) => self.shell.lock().mark(term, &mark),
            Marker::Cwd(dir) => self.shell.lock().cwd = Some(dir),
            Marker::OpenOverlay(token) => {
                if self.has_token(&token) {
                    self.proxy.emit(super::SessionEvent::OpenOverlay);
                } else {
                    log::warn!("ignored a request to open the assistant without the session token");
                }
            }
            Marker::Suggest { token, request } => {
                if self.has_token(&token) {
                    self.proxy.emit(super::SessionEvent::Suggest(request));
                } else {
                    log::warn!("ignored a request for a suggestion without the session token");
                }
            }
            Marker::LastCommand(token) => {
                if self.has_token(&token) {
                    // The answer goes to the asking program's input,
                    // behind any reply the parser queued before.
                    let block = self.shell.lock().last_command.as_ref().map(|last| {
                        FailedCommand::new(&last.command, &last.output, last.exit_code)
                    });
                    self.proxy.queue_reply(FailedCommand::reply(block.as_ref()));
                } else {
                    log::warn!("ignored a request for the last command without the session token");
                }
            }
        }
    }

    fn has_token(&self, token: &str) -> bool {
        self.overlay_token
            .as_deref()
            .is_some_and(|want| tokens_match(want, token))
    }

    fn flush_replies(&self, term: &Term<EventProxy>) {
        let window = self.size.read().window_size();
        let bytes = self
            .proxy
            .resolve_replies(term, &self.palette.read(), window);
        if !bytes.is_empty() {
            let _ = self.writer.send(WriterMsg::Bytes(bytes));
        }
    }

    fn proxy_wakeup(&self) {
        use alacritty_terminal::event::{Event, EventListener};
        self.proxy.send_event(Event::Wakeup);
    }
}

/// One read of what the PTY holds (it was readable). `None` on EOF or a
/// dead PTY.
fn read_some(pty: &mut dyn Read, buf: &mut [u8]) -> Option<usize> {
    loop {
        match pty.read(buf) {
            Ok(0) => return None,
            Ok(n) => return Some(n),
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            // EIO is how Linux says the other side of the PTY is gone.
            Err(_) => return None,
        }
    }
}

/// Compare without stopping at the first difference, so timing reveals
/// nothing about how much of a guessed token was right.
fn tokens_match(want: &str, got: &str) -> bool {
    want.len() == got.len()
        && want
            .bytes()
            .zip(got.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}
