//! `KOI_TRACE_BURSTS=1`: where the time of a burst of output goes.
//!
//! A burst is output that keeps coming without a quiet spell of [`QUIET`].
//! The pump thread times its reads, the parser thread the lock and the
//! parse, the UI thread its frames; when the burst ends (and every
//! [`SPLIT`] of a long one, such as a benchmark's back-to-back samples) one
//! line goes to stderr:
//!
//! ```text
//! koi burst: 4.00 MiB in 250.1 ms (16.0 MiB/s): read 41.0 ms, parse 171.3 ms,
//!     lock wait 0.4 ms; 1 frame: snapshot 0.3 ms, prepare 5.2 ms, present 1.9 ms, raster 21.8 ms
//! ```
//!
//! `read` is time in `read(2)` (the kernel's copy out of the PTY), `parse`
//! the parser and koi's own sequence scan under the terminal lock, `lock
//! wait` the parser waiting for a frame's snapshot to let go of the
//! terminal. Per frame: `snapshot` is the UI thread holding the lock to
//! copy the screen, `prepare` the renderer's CPU work up to its GPU commands,
//! `present` handing the frame to the window system, `raster` the wait for
//! a software rasteriser to finish drawing it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use super::Switch;

/// The environment variable that turns the trace on.
pub const ENV: &str = "KOI_TRACE_BURSTS";

/// Output that pauses this long has ended its burst.
pub const QUIET: Duration = Duration::from_millis(20);

/// A burst that lasts longer is reported in pieces this long.
const SPLIT: Duration = Duration::from_millis(250);

static SWITCH: Switch = Switch::new(ENV);
static ORIGIN: OnceLock<Instant> = OnceLock::new();

/// What a burst has cost so far; all times in nanoseconds.
#[derive(Clone, Copy)]
enum Counter {
    /// When the burst began, since [`ORIGIN`], plus one (0: no burst).
    Began,
    Bytes,
    Read,
    Parse,
    LockWait,
    Frames,
    Snapshot,
    Prepare,
    Present,
    Raster,
}

const COUNTERS: usize = Counter::Raster as usize + 1;
static COUNTS: [AtomicU64; COUNTERS] = [const { AtomicU64::new(0) }; COUNTERS];

fn add(counter: Counter, value: u64) {
    COUNTS[counter as usize].fetch_add(value, Ordering::Relaxed);
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

fn since_origin(at: Instant) -> u64 {
    let origin = *ORIGIN.get_or_init(Instant::now);
    nanos(at.saturating_duration_since(origin)) + 1
}

/// Whether the trace is on (read from the environment once).
pub fn enabled() -> bool {
    SWITCH.on()
}

/// Whether a burst is being traced.
pub fn in_burst() -> bool {
    enabled() && COUNTS[Counter::Began as usize].load(Ordering::Relaxed) != 0
}

/// The pump read `bytes` in a read that began at `started`; the first
/// read after quiet begins a burst.
pub fn read(started: Instant, bytes: usize) {
    if !enabled() {
        return;
    }
    let _ = COUNTS[Counter::Began as usize].compare_exchange(
        0,
        since_origin(started),
        Ordering::Relaxed,
        Ordering::Relaxed,
    );
    add(Counter::Read, nanos(started.elapsed()));
    add(Counter::Bytes, bytes as u64);
}

/// The parser waited `lock_wait` for the terminal, then parsed for `parse`.
/// Reports the burst so far when it has run for [`SPLIT`].
pub fn parsed(lock_wait: Duration, parse: Duration) {
    if !enabled() {
        return;
    }
    add(Counter::LockWait, nanos(lock_wait));
    add(Counter::Parse, nanos(parse));
    let began = COUNTS[Counter::Began as usize].load(Ordering::Relaxed);
    if began != 0 && since_origin(Instant::now()).saturating_sub(began) >= nanos(SPLIT) {
        report("");
    }
}

/// A frame drawn during a burst: `snapshot` is how long it held the
/// terminal; the renderer's timings and the moment the rasteriser was done
/// give the rest.
pub fn frame(snapshot: Duration, timings: &render_types::FrameTimings, raster_done: Instant) {
    if !in_burst() {
        return;
    }
    add(Counter::Frames, 1);
    add(Counter::Snapshot, nanos(snapshot));
    let span = |from: Instant, to: Instant| nanos(to.saturating_duration_since(from));
    add(Counter::Prepare, span(timings.started, timings.prepared));
    add(Counter::Present, span(timings.prepared, timings.presented));
    add(Counter::Raster, span(timings.presented, raster_done));
}

/// Output went quiet: report the burst, if one was open.
pub fn quiet() {
    if in_burst() {
        report(" (ended)");
    }
}

/// Print the burst's line and start counting afresh.
fn report(note: &str) {
    let began = COUNTS[Counter::Began as usize].swap(0, Ordering::Relaxed);
    if began == 0 {
        return;
    }
    let take = |c: Counter| COUNTS[c as usize].swap(0, Ordering::Relaxed);
    let ms = |ns: u64| ns as f64 / 1e6;
    let wall = since_origin(Instant::now()).saturating_sub(began);
    let bytes = take(Counter::Bytes);
    let mib = bytes as f64 / (1024.0 * 1024.0);
    let rate = if wall == 0 {
        0.0
    } else {
        mib / (wall as f64 / 1e9)
    };
    let frames = take(Counter::Frames);
    eprintln!(
        "koi burst{note}: {mib:.2} MiB in {:.1} ms ({rate:.1} MiB/s): read {:.1} ms, parse {:.1} ms, \
         lock wait {:.1} ms; {frames} frame{}: snapshot {:.1} ms, prepare {:.1} ms, present {:.1} ms, raster {:.1} ms",
        ms(wall),
        ms(take(Counter::Read)),
        ms(take(Counter::Parse)),
        ms(take(Counter::LockWait)),
        if frames == 1 { "" } else { "s" },
        ms(take(Counter::Snapshot)),
        ms(take(Counter::Prepare)),
        ms(take(Counter::Present)),
        ms(take(Counter::Raster)),
    );
}
