//! `KOI_TRACE_LATENCY=1`: one keystroke's way through koi, hop by hop.
//!
//! A key press starts a trace; the writer thread, the reader thread and the
//! UI thread stamp the hops they pass; the first frame presented after the
//! echo prints one line to stderr with the time of each hop since the key,
//! in microseconds:
//!
//! ```text
//! koi latency: write 41 readable 802 parsed 830 wakeup 901 draw 915 snapshot 960
//!     acquire 980 prepare 1210 submit 2790 present 3105 (µs since the key event)
//! ```
//!
//! Off (the default) every call is one relaxed atomic load.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

use super::Switch;

/// The environment variable that turns the trace on.
pub const ENV: &str = "KOI_TRACE_LATENCY";

static SWITCH: Switch = Switch::new(ENV);

/// The points a keystroke passes, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hop {
    /// The UI thread got the key event from winit.
    Key,
    /// The writer thread wrote the key's bytes into the PTY.
    Write,
    /// The reader thread woke with the application's echo to read.
    Readable,
    /// The reader parsed it and asked the UI thread for a frame.
    Parsed,
    /// The UI thread got that wake-up.
    Wakeup,
    /// The UI thread started drawing.
    Draw,
    /// The frame was built from the terminal (the lock is released).
    Snapshot,
    /// The window surface gave a texture to draw into.
    Acquire,
    /// The renderer's CPU work (shaping, uploads) is done.
    Prepare,
    /// The GPU commands were submitted.
    Submit,
    /// The frame was handed to the window system.
    Present,
}

const HOPS: [Hop; 11] = [
    Hop::Key,
    Hop::Write,
    Hop::Readable,
    Hop::Parsed,
    Hop::Wakeup,
    Hop::Draw,
    Hop::Snapshot,
    Hop::Acquire,
    Hop::Prepare,
    Hop::Submit,
    Hop::Present,
];

impl Hop {
    fn name(self) -> &'static str {
        match self {
            Hop::Key => "key",
            Hop::Write => "write",
            Hop::Readable => "readable",
            Hop::Parsed => "parsed",
            Hop::Wakeup => "wakeup",
            Hop::Draw => "draw",
            Hop::Snapshot => "snapshot",
            Hop::Acquire => "acquire",
            Hop::Prepare => "prepare",
            Hop::Submit => "submit",
            Hop::Present => "present",
        }
    }
}

static ORIGIN: OnceLock<Instant> = OnceLock::new();
/// Nanoseconds since `ORIGIN` plus one per hop; 0 = not reached yet.
static STAMPS: [AtomicU64; HOPS.len()] = [const { AtomicU64::new(0) }; HOPS.len()];

/// Whether the trace is on (read from the environment once).
pub fn enabled() -> bool {
    SWITCH.on()
}

fn now_ns() -> u64 {
    let origin = *ORIGIN.get_or_init(Instant::now);
    u64::try_from(origin.elapsed().as_nanos()).unwrap_or(u64::MAX - 1) + 1
}

/// A key press: starts a new trace (dropping one still in flight).
pub fn key() {
    if !enabled() {
        return;
    }
    for stamp in &STAMPS {
        stamp.store(0, Ordering::Relaxed);
    }
    STAMPS[0].store(now_ns(), Ordering::Release);
}

/// Stamp `hop` if a trace is in flight and has not passed it yet. The UI
/// thread's hops count only once the echo is parsed: a frame begun before
/// it cannot show it.
pub fn hop(hop: Hop) {
    if !enabled() || STAMPS[0].load(Ordering::Acquire) == 0 {
        return;
    }
    if hop as usize > Hop::Parsed as usize
        && STAMPS[Hop::Parsed as usize].load(Ordering::Acquire) == 0
    {
        return;
    }
    let slot = &STAMPS[hop as usize];
    if slot.load(Ordering::Relaxed) == 0 {
        slot.store(now_ns(), Ordering::Relaxed);
    }
}

/// Stamp the hops a frame passed (from the renderer's own timings) and,
/// when the echo has been drawn, print the trace and end it.
pub fn frame_presented(timings: &render_types::FrameTimings) {
    if !enabled() || STAMPS[0].load(Ordering::Acquire) == 0 {
        return;
    }
    if STAMPS[Hop::Snapshot as usize].load(Ordering::Relaxed) == 0 {
        // A frame whose snapshot was taken before the echo arrived.
        return;
    }
    let origin = *ORIGIN.get_or_init(Instant::now);
    let at =
        |t: Instant| u64::try_from(t.saturating_duration_since(origin).as_nanos()).unwrap_or(0) + 1;
    STAMPS[Hop::Acquire as usize].store(at(timings.acquired), Ordering::Relaxed);
    STAMPS[Hop::Prepare as usize].store(at(timings.prepared), Ordering::Relaxed);
    STAMPS[Hop::Submit as usize].store(at(timings.submitted), Ordering::Relaxed);
    STAMPS[Hop::Present as usize].store(at(timings.presented), Ordering::Relaxed);
    let key = STAMPS[0].swap(0, Ordering::AcqRel);
    let mut line = String::from("koi latency:");
    for h in &HOPS[1..] {
        let t = STAMPS[*h as usize].swap(0, Ordering::Relaxed);
        if t >= key {
            line.push_str(&format!(" {} {}", h.name(), (t - key) / 1000));
        }
    }
    eprintln!("{line} (µs since the key event)");
}
