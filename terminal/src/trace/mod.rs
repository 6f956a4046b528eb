//! Traces for measuring koi from the outside, each off by default and
//! switched on by an environment variable:
//!
//! - [`latency`] (`KOI_TRACE_LATENCY=1`): one keystroke's way to the screen.
//! - [`bursts`] (`KOI_TRACE_BURSTS=1`): where the time of a burst of output
//!   goes (reading, parsing, waiting for the lock, frames).
//! - [`theme`] (`KOI_TRACE_THEME=1`): a change of the system's appearance
//!   to the first frame in the new colours.
//!
//! Off, every call costs one relaxed atomic load.

pub mod bursts;
pub mod latency;
pub mod theme;

use std::sync::atomic::{AtomicU8, Ordering};

/// An environment variable read once, on first use.
pub(crate) struct Switch {
    name: &'static str,
    state: AtomicU8,
}

const UNKNOWN: u8 = 0;
const OFF: u8 = 1;
const ON: u8 = 2;

impl Switch {
    pub(crate) const fn new(name: &'static str) -> Self {
        Self {
            name,
            state: AtomicU8::new(UNKNOWN),
        }
    }

    /// Whether the variable is set to something other than empty or `0`.
    pub(crate) fn on(&self) -> bool {
        match self.state.load(Ordering::Relaxed) {
            ON => true,
            OFF => false,
            _ => {
                let on = std::env::var_os(self.name).is_some_and(|v| !v.is_empty() && v != "0");
                self.state
                    .store(if on { ON } else { OFF }, Ordering::Relaxed);
                on
            }
        }
    }
}
