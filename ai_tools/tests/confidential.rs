//! The confidential sandbox against the real kernel: what a command run
//! unasked (or approved) can see. Hidden paths read as empty, koi's own
//! environment is closed, the host's processes stay in view, the run has
//! no terminal, every process it started ends with it, and where
//! namespaces are refused Landlock alone still hides the paths. Run as
//! root and, in CI, as an unprivileged user too (`.ci/run`).

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests: a failed unwrap is a failed test.

mod sandbox_support;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use ai_tools::sandbox::{support, Isolation, Support};
use ai_tools::{CancelToken, Level, Mode, SandboxMode, ToolOutput};
use koi_testkit::skip::{skip, USERNS};
use sandbox_support::{landlock_abi, Fixture};
use serde_json::json;

/// Secrets planted outside the workspace, hidden through `sandbox_hidden`
/// (the built-in list works on the home directory, which a test shares
/// with everything else on the machine).
struct Planted {
    _dir: tempfile::TempDir,
    /// A credential directory with a key in it.
    keys: PathBuf,
    /// A token file.
    token: PathBuf,
}

const KEY: &str = "SECRET-KEY-4d1f";
const TOKEN: &str = "SECRET-TOKEN-77aa";
const ENV: &str = "SECRET-ENV-0c3e";

fn plant() -> Planted {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let keys = root.join("dot-ssh");
    std::fs::create_dir(&keys).unwrap();
    std::fs::write(keys.join("id_ed25519"), KEY).unwrap();
    let token = root.join("hosts.yml");
    std::fs::write(&token, TOKEN).unwrap();
    Planted {
        _dir: dir,
        keys,
        token,
    }
}

/// A fixture hiding `planted`, with a gitignored `.env` and a hard link to
/// the token inside the workspace.
fn fixture(planted: &Planted, support: Option<Support>) -> Fixture {
    let fx = Fixture::with(
        SandboxMode::Auto,
        Vec::new(),
        vec![planted.keys.clone(), planted.token.clone()],
        support,
    );
    std::fs::write(fx.root.join(".gitignore"), ".env\n").unwrap();
    std::fs::write(fx.root.join(".env"), format!("API={ENV}\n")).unwrap();
    std::fs::hard_link(&planted.token, fx.root.join("notes.txt")).unwrap();
    fx
}

fn run_at(fx: &Fixture, level: Level, command: &str) -> ToolOutput {
    let mut ctx = fx.registry.context(CancelToken::new());
    ctx.sandbox = ctx.sandbox.at(level);
    fx.registry
        .get("shell_exec")
        .unwrap()
        .run(&json!({ "command": command }), &ctx)
        .unwrap()
}

fn assert_no_secret(out: &ToolOutput, what: &str) {
    for secret in [KEY, TOKEN, ENV] {
        assert!(
            !out.for_model.contains(secret) && !out.full.contains(secret),
            "{what}: {secret} leaked:\n{}",
            out.full
        );
    }
}

fn isolation() -> Option<Isolation> {
    match support() {
        Support::Available { isolation, .. } => Some(isolation.clone()),
        Support::Unavailable(_) => None,
    }
}

#[test]
fn hidden_paths_read_as_empty_at_every_level() {
    if landlock_abi("hidden_paths_read_as_empty_at_every_level").is_none() {
        return;
    }
    let planted = plant();
    let fx = fixture(&planted, None);
    std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&fx.root)
        .status()
        .unwrap();
    let keys = planted.keys.display();
    let token = planted.token.display();
    let attempts = [
        format!("cat {keys}/id_ed25519"),
        format!("cat {token}"),
        format!("ls -A {keys}; cat {keys}/*"),
        format!("grep -r SECRET {keys} {token}"),
        "cat .env".to_string(),
        "cat notes.txt".to_string(),
        "rg --no-ignore --hidden -uuu SECRET .".to_string(),
        "grep -r SECRET .".to_string(),
        "git grep --no-index SECRET".to_string(),
        "find . -type f -exec cat {} +".to_string(),
        format!("tar cf - {keys} {token} .env 2>/dev/null | strings"),
        format!("base64 {token} .env notes.txt"),
        format!("dd if={token} bs=1 2>/dev/null | xxd"),
        format!("python3 -c 'print(open(\"{token}\").read())'"),
    ];
    let isolated = matches!(isolation(), Some(Isolation::Namespaces));
    for level in [Level::ReadOnly, Level::WorkspaceWrite] {
        for command in &attempts {
            let out = run_at(&fx, level, command);
            assert_no_secret(&out, &format!("{level}: {command}"));
        }
        if isolated {
            // Empty, not an error a program could learn from.
            let out = run_at(
                &fx,
                level,
                &format!("wc -c < {token}; wc -c < .env; ls -A {keys} | wc -l"),
            );
            assert!(
                out.for_model.contains("exit code: 0") && out.for_model.contains("0\n0\n0"),
                "{level}: {}",
                out.for_model
            );
            // Read-only: nothing can write through them either.
            let out = run_at(&fx, level, &format!("echo x > {token}; echo rc=$?"));
            assert!(out.for_model.contains("rc=1"), "{}", out.for_model);
        }
    }
    // Untouched outside the sandbox.
    assert_eq!(std::fs::read_to_string(&planted.token).unwrap(), TOKEN);
    assert!(std::fs::read_to_string(fx.root.join(".env"))
        .unwrap()
        .contains(ENV));
}

#[test]
fn the_model_is_told_what_was_hidden() {
    if landlock_abi("the_model_is_told_what_was_hidden").is_none() {
        return;
    }
    let planted = plant();
    let fx = fixture(&planted, None);
    let out = fx.read_only(&format!("cat {}/id_ed25519", planted.keys.display()));
    assert!(
        out.for_model.contains("is hidden from commands koi runs"),
        "{}",
        out.for_model
    );
    // From the background too, when its output is read.
    let cancel = CancelToken::new();
    let started = fx
        .registry
        .run(
            "shell_bg",
            &json!({"command": format!("cat {}", planted.token.display())}),
            &cancel,
        )
        .unwrap();
    let id: u64 = started
        .for_model
        .split(|c: char| !c.is_ascii_digit())
        .find(|s| !s.is_empty())
        .unwrap()
        .parse()
        .unwrap();
    let polled = fx
        .registry
        .run("shell_poll", &json!({"id": id, "wait_secs": 5}), &cancel)
        .unwrap();
    assert!(
        polled
            .for_model
            .contains("is hidden from commands koi runs"),
        "{}",
        polled.for_model
    );
}

#[test]
fn koi_own_environment_cannot_be_read() {
    if landlock_abi("koi_own_environment_cannot_be_read").is_none() {
        return;
    }
    // What koi and k do at start: this test process stands for them.
    ai_tools::spawn::keep_memory_private();
    let planted = plant();
    let fx = fixture(&planted, None);
    let me = std::process::id();
    for level in [Level::ReadOnly, Level::WorkspaceWrite] {
        for file in ["environ", "mem", "auxv"] {
            let out = run_at(
                &fx,
                level,
                &format!("cat /proc/{me}/{file} | tr '\\0' '\\n' | head -c 2000; echo rc=${{PIPESTATUS[0]}}"),
            );
            assert!(
                out.for_model.contains("rc=1") && !out.for_model.contains("PATH="),
                "{level} {file}: {}",
                out.for_model
            );
        }
        // Nor its parent's (the run's keeper holds a copy of koi's memory
        // until the run ends), found the way an attacker would.
        let out = run_at(
            &fx,
            level,
            "read -r _ _ _ parent _ < /proc/self/stat; echo parent=$parent; \
             cat /proc/$parent/environ | tr '\\0' '\\n' | head -c 2000; echo rc=${PIPESTATUS[0]}",
        );
        assert!(
            out.for_model.contains("rc=1") && !out.for_model.contains("PATH="),
            "{level} parent: {}",
            out.for_model
        );
    }
}

#[test]
fn the_host_stays_in_view() {
    if landlock_abi("the_host_stays_in_view").is_none() {
        return;
    }
    let planted = plant();
    let fx = fixture(&planted, None);
    let mut outside = std::process::Command::new("sleep")
        .arg("31.25")
        .spawn()
        .unwrap();
    let pid = outside.id();
    let ps = fx.read_only("ps -eo pid,args");
    let listed = ps
        .for_model
        .lines()
        .any(|l| l.trim_start().starts_with(&format!("{pid} ")) && l.contains("sleep 31.25"));
    assert!(listed, "ps does not show the host: {}", ps.for_model);
    let pgrep = fx.read_only("pgrep -f 'sleep 31.25'");
    assert!(
        pgrep.for_model.contains(&pid.to_string()),
        "{}",
        pgrep.for_model
    );
    // Its own view agrees with the host's: the same pid, the same command.
    let own = std::fs::read_to_string(format!("/proc/{pid}/cmdline")).unwrap();
    assert_eq!(own, "sleep\u{0}31.25\u{0}");
    outside.kill().unwrap();
    outside.wait().unwrap();
}

#[test]
fn a_run_has_no_terminal() {
    if landlock_abi("a_run_has_no_terminal").is_none() {
        return;
    }
    let planted = plant();
    let fx = fixture(&planted, None);
    for level in [Level::ReadOnly, Level::WorkspaceWrite] {
        let out = run_at(
            &fx,
            level,
            "printf '\\033]52;c;aGk=\\007' > /dev/tty; echo rc=$?; tty; \
             exec 3<>/dev/tty; echo open=$?",
        );
        assert!(out.for_model.contains("rc=1"), "{level}: {}", out.for_model);
        assert!(
            out.for_model.contains("not a tty"),
            "{level}: {}",
            out.for_model
        );
        assert!(
            !out.for_model.contains("open=0"),
            "{level}: {}",
            out.for_model
        );
    }
}

/// A pseudo-terminal pair: the master's descriptor and the slave's path.
fn open_pty() -> (std::os::fd::OwnedFd, String) {
    use std::os::fd::FromRawFd;
    // SAFETY: plain libc calls on a descriptor this function owns.
    unsafe {
        let master = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY | libc::O_NONBLOCK);
        assert!(master >= 0);
        assert_eq!(libc::grantpt(master), 0);
        assert_eq!(libc::unlockpt(master), 0);
        let name = std::ffi::CStr::from_ptr(libc::ptsname(master))
            .to_string_lossy()
            .into_owned();
        (std::os::fd::OwnedFd::from_raw_fd(master), name)
    }
}

#[test]
fn tiocsti_cannot_type_into_a_terminal() {
    if landlock_abi("tiocsti_cannot_type_into_a_terminal").is_none() {
        return;
    }
    let planted = plant();
    let fx = fixture(&planted, None);
    let (master, slave) = open_pty();
    let script = format!(
        "python3 -c \"import os,fcntl,termios\nfor flags in (os.O_RDWR, os.O_RDONLY):\n  try:\n    fd=os.open('{slave}', flags|os.O_NOCTTY)\n  except OSError as e:\n    print('open', e.errno); continue\n  try:\n    fcntl.ioctl(fd, termios.TIOCSTI, b'Z'); print('typed')\n  except OSError as e:\n    print('refused', e.errno)\""
    );
    for level in [Level::ReadOnly, Level::WorkspaceWrite] {
        let out = run_at(&fx, level, &script);
        assert!(
            !out.for_model.contains("typed"),
            "{level}: {}",
            out.for_model
        );
        if level == Level::ReadOnly {
            // Unasked, a terminal cannot even be opened to read (its input
            // is the user's keystrokes); `ps` still names it.
            assert_eq!(
                out.for_model.matches("open 13").count(),
                2,
                "{}",
                out.for_model
            );
        }
        assert!(
            out.for_model.contains("refused") || out.for_model.contains("open"),
            "{level}: {}",
            out.for_model
        );
    }
    // Nothing arrived at the terminal's input.
    use std::os::fd::AsRawFd;
    let mut buf = [0u8; 16];
    // SAFETY: reads into a local buffer from a descriptor we own.
    let n = unsafe { libc::read(master.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
    assert!(n <= 0 || !buf[..n as usize].contains(&b'Z'), "{:?}", &buf);
}

/// Host pids whose command line is exactly `args`.
fn processes_running(args: &[&str]) -> Vec<u32> {
    let want: String = args.iter().map(|a| format!("{a}\u{0}")).collect();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/cmdline")).is_ok_and(|c| c == want)
        })
        .collect()
}

fn gone_soon(args: &[&str]) -> bool {
    let deadline = Instant::now() + Duration::from_secs(3);
    while Instant::now() < deadline {
        if processes_running(args).is_empty() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

#[test]
fn a_daemon_that_left_the_run_ends_with_it() {
    if landlock_abi("a_daemon_that_left_the_run_ends_with_it").is_none() {
        return;
    }
    if !matches!(isolation(), Some(Isolation::Namespaces)) {
        skip(
            USERNS,
            "a_daemon_that_left_the_run_ends_with_it",
            "no PID namespace here (the run tag's scan covers this case)",
        );
        return;
    }
    let planted = plant();
    let fx = fixture(&planted, None);
    // It drops the run's tag, so only the PID namespace can find it.
    let seconds = format!("3600.{}", std::process::id());
    let out = fx.read_only(&format!(
        "env -u KOI_TOOL_RUN setsid -f sleep {seconds} </dev/null >/dev/null 2>&1; \
         sleep 0.2; pgrep -f 'sleep {seconds}' >/dev/null && echo started"
    ));
    assert!(out.for_model.contains("started"), "{}", out.for_model);
    assert!(
        gone_soon(&["sleep", &seconds]),
        "a double-forked setsid daemon outlived its run"
    );
    // The same from a background run, killed by the model.
    let bg_seconds = format!("3601.{}", std::process::id());
    let started = fx
        .registry
        .run(
            "shell_bg",
            &json!({"command": format!("env -u KOI_TOOL_RUN setsid -f sleep {bg_seconds}; sleep 300")}),
            &CancelToken::new(),
        )
        .unwrap();
    let id = started
        .for_model
        .split(|c: char| !c.is_ascii_digit())
        .find(|s| !s.is_empty())
        .unwrap()
        .to_string();
    let deadline = Instant::now() + Duration::from_secs(3);
    while processes_running(&["sleep", &bg_seconds]).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!processes_running(&["sleep", &bg_seconds]).is_empty());
    fx.registry
        .run(
            "shell_kill",
            &json!({"id": id.parse::<u64>().unwrap()}),
            &CancelToken::new(),
        )
        .unwrap();
    assert!(
        gone_soon(&["sleep", &bg_seconds]),
        "the daemon outlived shell_kill"
    );
}

#[test]
fn landlock_alone_still_hides_the_paths() {
    let Some(abi) = landlock_abi("landlock_alone_still_hides_the_paths") else {
        return;
    };
    let planted = plant();
    let pinned = Support::Available {
        landlock_abi: abi,
        isolation: Isolation::LandlockOnly("pinned by the test".into()),
    };
    let fx = fixture(&planted, Some(pinned));
    assert!(
        fx.registry
            .sandbox_status()
            .to_string()
            .contains("only (pinned by the test)"),
        "{}",
        fx.registry.sandbox_status()
    );
    std::fs::write(fx.root.join("README.md"), "readable\n").unwrap();
    // Links beside the hidden paths, to them: a rule for a link would name
    // its target.
    let parent = planted.keys.parent().unwrap();
    std::os::unix::fs::symlink(&planted.keys, parent.join("alias-dir")).unwrap();
    std::os::unix::fs::symlink(&planted.token, parent.join("alias-file")).unwrap();
    let keys = planted.keys.display();
    let token = planted.token.display();
    let aliases = parent.display();
    for level in [Level::ReadOnly, Level::WorkspaceWrite] {
        for command in [
            format!("cat {aliases}/alias-dir/id_ed25519 {aliases}/alias-file"),
            format!("cat {keys}/id_ed25519"),
            format!("cat {token}"),
            "cat .env notes.txt".to_string(),
            "grep -r SECRET .".to_string(),
            format!(
                "grep -r SECRET {}",
                planted.keys.parent().unwrap().display()
            ),
        ] {
            let out = run_at(&fx, level, &command);
            assert_no_secret(&out, &format!("landlock only, {level}: {command}"));
        }
        // Everything else still reads.
        let out = run_at(&fx, level, "cat README.md; ls /usr/bin | head -1");
        assert!(
            out.for_model.contains("readable"),
            "{level}: {}",
            out.for_model
        );
    }
}

/// Run by [`namespaces_refused_fall_back_to_landlock`] in a process whose
/// seccomp filter refuses `unshare`: the probe must notice and Landlock
/// alone must hide the planted paths.
#[test]
#[ignore = "run by namespaces_refused_fall_back_to_landlock in a filtered process"]
fn fallback_child() {
    assert_eq!(std::env::var("KOI_FALLBACK_CHILD").as_deref(), Ok("1"));
    let Some(Isolation::LandlockOnly(why)) = isolation() else {
        panic!("namespaces were refused but the probe says {:?}", support());
    };
    println!("probe: {why}");
    let planted = plant();
    let fx = fixture(&planted, None);
    let out = fx.read_only(&format!("cat {}; cat .env", planted.token.display()));
    assert_no_secret(&out, "fallback");
    println!("FALLBACK-HID-THE-PATHS");
}

#[test]
fn namespaces_refused_fall_back_to_landlock() {
    if landlock_abi("namespaces_refused_fall_back_to_landlock").is_none() {
        return;
    }
    use std::os::unix::process::CommandExt;
    let me = std::env::current_exe().unwrap();
    let mut cmd = std::process::Command::new(me);
    cmd.args([
        "--exact",
        "fallback_child",
        "--ignored",
        "--nocapture",
        "--test-threads=1",
    ])
    .env("KOI_FALLBACK_CHILD", "1");
    // SAFETY: the closure runs between fork and exec and only calls prctl
    // and seccomp on a filter built before the fork.
    let filter = refuse_unshare();
    unsafe {
        cmd.pre_exec(move || {
            let prog = libc::sock_fprog {
                len: filter.len() as libc::c_ushort,
                filter: filter.as_ptr().cast_mut(),
            };
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
                || libc::syscall(
                    libc::SYS_seccomp,
                    libc::SECCOMP_SET_MODE_FILTER,
                    0u32,
                    &prog as *const libc::sock_fprog,
                ) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = cmd.output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("FALLBACK-HID-THE-PATHS"), "{text}");
}

/// A seccomp program that refuses `unshare(2)` with EPERM, as a container's
/// profile does, and allows everything else.
fn refuse_unshare() -> Vec<libc::sock_filter> {
    let stmt = |code: u32, k: u32| libc::sock_filter {
        code: code as u16,
        jt: 0,
        jf: 0,
        k,
    };
    vec![
        stmt(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, 0),
        libc::sock_filter {
            code: (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16,
            jt: 0,
            jf: 1,
            k: libc::SYS_unshare as u32,
        },
        stmt(
            libc::BPF_RET | libc::BPF_K,
            libc::SECCOMP_RET_ERRNO | libc::EPERM as u32,
        ),
        stmt(libc::BPF_RET | libc::BPF_K, libc::SECCOMP_RET_ALLOW),
    ]
}

#[test]
fn unproven_commands_run_contained_without_asking() {
    if landlock_abi("unproven_commands_run_contained_without_asking").is_none() {
        return;
    }
    let planted = plant();
    let fx = fixture(&planted, None);
    let reg = &fx.registry;
    let shell = |command: &str| json!({ "command": command });
    // Not provable, contained: allowed, read-only, no one asked.
    for command in [
        "python3 --version",
        "basename \"$(pwd)\"",
        "for f in *; do wc -c \"$f\"; done",
        "cargo --version || true",
    ] {
        let judged = reg
            .judge("shell_exec", &shell(command), Mode::Default)
            .unwrap();
        assert!(
            judged.decision.is_allow(),
            "{command}: {:?}",
            judged.decision
        );
        assert_eq!(
            judged.allowed().map(|a| a.level()),
            Some(Level::ReadOnly),
            "{command}"
        );
        // Plan mode keeps to what is proven.
        let plan = reg
            .judge("shell_exec", &shell(command), Mode::Plan)
            .unwrap();
        assert!(!plan.decision.is_allow(), "plan mode ran {command}");
    }
    // Asking for more asks, with the reason, and runs workspace-write once approved.
    let escalated =
        json!({"command": "touch made.txt", "escalate": true, "reason": "to create made.txt"});
    let judged = reg.judge("shell_exec", &escalated, Mode::Default).unwrap();
    let ai_tools::Decision::Ask { detail, .. } = &judged.decision else {
        panic!("an escalated command did not ask: {:?}", judged.decision);
    };
    assert!(detail.contains("to create made.txt"), "{detail}");
    assert_eq!(
        judged.approve().map(|a| a.level()),
        Some(Level::WorkspaceWrite)
    );
    // A contained write is refused by the kernel, and the model is told how to ask.
    let judged = reg
        .judge("shell_exec", &shell("touch made.txt"), Mode::Default)
        .unwrap();
    let approved = judged.allowed().unwrap();
    let out = reg
        .run_approved(
            "shell_exec",
            &shell("touch made.txt"),
            &approved,
            &CancelToken::new(),
            ai_tools::run_tag::RunTag::new(),
            ai_tools::ProgressSink::default(),
        )
        .unwrap();
    assert!(
        out.for_model.contains("\"escalate\": true"),
        "{}",
        out.for_model
    );
    assert!(!fx.root.join("made.txt").exists());
    // What the floor refuses stays refused.
    let judged = reg
        .judge("shell_exec", &shell("cat ~/.ssh/id_rsa"), Mode::Default)
        .unwrap();
    assert!(!judged.decision.is_allow(), "{:?}", judged.decision);
}

#[test]
fn netlink_reads_but_cannot_change_the_network() {
    if landlock_abi("netlink_reads_but_cannot_change_the_network").is_none() {
        return;
    }
    let planted = plant();
    let fx = fixture(&planted, None);
    // 192.0.2.0/24 is TEST-NET-1: never a real address on this machine.
    let probe = "192.0.2.77";
    let out = fx.read_only(&format!(
        "ip -o addr show dev lo | grep -c 127.0.0.1; ip addr add {probe}/32 dev lo; echo add=$?; \
         ip link set lo down; echo down=$?"
    ));
    let host = std::process::Command::new("ip")
        .args(["-o", "addr", "show", "dev", "lo"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    if host.contains(probe) {
        let _ = std::process::Command::new("ip")
            .args(["addr", "del", &format!("{probe}/32"), "dev", "lo"])
            .status();
    }
    assert!(
        out.for_model.contains("1\n"),
        "netlink could not read: {}",
        out.for_model
    );
    assert!(!out.for_model.contains("add=0"), "{}", out.for_model);
    assert!(!out.for_model.contains("down=0"), "{}", out.for_model);
    assert!(
        !host.contains(probe),
        "a contained run added an address to the host"
    );
}
