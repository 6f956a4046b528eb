//! Running one `run_code` program: the file it runs from (the prelude
//! that defines `koi`, then the model's code as the body of an async
//! function), the confined process, and the loop that hands each of its
//! calls to the bridge and writes the answer back.
//!
//! The wire, one JSON object a line: the program writes
//! [`CALL_MARK`]`{"id":1,"tool":"fs_read","args":{…}}` on its stdout, and
//! reads `{"id":1,"text":"…","is_error":false}` on its stdin. Anything
//! else on stdout is the program's output.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel as unbounded, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::runtime::{Language, Runtime};
use crate::bridge::BridgeAnswer;
use crate::cancel::CANCEL_POLL;
use crate::error::ToolError;
use crate::run_tag::RUN_TAG_VAR;
use crate::sandbox;
use crate::secrets;
use crate::spawn;
use crate::tool::ToolContext;

/// What starts a call line on the program's stdout: two control
/// characters no program prints by accident.
pub const CALL_MARK: &str = "\u{1e}koi-call\u{1f}";

/// Characters of program output plus call results one run may consume:
/// room for a few hundred file reads, while a program that pulls in a
/// whole repository is stopped long before it fills memory.
pub const CODE_BUDGET: usize = 2_000_000;

/// The prelude, one line (so the model's line N is the file's line N+1).
const PRELUDE: &str = include_str!("prelude.js");

/// A call the program made.
#[derive(Debug, Deserialize)]
struct CallLine {
    id: u64,
    tool: String,
    #[serde(default)]
    args: serde_json::Value,
}

/// The answer written back.
#[derive(Debug, Serialize)]
struct AnswerLine<'a> {
    id: u64,
    text: &'a str,
    is_error: bool,
}

/// How a program ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// It exited with this code.
    Exited(i32),
    /// A signal killed it.
    Signal(i32),
    /// It ran past its time limit and was killed.
    TimedOut,
    /// Its output and its calls' results passed [`CODE_BUDGET`]; killed.
    BudgetSpent,
}

/// What a finished program leaves.
#[derive(Debug, Clone)]
pub struct Finished {
    /// How it ended.
    pub ended: Ended,
    /// Its output (stdout without the call lines).
    pub stdout: String,
    /// Its error output.
    pub stderr: String,
    /// Calls it made.
    pub calls: usize,
    /// Calls that were refused or failed.
    pub failed_calls: usize,
    /// Time it ran, the time its calls waited for an answer included.
    pub elapsed: Duration,
}

/// The program file: the prelude with the callable names, then `code`
/// wrapped as the body of an async function whose end (once its output is
/// flushed) exits the process.
pub fn source(names: &[String], code: &str) -> String {
    let names = serde_json::to_string(names).unwrap_or_else(|_| "[]".into());
    let mark = serde_json::to_string(CALL_MARK).unwrap_or_else(|_| "\"\"".into());
    let prelude = PRELUDE
        .replace("\"__KOI_MARK__\"", &mark)
        .replace("__KOI_NAMES__", &names)
        .lines()
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ");
    // Node queues writes to a pipe it cannot take at once: the exit waits
    // until both streams have flushed what the program printed.
    format!(
        "{prelude} (async () => {{\n{code}\n}})().then(() => 0, (e) => {{ \
         console.error(e && e.stack ? e.stack : String(e)); return 1; }}).then((code) => \
         process.stdout.write(\"\", () => process.stderr.write(\"\", () => process.exit(code))));\n"
    )
}

/// A directory of its own for the program file, removed on drop.
struct ProgramDir(PathBuf);

impl ProgramDir {
    fn create(tag: &str) -> std::io::Result<Self> {
        use std::os::unix::fs::DirBuilderExt;
        let path = std::env::temp_dir().join(format!("koi-code-{tag}"));
        std::fs::DirBuilder::new().mode(0o700).create(&path)?;
        Ok(ProgramDir(path))
    }
}

impl Drop for ProgramDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What the reader threads report.
enum Event {
    Call(CallLine),
    Output(usize),
}

/// Runs `code` with `runtime`, confined as `ctx.sandbox` says, until it
/// exits, `limit` passes (time spent waiting for a call's answer, such as
/// an approval, does not count), its budget is spent, or cancel.
pub fn run(
    runtime: &Runtime,
    language: Language,
    code: &str,
    limit: Duration,
    ctx: &ToolContext,
) -> Result<Finished, ToolError> {
    let started = Instant::now();
    let failed = |what: &str, e: &dyn std::fmt::Display| ToolError::Failed(format!("{what}: {e}"));
    let dir = ProgramDir::create(ctx.run_tag.value())
        .map_err(|e| failed("could not make the program's directory", &e))?;
    let file = dir.0.join(format!("program.{}", language.extension()));
    std::fs::write(&file, source(&ctx.bridge.names(), code))
        .map_err(|e| failed("could not write the program", &e))?;
    let workspace = ctx.workspace.root();
    let prepared = sandbox::prepare(&ctx.sandbox, workspace, &ctx.run_tag)
        .map_err(|e| failed("could not sandbox the program", &e))?;
    let mut cmd = command(runtime, &file, workspace, ctx);
    cmd.envs(prepared.env);
    let mut child = spawn::spawn(cmd, prepared.confinement)
        .map_err(|e| failed(&format!("could not start {}", runtime.name()), &e))?;
    let pgid = child.id();
    let outcome = serve(&mut child, limit, ctx);
    ctx.run_tag.kill(Some(pgid));
    let _ = child.wait();
    drop(prepared.run_dir);
    let mut finished = outcome?;
    let values = secrets::secret_values(&ctx.secret_env_vars);
    finished.stdout = secrets::redact(&finished.stdout, &values);
    finished.stderr = secrets::redact(&finished.stderr, &values);
    finished.elapsed = started.elapsed();
    Ok(finished)
}

fn command(runtime: &Runtime, file: &Path, workspace: &Path, ctx: &ToolContext) -> Command {
    let mut cmd = Command::new(&runtime.program);
    cmd.args(&runtime.args)
        .arg(file)
        .current_dir(workspace)
        .env_clear()
        .envs(secrets::scrubbed_env(&ctx.secret_env_vars, workspace))
        .env(RUN_TAG_VAR, ctx.run_tag.value())
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// Output kept from one stream, bounded by [`CODE_BUDGET`].
#[derive(Default)]
struct Kept {
    text: String,
    dropped: usize,
}

impl Kept {
    fn push(&mut self, s: &str) {
        if self.text.len() + s.len() <= CODE_BUDGET {
            self.text.push_str(s);
        } else {
            self.dropped += s.len();
        }
    }

    fn take(&self) -> String {
        if self.dropped == 0 {
            self.text.clone()
        } else {
            format!("{}\n[… {} bytes not kept …]", self.text, self.dropped)
        }
    }
}

/// Hands the program's calls to the bridge until it ends.
fn serve(child: &mut Child, limit: Duration, ctx: &ToolContext) -> Result<Finished, ToolError> {
    let (events_tx, events) = unbounded::<Event>();
    let stdout = Arc::new(Mutex::new(Kept::default()));
    let stderr = Arc::new(Mutex::new(Kept::default()));
    let mut readers = Vec::new();
    if let Some(out) = child.stdout.take() {
        let kept = Arc::clone(&stdout);
        readers.push(std::thread::spawn(move || {
            read_stdout(out, &kept, &events_tx)
        }));
    }
    if let Some(err) = child.stderr.take() {
        let kept = Arc::clone(&stderr);
        readers.push(std::thread::spawn(move || read_plain(err, &kept)));
    }
    let answers = child.stdin.take().map(start_writer);
    let mut deadline = Instant::now() + limit;
    let mut spent = 0usize;
    let mut calls = 0usize;
    let mut failed_calls = 0usize;
    let ended = loop {
        match events.recv_timeout(CANCEL_POLL) {
            Ok(Event::Output(n)) => spent += n,
            Ok(Event::Call(call)) => {
                calls += 1;
                let asked = Instant::now();
                let answer = if spent > CODE_BUDGET {
                    BridgeAnswer::refused(
                        "error: the program's output budget is spent; nothing was run.",
                    )
                } else {
                    ctx.bridge.call(&call.tool, call.args)
                };
                // Waiting for an answer (an approval) is not the program's time.
                deadline += asked.elapsed();
                spent += answer.text.len();
                failed_calls += usize::from(answer.is_error);
                if let Some(tx) = &answers {
                    let line = AnswerLine {
                        id: call.id,
                        text: &answer.text,
                        is_error: answer.is_error,
                    };
                    if let Ok(json) = serde_json::to_string(&line) {
                        let _ = tx.send(json);
                    }
                }
            }
            Err(RecvTimeoutError::Timeout) => {
                if let Some(ended) = exited(child)? {
                    drain_after_exit(&events, &mut spent);
                    break ended;
                }
            }
            // Both readers are done: the program closed its output.
            Err(RecvTimeoutError::Disconnected) => {
                if let Some(ended) = exited(child)? {
                    break ended;
                }
                std::thread::sleep(CANCEL_POLL);
            }
        }
        if spent > CODE_BUDGET {
            break Ended::BudgetSpent;
        }
        if ctx.cancel.is_cancelled() {
            return Err(ToolError::Cancelled);
        }
        if Instant::now() >= deadline {
            break Ended::TimedOut;
        }
    };
    drop(answers);
    // The readers end when the group is killed (the caller does that);
    // they are not waited for here.
    drop(readers);
    let take = |k: &Arc<Mutex<Kept>>| k.lock().map(|k| k.take()).unwrap_or_default();
    Ok(Finished {
        ended,
        stdout: take(&stdout),
        stderr: take(&stderr),
        calls,
        failed_calls,
        elapsed: Duration::ZERO,
    })
}

/// After the program exited, waits a moment for its last output to be read.
fn drain_after_exit(events: &Receiver<Event>, spent: &mut usize) {
    let deadline = Instant::now() + crate::process::PIPE_DRAIN_GRACE;
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match events.recv_timeout(left) {
            Ok(Event::Output(n)) => *spent += n,
            // A call made as it exited: nobody waits for its answer.
            Ok(Event::Call(_)) => {}
            Err(_) => return,
        }
    }
}

fn exited(child: &mut Child) -> Result<Option<Ended>, ToolError> {
    use std::os::unix::process::ExitStatusExt;
    match child.try_wait() {
        Ok(Some(status)) => Ok(Some(match (status.code(), status.signal()) {
            (Some(code), _) => Ended::Exited(code),
            (None, Some(sig)) => Ended::Signal(sig),
            (None, None) => Ended::Exited(-1),
        })),
        Ok(None) => Ok(None),
        Err(e) => Err(ToolError::Failed(format!(
            "waiting for the program failed: {e}"
        ))),
    }
}

/// Writes answers on their own thread, so a program that stops reading
/// its stdin cannot block the loop that enforces its time limit.
fn start_writer(mut stdin: std::process::ChildStdin) -> Sender<String> {
    let (tx, rx) = unbounded::<String>();
    std::thread::spawn(move || {
        for line in rx {
            if stdin.write_all(line.as_bytes()).is_err()
                || stdin.write_all(b"\n").is_err()
                || stdin.flush().is_err()
            {
                return;
            }
        }
    });
    tx
}

/// Splits the program's stdout into its output and its calls.
fn read_stdout<R: Read>(src: R, kept: &Mutex<Kept>, events: &Sender<Event>) {
    let mut reader = BufReader::new(src);
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let text = String::from_utf8_lossy(&line);
        let (output, call) = match text.find(CALL_MARK) {
            Some(at) => {
                let call = serde_json::from_str::<CallLine>(text[at + CALL_MARK.len()..].trim());
                match call {
                    Ok(call) => (&text[..at], Some(call)),
                    Err(_) => (&text[..], None),
                }
            }
            None => (&text[..], None),
        };
        if !output.is_empty() {
            if let Ok(mut k) = kept.lock() {
                k.push(output);
            }
            let _ = events.send(Event::Output(output.len()));
        }
        if let Some(call) = call {
            if events.send(Event::Call(call)).is_err() {
                return;
            }
        }
    }
}

fn read_plain<R: Read>(mut src: R, kept: &Mutex<Kept>) {
    let mut buf = [0u8; 8192];
    loop {
        match src.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if let Ok(mut k) = kept.lock() {
                    k.push(&String::from_utf8_lossy(&buf[..n]));
                }
            }
        }
    }
}
