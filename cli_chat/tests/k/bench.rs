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
            let server = FakeProvider::start_with(move |_, _| {
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
