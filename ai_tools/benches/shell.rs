//! What the second layer and the stray scan cost, next to the run itself,
//! measured side by side in one process (interleaved, so each sees the
//! same machine load):
//! - `shell_exec` of `true` with the sandbox off (spawn bash from the
//!   spawner thread, wait, group kill, stray scan);
//! - the same at the read-only level (`true` is proven read-only): temp
//!   dir, the run's namespaces with the hidden paths mounted empty (24
//!   planted besides the machine's own credentials), Landlock ruleset and
//!   seccomp program built, applied after fork, the PID namespace's keeper;
//! - the same with Landlock alone hiding the paths (namespaces refused);
//! - the same at the workspace-write level (an approved command);
//! - the workspace secret scan, once, over this repository (what the
//!   first confined run of a conversation pays);
//! - the stray scan alone (`RunTag::kill` with nothing to find: one pass
//!   over /proc reading each process's environment);
//! - cancel: from `CancelToken::cancel` to `shell_exec` returning
//!   `Cancelled`, with `sleep 300` (and its process group) to kill. The
//!   tests prove that cancel ends a run; this says how fast.
//!
//! `cargo bench -p ai_tools --bench shell`

use std::time::{Duration, Instant};

use ai_tools::run_tag::RunTag;
use ai_tools::sandbox::secret_scan::SecretScan;
use ai_tools::sandbox::{support, HiddenPaths, Isolation, Support};
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

fn registry(
    dir: &std::path::Path,
    mode: SandboxMode,
    hidden: &[std::path::PathBuf],
) -> Result<Registry, std::io::Error> {
    let mut cfg = RegistryConfig::new(Workspace::new(dir)?);
    cfg.sandbox = SandboxConfig {
        mode,
        hidden: hidden.to_vec(),
        ..SandboxConfig::default()
    };
    Ok(Registry::standard(cfg))
}

/// Planted secrets: 12 credential directories and 12 files, as a
/// developer's home might hold.
fn plant(dir: &std::path::Path) -> Result<Vec<std::path::PathBuf>, std::io::Error> {
    let mut out = Vec::new();
    for i in 0..12 {
        let d = dir.join(format!("cred-dir-{i}"));
        std::fs::create_dir_all(&d)?;
        std::fs::write(d.join("key"), "secret")?;
        let f = dir.join(format!("cred-file-{i}"));
        std::fs::write(&f, "secret")?;
        out.extend([d, f]);
    }
    Ok(out)
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
    let secrets = tempfile::tempdir()?;
    let hidden = plant(secrets.path())?;
    std::fs::write(dir.path().join(".env"), "TOKEN=secret")?;
    let off = registry(dir.path(), SandboxMode::Off, &hidden)?;
    let on = registry(dir.path(), SandboxMode::Auto, &hidden)?;
    let abi = support()
        .landlock_abi()
        .ok_or("no sandbox here to measure")?;
    let landlock_only = registry(dir.path(), SandboxMode::Auto, &hidden)?.with_sandbox_support(
        Support::Available {
            landlock_abi: abi,
            isolation: Isolation::LandlockOnly("measured".into()),
        },
    );
    let cancel = CancelToken::new();
    let off_ctx = off.context(cancel.clone());
    let read_only = on.context(cancel.clone());
    let ll_ctx = landlock_only.context(cancel.clone());
    let mut write = on.context(cancel.clone());
    write.sandbox = write.sandbox.at(Level::WorkspaceWrite);
    println!("sandbox here: {:?}", support());
    println!(
        "paths hidden per run: {}",
        read_only.sandbox.hidden().map_or(0, |h| h.entries().len())
    );
    let (mut bare, mut ro, mut ww, mut scans) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut ll = Vec::new();
    // Through the registry once, so the level really comes from the proof.
    on.run("shell_exec", &json!({"command": "true"}), &cancel)?;
    for _ in 0..ROUNDS {
        bare.push(timed(&off, &off_ctx)?);
        ro.push(timed(&on, &read_only)?);
        ll.push(timed(&landlock_only, &ll_ctx)?);
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
    let ll = median(ll);
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .ok_or("no repository")?;
    let secret_scan = SecretScan::start(repo, &HiddenPaths::default());
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
        "shell_exec `true`, read-only (namespaces): {:.2} ms ({})",
        ms(ro),
        added(ro)
    );
    println!(
        "shell_exec `true`, read-only, landlock only: {:.2} ms ({})",
        ms(ll),
        added(ll)
    );
    println!(
        "shell_exec `true`, workspace-write:   {:.2} ms ({})",
        ms(ww),
        added(ww)
    );
    let report = secret_scan.report();
    println!(
        "workspace secret scan of this repository: {:.1} ms for {} entries{} ({} secret files)",
        ms(report.elapsed),
        report.visited,
        if report.truncated {
            " (stopped at the bound)"
        } else {
            ""
        },
        secret_scan.files().len()
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
