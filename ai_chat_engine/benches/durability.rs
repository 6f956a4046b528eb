//! The cost of durability: a ToolStart record written and synced to disk
//! (what a call with a possible effect waits for before it runs), next to
//! the tool itself (`fs_read` of a small file) and to a proven read-only
//! call's start (written, not synced), in one run on this disk.
//!
//! Run: `cargo bench -p ai_chat_engine --bench durability`
//! (`KOI_BENCH_DIR=DIR` to measure another filesystem).

#![allow(clippy::expect_used)] // A benchmark that cannot set up has nothing to measure.
use std::time::{Duration, Instant};

use ai_chat_engine::store::session_log::{
    ConversationLock, Entry, SessionLog, StartProof, LOG_FORMAT,
};
use ai_tools::{CancelToken, Registry, RegistryConfig, Workspace};

/// Samples per figure: enough for a stable 99th percentile.
const SAMPLES: usize = 2000;

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn report(name: &str, mut samples: Vec<Duration>) {
    samples.sort();
    println!(
        "{name:<34} p50 {:>9.1} µs   p99 {:>9.1} µs",
        percentile(&samples, 0.50).as_secs_f64() * 1e6,
        percentile(&samples, 0.99).as_secs_f64() * 1e6
    );
}

fn start(i: usize, proof: StartProof) -> Entry {
    Entry::ToolStart {
        call_id: format!("call_{i}"),
        name: "shell_exec".into(),
        arguments: r#"{"command":"touch done"}"#.into(),
        proof,
        run_tag: Some(format!("{i:016x}")),
    }
}

fn main() {
    let base = std::env::var_os("KOI_BENCH_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::env::current_dir().expect("cwd"));
    let dir = tempfile::tempdir_in(&base).expect("tempdir");
    let lock = ConversationLock::acquire(dir.path(), "bench").expect("lock");
    let meta = Entry::Meta {
        session: "bench".into(),
        cwd: dir.path().display().to_string(),
        provider: "openai".into(),
        model: "m".into(),
        format: LOG_FORMAT,
        forked_from: None,
    };
    let (mut log, _) = SessionLog::create(dir.path(), "bench", lock, vec![meta]).expect("create");

    let ws = tempfile::tempdir_in(&base).expect("tempdir");
    let text: String = (0..40)
        .map(|l| format!("line {l}: some source text\n"))
        .collect();
    std::fs::write(ws.path().join("small.txt"), text).expect("write");
    let registry = Registry::standard(RegistryConfig::new(Workspace::new(ws.path()).expect("ws")));
    let args = serde_json::json!({"path": "small.txt"});
    let cancel = CancelToken::new();

    let mut synced = Vec::with_capacity(SAMPLES);
    let mut unsynced = Vec::with_capacity(SAMPLES);
    let mut read = Vec::with_capacity(SAMPLES);
    for i in 0..SAMPLES {
        let t = Instant::now();
        log.append(start(i, StartProof::Unproven)).expect("append");
        synced.push(t.elapsed());

        let t = Instant::now();
        log.append(start(i, StartProof::ReadOnly)).expect("append");
        unsynced.push(t.elapsed());

        let t = Instant::now();
        registry.run("fs_read", &args, &cancel).expect("fs_read");
        read.push(t.elapsed());
    }
    println!("{SAMPLES} samples each, log in {}", base.display());
    report("ToolStart, unproven (write+fsync)", synced);
    report("ToolStart, read-only (write only)", unsynced);
    report("fs_read of a 40-line file", read);
}
