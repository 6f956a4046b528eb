//! When the next frame may start.
//!
//! A frame that follows a quiet moment (a key's echo, a prompt) starts at
//! once: that is the typing latency. Under a flood of output, frames come
//! back to back and would take the CPU the parser needs, so they are
//! spaced: a new frame starts no sooner than one display refresh after the
//! last one began, and no sooner than the last frame's cost stretched so
//! drawing keeps to its share of the time ([`GPU_RENDER_SHARE`], or
//! [`CPU_RENDER_SHARE`] when a software rasteriser draws on the parser's
//! cores), and never later than [`MAX_INTERVAL`]. A frame's cost runs from
//! its start until the GPU finished it: a software rasteriser keeps drawing
//! on its own threads after `present` returns. kitty spaces frames the same
//! way (its `repaint_delay`), and like its `input_delay`, a frame after
//! quiet is never delayed, nor is the first frame after a key press (its
//! echo), even while a flood's spacing holds.

use std::time::{Duration, Instant};

/// The refresh interval assumed when the monitor reports none (60 Hz).
pub(super) const DEFAULT_REFRESH: Duration = Duration::from_micros(16_667);

/// The share of wall time frames may take while output streams in, when a
/// GPU draws them: the CPU only builds and submits them, and a frame that
/// costs 4 ms still shows a flood at the display's 60 Hz.
const GPU_RENDER_SHARE: f64 = 0.25;

/// The same when a CPU rasteriser (lavapipe, llvmpipe) draws them: its
/// threads run on the cores the parser and the writing program need, so a
/// tenth. A full frame there costs 30–50 ms, so a flood is shown 2–3 times a
/// second, and on 2 cores it parses within a quarter of the headless speed
/// (a quarter share took 10–15% more time on newline floods: `scripts/bench-window`).
const CPU_RENDER_SHARE: f64 = 0.1;

/// However slow frames are, a flood is shown at least this often.
const MAX_INTERVAL: Duration = Duration::from_millis(500);

/// `KOI_RENDER_SHARE=0.1` replaces the share (for benchmarks that weigh
/// throughput against how often a flood is shown).
pub(super) const SHARE_ENV: &str = "KOI_RENDER_SHARE";

/// `KOI_REPORT_FRAMES=1` prints how many frames were drawn and what they
/// cost when the window closes (for benchmarks).
pub(super) const REPORT_ENV: &str = "KOI_REPORT_FRAMES";

/// How far back the cost estimate looks: each frame moves it a quarter of
/// the way to its own cost, so one slow frame (an atlas rebuild) does not
/// throttle the next second.
const COST_SMOOTHING: f64 = 0.25;

/// Frames slower than this count as this slow: one frame stalled by the
/// window system must not throttle the next ones for long. On a loaded
/// 2-core machine a full-screen frame on a CPU rasteriser takes 100–170 ms
/// of wall time (lavapipe's threads wait for a core like everything else).
const MAX_COUNTED_COST: Duration = Duration::from_millis(100);

/// The pacing state: when the last frame began and what frames cost.
#[derive(Debug)]
pub(super) struct FramePacer {
    refresh: Duration,
    share: f64,
    last_start: Option<Instant>,
    /// Smoothed wall time of a frame, from its start until the GPU is done.
    cost: Duration,
    /// A key was sent to the application since the last frame began:
    /// the frame with its echo starts at once, flood or not.
    typed: bool,
    /// Frames drawn, and their summed cost, for [`REPORT_ENV`].
    frames: u64,
    total_cost: Duration,
}

impl FramePacer {
    /// The pacer for frames a GPU draws, or a CPU rasteriser when `cpu`.
    pub(super) fn new(refresh: Duration, cpu: bool) -> Self {
        let share = if cpu {
            CPU_RENDER_SHARE
        } else {
            GPU_RENDER_SHARE
        };
        Self::with_share(refresh, share)
    }

    /// A pacer whose frames keep to `share` of the time under floods.
    pub(super) fn with_share(refresh: Duration, share: f64) -> Self {
        Self {
            refresh,
            share: share.clamp(0.01, 1.0),
            last_start: None,
            cost: Duration::ZERO,
            typed: false,
            frames: 0,
            total_cost: Duration::ZERO,
        }
    }

    /// The pacer [`SHARE_ENV`] asks for, else [`FramePacer::new`]'s.
    pub(super) fn from_env(refresh: Duration, cpu: bool) -> Self {
        match std::env::var(SHARE_ENV).ok().and_then(|v| v.parse().ok()) {
            Some(share) => Self::with_share(refresh, share),
            None => Self::new(refresh, cpu),
        }
    }

    /// One line on the frames drawn so far, for [`REPORT_ENV`]; `how`
    /// says how they reached the window.
    pub(super) fn report(&self, how: &str) -> String {
        format!(
            "koi: {} frames, {:.1} ms drawing, presented with {how}",
            self.frames,
            self.total_cost.as_secs_f64() * 1e3
        )
    }

    /// The shortest spacing of frame starts while output keeps coming.
    pub(super) fn interval(&self) -> Duration {
        self.refresh
            .max(self.cost.div_f64(self.share).min(MAX_INTERVAL))
    }

    /// Input went to the application: the next frame shows its answer.
    pub(super) fn typed(&mut self) {
        self.typed = true;
    }

    /// When a frame for content that changed at `now` may start: `now`
    /// after a quiet spell or a key press, later while frames come back
    /// to back.
    pub(super) fn earliest_start(&self, now: Instant) -> Instant {
        match self.last_start {
            Some(last) if !self.typed => (last + self.interval()).max(now),
            _ => now,
        }
    }

    /// A frame began at `start` and the GPU finished it at `end`.
    pub(super) fn frame_done(&mut self, start: Instant, end: Instant) {
        let cost = end.saturating_duration_since(start).min(MAX_COUNTED_COST);
        self.frames += 1;
        self.total_cost += end.saturating_duration_since(start);
        self.cost = if self.last_start.is_none() {
            cost
        } else {
            self.cost.mul_f64(1.0 - COST_SMOOTHING) + cost.mul_f64(COST_SMOOTHING)
        };
        self.last_start = Some(start);
        self.typed = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn the_first_frame_and_a_frame_after_quiet_start_at_once() {
        let t0 = Instant::now();
        let mut pacer = FramePacer::new(DEFAULT_REFRESH, false);
        assert_eq!(pacer.earliest_start(t0), t0);
        pacer.frame_done(t0, t0 + 3 * MS);
        // A key pressed half a second later: its echo is drawn at once.
        let later = t0 + 500 * MS;
        assert_eq!(pacer.earliest_start(later), later);
    }

    #[test]
    fn frames_back_to_back_are_spaced_by_the_refresh_when_cheap() {
        let t0 = Instant::now();
        let mut pacer = FramePacer::new(DEFAULT_REFRESH, false);
        pacer.frame_done(t0, t0 + MS);
        assert_eq!(pacer.earliest_start(t0 + 2 * MS), t0 + DEFAULT_REFRESH);
    }

    #[test]
    fn expensive_frames_keep_to_their_share_of_the_time() {
        let t0 = Instant::now();
        let mut pacer = FramePacer::new(DEFAULT_REFRESH, false);
        let mut start = t0;
        for _ in 0..40 {
            pacer.frame_done(start, start + 10 * MS);
            start = pacer.earliest_start(start + 10 * MS);
        }
        // 10 ms frames at most a quarter of the time: 40 ms apart.
        let gap = pacer.interval();
        assert!(gap >= 39 * MS && gap <= 41 * MS, "{gap:?}");
    }

    #[test]
    fn a_software_rasteriser_draws_a_smaller_share_of_a_flood() {
        let t0 = Instant::now();
        let mut gpu = FramePacer::new(DEFAULT_REFRESH, false);
        let mut cpu = FramePacer::new(DEFAULT_REFRESH, true);
        for pacer in [&mut gpu, &mut cpu] {
            pacer.frame_done(t0, t0 + 30 * MS);
        }
        assert_eq!(gpu.interval(), 120 * MS);
        assert_eq!(cpu.interval(), 300 * MS);
        // A frame after quiet starts at once either way.
        let quiet = t0 + Duration::from_secs(1);
        assert_eq!(cpu.earliest_start(quiet), quiet);
    }

    #[test]
    fn a_key_typed_during_a_flood_is_echoed_at_once() {
        let t0 = Instant::now();
        let mut pacer = FramePacer::new(DEFAULT_REFRESH, false);
        pacer.frame_done(t0, t0 + 30 * MS);
        let soon = t0 + 35 * MS;
        assert!(pacer.earliest_start(soon) > soon);
        pacer.typed();
        assert_eq!(pacer.earliest_start(soon), soon);
        // The echo's frame is drawn; the flood is spaced again after it.
        pacer.frame_done(soon, soon + 30 * MS);
        assert!(pacer.earliest_start(soon + 31 * MS) > soon + 31 * MS);
    }

    #[test]
    fn frames_slowed_by_a_loaded_machine_are_spaced_by_their_cost() {
        let t0 = Instant::now();
        let mut pacer = FramePacer::new(DEFAULT_REFRESH, false);
        let mut start = t0;
        for _ in 0..40 {
            pacer.frame_done(start, start + 150 * MS);
            start = pacer.earliest_start(start + 150 * MS);
        }
        // Counted as 100 ms each, at most a quarter of the time.
        assert_eq!(pacer.interval(), 4 * MAX_COUNTED_COST);
        // A software rasteriser's tenth would wait a second: the flood is
        // still shown twice a second.
        let mut cpu = FramePacer::new(DEFAULT_REFRESH, true);
        cpu.frame_done(t0, t0 + 150 * MS);
        assert_eq!(cpu.interval(), MAX_INTERVAL);
    }

    #[test]
    fn one_slow_frame_does_not_throttle_for_long() {
        let t0 = Instant::now();
        let mut pacer = FramePacer::new(DEFAULT_REFRESH, false);
        pacer.frame_done(t0, t0 + 2 * MS);
        pacer.frame_done(t0 + 20 * MS, t0 + 2 * Duration::from_secs(1));
        assert!(pacer.interval() <= 4 * MAX_COUNTED_COST);
        let mut start = t0 + 3 * Duration::from_secs(1);
        for _ in 0..12 {
            pacer.frame_done(start, start + 2 * MS);
            start += 20 * MS;
        }
        assert_eq!(pacer.interval(), DEFAULT_REFRESH);
    }
}
