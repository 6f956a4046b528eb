//! What the second layer and the stray scan cost, next to the run itself,
//! measured side by side in one process (interleaved, so each sees the
//! same machine load):
//! - `shell_exec` of `true` with the sandbox off (spawn bash from the
//!   spawner thread, wait, group kill, stray scan);
//! - the same at the read-only level (`true` is proven read-only): temp
//!   dir, Landlock ruleset and seccomp program built, applied after fork;
//! - the same at the workspace-write level (an approved command);
//! - the stray scan alone (`RunTag::kill` with nothing to find: one pass
//!   over /proc reading each process's environment).
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
        "scan / shell_exec (off): {:.1} %",
        100.0 * scan.as_secs_f64() / bare.as_secs_f64()
    );
    Ok(())
}
