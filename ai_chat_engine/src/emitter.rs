//! Sending a turn's messages to its front end.

use std::sync::Arc;

use ai_tools::CancelToken;
use crossbeam_channel::Sender;

use crate::stream_msg::StreamMsg;

/// Called after every message a turn sends (e.g. to wake a GUI event loop).
pub type Waker = Arc<dyn Fn() + Send + Sync>;

/// Sends a turn's messages, waking the front end after each.
pub(crate) struct Emitter {
    tx: Sender<StreamMsg>,
    waker: Option<Waker>,
    cancel: CancelToken,
}

impl Emitter {
    pub fn new(tx: Sender<StreamMsg>, waker: Option<Waker>, cancel: CancelToken) -> Emitter {
        Emitter { tx, waker, cancel }
    }

    pub fn send(&self, msg: StreamMsg) {
        if self.tx.send(msg).is_err() {
            // Nobody is listening any more: stop working for no one.
            self.cancel.cancel();
        }
        if let Some(w) = &self.waker {
            w();
        }
    }
}
