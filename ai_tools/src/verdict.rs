//! What the approval policy would say about a tool call, and why, without
//! running anything: `k policy check` prints it, and koi shows it beside a
//! command suggested at the prompt. One function serves both, so the two
//! can never disagree.

use serde::Serialize;

use crate::{Clearance, Decision, Judged, Mode, Registry, Tool};

/// The shell tool a command line is judged as.
const SHELL_TOOL: &str = "shell_exec";

/// One verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verdict {
    /// The mode judged in.
    pub mode: String,
    /// `allow`, `ask` or `deny`.
    pub decision: String,
    /// For `ask`: the one line the user would be shown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// Why (empty for `allow` of a proven read-only call).
    pub reason: String,
    /// For `allow`: whether the proof abstained and the call runs only
    /// because the read-only sandbox contains it (a write or connection
    /// would be refused), not because it was proven read-only.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub contained: bool,
    /// For a shell command that would run (allowed, or once approved):
    /// the sandbox it runs under (`read-only`, `workspace-write`,
    /// `none (unavailable: …)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<String>,
}

/// Judges the call `name(args)` in `mode`.
pub fn judge(registry: &Registry, name: &str, args: &serde_json::Value, mode: Mode) -> Verdict {
    match registry.judge(name, args, mode) {
        Ok(judged) => {
            let sandbox = judged
                .allowed()
                .or_else(|| judged.approve())
                .and_then(|approved| registry.sandbox_at(&judged, approved.level()))
                .map(|s| s.to_string());
            verdict(&judged, sandbox, mode)
        }
        Err(e) => refused(e.to_string(), mode),
    }
}

/// Judges a call of a tool that is not the registry's (one the engine
/// owns, such as `explore`) in the registry's workspace. Such a tool
/// starts no process of its own, so no sandbox is named.
pub fn judge_tool(
    registry: &Registry,
    tool: &dyn Tool,
    args: &serde_json::Value,
    mode: Mode,
) -> Verdict {
    match registry.judge_for(tool, args, mode) {
        Ok(judged) => verdict(&judged, None, mode),
        Err(e) => refused(e.to_string(), mode),
    }
}

fn refused(reason: String, mode: Mode) -> Verdict {
    Verdict {
        mode: mode.to_string(),
        decision: "deny".to_string(),
        summary: None,
        reason,
        contained: false,
        sandbox: None,
    }
}

fn verdict(judged: &Judged, sandbox: Option<String>, mode: Mode) -> Verdict {
    let contained = judged.clearance == Some(Clearance::Contained);
    let (summary, reason) = match &judged.decision {
        Decision::Allow if contained => (
            None,
            "not proven read-only; runs contained in the read-only sandbox (a write or a \
             connection would be refused, and the assistant may ask for them)"
                .to_string(),
        ),
        Decision::Allow => (None, "allowed in this mode".to_string()),
        Decision::Ask { summary, detail } => (Some(summary.clone()), detail.clone()),
        Decision::Deny { reason } => (None, reason.clone()),
    };
    Verdict {
        mode: mode.to_string(),
        decision: judged.decision.label().to_string(),
        summary,
        reason,
        contained,
        sandbox,
    }
}

/// Judges a shell command line as `shell_exec` would run it.
pub fn judge_command(registry: &Registry, command: &str, mode: Mode) -> Verdict {
    judge(
        registry,
        SHELL_TOOL,
        &serde_json::json!({ "command": command }),
        mode,
    )
}

impl Verdict {
    /// `default: ask — why` plus the summary line.
    pub fn to_text(&self) -> String {
        let mut s = format!("{}: {}", self.mode, self.decision);
        if !self.reason.is_empty() {
            s.push_str(" — ");
            s.push_str(&self.reason);
        }
        s.push('\n');
        if let Some(sum) = &self.summary {
            s.push_str(&format!("  would ask: {sum}\n"));
        }
        if let Some(sandbox) = &self.sandbox {
            s.push_str(&format!("  sandbox: {sandbox}\n"));
        }
        s
    }

    /// One line for a status bar. In the default mode an allow is either
    /// proven read-only or contained, and says which; an ask gives the
    /// policy's own reason, which is not always a write.
    pub fn one_line(&self) -> String {
        let reason = self.reason.lines().next().unwrap_or_default();
        match self.decision.as_str() {
            "allow" if self.contained => {
                "not proven read-only (the assistant would run it in its read-only sandbox)"
                    .to_owned()
            }
            "allow" if self.mode == Mode::Default.as_str() => {
                "read-only (runs without asking)".to_owned()
            }
            "allow" => format!("runs without asking in {} mode", self.mode),
            "deny" => format!("refused: {reason}"),
            _ => format!("would ask: {reason}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{RegistryConfig, Workspace};

    use crate::sandbox::{Isolation, Support};

    fn registry(dir: &std::path::Path, support: Support) -> Registry {
        Registry::standard(RegistryConfig::new(Workspace::new(dir).unwrap()))
            .with_sandbox_support(support)
    }

    #[test]
    fn a_read_only_command_says_so_and_a_write_gives_the_policys_reason() {
        let dir = tempfile::tempdir().unwrap();
        // Where no sandbox exists, the proof alone decides.
        let registry = registry(dir.path(), Support::Unavailable("pinned".into()));
        let find = judge_command(&registry, "find . -size +100M -mtime -7", Mode::Default);
        assert_eq!(find.decision, "allow", "{find:?}");
        assert!(!find.contained);
        assert_eq!(find.one_line(), "read-only (runs without asking)");
        let touch = judge_command(&registry, "touch SENTINEL", Mode::Default);
        assert_eq!(touch.decision, "ask", "{touch:?}");
        assert!(touch.one_line().starts_with("would ask: "), "{touch:?}");
        assert!(touch.one_line().len() > "would ask: ".len());
    }

    #[test]
    fn a_contained_command_is_not_called_read_only() {
        let dir = tempfile::tempdir().unwrap();
        let registry = registry(
            dir.path(),
            Support::Available {
                landlock_abi: 7,
                isolation: Isolation::Namespaces,
            },
        );
        let touch = judge_command(&registry, "touch SENTINEL", Mode::Default);
        assert_eq!(touch.decision, "allow", "{touch:?}");
        assert!(touch.contained, "{touch:?}");
        assert_eq!(touch.sandbox.as_deref(), Some("read-only"));
        assert!(
            touch.one_line().starts_with("not proven read-only"),
            "{touch:?}"
        );
        let plan = judge_command(&registry, "touch SENTINEL", Mode::Plan);
        assert_eq!(plan.decision, "deny", "{plan:?}");
        let ls = judge_command(&registry, "ls", Mode::Default);
        assert!(!ls.contained && ls.decision == "allow", "{ls:?}");
    }
}
