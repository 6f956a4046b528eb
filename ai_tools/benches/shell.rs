//! What finding a run's stray processes costs, next to the run itself,
//! measured side by side in one process:
//! - `shell_exec` of `true` (spawn bash, wait, group kill, stray scan);
//! - the stray scan alone (`RunTag::kill` with nothing to find: one pass
//!   over /proc reading each process's environment).
//!
//! `cargo bench -p ai_tools --bench shell`

use std::time::{Duration, Instant};

use ai_tools::run_tag::RunTag;
use ai_tools::{CancelToken, Registry, RegistryConfig, Workspace};
use serde_json::json;

const ROUNDS: usize = 41;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let registry = Registry::standard(RegistryConfig::new(Workspace::new(dir.path())?));
    let cancel = CancelToken::new();
    let (mut runs, mut scans) = (Vec::new(), Vec::new());
    // Interleaved, so both see the same machine load.
    for _ in 0..ROUNDS {
        let t = Instant::now();
        registry.run("shell_exec", &json!({"command": "true"}), &cancel)?;
        runs.push(t.elapsed());
        let t = Instant::now();
        RunTag::new().kill(None);
        scans.push(t.elapsed());
    }
    let processes = std::fs::read_dir("/proc")
        .map(|d| {
            d.filter_map(Result::ok)
                .filter(|e| e.file_name().to_string_lossy().parse::<u32>().is_ok())
                .count()
        })
        .unwrap_or(0);
    let (run, scan) = (median(runs), median(scans));
    println!("processes on the machine: {processes}");
    println!("shell_exec `true`, median of {ROUNDS}: {:.2} ms", ms(run));
    println!("stray scan alone, median of {ROUNDS}:  {:.2} ms", ms(scan));
    println!(
        "scan / shell_exec: {:.1} %",
        100.0 * scan.as_secs_f64() / run.as_secs_f64()
    );
    Ok(())
}
