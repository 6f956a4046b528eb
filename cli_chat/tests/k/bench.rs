//! Figures for the closing note (run with `--ignored --nocapture`):
//! start-up time to the first request on the wire, and peak RSS while a
//! long answer streams.

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use koi_testkit::openai_chat::ChatStream;
use koi_testkit::FakeProvider;

use crate::common::Home;

fn vm_hwm_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[test]
#[ignore = "measurement; run with --ignored --nocapture"]
fn startup_and_peak_rss() {
    // Start-up: spawn → the fake provider has the whole first request.
    // KOI_BENCH_K=PATH[:PATH…] times other builds of k too, interleaved.
    let mut bins = vec![crate::common::K.to_string()];
    if let Ok(more) = std::env::var("KOI_BENCH_K") {
        bins = more.split(':').map(str::to_string).collect();
    }
    let mut startups: Vec<Vec<Duration>> = vec![Vec::new(); bins.len()];
    for _ in 0..20 {
        for (bin, times) in bins.iter().zip(startups.iter_mut()) {
            let arrived: Arc<Mutex<Option<Instant>>> = Arc::default();
            let seen = Arc::clone(&arrived);
            let server = FakeProvider::start_with(1, move |_, _| {
                seen.lock().unwrap().get_or_insert_with(Instant::now);
                ChatStream::new().text("ok").stop().reply()
            });
            let home = Home::new(Some(&server));
            let t0 = Instant::now();
            let out = home
                .cmd_of(bin, &["--new", "hi"])
                .stdin(Stdio::null())
                .output()
                .unwrap();
            assert!(out.status.success());
            let at = arrived.lock().unwrap().unwrap();
            times.push(at.duration_since(t0));
        }
    }
    for (bin, times) in bins.iter().zip(startups.iter_mut()) {
        times.sort();
        println!(
            "start-up to first request (20 runs) of {bin}: min {:?}, median {:?}, max {:?}",
            times[0], times[10], times[19]
        );
    }

    // Peak RSS: ~360 KB of answer (under the engine's 480 KB output cap)
    // in 3,000 deltas over a few seconds.
    let mut s = ChatStream::new();
    let chunk = format!("{}\n", "loremipsumdolorsitamet".repeat(5));
    for _ in 0..3000 {
        s = s.text(&chunk);
    }
    let server = FakeProvider::start([s.stop().reply().chunk_delay(Duration::from_millis(1))]);
    let home = Home::new(Some(&server));
    let mut child = home
        .cmd(&["--new", "--json", "stream a lot"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut peak = 0;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if let Some(k) = vm_hwm_kib(pid) {
            peak = peak.max(k);
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    assert!(status.success(), "the long answer did not complete");
    println!("peak RSS (VmHWM) while streaming ~360 KB of answer: {peak} KiB");
}

/// The median of `times` (sorted in place).
fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// How long server-everything takes on its own, spawn to the answer of
/// `tools/list` (what koi's start of it costs at least).
fn everything_own_start(script: &str) -> Duration {
    use std::io::{BufRead, BufReader, Write};
    let t0 = Instant::now();
    let mut child = std::process::Command::new("node")
        .args([script, "stdio"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}"#;
    writeln!(stdin, "{init}").unwrap();
    lines.find(|l| l.as_ref().is_ok_and(|l| l.contains(r#""id":1"#)));
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
    )
    .unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list"}}"#).unwrap();
    lines.find(|l| l.as_ref().is_ok_and(|l| l.contains(r#""id":2"#)));
    let took = t0.elapsed();
    let _ = child.kill();
    let _ = child.wait();
    took
}

#[test]
#[ignore = "measurement; run with --ignored --nocapture"]
fn startup_to_first_request_with_one_stdio_mcp_server() {
    // Side by side, interleaved: k with no server, k with server-everything
    // over stdio (its tools must be in the first request), and the server
    // started on its own.
    let script = koi_testkit::mcp_servers::reference("server-everything")
        .display()
        .to_string();
    let runs = 10;
    let (mut none, mut one, mut own) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        for with_server in [false, true] {
            let arrived: Arc<Mutex<Option<(Instant, bool)>>> = Arc::default();
            let seen = Arc::clone(&arrived);
            let server = FakeProvider::start_with(1, move |req, _| {
                let has_echo = req.body_str().contains("mcp__everything__echo");
                seen.lock()
                    .unwrap()
                    .get_or_insert_with(|| (Instant::now(), has_echo));
                ChatStream::new().text("ok").stop().reply()
            });
            let home = Home::new(Some(&server));
            if with_server {
                let cfg = std::fs::read_to_string(home.config_dir().join("koi.toml")).unwrap();
                home.write_config(&format!(
                    "{cfg}\n[mcp.servers.everything]\ncommand = \"node\"\nargs = [{script:?}, \"stdio\"]\n"
                ));
            }
            let t0 = Instant::now();
            let out = home
                .cmd(&["--new", "hi"])
                .stdin(Stdio::null())
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let (at, has_echo) = arrived.lock().unwrap().unwrap();
            assert_eq!(has_echo, with_server, "the first request's tools");
            if with_server {
                one.push(at.duration_since(t0));
            } else {
                none.push(at.duration_since(t0));
            }
        }
        own.push(everything_own_start(&script));
    }
    let (none, one, own) = (median(&mut none), median(&mut one), median(&mut own));
    println!("k start to first request, median of {runs}:");
    println!("  no MCP server:                    {none:?}");
    println!("  one stdio server (everything):    {one:?}");
    println!("  that server alone, spawn to tools/list: {own:?}");
    println!(
        "  overhead over the server's own start: {:?} (goal: <= 50 ms)",
        one.saturating_sub(own)
    );
}
