//! Ctrl+C as an event the turn loop polls, instead of sudden death.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Counts SIGINTs since the last [`Interrupts::take`].
#[derive(Debug, Clone)]
pub struct Interrupts {
    flag: Arc<AtomicBool>,
}

impl Interrupts {
    /// Installs the SIGINT handler. From now on Ctrl+C only raises a flag.
    /// Call it after creating any rustyline editor: an editor installs its
    /// own SIGINT handler when created (ours then runs first and chains).
    pub fn install() -> std::io::Result<Interrupts> {
        let flag = Arc::new(AtomicBool::new(false));
        signal_hook::flag::register(signal_hook::consts::SIGINT, Arc::clone(&flag))?;
        Ok(Interrupts { flag })
    }

    /// An instance no signal reaches (for tests and non-terminal use).
    pub fn none() -> Interrupts {
        Interrupts {
            flag: Arc::new(AtomicBool::new(false)),
        }
    }

    /// True once per Ctrl+C (several presses between two calls count once).
    pub fn take(&self) -> bool {
        self.flag.swap(false, Ordering::SeqCst)
    }

    /// Forgets presses that arrived while nobody was listening.
    pub fn clear(&self) {
        self.flag.store(false, Ordering::SeqCst);
    }
}
