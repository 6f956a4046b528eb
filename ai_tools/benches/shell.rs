//! What the second layer and the stray scan cost, next to the run itself,
//! measured side by side in one process (interleaved, so each sees the
//! same machine load):
//! - `shell_exec` of `true` with the sandbox off (spawn bash from the
//!   spawner thread, wait, group kill, stray scan);
//! - the same at the read-only level (`true` is proven read-only): temp
//!   dir, Landlock ruleset and seccomp program built, applied after fork;
//! - the same at the workspace-write level (an approved command);
//! - the stray scan alone (`RunTag::kill` with nothing to find: one pass
//!   over /proc reading each process's environment);
//! - cancel: from `CancelToken::cancel` to `shell_exec` returning
//!   `Cancelled`, with `sleep 300` (and its process group) to kill. The
//!   tests prove that cancel ends a run; this says how fast.
//!
//! `cargo bench -p ai_tools --bench shell`

use std::time::{Duration, Instant};

use ai_tools::run_tag::RunTag;
use ai_tools::sandbox::support;
use ai_tools::{
    CancelToken, Level, Registry, RegistryConfig, SandboxConfig, SandboxMode, ToolContext,
    Workspace,
};
use serde_json::json;

const ROUNDS: usize = 41;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn registry(dir: &std::path::Path, mode: SandboxMode) -> Result<Registry, std::io::Error> {
    let mut cfg = RegistryConfig::new(Workspace::new(dir)?);
    cfg.sandbox = SandboxConfig {
        mode,
        ..SandboxConfig::default()
    };
    Ok(Registry::standard(cfg))
}

fn timed(reg: &Registry, ctx: &ToolContext) -> Result<Duration, Box<dyn std::error::Error>> {
    let tool = reg.get("shell_exec").ok_or("no shell_exec")?;
    let t = Instant::now();
    let out = tool.run(&json!({"command": "true"}), ctx)?;
    let took = t.elapsed();
    if !out.for_model.starts_with("exit code: 0") {
        return Err(format!("`true` failed: {}", out.for_model).into());
    }
    Ok(took)
}

/// Cancels timed: each one starts a process and waits for it to be up.
const CANCEL_ROUNDS: usize = 9;

/// From cancel to `shell_exec` returning, once `sleep` is running.
fn timed_cancel(
    reg: &Registry,
    dir: &std::path::Path,
) -> Result<Duration, Box<dyn std::error::Error>> {
    let started = dir.join("cancel-started");
    let _ = std::fs::remove_file(&started);
    let cancel = CancelToken::new();
    std::thread::scope(|s| {
        let run = s.spawn(|| {
            reg.run(
                "shell_exec",
                &json!({"command": "echo up > cancel-started; sleep 300"}),
                &cancel,
            )
        });
        while !started.exists() {
            if run.is_finished() {
                return Err("shell_exec ended before its command started".into());
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        let t = Instant::now();
        cancel.cancel();
        let result = run.join().map_err(|_| "shell_exec panicked")?;
        let took = t.elapsed();
        match result {
            Err(ai_tools::ToolError::Cancelled) => Ok(took),
            other => Err(format!("not cancelled: {other:?}").into()),
        }
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let off = registry(dir.path(), SandboxMode::Off)?;
    let on = registry(dir.path(), SandboxMode::Auto)?;
    let cancel = CancelToken::new();
    let off_ctx = off.context(cancel.clone());
    let read_only = on.context(cancel.clone());
    let mut write = on.context(cancel.clone());
    write.sandbox = write.sandbox.at(Level::WorkspaceWrite);
    println!("sandbox here: {:?}", support());
    let (mut bare, mut ro, mut ww, mut scans) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    // Through the registry once, so the level really comes from the proof.
    on.run("shell_exec", &json!({"command": "true"}), &cancel)?;
    for _ in 0..ROUNDS {
        bare.push(timed(&off, &off_ctx)?);
        ro.push(timed(&on, &read_only)?);
        ww.push(timed(&on, &write)?);
        let t = Instant::now();
        RunTag::new().kill(None);
        scans.push(t.elapsed());
    }
    let cancels = (0..CANCEL_ROUNDS)
        .map(|_| timed_cancel(&off, dir.path()))
        .collect::<Result<Vec<_>, _>>()?;
    let worst_cancel = cancels.iter().max().copied().unwrap_or_default();
    let processes = std::fs::read_dir("/proc")
        .map(|d| {
            d.filter_map(Result::ok)
                .filter(|e| e.file_name().to_string_lossy().parse::<u32>().is_ok())
                .count()
        })
        .unwrap_or(0);
    let (bare, ro, ww, scan) = (median(bare), median(ro), median(ww), median(scans));
    let added = |d: Duration| {
        let extra = d.as_secs_f64() - bare.as_secs_f64();
        format!(
            "{:+.2} ms, {:+.1} %",
            extra * 1e3,
            100.0 * extra / bare.as_secs_f64()
        )
    };
    println!("processes on the machine: {processes}");
    println!("medians of {ROUNDS}, interleaved:");
    println!("shell_exec `true`, sandbox off:       {:.2} ms", ms(bare));
    println!(
        "shell_exec `true`, read-only:         {:.2} ms ({})",
        ms(ro),
        added(ro)
    );
    println!(
        "shell_exec `true`, workspace-write:   {:.2} ms ({})",
        ms(ww),
        added(ww)
    );
    println!("stray scan alone:                    {:.2} ms", ms(scan));
    println!(
        "cancel → Cancelled (sleep 300):       {:.2} ms median, {:.2} ms worst of {CANCEL_ROUNDS}",
        ms(median(cancels)),
        ms(worst_cancel)
    );
    println!(
        "scan / shell_exec (off): {:.1} %",
        100.0 * scan.as_secs_f64() / bare.as_secs_f64()
    );
    Ok(())
}
