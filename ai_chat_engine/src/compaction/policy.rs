//! When to compact, as a pure function of sizes and the phase of work.
//!
//! History stays append-only for as long as the window allows: every
//! change before the end of the prefix makes the provider read everything
//! after it again at the uncached price. Past the soft threshold a
//! summary becomes eligible and waits for a phase boundary; the hard
//! threshold forces it; only near the window's limit, with summaries
//! failing, may old history be dropped.

use serde::{Deserialize, Serialize};

use super::phase::Boundary;
use super::window::{CompactionSettings, ContextWindow, BYTES_PER_TOKEN};

/// Rounds a failed summary waits before it is tried again: long enough
/// not to hammer a failing provider every round, short enough to retry
/// well before the window fills (Kaku's choice).
pub const SUMMARY_RETRY_COOLDOWN_ROUNDS: u32 = 3;

/// Share of the window past which old history may be dropped when a
/// summary cannot be had: the next requests would be refused anyway.
pub const DROP_LIMIT_PERCENT: u64 = 90;

/// Kiso's caps for very large windows (tokens): past these a summary is
/// due however large the window, because quality degrades long before a
/// 1M window fills.
const SOFT_CAP_TOKENS: u64 = 400_000;
const HARD_CAP_TOKENS: u64 = 700_000;

/// The verbatim tail kept by a summary: a tenth of the window, at most
/// 100k tokens (Kiso's 100k in a 1M window). It holds the latest results,
/// errors and edits whole, and leaves the compacted request far enough
/// under the soft threshold that one summary buys a long stretch; a
/// larger tail makes every summary's uncached re-read dearer.
const TAIL_WINDOW_DIVISOR: u64 = 10;
const TAIL_CAP_TOKENS: u64 = 100_000;

/// Why a compaction happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Trigger {
    /// The user asked (`/compact`).
    User,
    /// Past the soft threshold, at a phase boundary.
    Boundary(Boundary),
    /// Past the hard threshold.
    Hard,
    /// A fixed request size was passed (the comparison policy).
    FixedBudget,
}

impl std::fmt::Display for Trigger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Trigger::User => f.write_str("asked for"),
            Trigger::Boundary(b) => write!(f, "{b}"),
            Trigger::Hard => f.write_str("hard threshold"),
            Trigger::FixedBudget => f.write_str("fixed budget"),
        }
    }
}

/// Which rule decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompactionPolicy {
    /// Window-relative thresholds, phase boundaries, in-band summaries.
    Adaptive,
    /// The pre-window rule, kept to measure against: summarise whenever a
    /// request passes `budget_bytes`, with the fast model, keeping a
    /// small tail.
    FixedBudget {
        /// Request size that triggers.
        budget_bytes: usize,
    },
}

/// The byte sizes one decision compares against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Thresholds {
    /// Eligible from here.
    pub soft: usize,
    /// Forced from here.
    pub hard: usize,
    /// Dropping allowed from here (after a failed summary).
    pub limit: usize,
    /// Verbatim tail a summary keeps.
    pub tail: usize,
}

/// The raw tail the fixed-budget policy kept (its old constant).
const FIXED_POLICY_TAIL_BYTES: usize = 32 * 1024;

impl Thresholds {
    /// Thresholds for `window` under `settings`.
    pub fn for_window(window: ContextWindow, settings: &CompactionSettings) -> Thresholds {
        let bytes = window.bytes();
        let pct = |p: u64| bytes / 100 * p;
        let soft = pct(settings.soft_percent.into()).min(SOFT_CAP_TOKENS * BYTES_PER_TOKEN);
        let hard = pct(settings.hard_percent.into()).min(HARD_CAP_TOKENS * BYTES_PER_TOKEN);
        let tail = (bytes / TAIL_WINDOW_DIVISOR).min(TAIL_CAP_TOKENS * BYTES_PER_TOKEN);
        let size = |b: u64| usize::try_from(b).unwrap_or(usize::MAX);
        Thresholds {
            soft: size(soft),
            hard: size(hard.max(soft)),
            limit: size(pct(DROP_LIMIT_PERCENT).max(hard)),
            tail: size(tail),
        }
    }

    /// The fixed-budget policy's thresholds: soft and hard at the budget.
    pub fn fixed(budget_bytes: usize) -> Thresholds {
        Thresholds {
            soft: budget_bytes,
            hard: budget_bytes,
            limit: usize::MAX,
            tail: FIXED_POLICY_TAIL_BYTES,
        }
    }
}

/// What to do before the next request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Send the history as it is.
    Keep,
    /// Summarise older history.
    Summarise(Trigger),
}

/// The decision for a request of `size` bytes. `boundary` is the phase
/// boundary the history just crossed, if any; `cooldown` the rounds left
/// before a failed summary may be tried again (a user's request ignores
/// it).
pub fn decide(
    size: usize,
    t: &Thresholds,
    boundary: Option<Boundary>,
    cooldown: u32,
    forced: bool,
) -> Decision {
    if forced {
        return Decision::Summarise(Trigger::User);
    }
    if cooldown > 0 && size < t.limit {
        return Decision::Keep;
    }
    if size >= t.hard {
        return Decision::Summarise(Trigger::Hard);
    }
    match boundary {
        Some(b) if size >= t.soft => Decision::Summarise(Trigger::Boundary(b)),
        _ => Decision::Keep,
    }
}

/// What trimming old tool results would change, for [`trim_pays`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrimEstimate {
    /// Bytes the trim removes.
    pub saved: usize,
    /// Bytes after the first trimmed result that stay: the provider reads
    /// them again, uncached, once.
    pub kept_after_cut: usize,
    /// Rounds the trim is expected to serve (until the next summary).
    pub remaining_rounds: usize,
}

/// Whether breaking the cached prefix pays for itself: the one-time
/// re-read of everything after the cut at the uncached price (less the
/// cached price it would have cost anyway) against reading `saved` fewer
/// cached bytes in each remaining round. `cached_ratio` is the price of
/// a cached token over an uncached one (about 0.1 on hosted models).
pub fn trim_pays(e: TrimEstimate, cached_ratio: f64) -> bool {
    let cost = e.kept_after_cut as f64 * (1.0 - cached_ratio);
    let gain = e.saved as f64 * cached_ratio * e.remaining_rounds as f64;
    e.saved > 0 && gain > cost
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::window::WindowSource;

    fn window(tokens: u64) -> ContextWindow {
        ContextWindow {
            tokens,
            source: WindowSource::Configured,
        }
    }

    #[test]
    fn thresholds_follow_the_window_with_kisos_caps() {
        let s = CompactionSettings::default();
        let t = Thresholds::for_window(window(200_000), &s);
        assert_eq!(t.soft, 320_000);
        assert_eq!(t.hard, 560_000);
        assert_eq!(t.limit, 720_000);
        assert_eq!(t.tail, 80_000);
        let big = Thresholds::for_window(window(2_000_000), &s);
        assert_eq!(big.soft, 1_600_000);
        assert_eq!(big.hard, 2_800_000);
        assert_eq!(big.tail, 400_000);
    }

    #[test]
    fn soft_waits_for_a_boundary_hard_forces_cooldown_holds() {
        let t = Thresholds::for_window(window(100_000), &CompactionSettings::default());
        let b = Some(Boundary::TestsRan);
        assert_eq!(decide(t.soft - 1, &t, b, 0, false), Decision::Keep);
        assert_eq!(decide(t.soft, &t, None, 0, false), Decision::Keep);
        assert_eq!(
            decide(t.soft, &t, b, 0, false),
            Decision::Summarise(Trigger::Boundary(Boundary::TestsRan))
        );
        assert_eq!(
            decide(t.hard, &t, None, 0, false),
            Decision::Summarise(Trigger::Hard)
        );
        assert_eq!(decide(t.hard, &t, b, 2, false), Decision::Keep);
        // Near the limit the cooldown no longer protects the window.
        assert_eq!(
            decide(t.limit, &t, None, 2, false),
            Decision::Summarise(Trigger::Hard)
        );
        assert_eq!(
            decide(10, &t, None, 3, true),
            Decision::Summarise(Trigger::User)
        );
    }

    #[test]
    fn trimming_pays_only_when_many_rounds_remain() {
        // 30 KB saved against 200 KB re-read: ~60 rounds to break even.
        let e = TrimEstimate {
            saved: 30_000,
            kept_after_cut: 200_000,
            remaining_rounds: 10,
        };
        assert!(!trim_pays(e, 0.1));
        assert!(trim_pays(
            TrimEstimate {
                remaining_rounds: 61,
                ..e
            },
            0.1
        ));
        // Without a cache discount, trimming always pays.
        assert!(trim_pays(e, 1.0));
        assert!(!trim_pays(TrimEstimate { saved: 0, ..e }, 1.0));
    }
}
