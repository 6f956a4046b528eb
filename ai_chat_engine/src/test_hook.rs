//! A pause for crash tests: with `KOI_TEST_PAUSE_AT=POINT` (or
//! `POINT#N`, the Nth time it is reached) and `KOI_TEST_PAUSE_FILE=PATH`,
//! the engine writes the point's name to PATH when it gets there and waits
//! while that file exists, so a test can kill the process at an exact
//! point (or delete the file to let it go on). Unset, it costs one lookup.
//!
//! The variables start with `KOI_`, so tool subprocesses never see them.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

/// Where a crash test may stop the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Point {
    /// The model's first delta of a round arrived (a draft exists).
    Streaming,
    /// A round's answer with tool calls is committed; no call started.
    Committed,
    /// An approval request is recorded and about to be shown.
    Approval,
    /// A call's start is durable; its effect has not begun.
    Started,
    /// A call's effect is over; its result is not written yet.
    Ran,
    /// A call's result is written.
    Recorded,
}

impl Point {
    fn name(self) -> &'static str {
        match self {
            Point::Streaming => "streaming",
            Point::Committed => "committed",
            Point::Approval => "approval",
            Point::Started => "started",
            Point::Ran => "ran",
            Point::Recorded => "recorded",
        }
    }
}

/// How often a paused engine looks whether it may go on.
const POLL: Duration = Duration::from_millis(20);

struct Config {
    point: String,
    nth: usize,
    file: std::path::PathBuf,
}

fn config() -> Option<&'static Config> {
    static CONFIG: OnceLock<Option<Config>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let at = std::env::var("KOI_TEST_PAUSE_AT").ok()?;
            let file = std::env::var_os("KOI_TEST_PAUSE_FILE")?;
            let (point, nth) = match at.split_once('#') {
                Some((p, n)) => (p.to_string(), n.parse().ok()?),
                None => (at, 1),
            };
            Some(Config {
                point,
                nth,
                file: file.into(),
            })
        })
        .as_ref()
}

/// Pauses here when a test asked for this point.
pub(crate) fn pause(point: Point) {
    let Some(cfg) = config() else {
        return;
    };
    if cfg.point != point.name() {
        return;
    }
    static SEEN: OnceLock<Mutex<HashMap<Point, usize>>> = OnceLock::new();
    let n = {
        let mut seen = SEEN
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let n = seen.entry(point).or_insert(0);
        *n += 1;
        *n
    };
    if n != cfg.nth || std::fs::write(&cfg.file, point.name()).is_err() {
        return;
    }
    while cfg.file.exists() {
        std::thread::sleep(POLL);
    }
}
