//! The differential test: does the read-only proof agree with reality?
//!
//! Every command the policy allows without asking in default mode (the
//! policy table's shell rows, and generated command lines) runs for real,
//! without koi's own sandbox, in a throwaway jail ([`jail`]); anything it
//! changed or tried to contact is a failure naming the command and the
//! syscall. A harness self-test runs known writers and readers first, so a
//! jail that saw nothing could not pass.
//!
//! Where the machine cannot build the jail (no user namespaces, no
//! overlayfs in them, no strace) each test records a skip and why
//! (`koi_testkit::skip`, a failure where `KOI_DIFFTEST=require`), and
//! passes. Generated commands never run outside the jail.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests: a failed unwrap is a failed test.

mod fixture;
mod generate;
mod jail;
mod spawn;
mod trace;
mod vocab;

use std::io::Write;
use std::time::{Duration, Instant};

use ai_tools::policy::check_command_in;
use ai_tools::policy_table::{self, Call};
use ai_tools::Mode;

use jail::{Jail, NoJail, Outcome};
use koi_testkit::skip::{skip, DIFFERENTIAL, PROGRAMS};

/// How many command lines the property test generates: enough to cover
/// every program and mutation many times over, few enough that the test
/// stays well under a minute on two cores in a debug build.
const GENERATED: usize = 1500;

/// The system Python (not a version manager's shim, which does more than
/// run Python), for the socket writers.
const PYTHON: &str = "/usr/bin/python3";

/// Write a line where `cargo test` shows it even for a passing test (its
/// capture covers only the print macros).
fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

fn jail_or_skip(test: &str) -> Option<Jail> {
    match Jail::new() {
        Ok(j) => {
            // The commands that need git or Python are left out without
            // them: a part of the test that did not run, said so.
            if !j.fixture.has_git {
                skip(
                    PROGRAMS,
                    test,
                    "git is not installed: its commands are left out",
                );
            }
            if !std::path::Path::new(PYTHON).is_file() {
                skip(
                    PROGRAMS,
                    test,
                    &format!("no {PYTHON}: its commands are left out"),
                );
            }
            Some(j)
        }
        Err(NoJail::Unsupported(why)) => {
            skip(DIFFERENTIAL, test, &why);
            None
        }
        Err(NoJail::Broken(why)) => panic!("the jail is broken: {why}"),
    }
}

fn run(jail: &Jail, cmd: &str) -> Outcome {
    let cmd = cmd.replace(policy_table::OUTSIDE_PLACEHOLDER, &jail.fixture.outside);
    jail.run(&cmd).unwrap_or_else(|e| panic!("{cmd}: {e}"))
}

#[test]
fn harness_sees_writes_and_connections_and_passes_reads() {
    let Some(jail) = jail_or_skip("harness_sees_writes_and_connections_and_passes_reads") else {
        return;
    };
    // Each writer, and a piece of the effect line it must produce: what
    // was left in which scratch area, or which syscall was seen.
    let mut writers: Vec<(String, &str)> = [
        ("touch x", "left ws/x in fixture"),
        ("rm README.md", "unlinkat"),
        ("echo > f", "left ws/f in fixture"),
        ("mkdir d", "mkdir"),
        ("mv notes.txt n", "rename"),
        ("chmod +x README.md", "chmod"),
        ("touch -d 2000-01-01 clean/a.txt", "utimensat"),
        ("ln -s README.md l", "symlink"),
        ("echo x >> @OUT@/plain.txt", "left out/plain.txt in fixture"),
        ("echo x > ~/.bashrc", "left home/.bashrc in fixture"),
        ("echo x > /tmp/x", "left x in tmp"),
        ("cat README.md > /dev/shm/x", "left x in dev-shm"),
        ("echo x > /etc/koi-difftest-probe", "opens for writing"),
        ("rm -f /etc/hostname", "unlink"),
        ("sort -o out.txt README.md", "left ws/out.txt in fixture"),
        ("sed -i s/demo/x/ README.md", "rename"),
        // Still traced after the shell has exited.
        ("(sleep 0.2; touch late) &", "left ws/late in fixture"),
        ("date -s 2020-01-01", "sets the clock"),
        ("hostname jail", "renames the host"),
        ("exec 3<>/dev/tcp/127.0.0.1/9", "opens a network socket"),
    ]
    .map(|(w, e)| (w.to_string(), e))
    .into();
    if jail.fixture.has_git {
        writers.push(("git commit -q --allow-empty -m x".into(), "left ws/.git"));
    }
    if std::path::Path::new(PYTHON).is_file() {
        let socket =
            |code: &str, expected| (format!("{PYTHON} -c 'import socket; {code}'"), expected);
        writers.extend([
            socket(
                "socket.socket().connect((\"127.0.0.1\", 9))",
                "connects a socket",
            ),
            socket(
                "socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b\"x\", (\"10.0.0.1\", 53))",
                "sends to an address",
            ),
            socket(
                "socket.socket(socket.AF_UNIX).connect(\"/run/docker.sock\")",
                "connects a socket",
            ),
        ]);
    }
    let mut readers = vec![
        "cat README.md",
        "ls -la",
        "ls -la / /etc",
        "ls -laR .",
        "grep -r foo .",
        "find . -name '*.rs'",
        "sort README.md notes.txt",
        "head -n 1 README.md > /dev/null 2>&1",
        "echo x > $TMPDIR/scratch && cat $TMPDIR/scratch",
        "sort -T $TMPDIR README.md",
        "wc -l < README.md | cat",
        "id; uname -a; date",
        "cat /etc/hostname",
        "stat README.md escape/plain.txt",
    ];
    if jail.fixture.has_git {
        readers.extend([
            "git status",
            "git log --oneline",
            "git diff HEAD~1",
            "git show --stat",
        ]);
    }
    let mut failures = Vec::new();
    for (w, expected) in &writers {
        let o = run(&jail, w);
        if !o.effects.iter().any(|e| e.contains(expected)) {
            failures.push(format!(
                "writer not caught as `{expected}`: {w}\n  {}\n  output: {}",
                o.effects.join("\n  "),
                o.output
            ));
        }
    }
    for r in &readers {
        let o = run(&jail, r);
        if !o.effects.is_empty() || !o.trace_complete || o.exit.timed_out {
            failures.push(format!(
                "reader flagged: {r}\n  {}\n  complete trace: {}, output: {}",
                o.effects.join("\n  "),
                o.trace_complete,
                o.output
            ));
        }
    }
    // The jail changed nothing real: the host path stayed absent and the
    // fixture's lower layer kept every file the writers attacked.
    assert!(!std::path::Path::new("/etc/koi-difftest-probe").exists());
    let ws = &jail.fixture.ws;
    assert_eq!(
        std::fs::read_to_string(ws.join("README.md")).unwrap(),
        "# demo\n"
    );
    assert!(ws.join("notes.txt").exists() && !ws.join("x").exists());
    let plain = jail.fixture.out.join("plain.txt");
    assert_eq!(std::fs::read_to_string(plain).unwrap(), "plain\n");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_deadline_kills_everything_in_the_jail() {
    let Some(jail) = jail_or_skip("the_deadline_kills_everything_in_the_jail") else {
        return;
    };
    // An odd duration marks this test's processes among everyone's.
    const MARK: &str = "60.0417";
    let started = Instant::now();
    // A grandchild that left its parent, and a foreground sleeper.
    let o = jail
        .run_with_limit(
            &format!("(sleep {MARK} &); sleep {MARK}"),
            Duration::from_millis(500),
        )
        .unwrap();
    assert!(o.exit.timed_out, "{o:?}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    // Killing pid 1 ends the whole namespace, shortly after.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let left = processes_running(MARK);
        if left.is_empty() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "still running after the kill: {left:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Pids of the host's processes whose command line contains `mark`.
fn processes_running(mark: &str) -> Vec<u32> {
    let me = std::process::id();
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if pid != me && String::from_utf8_lossy(&cmdline).contains(mark) {
            pids.push(pid);
        }
    }
    pids
}

/// Jails run side by side in one differential test: a run spends much of
/// its time waiting on the kernel (namespace and mount setup and teardown),
/// so two keep two cores busy.
const JAIL_WORKERS: usize = 2;

/// What one command did, as the summary sorts it.
enum Verdict {
    Clean,
    Effects(String),
    TimedOut,
    Cut,
}

/// Judge `commands` in default mode, run the allowed ones in jails, and
/// fail listing every allowed command that had an effect.
fn differential(test: &str, commands: Vec<String>) {
    let Some(first) = jail_or_skip(test) else {
        return;
    };
    let started = Instant::now();
    let outside = first.fixture.outside.clone();
    let allowed: Vec<String> = commands
        .iter()
        .map(|c| c.replace(policy_table::OUTSIDE_PLACEHOLDER, &outside))
        .filter(|c| check_command_in(c, Mode::Default, &first.fixture.workspace).is_allow())
        .collect();
    let judged = started.elapsed();
    let mut jails = vec![first];
    while jails.len() < JAIL_WORKERS.min(allowed.len()) {
        jails.extend(jail_or_skip(test));
    }
    // Each worker's fixture has its own paths: a command names the first
    // jail's outside directory, so it is rewritten for the jail it runs in.
    let chunk = allowed.len().div_ceil(jails.len()).max(1);
    let work: Vec<_> = jails.iter().zip(allowed.chunks(chunk)).collect();
    let verdicts: Vec<Verdict> = koi_testkit::parallel::map(&work, |(jail, cmds)| {
        cmds.iter()
            .map(|cmd| verdict(jail, &cmd.replace(outside.as_str(), &jail.fixture.outside)))
            .collect::<Vec<_>>()
    })
    .into_iter()
    .flatten()
    .collect();
    let mut caught = Vec::new();
    let mut timed_out = Vec::new();
    let mut cut = Vec::new();
    for (cmd, v) in allowed.iter().zip(verdicts) {
        match v {
            Verdict::Clean => {}
            Verdict::Effects(e) => caught.push(format!(
                "ALLOWED BUT HAD AN EFFECT: {}\n    {e}",
                one_line(cmd)
            )),
            Verdict::TimedOut => timed_out.push(one_line(cmd)),
            Verdict::Cut => cut.push(one_line(cmd)),
        }
    }
    say(&format!(
        "differential::{test}: generated {}, allowed {}, run in jail {}, effects found {}, \
         timed out {}, traces cut {}; judging {:.1} s, jail {:.1} s",
        commands.len(),
        allowed.len(),
        allowed.len(),
        caught.len(),
        timed_out.len(),
        cut.len(),
        judged.as_secs_f64(),
        (started.elapsed() - judged).as_secs_f64()
    ));
    for t in &timed_out {
        say(&format!(
            "  timed out (judged on what it did before the kill): {t}"
        ));
    }
    for c in &cut {
        say(&format!(
            "  trace cut short (a process died mid-trace): {c}"
        ));
    }
    // A trace the tracer did not finish (it died, and its tracees with it)
    // cannot vouch for the command; a timeout is only reported, since a
    // command that waits forever (`tail -f`) changes nothing by waiting.
    assert!(
        caught.is_empty() && cut.is_empty(),
        "{} allowed command(s) changed or contacted something, {} could not be judged \
         (trace cut short):\n{}\n{}",
        caught.len(),
        cut.len(),
        caught.join("\n"),
        cut.join("\n")
    );
}

/// A command line as one report line (a newline between commands shown
/// as `\n`).
fn one_line(cmd: &str) -> String {
    cmd.replace('\n', "\\n")
}

fn verdict(jail: &Jail, cmd: &str) -> Verdict {
    let o = run(jail, cmd);
    if !o.effects.is_empty() {
        Verdict::Effects(o.effects.join("\n    "))
    } else if o.exit.timed_out {
        Verdict::TimedOut
    } else if !o.trace_complete {
        Verdict::Cut
    } else {
        Verdict::Clean
    }
}

#[test]
fn policy_table_shell_rows_agree_with_reality() {
    let rows = policy_table::load().unwrap();
    let commands = rows
        .iter()
        .filter_map(|r| match r.call(policy_table::OUTSIDE_PLACEHOLDER) {
            Call::Command(c) => Some(c),
            Call::Tool { .. } => None,
        })
        .collect();
    differential("policy_table_shell_rows_agree_with_reality", commands);
}

/// Issue 11's one-line escapes, made concrete for the fixture: each was
/// allowed by the proof the issue was written against and has an effect
/// when run where the program behaves as the issue says (the `gawk` ones
/// need gawk installed; mawk reads the `awk` division line as a regex and
/// never calls `system`).
const ISSUE_EXAMPLES: &[&str] = &[
    "find . {-delete,-print}",
    "find . $'\\55delete'",
    "find . $'\\x2ddelete'",
    "sort --out=out.txt README.md",
    "sed --in s/demo/x/ README.md",
    "gawk --sou='BEGIN{system(\"touch p\")}'",
    "gawk '-eNR==1{system(\"touch p\")}' README.md",
    "git config -f.git/logs/../config diff.external 'touch p'",
    "awk '{y=x++ / 2; system(\"touch p\"); z=1 / 3}' README.md",
];

#[test]
fn issue_examples_agree_with_reality() {
    let commands = ISSUE_EXAMPLES.iter().map(|c| c.to_string()).collect();
    differential("issue_examples_agree_with_reality", commands);
}

#[test]
fn generated_commands_agree_with_reality() {
    differential(
        "generated_commands_agree_with_reality",
        generate::command_lines(GENERATED),
    );
}
