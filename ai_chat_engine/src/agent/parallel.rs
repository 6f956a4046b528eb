//! Cleared calls running side by side, each on a thread of its own: the
//! one runner under the agent loop's batches and `explore`'s rounds. What
//! runs here was judged and cleared before ([`ai_tools::Judged`]); this
//! only starts the calls and hands back each result, by its index, as it
//! comes.

use std::time::Duration;

use ai_tools::{ToolError, ToolOutput};
use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};

/// What one call ended with.
pub(crate) type CallResult = Result<ToolOutput, ToolError>;

/// What a wait for the next result saw.
pub(crate) enum Next {
    /// Call `.0` finished with `.1`.
    Finished(usize, CallResult),
    /// Nothing finished within the wait.
    Waiting,
    /// No call is running.
    Idle,
}

/// Calls started and not yet seen finished.
pub(crate) struct Parallel {
    tx: Sender<(usize, CallResult)>,
    rx: Receiver<(usize, CallResult)>,
    running: usize,
}

impl Parallel {
    /// No call running yet.
    pub(crate) fn new() -> Self {
        let (tx, rx) = crossbeam_channel::unbounded();
        Parallel { tx, rx, running: 0 }
    }

    /// Runs `job` as call `i` on a thread called `thread`. The error says
    /// why the thread could not start (the call then never ran).
    pub(crate) fn start(
        &mut self,
        i: usize,
        thread: String,
        job: impl FnOnce() -> CallResult + Send + 'static,
    ) -> Result<(), String> {
        let tx = self.tx.clone();
        std::thread::Builder::new()
            .name(thread)
            .spawn(move || {
                let _ = tx.send((i, job()));
            })
            .map_err(|e| format!("could not start: {e}"))?;
        self.running += 1;
        Ok(())
    }

    /// How many calls are still running.
    pub(crate) fn running(&self) -> usize {
        self.running
    }

    /// Waits up to `wait` for the next call to finish.
    pub(crate) fn next(&mut self, wait: Duration) -> Next {
        if self.running == 0 {
            return Next::Idle;
        }
        match self.rx.recv_timeout(wait) {
            Ok((i, result)) => {
                self.running -= 1;
                Next::Finished(i, result)
            }
            Err(RecvTimeoutError::Timeout) => Next::Waiting,
            // Every thread holds a sender clone and this holds one too: a
            // disconnect cannot happen while `self` lives.
            Err(RecvTimeoutError::Disconnected) => Next::Idle,
        }
    }
}

impl Parallel {
    /// [`Parallel::next`], but back with [`Next::Waiting`] as soon as
    /// `other` holds a message (left there for the caller): a running
    /// program's call is serviced at once, not at the next poll.
    pub(crate) fn next_or_ready<T>(&mut self, wait: Duration, other: &Receiver<T>) -> Next {
        if self.running == 0 {
            return Next::Idle;
        }
        let mut select = crossbeam_channel::Select::new();
        let mine = select.recv(&self.rx);
        select.recv(other);
        match select.ready_timeout(wait) {
            Ok(ready) if ready == mine => self.next(Duration::ZERO),
            _ => Next::Waiting,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out(text: &str) -> CallResult {
        Ok(ToolOutput {
            for_model: text.to_string(),
            full: text.to_string(),
            preview: text.to_string(),
            diff: None,
        })
    }

    #[test]
    fn results_come_back_by_index_as_they_finish() {
        let mut p = Parallel::new();
        assert!(matches!(p.next(Duration::ZERO), Next::Idle));
        p.start(0, "slow".into(), || {
            std::thread::sleep(Duration::from_millis(150));
            out("slow")
        })
        .unwrap_or_else(|e| panic!("{e}"));
        p.start(1, "fast".into(), || out("fast"))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.running(), 2);
        let mut order = Vec::new();
        while p.running() > 0 {
            match p.next(Duration::from_secs(5)) {
                Next::Finished(i, r) => order.push((i, r.map(|o| o.for_model).ok())),
                Next::Waiting => panic!("nothing finished in 5 s"),
                Next::Idle => break,
            }
        }
        assert_eq!(
            order,
            vec![(1, Some("fast".to_string())), (0, Some("slow".to_string()))]
        );
        assert!(matches!(p.next(Duration::ZERO), Next::Idle));
    }
}
