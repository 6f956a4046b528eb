//! PTY → parse throughput next to parse-only throughput of the same bytes.
//!
//! `cargo bench -p term --bench throughput` prints, for each payload, MB/s
//! through a real PTY (`cat FILE` in a session) and MB/s feeding the bytes
//! straight to the parser, measured side by side in one run; their ratio is
//! what the PTY plumbing (kernel copies, the reader thread, locking) costs.

#![allow(clippy::expect_used)] // A benchmark that cannot set up has nothing to measure.
use std::io::Write as _;
use std::time::{Duration, Instant};

use alacritty_terminal::term::{Config, Term};
use alacritty_terminal::vte::ansi::{Processor, StdSyncHandler};
use koi_terminal::{GridSize, Session, SessionOptions};

/// Each payload is this large: big enough that start-up costs vanish.
const PAYLOAD_BYTES: usize = 32 * 1024 * 1024;
/// Runs per measurement; the median is reported.
const RUNS: usize = 5;

struct NoEvents;
impl alacritty_terminal::event::EventListener for NoEvents {}

fn dense() -> Vec<u8> {
    let mut out = Vec::with_capacity(PAYLOAD_BYTES);
    let mut i = 0u32;
    while out.len() < PAYLOAD_BYTES {
        for col in 0..10 {
            let _ = write!(out, "\x1b[38;5;{}m", (i + col) % 256);
            out.extend_from_slice(b"abcdefg");
        }
        out.extend_from_slice(b"\x1b[0m\n");
        i += 1;
    }
    out
}

fn scrolling() -> Vec<u8> {
    let mut out = Vec::with_capacity(PAYLOAD_BYTES);
    let mut i = 0u64;
    while out.len() < PAYLOAD_BYTES {
        let _ = writeln!(out, "{i}");
        i += 1;
    }
    out
}

fn unicode() -> Vec<u8> {
    let line = "日本語のテキスト 中文字符 한국어 🦀🎉 e\u{301}a\u{308} ░▒▓│┼─\n";
    line.repeat(PAYLOAD_BYTES / line.len()).into_bytes()
}

fn onlcr(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + bytes.len() / 16);
    for &b in bytes {
        if b == b'\n' {
            out.push(b'\r');
        }
        out.push(b);
    }
    out
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn mb_per_s(bytes: usize, d: Duration) -> f64 {
    bytes as f64 / 1e6 / d.as_secs_f64()
}

fn parse_only(bytes: &[u8], size: GridSize) -> Duration {
    let mut term = Term::new(Config::default(), &size, NoEvents);
    let mut parser: Processor<StdSyncHandler> = Processor::new();
    let start = Instant::now();
    for chunk in bytes.chunks(64 * 1024) {
        parser.advance(&mut term, chunk);
    }
    start.elapsed()
}

fn through_pty(path: &std::path::Path, size: GridSize) -> Duration {
    let options = SessionOptions {
        command: Some(vec!["cat".into(), path.display().to_string()]),
        size,
        ..SessionOptions::default()
    };
    let start = Instant::now();
    let session = Session::spawn(options, || {}).expect("spawn cat");
    session
        .wait_exit(Some(Duration::from_secs(300)))
        .expect("cat exits");
    start.elapsed()
}

fn main() {
    // `cargo test --benches` runs this binary too; keep that quick.
    if std::env::args().any(|a| a == "--test") {
        return;
    }
    let size = GridSize::new(240, 67);
    let dir = std::env::temp_dir().join(format!("koi-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    println!("payload     size    pty MB/s  parse MB/s  pty/parse");
    for (name, payload) in [
        ("dense", dense()),
        ("scrolling", scrolling()),
        ("unicode", unicode()),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, &payload).expect("write payload");
        // The parser sees what the PTY delivers: the line discipline turns
        // each \n into \r\n (onlcr), so feed parse-only the same bytes.
        let delivered = onlcr(&payload);
        let mut pty = Vec::new();
        let mut parse = Vec::new();
        for _ in 0..RUNS {
            // Interleaved so machine noise hits both sides alike.
            pty.push(through_pty(&path, size));
            parse.push(parse_only(&delivered, size));
        }
        let (pty, parse) = (
            mb_per_s(payload.len(), median(pty)),
            mb_per_s(payload.len(), median(parse)),
        );
        println!(
            "{name:<10} {:>4} MB  {pty:>9.1}  {parse:>10.1}  {:>9.2}",
            payload.len() / 1_000_000,
            pty / parse
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
