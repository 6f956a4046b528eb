//! `k policy check`: what the approval policy decides for a command or a
//! tool call, and why, without running anything.

use ai_tools::{Mode, Registry};
use anyhow::{bail, Context, Result};

use koi_protocol::tagged_line;

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

pub use ai_tools::verdict::Verdict;

/// Judges `subject` in `mode` with the current directory as workspace: a
/// tool call by whichever tool the engine would run, its own (`explore`)
/// included.
pub fn judge(subject: &Subject, mode: Mode, registry: &Registry) -> Verdict {
    match subject {
        Subject::Command(cmd) => ai_tools::verdict::judge_command(registry, cmd, mode),
        Subject::Tool { name, args } => ai_chat_engine::verdict::judge(registry, name, args, mode),
    }
}

/// One JSON line.
pub fn to_json(verdict: &Verdict) -> String {
    tagged_line("policy", "verdict", verdict)
}

#[cfg(test)]
mod tests {
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
