//! Running a goal's check: the user's command, through the same spawn
//! path and sandbox as the shell tool, at workspace-write (the user named
//! it, as if approved), with the secrets scrubbed from its environment.

use std::time::Duration;

use ai_tools::process::{run_foreground, Ended};
use ai_tools::{CancelToken, Level, Registry, ToolError};

use super::CheckResult;

/// Longest a check may run: a full test suite of a large project, not a
/// hung server.
pub const CHECK_TIMEOUT: Duration = Duration::from_secs(15 * 60);

/// Bytes of the check's output kept for the model and the log: the end,
/// where test runners print failures and totals.
pub const CHECK_TAIL_BYTES: usize = 4 * 1024;

/// Runs `command` in the workspace root.
pub fn run_check(
    registry: &Registry,
    command: &str,
    cancel: &CancelToken,
) -> Result<CheckResult, ToolError> {
    let mut ctx = registry.context(cancel.clone());
    ctx.sandbox = ctx.sandbox.at(Level::WorkspaceWrite);
    let root = ctx.workspace.root().to_path_buf();
    let job = ctx.shell_job(command, &root);
    let run = run_foreground(&job, CHECK_TIMEOUT, cancel)?;
    let mut output = run.stdout;
    if !run.stderr.is_empty() {
        output.push_str(&run.stderr);
    }
    Ok(CheckResult {
        passed: run.ended == Ended::Exited(0),
        ended: match run.ended {
            Ended::Exited(code) => format!("exit code {code}"),
            Ended::Signal(sig) => format!("killed by signal {sig}"),
            Ended::TimedOut => format!("timed out after {} s", CHECK_TIMEOUT.as_secs()),
        },
        output_tail: tail(&output, CHECK_TAIL_BYTES),
    })
}

fn tail(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut start = text.len() - max;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    format!("[…]{}", &text[start..])
}

#[cfg(test)]
mod tests {
    #[test]
    fn tail_keeps_the_end_on_a_char_boundary() {
        assert_eq!(super::tail("abc", 10), "abc");
        let t = super::tail(&"é".repeat(100), 11);
        assert!(t.starts_with("[…]"));
        assert!(t.ends_with('é'));
    }
}
