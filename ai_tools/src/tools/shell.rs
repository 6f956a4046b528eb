//! `shell_exec` (foreground, with timeout) and the background trio
//! `shell_bg` / `shell_poll` / `shell_kill`.

use std::time::Duration;

use serde::Deserialize;
use serde_json::json;

use crate::effect::Effect;
use crate::error::ToolError;
use crate::output::{head_tail, ToolOutput};
use crate::plural::counted;
use crate::process::{run_foreground, Ended};
use crate::sandbox;
use crate::tool::{parse_args, Tool, ToolContext, HEADER_ALLOWANCE};
use crate::tools::fs_common::resolve;
use crate::workspace::Workspace;

/// Default foreground timeout: long enough for a test suite, short enough
/// that a hung command does not stall the conversation.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// Longest timeout the model may ask for; longer jobs belong in `shell_bg`.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(600);

/// Characters of command output shown to the model (stdout and stderr
/// together); the full output goes to the session log.
pub const MAX_SHELL_CHARS: usize = 16_000;

/// Longest `shell_poll` wait, so a poll never blocks the turn for long.
pub const MAX_POLL_WAIT: Duration = Duration::from_secs(30);

/// Runs a command and waits for it.
pub struct ShellExec;
/// Starts a command in the background.
pub struct ShellBg;
/// Reads a background command's new output and status.
pub struct ShellPoll;
/// Stops a background command.
pub struct ShellKill;

#[derive(Deserialize)]
struct ExecArgs {
    command: String,
    #[serde(default)]
    cwd: Option<String>,
    #[serde(default)]
    timeout_secs: Option<f64>,
    #[serde(flatten)]
    escalate: Escalate,
}

#[derive(Deserialize)]
struct BgArgs {
    command: String,
    #[serde(default)]
    cwd: Option<String>,
    #[serde(flatten)]
    escalate: Escalate,
}

/// The model's request for write and network access, with its reason.
#[derive(Deserialize, Default)]
struct Escalate {
    #[serde(default)]
    escalate: bool,
    #[serde(default)]
    reason: Option<String>,
}

impl Escalate {
    /// The reason shown to the user, when access is asked for.
    fn reason(&self) -> Option<String> {
        self.escalate.then(|| {
            let reason = self.reason.as_deref().map(str::trim).unwrap_or_default();
            if reason.is_empty() {
                "no reason given".to_string()
            } else {
                crate::policy::unicode::visible(reason)
            }
        })
    }
}

/// The schema properties of [`Escalate`], shared by both shell tools.
fn escalate_schema() -> [(&'static str, serde_json::Value); 2] {
    [
        (
            "escalate",
            json!({"type": "boolean", "description": "Ask the user to run this with write access to the workspace and the network (only after the read-only sandbox refused what the command needs)"}),
        ),
        (
            "reason",
            json!({"type": "string", "description": "With escalate: why the command needs write or network access, in one sentence for the user"}),
        ),
    ]
}

/// The schema of a shell tool: `properties` plus the escalation ones.
fn shell_schema(mut properties: serde_json::Map<String, serde_json::Value>) -> serde_json::Value {
    for (name, schema) in escalate_schema() {
        properties.insert(name.to_string(), schema);
    }
    json!({
        "type": "object",
        "properties": properties,
        "required": ["command"]
    })
}

#[derive(Deserialize)]
struct PollArgs {
    id: u64,
    #[serde(default)]
    wait_secs: Option<f64>,
}

#[derive(Deserialize)]
struct KillArgs {
    id: u64,
}

fn cwd_of(ws: &Workspace, cwd: &Option<String>) -> std::path::PathBuf {
    match cwd {
        Some(c) if !c.is_empty() => resolve(ws, c),
        _ => ws.root().to_path_buf(),
    }
}

/// The directory a command runs in, which must exist.
fn run_dir(ws: &Workspace, cwd: &Option<String>) -> Result<std::path::PathBuf, ToolError> {
    let dir = cwd_of(ws, cwd);
    if !dir.is_dir() {
        return Err(ToolError::Path(format!(
            "{} is not a directory",
            dir.display()
        )));
    }
    Ok(dir)
}

/// The note for a run whose command or errors name a hidden path.
fn hidden_note(ctx: &ToolContext, command: &str, stderr: &str) -> Option<String> {
    let hidden = ctx.sandbox.hidden()?;
    sandbox::hidden::hidden_note(
        &hidden,
        &format!("{command}\n{stderr}"),
        dirs::home_dir().as_deref(),
    )
}

fn first_line(s: &str) -> String {
    let line = s.lines().next().unwrap_or("");
    let short: String = line.chars().take(60).collect();
    if short.len() < s.len() {
        format!("{short}…")
    } else {
        short
    }
}

/// Split the budget between stdout and stderr: stderr is usually short
/// and says what went wrong, so it gets up to a third.
pub fn budget_streams(stdout: &str, stderr: &str, total: usize) -> (String, String) {
    let (out_len, err_len) = (stdout.chars().count(), stderr.chars().count());
    if out_len + err_len <= total {
        return (stdout.to_string(), stderr.to_string());
    }
    let err_budget = err_len.min(total / 3);
    let out_budget = total - err_budget;
    (head_tail(stdout, out_budget), head_tail(stderr, err_budget))
}

/// Appends the sandbox's note, on its own line, to each text.
fn add_note(note: Option<&str>, texts: [&mut String; 2]) {
    let Some(note) = note else { return };
    for s in texts {
        if !s.is_empty() && !s.ends_with('\n') {
            s.push('\n');
        }
        s.push_str(note);
        s.push('\n');
    }
}

fn describe_end(ended: Ended, timeout: Duration) -> String {
    match ended {
        Ended::Exited(code) => format!("exit code: {code}"),
        Ended::Signal(sig) => format!("killed by signal {sig}"),
        Ended::TimedOut => format!(
            "timed out after {} s; the whole process group was killed (use shell_bg for long-running commands)",
            timeout.as_secs_f64()
        ),
    }
}

impl Tool for ShellExec {
    fn output_budget(&self) -> usize {
        MAX_SHELL_CHARS + HEADER_ALLOWANCE
    }

    fn name(&self) -> &'static str {
        "shell_exec"
    }

    fn description(&self) -> &'static str {
        "Run a shell command (bash -c) in the workspace and wait for it. stdin is closed; secrets are \
         removed from the environment; default timeout 60 s (max 600), after which the whole process \
         group is killed. Output shows the exit code, stdout and stderr (long output keeps the head and \
         tail). Commands run without approval inside a read-only sandbox: no writes outside $TMPDIR, no \
         network, credentials read as empty. When a command must write files or use the network, set \
         escalate: true with a reason; the user is asked, and an approved command may write in the \
         workspace and connect."
    }

    fn input_schema(&self) -> serde_json::Value {
        let mut p = serde_json::Map::new();
        p.insert("command".into(), json!({"type": "string"}));
        p.insert(
            "cwd".into(),
            json!({"type": "string", "description": "Directory to run in, relative to the workspace root"}),
        );
        p.insert(
            "timeout_secs".into(),
            json!({"type": "number", "minimum": 1, "maximum": 600}),
        );
        shell_schema(p)
    }

    fn escalation(&self, args: &serde_json::Value) -> Option<String> {
        parse_args::<ExecArgs>(self.name(), args)
            .ok()?
            .escalate
            .reason()
    }

    fn offered_read_only(&self) -> bool {
        // Only the calls the policy proves read-only run for such an agent.
        true
    }

    fn effect(&self, args: &serde_json::Value, ws: &Workspace) -> Result<Effect, ToolError> {
        let a: ExecArgs = parse_args(self.name(), args)?;
        Ok(Effect::Shell {
            command: a.command,
            cwd: cwd_of(ws, &a.cwd),
        })
    }

    fn run(&self, args: &serde_json::Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let a: ExecArgs = parse_args(self.name(), args)?;
        let cwd = run_dir(&ctx.workspace, &a.cwd)?;
        let timeout = a
            .timeout_secs
            .filter(|t| t.is_finite() && *t > 0.0)
            .map_or(DEFAULT_TIMEOUT, |t| {
                Duration::from_secs_f64(t.min(MAX_TIMEOUT.as_secs_f64()))
            });
        let r = run_foreground(&ctx.shell_job(&a.command, &cwd), timeout, &ctx.cancel)?;
        let status = describe_end(r.ended, timeout);
        let (out, err) = budget_streams(&r.stdout, &r.stderr, MAX_SHELL_CHARS);
        let mut for_model = format!("{status} ({:.1} s)\n", r.elapsed.as_secs_f64());
        let mut full = for_model.clone();
        if !r.stdout.is_empty() {
            for_model.push_str(&out);
            full.push_str(&r.stdout);
        }
        if !r.stderr.is_empty() {
            let sep = |s: &str| {
                if s.is_empty() || s.ends_with('\n') {
                    ""
                } else {
                    "\n"
                }
            };
            for_model.push_str(&format!("{}[stderr]\n{err}", sep(&for_model)));
            full.push_str(&format!("{}[stderr]\n{}", sep(&full), r.stderr));
        }
        add_note(
            sandbox::refusal_note(ctx.sandbox.level(), &r.stderr),
            [&mut for_model, &mut full],
        );
        add_note(
            hidden_note(ctx, &a.command, &r.stderr).as_deref(),
            [&mut for_model, &mut full],
        );
        let lines = r.stdout.lines().count() + r.stderr.lines().count();
        let short_status = match r.ended {
            Ended::Exited(c) => format!("exit {c}"),
            Ended::Signal(s) => format!("signal {s}"),
            Ended::TimedOut => "timed out".into(),
        };
        Ok(ToolOutput {
            for_model,
            full,
            preview: format!(
                "$ {} → {short_status}, {}",
                first_line(&a.command),
                counted(lines, "line", "lines")
            ),
            diff: None,
        })
    }
}

impl Tool for ShellBg {
    fn name(&self) -> &'static str {
        "shell_bg"
    }

    fn description(&self) -> &'static str {
        "Start a long-running command (a server, a watcher, a long build) in the background; returns \
         an id for shell_poll and shell_kill. Background commands die when the session ends."
    }

    fn input_schema(&self) -> serde_json::Value {
        let mut p = serde_json::Map::new();
        p.insert("command".into(), json!({"type": "string"}));
        p.insert("cwd".into(), json!({"type": "string"}));
        shell_schema(p)
    }

    fn escalation(&self, args: &serde_json::Value) -> Option<String> {
        parse_args::<BgArgs>(self.name(), args)
            .ok()?
            .escalate
            .reason()
    }

    fn effect(&self, args: &serde_json::Value, ws: &Workspace) -> Result<Effect, ToolError> {
        let a: BgArgs = parse_args(self.name(), args)?;
        Ok(Effect::Shell {
            command: a.command,
            cwd: cwd_of(ws, &a.cwd),
        })
    }

    fn run(&self, args: &serde_json::Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let a: BgArgs = parse_args(self.name(), args)?;
        let cwd = run_dir(&ctx.workspace, &a.cwd)?;
        let id = ctx.background.start(&ctx.shell_job(&a.command, &cwd))?;
        Ok(ToolOutput::same(
            format!("started background process {id}: {}\nUse shell_poll with id {id} to read its output.", a.command),
            format!("bg {id}: {}", first_line(&a.command)),
        ))
    }
}

impl Tool for ShellPoll {
    fn output_budget(&self) -> usize {
        MAX_SHELL_CHARS + HEADER_ALLOWANCE
    }

    fn name(&self) -> &'static str {
        "shell_poll"
    }

    fn description(&self) -> &'static str {
        "Read new output from a background command and whether it is still running; optionally wait \
         up to `wait_secs` (max 30) for it to finish."
    }

    fn input_schema(&self) -> serde_json::Value {
        json!({
            "type": "object",
            "properties": {"id": {"type": "integer"}, "wait_secs": {"type": "number", "minimum": 0, "maximum": 30}},
            "required": ["id"]
        })
    }

    fn effect(&self, args: &serde_json::Value, _ws: &Workspace) -> Result<Effect, ToolError> {
        let _: PollArgs = parse_args(self.name(), args)?;
        Ok(Effect::OwnProcess)
    }

    fn run(&self, args: &serde_json::Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let a: PollArgs = parse_args(self.name(), args)?;
        let wait = a
            .wait_secs
            .filter(|w| w.is_finite() && *w > 0.0)
            .map_or(Duration::ZERO, |w| {
                Duration::from_secs_f64(w.min(MAX_POLL_WAIT.as_secs_f64()))
            });
        let p = ctx
            .background
            .poll(a.id, wait, &ctx.cancel, &ctx.secret_env_vars)?;
        let status = match p.exit {
            None => "still running".to_string(),
            Some(e) => describe_end(e, Duration::ZERO),
        };
        let mut text = format!("background process {} ({}): {status}\n", a.id, p.command);
        if p.missed > 0 {
            text.push_str(&format!(
                "[{} bytes of older output were not kept]\n",
                p.missed
            ));
        }
        let mut full = format!("{text}{}", p.output);
        text.push_str(&head_tail(&p.output, MAX_SHELL_CHARS));
        add_note(
            sandbox::refusal_note(p.level, &p.output),
            [&mut text, &mut full],
        );
        if p.level.is_some() {
            add_note(
                hidden_note(ctx, &p.command, &p.output).as_deref(),
                [&mut text, &mut full],
            );
        }
        Ok(ToolOutput {
            for_model: text,
            full,
            preview: format!(
                "poll {} → {status}, {} new lines",
                a.id,
                p.output.lines().count()
            ),
            diff: None,
        })
    }
}

impl Tool for ShellKill {
    fn name(&self) -> &'static str {
        "shell_kill"
    }

    fn description(&self) -> &'static str {
        "Stop a background command (its whole process group)."
    }

    fn input_schema(&self) -> serde_json::Value {
        json!({"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]})
    }

    fn effect(&self, args: &serde_json::Value, _ws: &Workspace) -> Result<Effect, ToolError> {
        let _: KillArgs = parse_args(self.name(), args)?;
        Ok(Effect::OwnProcess)
    }

    fn run(&self, args: &serde_json::Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let a: KillArgs = parse_args(self.name(), args)?;
        let command = ctx.background.kill(a.id)?;
        Ok(ToolOutput::same(
            format!("stopped background process {} ({command})", a.id),
            format!("kill {} → stopped", a.id),
        ))
    }
}
