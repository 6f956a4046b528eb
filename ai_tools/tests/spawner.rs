//! The one spawner thread: tool processes die with the process that runs
//! them, even on `kill -9`, and a process started from a short-lived
//! thread outlives that thread. The kill tests re-run this test binary as
//! the "koi" that gets killed (`HELPER_VAR` says which tool it runs).

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests: a failed unwrap is a failed test.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ai_tools::{CancelToken, Registry, RegistryConfig, Workspace};
use serde_json::json;

mod proc_support;
use proc_support::alive;

/// Set in the re-run helper: `TOOL:WORKSPACE`.
const HELPER_VAR: &str = "KOI_SPAWNER_TEST_HELPER";

/// How long a tool process may outlive its killed owner: the kernel sends
/// the death signal at once, so a second is plenty even on a loaded box.
const DEATH_GRACE: Duration = Duration::from_secs(1);

/// In the helper: run `tool` with a command that records its pid and
/// becomes `sleep 30`, then wait to be killed.
fn helper(tool: &str, workspace: &Path) -> ! {
    let registry = Registry::standard(RegistryConfig::new(Workspace::new(workspace).unwrap()));
    // The host pid (`$$` is the run's own number in its PID namespace).
    let args = json!({
        "command": "read -r p _ < /proc/self/stat; echo $p > pid.tmp && mv pid.tmp pid && exec sleep 30"
    });
    let result = registry.run(tool, &args, &CancelToken::new());
    // shell_exec only returns once the sleep is over (it should be killed
    // before); shell_bg returns at once.
    eprintln!("helper: {tool} returned {result:?}");
    std::thread::sleep(Duration::from_secs(60));
    std::process::exit(0)
}

/// Runs the helper for `tool`, SIGKILLs it once the tool process is up,
/// and checks that the tool process dies with it.
fn tool_dies_with_its_owner(test: &str, tool: &str) {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().canonicalize().unwrap();
    let mut owner = Command::new(std::env::current_exe().unwrap())
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(HELPER_VAR, format!("{tool}:{}", ws.display()))
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let pid_file = ws.join("pid");
    let deadline = Instant::now() + Duration::from_secs(20);
    let pid: u32 = loop {
        if let Ok(text) = std::fs::read_to_string(&pid_file) {
            break text.trim().parse().unwrap();
        }
        assert!(
            Instant::now() < deadline,
            "the helper never started its tool"
        );
        assert!(
            owner.try_wait().unwrap().is_none(),
            "the helper exited early"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    assert!(alive(pid));
    // SAFETY: kill only sends a signal to our own child.
    assert_eq!(
        unsafe { libc::kill(owner.id() as libc::pid_t, libc::SIGKILL) },
        0
    );
    owner.wait().unwrap();
    let killed_at = Instant::now();
    while alive(pid) && killed_at.elapsed() < DEATH_GRACE {
        std::thread::sleep(Duration::from_millis(5));
    }
    let outlived = killed_at.elapsed();
    if alive(pid) {
        // Leave nothing behind even when failing.
        // SAFETY: as above; the pid was written by the tool process.
        unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
        panic!("{tool}'s process {pid} outlived its killed owner");
    }
    println!("{tool}: the tool process died {outlived:?} after its owner");
}

fn helper_or(test: &str, tool: &str) {
    match std::env::var(HELPER_VAR) {
        Ok(spec) => {
            let (tool, ws) = spec.split_once(':').unwrap();
            helper(tool, Path::new(ws))
        }
        Err(_) => tool_dies_with_its_owner(test, tool),
    }
}

#[test]
fn shell_exec_dies_with_a_killed_owner() {
    helper_or("shell_exec_dies_with_a_killed_owner", "shell_exec");
}

#[test]
fn shell_bg_dies_with_a_killed_owner() {
    helper_or("shell_bg_dies_with_a_killed_owner", "shell_bg");
}

#[test]
fn a_process_started_from_a_short_lived_thread_outlives_the_thread() {
    let dir = tempfile::tempdir().unwrap();
    let registry = std::sync::Arc::new(Registry::standard(RegistryConfig::new(
        Workspace::new(dir.path()).unwrap(),
    )));
    let r = std::sync::Arc::clone(&registry);
    // Forked from this thread, the death signal would fire when it ends.
    std::thread::spawn(move || {
        r.run(
            "shell_bg",
            &json!({ "command": "sleep 30" }),
            &CancelToken::new(),
        )
        .unwrap();
    })
    .join()
    .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let out = registry
        .run("shell_poll", &json!({ "id": 1 }), &CancelToken::new())
        .unwrap();
    assert!(out.for_model.contains("still running"), "{}", out.for_model);
    registry
        .run("shell_kill", &json!({ "id": 1 }), &CancelToken::new())
        .unwrap();
}
