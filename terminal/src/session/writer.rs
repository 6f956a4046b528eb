//! The writer thread: the one owner of the PTY's input side. User input and
//! the terminal's replies to the application arrive on one channel, so they
//! reach the application in the order they were produced.

use std::io::Write;

use crossbeam_channel::Receiver;

pub(crate) enum WriterMsg {
    Bytes(Vec<u8>),
    Shutdown,
}

pub(crate) fn run(mut pty: Box<dyn Write + Send>, inbox: Receiver<WriterMsg>) {
    while let Ok(msg) = inbox.recv() {
        match msg {
            WriterMsg::Bytes(bytes) => {
                // A failed write means the application is gone; keep draining
                // the channel so senders never block, until shutdown.
                if pty.write_all(&bytes).and_then(|()| pty.flush()).is_err() {
                    log::debug!("pty write failed; the application has gone");
                }
                crate::trace::latency::hop(crate::trace::latency::Hop::Write);
            }
            WriterMsg::Shutdown => break,
        }
    }
}
