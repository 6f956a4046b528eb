//! The OS sandbox against the real kernel: a read-only run (what a wrong
//! proof would let through) is refused every write, metadata change,
//! connection and signal outside its run, and the model is told why; an
//! approved run writes in the workspace and the extra paths only, and may
//! connect. Skipped, loudly, where the kernel has no Landlock.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests: a failed unwrap is a failed test.

mod sandbox_support;

use std::io::ErrorKind;
use std::net::{TcpListener, UdpSocket};
use std::os::unix::net::UnixListener;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::time::Duration;

use ai_tools::sandbox::REFUSAL_NOTE;
use ai_tools::{Decision, Level, Mode, RunSandbox, SandboxMode};
use koi_testkit::skip::{skip, SANDBOX};
use sandbox_support::{landlock_abi, landlock_abi_at_least, snapshot, unique, Fixture};
use serde_json::json;

/// SIGUSR1's number on Linux: the test's own signal to an outside process.
const SIGUSR1: i32 = 10;

#[test]
fn read_only_runs_change_nothing_in_the_file_system() {
    let Some(_) = landlock_abi("read_only_runs_change_nothing_in_the_file_system") else {
        return;
    };
    let fx = Fixture::new(SandboxMode::Auto, Vec::new());
    std::fs::create_dir(fx.root.join("sub")).unwrap();
    std::fs::write(fx.root.join("sub/inner.txt"), "inner\n").unwrap();
    let before = snapshot(&fx.root);
    let attempts = [
        "echo x > new.txt",
        "rm keep.txt",
        "echo more >> keep.txt",
        "chmod 777 keep.txt",
        "touch -d '2001-01-01 00:00' keep.txt",
        "mv keep.txt moved.txt",
        "mkdir made",
        "ln -s keep.txt link",
        "truncate -s 0 keep.txt",
        "find . -delete",
        "rm -rf sub",
        "cp keep.txt copy.txt",
    ];
    for command in attempts {
        let out = fx.read_only(command);
        assert!(
            out.for_model.contains(REFUSAL_NOTE),
            "{command}: the model is not told why:\n{}",
            out.for_model
        );
        assert!(
            !out.for_model.contains("exit code: 0"),
            "{command}: {}",
            out.for_model
        );
        assert_eq!(
            snapshot(&fx.root),
            before,
            "{command} changed the workspace"
        );
    }
    // The private temp dir is writable and goes away after the run.
    let out = fx.read_only("f=$(mktemp) && echo hi > \"$f\" && cat \"$f\" && echo \"dir=$TMPDIR\"");
    assert!(out.for_model.contains("exit code: 0"), "{}", out.for_model);
    let dir = out
        .for_model
        .lines()
        .find_map(|l| l.strip_prefix("dir="))
        .unwrap();
    assert!(dir.contains("koi-run-"), "{dir}");
    assert!(
        !PathBuf::from(dir).exists(),
        "the run's temp dir was left behind"
    );
}

#[test]
fn everyday_read_only_commands_still_work() {
    let Some(_) = landlock_abi("everyday_read_only_commands_still_work") else {
        return;
    };
    let fx = Fixture::new(SandboxMode::Auto, Vec::new());
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(args)
            .current_dir(&fx.root)
            .output()
            .unwrap()
            .status
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "keep.txt"]);
    let before = snapshot(&fx.root);
    for command in [
        "ls -la",
        "cat keep.txt",
        "cat keep.txt | wc -l | tr -d ' '",
        "git status",
        "git status --short --branch",
        "git log --oneline -1 || true",
        "git --version",
        "cat keep.txt > /dev/null && echo quiet 2>/dev/null",
        "echo to-stdout > /dev/stdout",
        "grep -r original . | sort | head -1",
        "ls /nonexistent-dir 2>/dev/null || echo missing",
    ] {
        let out = fx.read_only(command);
        assert!(
            out.for_model.starts_with("exit code: 0"),
            "{command} failed read-only:\n{}",
            out.for_model
        );
        assert!(
            !out.for_model.contains(REFUSAL_NOTE),
            "{command}: {}",
            out.for_model
        );
    }
    assert_eq!(
        snapshot(&fx.root),
        before,
        "a read-only command changed the workspace"
    );
}

/// Whether `listener` got a connection (it is non-blocking).
fn tcp_connected(listener: &TcpListener) -> bool {
    match listener.accept() {
        Ok(_) => true,
        Err(e) if e.kind() == ErrorKind::WouldBlock => false,
        Err(e) => panic!("accept: {e}"),
    }
}

fn unix_connected(listener: &UnixListener) -> bool {
    match listener.accept() {
        Ok(_) => true,
        Err(e) if e.kind() == ErrorKind::WouldBlock => false,
        Err(e) => panic!("accept: {e}"),
    }
}

fn udp_received(socket: &UdpSocket) -> bool {
    let mut buf = [0u8; 64];
    match socket.recv(&mut buf) {
        Ok(_) => true,
        Err(e) if e.kind() == ErrorKind::WouldBlock => false,
        Err(e) => panic!("recv: {e}"),
    }
}

/// A perl one-liner (perl-base is on every Debian system) that connects
/// to the unix socket `peer` (a leading NUL names an abstract one).
fn perl_unix_connect(peer: &str) -> String {
    format!(
        "perl -MIO::Socket::UNIX -e 'IO::Socket::UNIX->new(Type => SOCK_STREAM(), Peer => \"{peer}\") \
         or die \"connect: $!\\n\"; print \"connected\\n\"'"
    )
}

#[test]
fn read_only_runs_reach_no_network() {
    let Some(_) = landlock_abi("read_only_runs_reach_no_network") else {
        return;
    };
    let fx = Fixture::new(SandboxMode::Auto, Vec::new());
    let off = Fixture::new(SandboxMode::Off, Vec::new());
    let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
    tcp.set_nonblocking(true).unwrap();
    let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_nonblocking(true).unwrap();
    let named = fx.dir.path().join("named.sock");
    let unix = UnixListener::bind(&named).unwrap();
    unix.set_nonblocking(true).unwrap();
    let abstract_name = unique("koi-sandbox-test");
    let abstract_listener = {
        use std::os::linux::net::SocketAddrExt;
        let addr = std::os::unix::net::SocketAddr::from_abstract_name(&abstract_name).unwrap();
        UnixListener::bind_addr(&addr).unwrap()
    };
    abstract_listener.set_nonblocking(true).unwrap();

    let tcp_cmd = format!(
        "echo hi > /dev/tcp/127.0.0.1/{}",
        tcp.local_addr().unwrap().port()
    );
    let udp_cmd = format!(
        "echo hi > /dev/udp/127.0.0.1/{}",
        udp.local_addr().unwrap().port()
    );
    let named_cmd = perl_unix_connect(&named.display().to_string());
    let abstract_cmd = perl_unix_connect(&format!("\\0{abstract_name}"));
    // Read-only: each one is refused, and nothing arrives.
    for command in [&tcp_cmd, &udp_cmd, &named_cmd, &abstract_cmd] {
        let out = fx.read_only(command);
        assert!(
            out.for_model.contains(REFUSAL_NOTE) && !out.for_model.contains("connected"),
            "{command}:\n{}",
            out.for_model
        );
    }
    assert!(!tcp_connected(&tcp), "a TCP connection got through");
    assert!(!udp_received(&udp), "a UDP datagram got through");
    assert!(
        !unix_connected(&unix),
        "a named unix socket connection got through"
    );
    assert!(
        !unix_connected(&abstract_listener),
        "an abstract unix socket connection got through"
    );
    // The same commands unsandboxed do connect: the refusals above are
    // the sandbox's, not broken commands.
    for command in [&tcp_cmd, &udp_cmd, &named_cmd, &abstract_cmd] {
        let out = off.direct(command).for_model;
        assert!(
            out.starts_with("exit code: 0"),
            "{command} unsandboxed:\n{out}"
        );
    }
    std::thread::sleep(Duration::from_millis(50));
    assert!(tcp_connected(&tcp));
    assert!(udp_received(&udp));
    assert!(unix_connected(&unix));
    assert!(unix_connected(&abstract_listener));
}

#[test]
fn read_only_runs_cannot_signal_outside_processes() {
    let Some(_) = landlock_abi_at_least(
        "read_only_runs_cannot_signal_outside_processes",
        6,
        "signal scoping",
    ) else {
        return;
    };
    let fx = Fixture::new(SandboxMode::Auto, Vec::new());
    let mut outside = std::process::Command::new("sleep")
        .arg("30")
        .spawn()
        .unwrap();
    let pid = outside.id();
    let out = fx.read_only(&format!(
        "kill -0 {pid}; echo \"probe=$?\"; kill -TERM {pid}; echo \"term=$?\"; \
         sleep 5 & own=$!; kill -TERM $own; echo \"own=$?\""
    ));
    assert!(out.for_model.contains("probe=1"), "{}", out.for_model);
    assert!(out.for_model.contains("term=1"), "{}", out.for_model);
    // Its own children stay within reach.
    assert!(out.for_model.contains("own=0"), "{}", out.for_model);
    // In the run's PID namespace the host's processes have no number it
    // can name (ESRCH); under Landlock alone the scope refuses (EPERM,
    // and the model is told).
    assert!(
        out.for_model.contains(REFUSAL_NOTE) || out.for_model.contains("No such process"),
        "{}",
        out.for_model
    );
    // Alive until the test's own signal, proven by what it died of: a
    // process the run had signalled would have died of that (SIGTERM)
    // already, before any later signal, with no pause to wait it out.
    let sent = std::process::Command::new("kill")
        .args(["-USR1", &pid.to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let status = outside.wait().unwrap();
    assert_eq!(
        status.signal(),
        Some(SIGUSR1),
        "the outside process was killed by the run: {status:?}"
    );
}

#[test]
fn approved_runs_write_the_workspace_and_extra_paths_only() {
    let Some(_) = landlock_abi("approved_runs_write_the_workspace_and_extra_paths_only") else {
        return;
    };
    let scratch = tempfile::tempdir().unwrap();
    let extra = scratch.path().join("cache");
    let outside = scratch.path().join("outside");
    std::fs::create_dir_all(&extra).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    let fx = Fixture::new(SandboxMode::Auto, vec![extra.clone()]);
    let plan = |command: &str| {
        fx.registry
            .sandbox_for("shell_exec", &json!({ "command": command }))
            .and_then(|p| p.level())
    };
    assert_eq!(plan("touch made-here"), Some(Level::WorkspaceWrite));
    assert_eq!(plan("cat keep.txt"), Some(Level::ReadOnly));

    let out = fx.approved("touch made-here && echo more >> keep.txt && mkdir -p d/e");
    assert!(
        out.for_model.starts_with("exit code: 0"),
        "{}",
        out.for_model
    );
    assert!(fx.root.join("made-here").exists());
    assert!(fx.root.join("d/e").is_dir());
    assert_eq!(
        std::fs::read_to_string(fx.root.join("keep.txt")).unwrap(),
        "original\nmore\n"
    );
    let out = fx.approved(&format!("touch {}/x", extra.display()));
    assert!(
        out.for_model.starts_with("exit code: 0"),
        "{}",
        out.for_model
    );
    assert!(extra.join("x").exists());
    let out = fx.approved(&format!("touch {}/y", outside.display()));
    assert!(
        out.for_model.contains("Permission denied"),
        "{}",
        out.for_model
    );
    assert!(
        !outside.join("y").exists(),
        "an approved run wrote outside the workspace"
    );
    // Not read-only, so no "ran read-only" note.
    assert!(!out.for_model.contains(REFUSAL_NOTE));

    let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
    tcp.set_nonblocking(true).unwrap();
    let port = tcp.local_addr().unwrap().port();
    let out = fx.approved(&format!("echo hi > /dev/tcp/127.0.0.1/{port}"));
    assert!(
        out.for_model.starts_with("exit code: 0"),
        "{}",
        out.for_model
    );
    assert!(tcp_connected(&tcp), "an approved run could not connect");
}

#[test]
fn background_runs_are_sandboxed_and_told_too() {
    let Some(_) = landlock_abi("background_runs_are_sandboxed_and_told_too") else {
        return;
    };
    let fx = Fixture::new(SandboxMode::Auto, Vec::new());
    let ctx = fx.registry.context(ai_tools::CancelToken::new());
    let bg = fx.registry.get("shell_bg").unwrap();
    bg.run(&json!({ "command": "echo x > bg.txt" }), &ctx)
        .unwrap();
    let poll = fx.registry.get("shell_poll").unwrap();
    let out = poll.run(&json!({ "id": 1, "wait_secs": 5 }), &ctx).unwrap();
    assert!(out.for_model.contains(REFUSAL_NOTE), "{}", out.for_model);
    assert!(!fx.root.join("bg.txt").exists());
}

#[test]
fn require_asks_where_the_kernel_cannot_sandbox() {
    use ai_tools::sandbox::Support;
    let missing = || Support::Unavailable("pinned by the test: no Landlock".into());
    let fx = Fixture::new(SandboxMode::Require, Vec::new());
    let _dir = fx.dir;
    let reg = fx.registry.with_sandbox_support(missing());
    let ls = json!({ "command": "ls" });
    match reg.decide("shell_exec", &ls, Mode::Default) {
        Decision::Ask { detail, .. } => {
            assert!(detail.contains("sandbox is required"), "{detail}")
        }
        other => panic!("require + no sandbox must ask, got {other:?}"),
    }
    for mode in [Mode::Plan, Mode::DontAsk] {
        assert!(
            matches!(reg.decide("shell_exec", &ls, mode), Decision::Deny { .. }),
            "{mode}"
        );
    }
    assert!(
        matches!(
            reg.decide("shell_bg", &ls, Mode::Bypass),
            Decision::Ask { .. }
        ),
        "bypass asks too when the sandbox is required"
    );
    // Tools that start no process are not affected.
    assert!(reg
        .decide("fs_read", &json!({ "path": "keep.txt" }), Mode::Default)
        .is_allow());
    let label = reg.sandbox_status().to_string();
    assert!(label.starts_with("sandbox unavailable: pinned"), "{label}");
    let plan = reg.sandbox_for("shell_exec", &ls).unwrap();
    assert!(matches!(plan, RunSandbox::Unconfined(_)));
    assert_eq!(
        plan.to_string(),
        "none (unavailable: pinned by the test: no Landlock)"
    );

    // auto on the same kernel: allowed, and runs as before.
    let auto = Fixture::new(SandboxMode::Auto, Vec::new());
    let (_dir, dir) = (auto.dir, auto.root);
    let reg = auto.registry.with_sandbox_support(missing());
    assert!(reg.decide("shell_exec", &ls, Mode::Default).is_allow());
    let out = reg
        .run(
            "shell_exec",
            &json!({ "command": "touch unsandboxed" }),
            &ai_tools::CancelToken::new(),
        )
        .unwrap();
    assert!(
        out.for_model.starts_with("exit code: 0"),
        "{}",
        out.for_model
    );
    assert!(dir.join("unsandboxed").exists());
}

/// Landlock alone, without the seccomp filter: its own TCP rule and its
/// scopes refuse a connection, an abstract socket and a signal, so the
/// two layers each hold where the other would be missing.
#[test]
fn landlock_alone_refuses_tcp_abstract_sockets_and_signals() {
    use ai_tools::sandbox::rules;
    use ai_tools::spawn::{spawn, Confinement};
    let Some(abi) = landlock_abi("landlock_alone_refuses_tcp_abstract_sockets_and_signals") else {
        return;
    };
    let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
    tcp.set_nonblocking(true).unwrap();
    let abstract_name = unique("koi-landlock-only");
    let abstract_listener = {
        use std::os::linux::net::SocketAddrExt;
        let addr = std::os::unix::net::SocketAddr::from_abstract_name(&abstract_name).unwrap();
        UnixListener::bind_addr(&addr).unwrap()
    };
    abstract_listener.set_nonblocking(true).unwrap();
    let mut outside = std::process::Command::new("sleep")
        .arg("30")
        .spawn()
        .unwrap();
    let script = format!(
        "echo hi > /dev/tcp/127.0.0.1/{port}; echo \"tcp=$?\"; {unix}; echo \"abstract=$?\"; \
         kill -0 {pid}; echo \"signal=$?\"",
        port = tcp.local_addr().unwrap().port(),
        unix = perl_unix_connect(&format!("\\0{abstract_name}")),
        pid = outside.id(),
    );
    let mut cmd = std::process::Command::new("/bin/bash");
    cmd.args(["-c", &script])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let ruleset = rules::ruleset(Level::ReadOnly, rules::ReadScope::All, &[]).unwrap();
    let child = spawn(cmd, Confinement::new(Some(ruleset), None, None, None)).unwrap();
    let out = child.wait_with_output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    if abi >= 4 {
        assert!(text.contains("tcp=1"), "{text}");
        assert!(
            !tcp_connected(&tcp),
            "Landlock let a TCP connection through"
        );
    } else {
        skip(
            SANDBOX,
            "landlock_alone_refuses_tcp_abstract_sockets_and_signals",
            &format!("the TCP part: Landlock ABI {abi} has no network rules (4 is needed)"),
        );
    }
    if abi >= 6 {
        assert!(
            text.contains("abstract=") && !text.contains("abstract=0"),
            "{text}"
        );
        assert!(!unix_connected(&abstract_listener));
        assert!(text.contains("signal=1"), "{text}");
    } else {
        skip(
            SANDBOX,
            "landlock_alone_refuses_tcp_abstract_sockets_and_signals",
            &format!("the scope part: Landlock ABI {abi} has no scopes (6 is needed)"),
        );
    }
    assert!(outside.try_wait().unwrap().is_none());
    outside.kill().unwrap();
    outside.wait().unwrap();
}
