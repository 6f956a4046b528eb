//! Scrollback search over 100k lines of history, run slice by slice the way
//! the window runs it (one slice per frame, each given `SCAN_BUDGET`):
//! the whole scan's time, how many slices it took, and the longest and the
//! 99th-percentile slice, for a rare plain-text match, a regex, and a query
//! that matches every line. Each slice is timed by the wall clock and by
//! the thread's CPU clock: on a loaded machine the wall clock also counts
//! the time the thread was preempted, which no budget can prevent; the
//! CPU clock shows what the scan itself held.
//!
//! `cargo bench -p term --bench search`

use std::time::{Duration, Instant};

use alacritty_terminal::event::VoidListener;
use alacritty_terminal::term::{Config, Term};
use alacritty_terminal::vte::ansi::Processor;
use koi_terminal::GridSize;
use term::app::search::{QueryKind, Search, SCAN_BUDGET};

/// Lines of scrollback the issue asks to search without a stall.
const HISTORY: usize = 100_000;
/// Scans per query; the median total and the worst slice are reported.
const RUNS: usize = 5;
/// A common terminal width: the scan's cost grows with cells, not lines.
const COLS: u16 = 160;
const ROWS: u16 = 50;

fn history() -> Term<VoidListener> {
    let config = Config {
        scrolling_history: HISTORY + usize::from(ROWS),
        ..Config::default()
    };
    let mut term = Term::new(config, &GridSize::new(COLS, ROWS), VoidListener);
    let mut text = String::from("needle: the one line the search looks for\r\n");
    for i in 0..HISTORY {
        text.push_str(&format!(
            "{i:>6} Compiling crate_{} v0.{}.{} (/home/user/src/project/crate_{}) warning: unused {}\r\n",
            i % 97,
            i % 13,
            i % 7,
            i % 97,
            i % 1000
        ));
    }
    Processor::<alacritty_terminal::vte::ansi::StdSyncHandler>::new()
        .advance(&mut term, text.as_bytes());
    term
}

/// CPU time this thread has used.
fn thread_cpu() -> Duration {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid timespec for the call to fill in.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
}

struct Figures {
    total: Duration,
    slices: usize,
    longest: Duration,
    p99: Duration,
    longest_cpu: Duration,
    count: String,
}

fn scan(term: &mut Term<VoidListener>, query: &str, kind: QueryKind) -> Figures {
    let mut search = Search::new();
    search.query = query.to_owned();
    search.kind = kind;
    search.restart(term);
    let mut slices = Vec::new();
    let mut longest_cpu = Duration::ZERO;
    let started = Instant::now();
    while search.scanning() {
        let (slice, cpu) = (Instant::now(), thread_cpu());
        search.scan(term, SCAN_BUDGET);
        slices.push(slice.elapsed());
        longest_cpu = longest_cpu.max(thread_cpu().saturating_sub(cpu));
    }
    let total = started.elapsed();
    slices.sort();
    Figures {
        total,
        slices: slices.len(),
        longest: slices.last().copied().unwrap_or_default(),
        p99: slices[(slices.len() * 99 / 100).min(slices.len().saturating_sub(1))],
        longest_cpu,
        count: search.count_text(),
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    if std::env::args().any(|a| a == "--test") {
        return;
    }
    let mut term = history();
    println!(
        "search over {HISTORY} lines of {COLS}-column history, budget {:.1} ms a slice, {RUNS} runs",
        ms(SCAN_BUDGET)
    );
    for (label, query, kind) in [
        ("rare plain text", "needle", QueryKind::Plain),
        ("regex", r"crate_9\d v0\.\d+\.\d \(", QueryKind::Regex),
        ("every line", "compiling", QueryKind::Plain),
    ] {
        let mut runs: Vec<Figures> = (0..RUNS).map(|_| scan(&mut term, query, kind)).collect();
        runs.sort_by_key(|f| f.total);
        let median = &runs[RUNS / 2];
        let longest = runs.iter().map(|f| f.longest).max().unwrap_or_default();
        let p99 = runs.iter().map(|f| f.p99).max().unwrap_or_default();
        let cpu = runs.iter().map(|f| f.longest_cpu).max().unwrap_or_default();
        println!(
            "{label:>16}: total {:7.1} ms, {:5} slices, longest slice {:6.2} ms wall / {:5.2} ms CPU, p99 {:5.2} ms ({})",
            ms(median.total),
            median.slices,
            ms(longest),
            ms(cpu),
            ms(p99),
            median.count
        );
    }
}
