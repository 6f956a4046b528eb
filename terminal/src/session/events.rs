//! What the terminal tells its owner, and the replies it owes the application.
//!
//! alacritty_terminal reports through an [`EventListener`] called while the
//! parser holds the terminal lock. Replies that need terminal state (colour
//! queries) cannot lock it again from there, so the listener only queues them;
//! the reader thread resolves the queue in order, still holding the lock, and
//! hands the bytes to the writer. Everything else goes to the owner's channel.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use alacritty_terminal::event::{Event, EventListener, WindowSize};
use alacritty_terminal::term::{ClipboardType, Term};
use crossbeam_channel::Sender;
use parking_lot::Mutex;

use crate::palette::Palette;

/// Something the owner of a session may want to act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionEvent {
    /// The application set the window title (OSC 0/2).
    Title(String),
    /// The application asked for the default title back.
    ResetTitle,
    /// BEL.
    Bell,
    /// OSC 52 asked to store text in the clipboard or the primary selection.
    ClipboardStore { primary: bool, text: String },
    /// The cursor blinking mode changed.
    CursorBlinkingChange,
    /// A program proved it may open the assistant overlay (`k --overlay`).
    OpenOverlay,
    /// The shell's integration asked for a command suggestion (`#` at the
    /// prompt) and waits for the answer on its input.
    Suggest(crate::prompt_suggest::SuggestRequest),
    /// The child exited and the output it left has been parsed.
    Exited(super::ExitStatus),
}

/// A reply to the application, waiting for the reader thread to resolve it.
pub(crate) enum PendingReply {
    Text(String),
    Color(
        usize,
        Arc<dyn Fn(alacritty_terminal::vte::ansi::Rgb) -> String + Send + Sync>,
    ),
    TextAreaSize(Arc<dyn Fn(WindowSize) -> String + Send + Sync>),
}

/// Calls the owner's wakeup callback once per batch of new content: the flag
/// stays set until the owner takes a snapshot and calls [`Wakeup::rearm`].
#[derive(Clone)]
pub(crate) struct Wakeup {
    pending: Arc<AtomicBool>,
    callback: Arc<dyn Fn() + Send + Sync>,
}

impl Wakeup {
    pub(crate) fn new(callback: Arc<dyn Fn() + Send + Sync>) -> Self {
        Self {
            pending: Arc::new(AtomicBool::new(false)),
            callback,
        }
    }

    pub(crate) fn fire(&self) {
        if !self.pending.swap(true, Ordering::AcqRel) {
            (self.callback)();
        }
    }

    /// Wakes the owner even while an earlier wake-up is pending: that one
    /// may wait for a frame a flood's pacing holds back, and an exit must
    /// close the window now, not after that frame.
    pub(crate) fn force(&self) {
        self.pending.store(true, Ordering::Release);
        (self.callback)();
    }

    pub(crate) fn rearm(&self) {
        self.pending.store(false, Ordering::Release);
    }
}

/// The listener handed to `Term`.
#[derive(Clone)]
pub struct EventProxy {
    replies: Arc<Mutex<Vec<PendingReply>>>,
    events: Sender<SessionEvent>,
    wakeup: Wakeup,
}

impl EventProxy {
    pub(crate) fn new(events: Sender<SessionEvent>, wakeup: Wakeup) -> Self {
        Self {
            replies: Arc::default(),
            events,
            wakeup,
        }
    }

    pub(crate) fn emit(&self, event: SessionEvent) {
        // The owner may have stopped listening; that is not our problem.
        let _ = self.events.send(event);
        self.wakeup.fire();
    }

    pub(crate) fn emit_exit(&self, status: super::ExitStatus) {
        let _ = self.events.send(SessionEvent::Exited(status));
        self.wakeup.force();
    }

    /// Queue koi's own reply behind those the parser queued so far.
    pub(crate) fn queue_reply(&self, text: String) {
        self.replies.lock().push(PendingReply::Text(text));
    }

    /// Drop the core's last queued reply if it is `text`: koi answers that
    /// request itself, and an application must not get two answers.
    pub(crate) fn withdraw_reply(&self, text: &str) {
        let mut replies = self.replies.lock();
        if matches!(replies.last(), Some(PendingReply::Text(t)) if t == text) {
            replies.pop();
        }
    }

    /// Turn queued replies into bytes, in the order the application asked.
    /// Called with the terminal locked, so colour slots can be read.
    pub(crate) fn resolve_replies(
        &self,
        term: &Term<EventProxy>,
        palette: &Palette,
        window: WindowSize,
    ) -> Vec<u8> {
        let pending = std::mem::take(&mut *self.replies.lock());
        let mut out = Vec::new();
        for reply in pending {
            let text = match reply {
                PendingReply::Text(text) => text,
                PendingReply::Color(index, format) => {
                    let color = term.colors()[index].unwrap_or_else(|| palette.get(index));
                    format(color)
                }
                PendingReply::TextAreaSize(format) => format(window),
            };
            out.extend_from_slice(text.as_bytes());
        }
        out
    }
}

impl EventListener for EventProxy {
    fn send_event(&self, event: Event) {
        match event {
            Event::PtyWrite(text) => self.replies.lock().push(PendingReply::Text(text)),
            Event::ColorRequest(index, format) => {
                self.replies.lock().push(PendingReply::Color(index, format))
            }
            Event::TextAreaSizeRequest(format) => {
                self.replies.lock().push(PendingReply::TextAreaSize(format))
            }
            Event::Title(title) => self.emit(SessionEvent::Title(title)),
            Event::ResetTitle => self.emit(SessionEvent::ResetTitle),
            Event::Bell => self.emit(SessionEvent::Bell),
            Event::ClipboardStore(kind, text) => self.emit(SessionEvent::ClipboardStore {
                primary: kind == ClipboardType::Selection,
                text,
            }),
            Event::CursorBlinkingChange => self.emit(SessionEvent::CursorBlinkingChange),
            // Clipboard loads are refused (Osc52::OnlyCopy never sends them):
            // answering would leak the clipboard to any program that asks.
            Event::ClipboardLoad(..) => {}
            Event::Wakeup | Event::MouseCursorDirty => self.wakeup.fire(),
            // The reader thread reports exits itself, after draining output.
            Event::ChildExit(_) | Event::Exit => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;

    use super::*;

    #[test]
    fn an_exit_wakes_the_owner_while_an_earlier_wakeup_is_still_pending() {
        let calls = Arc::new(AtomicUsize::new(0));
        let counter = calls.clone();
        let wakeup = Wakeup::new(Arc::new(move || {
            counter.fetch_add(1, Ordering::SeqCst);
        }));
        let (events, received) = crossbeam_channel::unbounded();
        let proxy = EventProxy::new(events, wakeup.clone());
        proxy.send_event(Event::Wakeup);
        proxy.send_event(Event::Wakeup);
        proxy.send_event(Event::Bell);
        assert_eq!(calls.load(Ordering::SeqCst), 1, "a batch wakes once");
        let status = crate::session::ExitStatus {
            code: 0,
            signal: None,
        };
        proxy.emit_exit(status.clone());
        assert_eq!(calls.load(Ordering::SeqCst), 2, "the exit woke the owner");
        let got: Vec<_> = received.try_iter().collect();
        assert_eq!(got, [SessionEvent::Bell, SessionEvent::Exited(status)]);
        // Still one wake-up per batch after the owner's next snapshot.
        wakeup.rearm();
        proxy.send_event(Event::Wakeup);
        proxy.send_event(Event::Wakeup);
        assert_eq!(calls.load(Ordering::SeqCst), 3);
    }
}
