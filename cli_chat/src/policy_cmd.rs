//! `k policy check`: what the approval policy decides for a command or a
//! tool call, and why, without running anything.

use ai_tools::{Decision, Mode, Registry, RegistryConfig, SandboxConfig, Workspace};
use anyhow::{bail, Context, Result};
use serde::Serialize;

use crate::json_events::tagged_line;

/// What is being judged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subject {
    /// A shell command line (as `shell_exec` would run it).
    Command(String),
    /// A tool call.
    Tool {
        /// Tool name.
        name: String,
        /// Its arguments.
        args: serde_json::Value,
    },
}

impl Subject {
    /// From `--tool NAME --args JSON` or the words after `--`.
    pub fn from_args(tool: Option<&str>, args: Option<&str>, words: &[String]) -> Result<Subject> {
        if let Some(name) = tool {
            let text = args.unwrap_or("{}");
            let args = serde_json::from_str(text)
                .with_context(|| format!("--args is not valid JSON: {text}"))?;
            return Ok(Subject::Tool {
                name: name.to_string(),
                args,
            });
        }
        match words {
            [] => bail!("nothing to check: give a command after `--`, or --tool NAME --args JSON"),
            [one] => Ok(Subject::Command(one.clone())),
            many => Ok(Subject::Command(
                many.iter()
                    .map(|w| shell_quote(w))
                    .collect::<Vec<_>>()
                    .join(" "),
            )),
        }
    }
}

/// Quotes a word for a POSIX shell unless it needs none.
pub fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

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
    /// For a shell command that would run (allowed, or once approved):
    /// the sandbox it runs under (`read-only`, `workspace-write`,
    /// `none (unavailable: …)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<String>,
}

/// Judges `subject` in `mode` with the current directory as workspace.
pub fn judge(subject: &Subject, mode: Mode, registry: &Registry) -> Verdict {
    let (name, args) = match subject {
        Subject::Command(cmd) => ("shell_exec", serde_json::json!({ "command": cmd })),
        Subject::Tool { name, args } => (name.as_str(), args.clone()),
    };
    let d = registry.decide(name, &args, mode);
    let sandbox = match d {
        Decision::Deny { .. } => None,
        _ => registry.sandbox_for(name, &args).map(|s| s.to_string()),
    };
    let (summary, reason) = match &d {
        Decision::Allow => (None, "allowed in this mode".to_string()),
        Decision::Ask { summary, detail } => (Some(summary.clone()), detail.clone()),
        Decision::Deny { reason } => (None, reason.clone()),
    };
    Verdict {
        mode: mode.to_string(),
        decision: d.label().to_string(),
        summary,
        reason,
        sandbox,
    }
}

/// The registry `decide` needs, rooted at the current directory, with
/// the configured sandbox, and the file `--config` named protected as the
/// chat would protect it.
pub fn registry_here(
    sandbox: SandboxConfig,
    config_file: Option<&std::path::Path>,
) -> Result<Registry> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let ws = Workspace::new(&cwd)
        .with_context(|| format!("cannot use {} as the workspace", cwd.display()))?
        .with_protected(config_file.map(std::path::Path::to_path_buf));
    let mut config = RegistryConfig::new(ws);
    config.sandbox = sandbox;
    Ok(Registry::standard(config))
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

    /// One JSON line.
    pub fn to_json(&self) -> String {
        tagged_line("policy", "verdict", self)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn words_are_quoted_back() {
        assert_eq!(shell_quote("ls"), "ls");
        assert_eq!(shell_quote("sh -c id"), "'sh -c id'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
        let s = Subject::from_args(
            None,
            None,
            &["git".into(), "-c".into(), "core.pager=sh -c id".into()],
        )
        .unwrap();
        assert_eq!(s, Subject::Command("git -c 'core.pager=sh -c id'".into()));
        assert!(Subject::from_args(Some("fs_read"), Some("{"), &[]).is_err());
        assert!(Subject::from_args(None, None, &[]).is_err());
    }
}
