//! The stdio transport: koi starts the server (through the one spawner,
//! so it dies with koi) with the environment `shell_exec` gets plus the
//! configured `env`, and speaks newline-delimited JSON-RPC on its pipes.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use ai_tools::spawn::{spawn, Confinement};
use parking_lot::Mutex;
use serde_json::Value;

use crate::error::McpError;
use crate::peer::{Outbound, Peer};

/// The largest single message read from a server: a 10 MB tool result
/// fits, a server streaming without newlines cannot exhaust memory.
pub const MAX_MESSAGE_BYTES: usize = 32 * 1024 * 1024;

/// How much of the server's stderr is kept for error messages.
const STDERR_TAIL: usize = 2048;

/// How long a server gets to exit after its stdin closes before it is
/// killed (the spec's "close stdin, wait, then kill").
const EXIT_GRACE: Duration = Duration::from_millis(500);

/// What is needed to start one stdio server.
pub(crate) struct Launch<'a> {
    pub command: &'a str,
    pub args: &'a [String],
    pub env: &'a BTreeMap<String, String>,
    pub cwd: Option<&'a Path>,
    pub workspace: &'a Path,
    pub secret_env_vars: &'a [String],
}

struct Pipe {
    stdin: Mutex<Option<ChildStdin>>,
    child: Arc<Mutex<Child>>,
}

impl Outbound for Pipe {
    fn send(&self, message: &Value) -> Result<(), McpError> {
        let mut line =
            serde_json::to_vec(message).map_err(|e| McpError::Protocol(e.to_string()))?;
        line.push(b'\n');
        let mut stdin = self.stdin.lock();
        let Some(w) = stdin.as_mut() else {
            return Err(McpError::Gone("its stdin is closed".into()));
        };
        w.write_all(&line)
            .and_then(|()| w.flush())
            .map_err(|e| McpError::Gone(format!("writing to it failed: {e}")))
    }

    fn close(&self) {
        // Closing stdin asks the server to exit; a server that does not is
        // killed after the grace period, on a thread so no caller waits.
        self.stdin.lock().take();
        let child = Arc::clone(&self.child);
        let _ = std::thread::Builder::new()
            .name("koi-mcp-reap".into())
            .spawn(move || {
                std::thread::sleep(EXIT_GRACE);
                let mut c = child.lock();
                if matches!(c.try_wait(), Ok(None)) {
                    let _ = c.kill();
                }
                let _ = c.wait();
            });
    }
}

/// Starts the server and its reader threads; messages go to `peer`.
pub(crate) fn connect(launch: &Launch<'_>, peer: &Arc<Peer>) -> Result<(), McpError> {
    let mut cmd = Command::new(launch.command);
    cmd.args(launch.args)
        .env_clear()
        .envs(ai_tools::secrets::scrubbed_env(
            launch.secret_env_vars,
            launch.workspace,
        ))
        .envs(launch.env)
        .current_dir(
            launch
                .cwd
                .map(Path::to_path_buf)
                .unwrap_or_else(|| PathBuf::from(launch.workspace)),
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = spawn(cmd, Confinement::none())
        .map_err(|e| McpError::Start(format!("{}: {e}", launch.command)))?;
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(McpError::Start("the pipes were not created".into()));
    };
    let child = Arc::new(Mutex::new(child));
    let tail = Arc::new(Mutex::new(String::new()));
    {
        let tail = Arc::clone(&tail);
        std::thread::Builder::new()
            .name("koi-mcp-stderr".into())
            .spawn(move || keep_tail(stderr, &tail))
            .map_err(|e| McpError::Start(e.to_string()))?;
    }
    let pipe = Arc::new(Pipe {
        stdin: Mutex::new(Some(stdin)),
        child: Arc::clone(&child),
    });
    peer.attach(pipe);
    let reader_peer = Arc::clone(peer);
    std::thread::Builder::new()
        .name("koi-mcp-stdout".into())
        .spawn(move || {
            let why = read_messages(stdout, &reader_peer);
            let status = reap(&child);
            let stderr = tail.lock().trim().to_string();
            let mut msg = why;
            if !status.is_empty() {
                msg.push_str(&format!(" ({status})"));
            }
            if !stderr.is_empty() {
                msg.push_str(&format!("; its stderr ended with: {stderr}"));
            }
            reader_peer.close(msg);
        })
        .map_err(|e| McpError::Start(e.to_string()))?;
    Ok(())
}

/// Reads lines until the pipe ends; returns why it ended. A line that is
/// not JSON is skipped (a server that logs to stdout breaks the spec, but
/// its answers still count); a line over the cap ends the connection.
fn read_messages(stdout: impl Read, peer: &Peer) -> String {
    let mut reader = BufReader::with_capacity(64 * 1024, stdout);
    let mut line = Vec::new();
    let mut garbage = 0usize;
    loop {
        line.clear();
        let mut limited = (&mut reader).take(MAX_MESSAGE_BYTES as u64 + 1);
        match limited.read_until(b'\n', &mut line) {
            Ok(0) => return exit_note("its output ended", garbage),
            Ok(_) if line.len() > MAX_MESSAGE_BYTES => {
                return format!("it sent a message over {} MiB", MAX_MESSAGE_BYTES >> 20)
            }
            Ok(_) => {}
            Err(e) => return exit_note(&format!("reading its output failed: {e}"), garbage),
        }
        let text = line.trim_ascii();
        if text.is_empty() {
            continue;
        }
        match serde_json::from_slice::<Value>(text) {
            Ok(v @ (Value::Object(_) | Value::Array(_))) => peer.receive(v),
            _ => garbage += 1,
        }
    }
}

/// The exit status of a server whose output ended: it gets the grace
/// period to exit, then it is killed. The lock is held only briefly, so a
/// concurrent close can still kill it.
fn reap(child: &Mutex<Child>) -> String {
    let deadline = std::time::Instant::now() + EXIT_GRACE;
    loop {
        if let Ok(Some(status)) = child.lock().try_wait() {
            return status.to_string();
        }
        if std::time::Instant::now() >= deadline {
            let mut c = child.lock();
            let _ = c.kill();
            return c.wait().map(|s| s.to_string()).unwrap_or_default();
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn exit_note(why: &str, garbage: usize) -> String {
    if garbage == 0 {
        why.to_string()
    } else {
        format!("{why}; it wrote {garbage} lines to stdout that were not JSON-RPC")
    }
}

fn keep_tail(mut stderr: impl Read, tail: &Mutex<String>) {
    let mut buf = [0u8; 4096];
    while let Ok(n) = stderr.read(&mut buf) {
        if n == 0 {
            break;
        }
        let mut t = tail.lock();
        t.push_str(&String::from_utf8_lossy(&buf[..n]));
        if t.len() > STDERR_TAIL {
            let mut cut = t.len() - STDERR_TAIL;
            while !t.is_char_boundary(cut) {
                cut += 1;
            }
            t.drain(..cut);
        }
    }
}
