//! An isolated home for `k` (config, data, workspace in a tempdir) pointed
//! at a loopback fake provider, and ways to run the real binary in it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use koi_testkit::openai_chat::ChatStream;
use koi_testkit::tmux::Tmux;
use koi_testkit::{FakeProvider, Reply};

/// A dummy key: it must never appear in anything `k` prints or stores.
pub const SECRET: &str = "sk-koi-test-SECRET-7f3a9c";

/// The `k` binary under test.
pub const K: &str = env!("CARGO_BIN_EXE_k");

/// A tempdir holding HOME, XDG dirs and a workspace.
pub struct Home {
    pub dir: tempfile::TempDir,
}

impl Home {
    /// A home whose koi.toml points at `server` (or has no `[ai]` when None).
    pub fn new(server: Option<&FakeProvider>) -> Home {
        let dir = tempfile::tempdir().unwrap();
        let h = Home { dir };
        std::fs::create_dir_all(h.ws()).unwrap();
        std::fs::create_dir_all(h.config_dir()).unwrap();
        if let Some(s) = server {
            // The memory curator is off here: its request at exit is
            // memory.rs's subject, not every test's.
            h.write_config(&format!(
                "[ai]\nprovider = \"openai\"\nbase_url = \"{}\"\nmodel = \"fake-model\"\nmemory = false\n",
                s.base_url()
            ));
        }
        h
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// The workspace `k` runs in.
    pub fn ws(&self) -> PathBuf {
        self.root().join("ws")
    }

    pub fn config_dir(&self) -> PathBuf {
        self.root().join("config/koi")
    }

    pub fn sessions_dir(&self) -> PathBuf {
        self.root().join("data/koi/sessions")
    }

    pub fn write_config(&self, text: &str) {
        std::fs::write(self.config_dir().join("koi.toml"), text).unwrap();
    }

    /// The isolated environment (the rest of the parent's is dropped).
    pub fn env(&self) -> Vec<(String, String)> {
        let r = self.root().display().to_string();
        vec![
            ("HOME".into(), r.clone()),
            ("XDG_CONFIG_HOME".into(), format!("{r}/config")),
            ("XDG_DATA_HOME".into(), format!("{r}/data")),
            ("XDG_CACHE_HOME".into(), format!("{r}/cache")),
            ("KOI_API_KEY".into(), SECRET.into()),
            ("PATH".into(), std::env::var("PATH").unwrap_or_default()),
            ("NO_COLOR".into(), "1".into()),
            ("TERM".into(), "xterm-256color".into()),
        ]
    }

    /// A `k` command with piped stdio, no terminal anywhere.
    pub fn cmd(&self, args: &[&str]) -> Command {
        self.cmd_of(K, args)
    }

    /// [`Home::cmd`] for another build of `k` (benchmarks compare two).
    pub fn cmd_of(&self, k: &str, args: &[&str]) -> Command {
        let mut c = Command::new(k);
        c.args(args)
            .current_dir(self.ws())
            .env_clear()
            .envs(self.env())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c
    }

    /// `k policy check --all-modes --json` for `tool` called with `args`:
    /// one verdict line per mode (the run must succeed).
    pub fn policy_verdicts(&self, tool: &str, args: &str) -> Vec<serde_json::Value> {
        let run = self.run(
            &[
                "policy",
                "check",
                "--all-modes",
                "--json",
                "--tool",
                tool,
                "--args",
                args,
            ],
            None,
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.events()
    }

    /// Runs `k` with `stdin` piped in (empty: /dev/null) and checks that
    /// nothing it printed or stored holds the key.
    pub fn run(&self, args: &[&str], stdin: Option<&str>) -> Run {
        let mut c = self.cmd(args);
        c.stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        });
        let mut child = c.spawn().unwrap();
        if let Some(text) = stdin {
            let mut w = child.stdin.take().unwrap();
            w.write_all(text.as_bytes()).unwrap();
        }
        let out = wait_with_timeout(child, Duration::from_secs(60));
        let run = Run::from(out);
        run.assert_no_secret();
        self.assert_logs_have_no_secret();
        run
    }

    pub fn assert_logs_have_no_secret(&self) {
        let Ok(entries) = std::fs::read_dir(self.sessions_dir()) else {
            return;
        };
        for e in entries {
            let text = std::fs::read_to_string(e.unwrap().path()).unwrap_or_default();
            assert!(!text.contains(SECRET), "a session log holds the API key");
        }
    }

    /// Session log files (not their `.lock` sidecars), newest last by name.
    pub fn session_files(&self) -> Vec<PathBuf> {
        koi_testkit::session_logs::files(&self.sessions_dir())
    }
}

fn wait_with_timeout(child: std::process::Child, limit: Duration) -> Output {
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(limit) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            // The Child moved into the waiter thread: kill the stuck one by pid.
            let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
            panic!("k did not finish within {limit:?}");
        }
    }
}

/// What a run printed and how it ended.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(o: Output) -> Run {
        Run {
            code: o.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }
}

impl Run {
    pub fn assert_no_secret(&self) {
        assert!(!self.stdout.contains(SECRET), "stdout shows the key");
        assert!(!self.stderr.contains(SECRET), "stderr shows the key");
        assert!(
            !self.stderr.contains("panicked"),
            "k panicked:\n{}",
            self.stderr
        );
    }

    /// The `--json` lines, parsed.
    pub fn events(&self) -> Vec<serde_json::Value> {
        self.stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad line {l:?}: {e}")))
            .collect()
    }
}

/// `k` running on a pseudo-terminal (`koi_testkit::pty`), with the checks
/// every `k` run gets: no key on the terminal, no panic.
pub struct PtyRun(koi_testkit::pty::PtyRun);

impl PtyRun {
    /// Starts `k args` in `home`'s workspace on a fresh PTY (its
    /// controlling terminal), with `extra` environment.
    pub fn start(home: &Home, args: &[&str], extra: &[(&str, &str)]) -> PtyRun {
        let mut env = home.env();
        env.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        PtyRun(koi_testkit::pty::PtyRun::spawn(
            Path::new(K),
            args,
            &home.ws(),
            &env,
        ))
    }

    /// Waits for exit and returns the code.
    pub fn wait_exit(&mut self, limit: Duration) -> u32 {
        let code = self.0.wait_exit(limit);
        let out = self.text();
        assert!(!out.contains(SECRET), "the terminal shows the key");
        assert!(!out.contains("panicked"), "k panicked:\n{out}");
        code
    }
}

impl std::ops::Deref for PtyRun {
    type Target = koi_testkit::pty::PtyRun;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl std::ops::DerefMut for PtyRun {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

/// The text of the last message with `role` in an OpenAI chat request.
pub fn message_texts(req: &serde_json::Value, role: &str) -> Vec<String> {
    req["messages"]
        .as_array()
        .map(|ms| {
            ms.iter()
                .filter(|m| m["role"] == role)
                .map(|m| match &m["content"] {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// `k`'s REPL in tmux, in the home's workspace with its environment.
pub fn tmux_k(home: &Home) -> Tmux {
    tmux_cmd(home, K)
}

/// `command` (a shell command line) in tmux, in the home's workspace with
/// its environment.
pub fn tmux_cmd(home: &Home, command: &str) -> Tmux {
    Tmux::start(&home.ws(), &home.env(), command, 120, 40)
}

/// A turn that lists the workspace and asks to create `new.txt` (refused
/// without a terminal), then answers "Done looking.": one run shows every
/// kind of tool and approval event.
pub fn look_around_server() -> FakeProvider {
    FakeProvider::start([
        ChatStream::new()
            .reasoning("Look first.")
            .tool_call("call_1", "fs_list", r#"{"path":"."}"#)
            .tool_call(
                "call_2",
                "fs_write",
                r#"{"path":"new.txt","content":"x","expected_revision":"absent"}"#,
            )
            .tool_calls()
            .usage(50, 0, 5)
            .reply(),
        ChatStream::new()
            .text("Done looking.")
            .stop()
            .usage(80, 50, 4)
            .reply(),
    ])
}

/// A stream cut after its second event, mid-answer.
pub fn cut_stream() -> Reply {
    ChatStream::new()
        .text("partial answer that goes on")
        .reply()
        .cut_after(2)
}

/// How long a test waits on a koi session's screen.
const SESSION_WAIT: Duration = Duration::from_secs(60);

/// A real koi session (koi's `koi_terminal::Session`: a PTY, its reader thread,
/// the shell integration, the per-session token) running a plain bash in
/// the home's workspace, with `k` first on its PATH; returned at the
/// first prompt.
pub fn koi_session(home: &Home) -> koi_terminal::Session {
    // koi injects its integration as it does for users; the user's own
    // ~/.bashrc only sets a plain prompt.
    std::fs::write(home.root().join(".bashrc"), "PS1='$ '\n").unwrap();
    let k_dir = Path::new(K).parent().unwrap().display().to_string();
    let mut env = home.env();
    for (key, value) in env.iter_mut() {
        if key == "PATH" {
            *value = format!("{k_dir}:{value}");
        }
    }
    let options = koi_terminal::SessionOptions {
        shell: Some(vec!["bash".into()]),
        env,
        working_directory: Some(home.ws()),
        size: koi_terminal::GridSize::new(120, 40),
        overlay_token: Some(koi_terminal::overlay_token::new_token()),
        ..Default::default()
    };
    let s = koi_terminal::Session::spawn(options, || {}).unwrap();
    wait_until(&s, "prompt", |t| t.starts_with('$'));
    s
}

/// A koi session's screen as text.
pub fn screen(s: &koi_terminal::Session) -> String {
    koi_terminal::snapshot::Snapshot::capture(&*s.terminal().lock()).text()
}

/// Waits until the session's screen satisfies `f`; returns it.
pub fn wait_until(s: &koi_terminal::Session, what: &str, f: impl Fn(&str) -> bool) -> String {
    koi_testkit::poll::until(what, SESSION_WAIT, || {
        let text = screen(s);
        if f(&text) {
            Ok(text)
        } else {
            Err(format!("screen:\n{text}"))
        }
    })
}

/// A goal's turns: the model first claims there is nothing to do (the
/// check fails), then writes `done.txt` (the check passes) and says so.
pub fn goal_turns() -> Vec<Reply> {
    vec![
        ChatStream::new()
            .text("Nothing to do, surely.")
            .stop()
            .reply(),
        ChatStream::new()
            .tool_call(
                "c1",
                "fs_write",
                r#"{"path":"done.txt","content":"yes\n","expected_revision":"absent"}"#,
            )
            .tool_calls()
            .reply(),
        ChatStream::new().text("Wrote done.txt.").stop().reply(),
    ]
}
