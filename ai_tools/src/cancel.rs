//! A cheap, clonable cancellation flag checked by long-running tools.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How often waiting tools look at the flag; shell tools promise to kill
/// their process group within 100 ms of cancel, so poll well inside that.
pub const CANCEL_POLL: Duration = Duration::from_millis(20);

/// Shared cancellation flag. Clones observe the same flag.
#[derive(Debug, Clone, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    /// A fresh, un-cancelled token.
    pub fn new() -> Self {
        Self::default()
    }

    /// Ask every holder to stop as soon as it can.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    /// Has [`CancelToken::cancel`] been called on any clone?
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }

    /// Sleep up to `dur`, waking early (returning `true`) if cancelled.
    pub fn sleep(&self, dur: Duration) -> bool {
        let end = Instant::now() + dur;
        loop {
            if self.is_cancelled() {
                return true;
            }
            let now = Instant::now();
            if now >= end {
                return false;
            }
            std::thread::sleep(CANCEL_POLL.min(end - now));
        }
    }
}
