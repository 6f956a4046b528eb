//! Sending a turn's messages to its front end.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use ai_tools::CancelToken;
use crossbeam_channel::{Receiver, Sender};
use koi_protocol::Op;

use crate::stream::Event;

/// Called after every message a turn sends (e.g. to wake a GUI event loop).
pub type Waker = Arc<dyn Fn() + Send + Sync>;

/// Sends a turn's messages, waking the front end after each.
pub(crate) struct Emitter {
    tx: Sender<Event>,
    /// What the front end tells the turn ([`Op::Approve`]); disconnected
    /// when every handle of the turn is gone.
    ops: Receiver<Op>,
    waker: Option<Waker>,
    cancel: CancelToken,
    /// The turn's terminal message (Done or Err) was sent.
    ended: AtomicBool,
}

impl Emitter {
    pub fn new(
        tx: Sender<Event>,
        ops: Receiver<Op>,
        waker: Option<Waker>,
        cancel: CancelToken,
    ) -> Emitter {
        Emitter {
            tx,
            ops,
            waker,
            cancel,
            ended: AtomicBool::new(false),
        }
    }

    /// The ops the turn's front end sends (approval answers).
    pub fn ops(&self) -> &Receiver<Op> {
        &self.ops
    }

    /// Whether the turn's terminal message was sent.
    pub fn ended(&self) -> bool {
        self.ended.load(Ordering::SeqCst)
    }

    pub fn send(&self, msg: Event) {
        if msg.is_terminal() {
            self.ended.store(true, Ordering::SeqCst);
        }
        if self.tx.send(msg).is_err() {
            // Nobody is listening any more: stop working for no one.
            self.cancel.cancel();
        }
        if let Some(w) = &self.waker {
            w();
        }
    }
}
