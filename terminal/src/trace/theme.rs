//! `KOI_TRACE_THEME=1`: how long a change of the system's appearance takes
//! to reach the screen. The portal thread stamps the signal's arrival; the
//! UI thread stamps the theme's switch and prints one line to stderr when
//! the first frame in the new colours is presented:
//!
//! ```text
//! koi theme: applied 412 presented 9120 (µs since the portal's signal)
//! ```

use std::time::Instant;

use parking_lot::Mutex;

use super::Switch;

/// The environment variable that turns the trace on.
pub const ENV: &str = "KOI_TRACE_THEME";

static SWITCH: Switch = Switch::new(ENV);

/// The signal's arrival, and when the theme was switched.
static PENDING: Mutex<Option<(Instant, Option<Instant>)>> = Mutex::new(None);

/// A change arrived (any thread).
pub fn signalled() {
    if SWITCH.on() {
        *PENDING.lock() = Some((Instant::now(), None));
    }
}

/// The renderer now draws in the new colours (UI thread).
pub fn applied() {
    if SWITCH.on() {
        if let Some((_, applied)) = PENDING.lock().as_mut() {
            applied.get_or_insert_with(Instant::now);
        }
    }
}

/// A frame was presented (UI thread): the first after the switch ends
/// the trace.
pub fn presented() {
    if !SWITCH.on() {
        return;
    }
    let mut pending = PENDING.lock();
    if let Some((signal, Some(applied))) = *pending {
        *pending = None;
        let us = |t: Instant| t.duration_since(signal).as_micros();
        eprintln!(
            "koi theme: applied {} presented {} (µs since the portal's signal)",
            us(applied),
            us(Instant::now())
        );
    }
}
