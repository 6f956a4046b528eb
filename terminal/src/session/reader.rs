//! The parser thread: the pump's buffers → parser → `Term`, one buffer
//! per lock hold.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use ai_chat_engine::FailedCommand;
use alacritty_terminal::sync::FairMutex;
use alacritty_terminal::term::Term;
use alacritty_terminal::vte::ansi::{Processor, StdSyncHandler};
use crossbeam_channel::{RecvTimeoutError, Sender};
use parking_lot::RwLock;

use super::events::EventProxy;
use super::osc_scan::Marker;
use super::pump::{Fill, Pipes};
use super::requests::{self, Action, PictureRequest, Tracked};
use super::seq_scan::SeqScanner;
use super::shell_state::ShellState;
use super::writer::WriterMsg;
use super::{ExitStatus, GridSize};
use crate::palette::Palette;
use crate::trace::{bursts, latency};

pub(crate) struct Reader {
    pub(crate) terminal: Arc<FairMutex<Term<EventProxy>>>,
    pub(crate) proxy: EventProxy,
    pub(crate) writer: Sender<WriterMsg>,
    pub(crate) palette: Arc<RwLock<Palette>>,
    pub(crate) size: Arc<RwLock<GridSize>>,
    pub(crate) bytes_read: Arc<AtomicU64>,
    pub(crate) shell: Arc<parking_lot::Mutex<ShellState>>,
    /// The secret an OSC 7717 request must carry to open the overlay.
    pub(crate) overlay_token: Option<String>,
    pub(crate) graphics: super::SharedGraphics,
}

/// Where the parser is between buffers.
struct ParseState {
    parser: Processor<StdSyncHandler>,
    scanner: SeqScanner,
    actions: Vec<(usize, Action)>,
    tracked: Tracked,
}

impl Reader {
    /// Runs until the pump reports the child's end (returning its status)
    /// or stops on shutdown (returning `None`).
    pub(crate) fn run(self, pipes: Pipes) -> Option<ExitStatus> {
        let mut state = ParseState {
            parser: Processor::new(),
            scanner: SeqScanner::reporting_plain(requests::PLAIN_CSI_FINALS),
            actions: Vec::new(),
            tracked: Tracked::default(),
        };
        loop {
            let mut deadline = state.parser.sync_timeout().sync_timeout();
            if bursts::in_burst() {
                let quiet = Instant::now() + bursts::QUIET;
                deadline = Some(deadline.map_or(quiet, |d| d.min(quiet)));
            }
            let sweep = self.graphics.lock().sweep_due();
            if let Some(at) = sweep {
                deadline = Some(deadline.map_or(at, |d| d.min(at)));
            }
            let fill = match deadline {
                Some(at) => pipes.fills.recv_deadline(at),
                None => pipes
                    .fills
                    .recv()
                    .map_err(|_| RecvTimeoutError::Disconnected),
            };
            match fill {
                Ok(Fill::Output { buf, len }) => {
                    self.parse_output(&mut state, &buf[..len]);
                    // The pump is gone once the parser would see the pipe close.
                    let _ = pipes.returns.send(buf);
                }
                Ok(Fill::Ended(status)) => {
                    bursts::quiet();
                    // Flush anything a synchronized update held back.
                    let mut term = self.terminal.lock();
                    state.parser.stop_sync(&mut *term);
                    self.flush_replies(&term);
                    // The last output may have scrolled pictures away.
                    self.graphics.lock().collect(&term);
                    return Some(status);
                }
                Err(RecvTimeoutError::Disconnected) => return None,
                Err(RecvTimeoutError::Timeout) => {
                    if sweep.is_some_and(|at| at <= Instant::now()) {
                        let term = self.terminal.lock();
                        self.graphics.lock().sweep(&term);
                    }
                    bursts::quiet();
                    if state
                        .parser
                        .sync_timeout()
                        .sync_timeout()
                        .is_some_and(|at| at <= Instant::now())
                    {
                        // A synchronized update (mode 2026) timed out: show what we have.
                        let mut term = self.terminal.lock();
                        state.parser.stop_sync(&mut *term);
                        self.flush_replies(&term);
                        drop(term);
                        self.proxy_wakeup();
                    }
                }
            }
        }
    }

    /// Parse one buffer under one lock hold, answer what it asked, and
    /// wake the owner unless a synchronized update holds the screen.
    fn parse_output(&self, state: &mut ParseState, bytes: &[u8]) {
        let asked = Instant::now();
        let mut term = self.terminal.lock();
        let locked = Instant::now();
        self.parse(&mut term, state, bytes);
        self.flush_replies(&term);
        self.graphics.lock().sweep(&term);
        drop(term);
        bursts::parsed(locked - asked, locked.elapsed());
        self.bytes_read
            .fetch_add(bytes.len() as u64, Ordering::Relaxed);
        if state.parser.sync_bytes_count() == 0 {
            self.proxy_wakeup();
            latency::hop(latency::Hop::Parsed);
        }
    }

    /// Feeds `bytes` to the parser, stopping at each request koi answers
    /// itself so its reply sees the screen as it was there and queues
    /// behind the parser's earlier replies.
    fn parse(&self, term: &mut Term<EventProxy>, state: &mut ParseState, bytes: &[u8]) {
        let ParseState {
            parser,
            scanner,
            actions,
            tracked,
        } = state;
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
        if let Action::Picture(request) = action {
            return self.on_picture(term, size, request);
        }
        if action == Action::FullReset {
            self.graphics.lock().reset();
        }
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

    fn on_picture(&self, term: &mut Term<EventProxy>, size: GridSize, request: PictureRequest) {
        let cell = (size.cell_width, size.cell_height);
        let mut graphics = self.graphics.lock();
        match request {
            PictureRequest::Kitty(body) => {
                if let Some(reply) = graphics.kitty(term, cell, &body) {
                    self.proxy.queue_reply(reply);
                }
            }
            PictureRequest::Sixel { params, data } => graphics.sixel(term, cell, &params, &data),
            PictureRequest::Iterm(body) => graphics.iterm(term, cell, &body),
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
