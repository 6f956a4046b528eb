//! Shell tools against real processes: group kill on timeout and cancel,
//! head+tail truncation, stderr marking, background processes.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests: a failed unwrap is a failed test.

use std::path::Path;
use std::time::{Duration, Instant};

use ai_tools::{CancelToken, Registry, RegistryConfig, ToolError, Workspace};
use serde_json::json;

mod proc_support;
use proc_support::alive;

fn setup() -> (tempfile::TempDir, Registry) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(PID_SLEEP), PID_SLEEP_SCRIPT).unwrap();
    let ws = Workspace::new(dir.path()).unwrap();
    (dir, Registry::standard(RegistryConfig::new(ws)))
}

/// A script in every test workspace: writes its host pid to `$1`, then
/// becomes `sleep 300`. Inside a run's PID namespace `$!` and `$$` are the
/// run's own numbers, while /proc (the host's) names the process by its
/// host pid, which is what this test checks from outside.
const PID_SLEEP: &str = "pid_sleep.sh";
const PID_SLEEP_SCRIPT: &str =
    "read -r p _ < /proc/self/stat\necho $p > \"$1.tmp\" && mv \"$1.tmp\" \"$1\"\nexec sleep 300\n";

fn wait_dead(pid: u32) -> bool {
    let end = Instant::now() + Duration::from_secs(3);
    while Instant::now() < end {
        if !alive(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

fn read_pid(path: &Path) -> u32 {
    let end = Instant::now() + Duration::from_secs(5);
    loop {
        if let Ok(s) = std::fs::read_to_string(path) {
            if let Ok(pid) = s.trim().parse() {
                return pid;
            }
        }
        assert!(Instant::now() < end, "no pid file");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn exit_code_and_stderr_are_marked() {
    let (_dir, reg) = setup();
    let out = reg
        .run(
            "shell_exec",
            &json!({"command": "echo out; echo err >&2; exit 3"}),
            &CancelToken::new(),
        )
        .unwrap();
    assert!(
        out.for_model.starts_with("exit code: 3"),
        "{}",
        out.for_model
    );
    assert!(
        out.for_model.contains("out\n[stderr]\nerr"),
        "{}",
        out.for_model
    );
    assert!(out.preview.contains("exit 3"));
}

#[test]
fn timeout_kills_the_whole_group_including_grandchild() {
    let (dir, reg) = setup();
    let start = Instant::now();
    let out = reg
        .run(
            "shell_exec",
            &json!({"command": "bash -c 'sh pid_sleep.sh grandchild.pid & wait'", "timeout_secs": 1}),
            &CancelToken::new(),
        )
        .unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "took {:?}",
        start.elapsed()
    );
    assert!(
        out.for_model.contains("timed out after 1 s"),
        "{}",
        out.for_model
    );
    let pid = read_pid(&dir.path().join("grandchild.pid"));
    assert!(
        wait_dead(pid),
        "grandchild sleep {pid} survived the timeout"
    );
}

#[test]
fn cancel_kills_the_group() {
    let (dir, reg) = setup();
    let cancel = CancelToken::new();
    let pidfile = dir.path().join("c.pid");
    std::thread::scope(|s| {
        let handle = s.spawn(|| {
            reg.run(
                "shell_exec",
                &json!({"command": "sh pid_sleep.sh c.pid & wait"}),
                &cancel,
            )
        });
        let pid = read_pid(&pidfile);
        cancel.cancel();
        // `sleep 300` would outlast any wait: ending `Cancelled` is cancel's
        // doing. How fast: `cargo bench -p ai_tools --bench shell`.
        let result = handle.join().unwrap();
        assert!(matches!(result, Err(ToolError::Cancelled)), "{result:?}");
        assert!(wait_dead(pid), "sleep {pid} survived cancel");
    });
}

#[test]
fn stragglers_are_killed_after_normal_exit() {
    let (dir, reg) = setup();
    let start = Instant::now();
    reg.run(
        "shell_exec",
        &json!({"command": "sh pid_sleep.sh s.pid & until [ -s s.pid ]; do sleep 0.01; done"}),
        &CancelToken::new(),
    )
    .unwrap();
    assert!(start.elapsed() < Duration::from_secs(5));
    let pid = read_pid(&dir.path().join("s.pid"));
    assert!(wait_dead(pid));
}

#[test]
fn long_output_keeps_head_and_tail() {
    let (_dir, reg) = setup();
    let out = reg
        .run(
            "shell_exec",
            &json!({"command": "seq 1 100000"}),
            &CancelToken::new(),
        )
        .unwrap();
    assert!(
        out.for_model.contains("\n1\n2\n3\n"),
        "{}",
        &out.for_model[..100]
    );
    assert!(out.for_model.trim_end().ends_with("100000"));
    assert!(out.for_model.contains("cut from the middle"));
    assert!(out.for_model.contains("lines) cut"));
    assert!(out.for_model.chars().count() < 17_000);
    // The session log keeps everything.
    assert!(out.full.contains("\n50000\n"));
    assert!(!out.for_model.contains("\n50000\n"));
}

#[test]
fn stdin_is_closed() {
    let (_dir, reg) = setup();
    let start = Instant::now();
    let out = reg
        .run(
            "shell_exec",
            &json!({"command": "cat; echo done"}),
            &CancelToken::new(),
        )
        .unwrap();
    assert!(out.for_model.contains("done"));
    assert!(start.elapsed() < Duration::from_secs(5));
}

#[test]
fn cwd_is_the_workspace_or_given() {
    let (dir, reg) = setup();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let root = dir.path().canonicalize().unwrap();
    let out = reg
        .run(
            "shell_exec",
            &json!({"command": "pwd"}),
            &CancelToken::new(),
        )
        .unwrap();
    assert!(out.for_model.contains(&root.to_string_lossy().into_owned()));
    let out = reg
        .run(
            "shell_exec",
            &json!({"command": "pwd", "cwd": "sub"}),
            &CancelToken::new(),
        )
        .unwrap();
    assert!(out
        .for_model
        .contains(&root.join("sub").to_string_lossy().into_owned()));
}

#[test]
fn background_start_poll_kill() {
    let (_dir, reg) = setup();
    let c = CancelToken::new();
    let out = reg
        .run(
            "shell_bg",
            &json!({"command": "echo started; sleep 300"}),
            &c,
        )
        .unwrap();
    assert!(out.for_model.contains("started background process 1"));
    let out = reg
        .run("shell_poll", &json!({"id": 1, "wait_secs": 1}), &c)
        .unwrap();
    assert!(out.for_model.contains("still running"), "{}", out.for_model);
    assert!(out.for_model.contains("started"));
    // A second poll returns only new output.
    let out = reg.run("shell_poll", &json!({"id": 1}), &c).unwrap();
    assert!(!out.for_model.contains("started\n"), "{}", out.for_model);
    reg.run("shell_kill", &json!({"id": 1}), &c).unwrap();
    let out = reg.run("shell_poll", &json!({"id": 1}), &c).unwrap();
    assert!(
        out.for_model.contains("killed by signal 9"),
        "{}",
        out.for_model
    );
    let err = reg.run("shell_poll", &json!({"id": 99}), &c).unwrap_err();
    assert!(err.to_string().contains("no background process"));
    // A finished command reports its exit code.
    reg.run("shell_bg", &json!({"command": "echo bye; exit 4"}), &c)
        .unwrap();
    let out = reg
        .run("shell_poll", &json!({"id": 2, "wait_secs": 5}), &c)
        .unwrap();
    assert!(
        out.for_model.contains("exit code: 4") && out.for_model.contains("bye"),
        "{}",
        out.for_model
    );
}

#[test]
fn background_exit_comes_with_all_of_its_output() {
    let (_dir, reg) = setup();
    let c = CancelToken::new();
    // Many rounds: the exit status used to race the pipe readers, so a poll
    // could say "exit code: 0" before the last bytes were read.
    for id in 1..=16 {
        reg.run(
            "shell_bg",
            &json!({"command": "seq 1 20000; echo done-on-stderr >&2"}),
            &c,
        )
        .unwrap();
        let mut seen = String::new();
        let exit = loop {
            let out = reg
                .run("shell_poll", &json!({"id": id, "wait_secs": 0}), &c)
                .unwrap();
            let (status, body) = out.full.split_once('\n').unwrap();
            seen.push_str(body);
            if !status.contains("still running") {
                break status.to_string();
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        };
        assert!(exit.contains("exit code: 0"), "{exit}");
        assert!(seen.contains("\n20000\n"), "round {id}: tail missing");
        assert!(
            seen.contains("done-on-stderr"),
            "round {id}: stderr missing"
        );
    }
}

/// Shell code that starts `sleep 300` in a new session, writes its host
/// pid to `file`, and waits until it has left the shell's process group
/// (so the escape is real by the time the command goes on).
fn escapee(file: &str) -> String {
    format!(
        "setsid sh pid_sleep.sh {file} & \
         until [ -s {file} ] && [ \"$(cut -d' ' -f5 /proc/$(cat {file})/stat)\" != \"$(cut -d' ' -f5 /proc/self/stat)\" ]; \
         do sleep 0.01; done"
    )
}

/// The process group of `pid` (field 5 of /proc/PID/stat).
fn pgid_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit(')')
        .next()?
        .split_whitespace()
        .nth(2)?
        .parse()
        .ok()
}

#[test]
fn a_process_that_left_the_group_dies_with_its_command() {
    let (dir, reg) = setup();
    let start = Instant::now();
    reg.run(
        "shell_exec",
        &json!({"command": format!(
            "{}; read -r p _ < /proc/self/stat; echo $p > sh.pid",
            escapee("e.pid")
        )}),
        &CancelToken::new(),
    )
    .unwrap();
    assert!(start.elapsed() < Duration::from_secs(5));
    let pid = read_pid(&dir.path().join("e.pid"));
    let shell = read_pid(&dir.path().join("sh.pid"));
    // It did leave the shell's group (a group kill alone misses it)...
    if let Some(group) = pgid_of(pid) {
        assert_ne!(group, shell, "setsid did not leave the group");
    }
    // ...and it died all the same.
    assert!(wait_dead(pid), "setsid escapee {pid} outlived its command");
}

#[test]
fn shell_kill_reaches_what_left_the_group() {
    let (dir, reg) = setup();
    let c = CancelToken::new();
    reg.run(
        "shell_bg",
        &json!({"command": format!("{}; wait", escapee("bg.pid"))}),
        &c,
    )
    .unwrap();
    let pid = read_pid(&dir.path().join("bg.pid"));
    assert!(alive(pid));
    reg.run("shell_kill", &json!({"id": 1}), &c).unwrap();
    assert!(wait_dead(pid), "setsid escapee {pid} outlived shell_kill");
}

#[test]
fn background_processes_die_with_the_registry() {
    let (dir, reg) = setup();
    reg.run(
        "shell_bg",
        &json!({"command": "sh pid_sleep.sh bg.pid & wait"}),
        &CancelToken::new(),
    )
    .unwrap();
    let pid = read_pid(&dir.path().join("bg.pid"));
    assert!(alive(pid));
    drop(reg);
    assert!(
        wait_dead(pid),
        "background sleep {pid} outlived the registry"
    );
}
