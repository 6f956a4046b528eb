//! The window's timers: cursor blink, the overlay's spinner while a turn
//! runs, a panel selection held past its edge, and a frame held back while
//! output floods in. The event loop sleeps
//! until the earliest one (or the next event); with none it simply waits.

use std::time::{Duration, Instant};

use super::App;

/// How often the overlay's spinners turn while a turn runs.
const SPINNER_TICK: Duration = Duration::from_millis(100);
/// How often a selection held past the panel's edge scrolls a line: about
/// 20 lines a second, quick to cover a long answer, slow enough to stop.
const EDGE_SCROLL_TICK: Duration = Duration::from_millis(50);

impl App {
    /// Shows the cursor and restarts its blink (after input or focus).
    /// Redraws only when the cursor was off: a frame for a key press that
    /// changed nothing would be one more frame the key's echo waits behind.
    pub(super) fn reset_blink(&mut self) {
        if let Some(t) = &mut self.terminal {
            if std::mem::take(&mut t.display.cursor.blinked_off) {
                t.display.window.request_redraw();
            }
        }
        self.next_blink = self
            .config()
            .cursor
            .blink
            .then(|| Instant::now() + self.blink_interval());
    }

    fn blink_interval(&self) -> Duration {
        Duration::from_millis(self.config().cursor.blink_interval_ms.clamp(100, 5000))
    }

    /// Runs the timers that are due; returns when the next one is.
    pub(super) fn run_timers(&mut self) -> Option<Instant> {
        if let Some(at) = self.next_blink {
            if Instant::now() >= at {
                if let Some(t) = &mut self.terminal {
                    t.display.cursor.blinked_off =
                        !t.display.cursor.blinked_off && t.display.cursor.focused;
                    t.display.window.request_redraw();
                }
                self.next_blink = Some(Instant::now() + self.blink_interval());
            }
        }
        if self.overlay.is_open() && self.overlay.is_busy() {
            let now = Instant::now();
            if self.next_tick.is_none_or(|at| now >= at) {
                if self.overlay.tick() {
                    self.redraw();
                }
                self.next_tick = Some(now + SPINNER_TICK);
            }
        } else {
            self.next_tick = None;
        }
        if self.overlay.is_edge_scrolling() {
            let now = Instant::now();
            match self.next_edge_scroll {
                Some(at) if now < at => {}
                Some(_) => {
                    self.panel_moved(self.mouse.position);
                    self.next_edge_scroll = Some(now + EDGE_SCROLL_TICK);
                }
                None => self.next_edge_scroll = Some(now + EDGE_SCROLL_TICK),
            }
        } else {
            self.next_edge_scroll = None;
        }
        if self.next_frame.is_some_and(|at| Instant::now() >= at) {
            self.next_frame = None;
            self.redraw();
        }
        [
            self.next_blink,
            self.next_tick,
            self.next_edge_scroll,
            self.next_frame,
        ]
        .into_iter()
        .flatten()
        .min()
    }
}
