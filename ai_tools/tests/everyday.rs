//! Everyday read-only commands developers type: each runs without asking
//! in default mode with the sandbox active (proven read-only, or contained),
//! and shows what the same command shows outside koi: the same text, or,
//! for views of a live machine, the host's processes and listeners.
//!
//! Prints the usability figure (allowed without asking, of all), which
//! the closing note of the confidential-sandbox work reports.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests: a failed unwrap is a failed test.

mod sandbox_support;

use std::net::TcpListener;
use std::path::Path;

use ai_tools::run_tag::RunTag;
use ai_tools::{CancelToken, Clearance, Mode, ProgressSink, SandboxMode};
use sandbox_support::{landlock_abi, Fixture};
use serde_json::json;

/// What the sandboxed output must show.
enum Expect {
    /// Exactly what the command prints outside koi.
    Same,
    /// This text (after `{pid}` and `{port}` are filled in).
    Shows(&'static str),
}

use Expect::{Same, Shows};

/// The table: at least 60 commands people type every day.
const TABLE: &[(&str, Expect)] = &[
    ("python3 --version", Same),
    ("cargo --version", Same),
    ("rustc --version", Same),
    ("git --version", Same),
    ("bash --version | head -1", Same),
    ("perl -e 'print 1+1, \"\\n\"'", Same),
    ("python3 -c 'import sys; print(sys.version_info[0])'", Same),
    ("uname -a", Same),
    ("whoami", Same),
    ("id -u", Same),
    ("hostname", Same),
    ("nproc", Same),
    ("pwd", Same),
    ("basename \"$(pwd)\"", Same),
    ("dirname \"$(pwd)/x\"", Same),
    ("echo \"$(ls | wc -l) entries\"", Same),
    ("echo $((6 * 7))", Same),
    ("printenv HOME", Same),
    ("ls", Same),
    ("ls -la src | wc -l", Same),
    ("ls | xargs wc -c", Same),
    ("for f in src/*.rs; do wc -l \"$f\"; done", Same),
    ("find . -name '*.rs' | sort", Same),
    ("find . -type f -newer README.md | wc -l", Same),
    ("grep -rn fn src", Same),
    ("grep -c fn src/main.rs", Same),
    ("rg -n main src", Same),
    ("rg --files | sort", Same),
    ("cat README.md | head -3", Same),
    ("head -c 20 README.md | xxd", Same),
    ("wc -l src/*.rs", Same),
    ("sort README.md | uniq -c", Same),
    ("awk '{print $1}' README.md", Same),
    ("sed -n 1p README.md", Same),
    ("cut -d' ' -f1 README.md", Same),
    ("tr a-z A-Z < README.md", Same),
    ("diff README.md README.md && echo same", Same),
    ("cmp README.md README.md && echo same", Same),
    ("sha256sum README.md", Same),
    ("md5sum README.md", Same),
    ("test -f README.md && echo yes", Same),
    ("[ -d src ] && echo dir", Same),
    ("stat -c %s README.md", Same),
    ("file README.md", Same),
    ("du -s src | cut -f1", Same),
    ("tree src", Same),
    ("jq .name data.json", Same),
    ("readlink -f src", Same),
    ("realpath README.md", Same),
    ("which bash", Same),
    ("command -v git", Same),
    ("type cd", Same),
    ("seq 1 5 | paste -sd+", Same),
    ("xargs -n1 echo < README.md | head -2", Same),
    ("git status --short", Same),
    ("git log --oneline | head -5", Same),
    ("git diff --stat", Same),
    ("git branch --show-current", Same),
    ("git rev-parse --show-toplevel", Same),
    ("git ls-files | wc -l", Same),
    ("git show --stat HEAD | tail -2", Same),
    ("cargo tree --offline", Same),
    (
        "cargo metadata --no-deps --format-version 1 --offline | jq -r '.packages[0].name'",
        Same,
    ),
    ("date +%Y", Same),
    ("cat /etc/os-release | head -1", Same),
    ("df -P / | tail -1 | awk '{print $1}'", Same),
    ("ip route | head -1", Same),
    (
        "ps aux | grep 'sleep 41.5' | grep -v grep",
        Shows("sleep 41.5"),
    ),
    ("ps -eo pid,args", Shows("{pid} sleep 41.5")),
    ("pgrep -f 'sleep 41.5'", Shows("{pid}")),
    ("pgrep -a sleep", Shows("{pid} sleep 41.5")),
    ("top -bn1 | head -1", Shows("top - ")),
    ("ss -tln", Shows("127.0.0.1:{port}")),
    ("ss -tlnp", Shows("127.0.0.1:{port}")),
    ("ip addr", Shows("127.0.0.1")),
    ("cat /proc/loadavg | wc -w", Shows("5")),
];

/// The fixture: a small Cargo project in a git repository.
fn project(root: &Path) {
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(
        root.join("Cargo.toml"),
        "[package]\nname = \"everyday\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .unwrap();
    std::fs::write(root.join("src/main.rs"), "fn main() {\n    helper();\n}\n").unwrap();
    std::fs::write(root.join("src/lib.rs"), "pub fn helper() {}\n").unwrap();
    std::fs::write(
        root.join("README.md"),
        "everyday project\nsecond line here\nthird\n",
    )
    .unwrap();
    std::fs::write(root.join("data.json"), "{\"name\": \"everyday\"}\n").unwrap();
    let sh = |cmd: &str| {
        let ok = std::process::Command::new("bash")
            .args(["-c", cmd])
            .current_dir(root)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap()
            .success();
        assert!(ok, "fixture: {cmd}");
    };
    sh("git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm first");
    sh("cargo generate-lockfile --offline");
    std::fs::write(
        root.join("README.md"),
        "everyday project\nsecond line here\nthird\nfourth\n",
    )
    .unwrap();
}

/// What `command` prints outside koi, in `root`.
fn outside(root: &Path, command: &str) -> String {
    let out = std::process::Command::new("bash")
        .args(["-c", command])
        .current_dir(root)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The stdout part of a shell_exec result.
fn stdout_of(for_model: &str) -> String {
    let body = for_model.split_once('\n').map_or("", |(_, b)| b);
    let body = body.split("[stderr]").next().unwrap_or_default();
    body.lines()
        .filter(|l| !l.starts_with("[sandbox]"))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn everyday_commands_run_unasked_and_show_the_host() {
    if landlock_abi("everyday_commands_run_unasked_and_show_the_host").is_none() {
        return;
    }
    assert!(
        TABLE.len() >= 60,
        "the table holds {} commands",
        TABLE.len()
    );
    let fx = Fixture::new(SandboxMode::Auto, Vec::new());
    project(&fx.root);
    let mut sleeper = std::process::Command::new("sleep")
        .arg("41.5")
        .spawn()
        .unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let pid = sleeper.id().to_string();
    let port = listener.local_addr().unwrap().port().to_string();
    let (mut unasked, mut proven) = (0, 0);
    let mut failures = Vec::new();
    for (command, expect) in TABLE {
        let args = json!({ "command": command });
        let judged = fx
            .registry
            .judge("shell_exec", &args, Mode::Default)
            .unwrap();
        let Some(approved) = judged.allowed() else {
            failures.push(format!("{command}: asks ({:?})", judged.decision));
            continue;
        };
        unasked += 1;
        if judged.clearance == Some(Clearance::Policy) {
            proven += 1;
        }
        let out = fx
            .registry
            .run_approved(
                "shell_exec",
                &args,
                &approved,
                &CancelToken::new(),
                RunTag::new(),
                ProgressSink::default(),
            )
            .unwrap();
        let got = stdout_of(&out.for_model);
        match expect {
            Same => {
                let want = outside(&fx.root, command);
                if got != want {
                    failures.push(format!(
                        "{command}: differs\n--- outside koi\n{want}--- in the sandbox\n{}",
                        out.for_model
                    ));
                }
            }
            Shows(text) => {
                let text = text.replace("{pid}", &pid).replace("{port}", &port);
                if !got.contains(&text) {
                    failures.push(format!("{command}: no {text:?} in\n{}", out.for_model));
                }
            }
        }
    }
    sleeper.kill().unwrap();
    sleeper.wait().unwrap();
    drop(listener);
    println!(
        "everyday read-only commands: {unasked} of {} run without asking ({proven} proven, {} contained)",
        TABLE.len(),
        unasked - proven
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
