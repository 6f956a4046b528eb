//! Which environment variables are secrets, the scrubbed environment every
//! subprocess gets, and redaction of secret values from output.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use crate::workspace::canonicalize_lenient;

/// Is this environment variable name a secret? Matches koi's own keys,
/// common provider keys and anything that looks like a key, token,
/// password or secret, plus the configured names in `extra`.
pub fn is_secret_var(name: &str, extra: &[String]) -> bool {
    if extra.iter().any(|e| e.eq_ignore_ascii_case(name)) {
        return true;
    }
    let upper = name.to_ascii_uppercase();
    SECRET_MARKERS.iter().any(|m| upper.contains(m))
}

/// Substrings that mark a variable as secret. Broad on purpose: a missing
/// `FOO_TOKEN` in a build is an inconvenience, a leaked one is not.
/// `AUTH` also covers `SSH_AUTH_SOCK` (access to the user's SSH agent).
const SECRET_MARKERS: &[&str] = &[
    "KOI_",
    "API_KEY",
    "APIKEY",
    "_KEY",
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "CREDENTIAL",
    "AUTH",
    "COOKIE",
    "PRIVATE",
    "AWS_",
    "GITHUB_PAT",
];

/// Secret values shorter than this are not redacted from output: a value
/// like `1` or `yes` would mangle everything.
pub const MIN_REDACT_LEN: usize = 8;

/// The environment a subprocess gets: this process's environment minus
/// every secret variable and every variable that would change what a
/// command means (exported bash functions, startup files), with `PATH`
/// cleaned of entries the assistant could plant programs in (relative ones
/// and ones inside the workspace), plus settings that keep tools
/// non-interactive.
pub fn scrubbed_env(extra: &[String], workspace: &Path) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = std::env::vars_os()
        .filter(|(k, _)| !is_secret_var(&k.to_string_lossy(), extra))
        .filter(|(k, _)| !changes_meaning(&k.to_string_lossy()))
        .filter(|(k, _)| !NON_INTERACTIVE.iter().any(|(n, _)| k == n))
        .map(|(k, v)| {
            if k == "PATH" {
                let v = clean_path(&v, workspace);
                (k, v)
            } else {
                (k, v)
            }
        })
        .collect();
    for (k, v) in NON_INTERACTIVE {
        env.push((OsString::from(k), OsString::from(v)));
    }
    env
}

/// Variables that make `ls` mean something else: exported bash functions
/// and files bash or sh source before running the command.
fn changes_meaning(name: &str) -> bool {
    name.starts_with("BASH_FUNC_")
        || matches!(
            name,
            "BASH_ENV"
                | "ENV"
                | "SHELLOPTS"
                | "BASHOPTS"
                | "CDPATH"
                | "GLOBIGNORE"
                | "GIT_CONFIG_COUNT"
                | "GIT_EXTERNAL_DIFF"
                | "GIT_SSH_COMMAND"
                | "LD_PRELOAD"
                | "LD_LIBRARY_PATH"
        )
}

/// `PATH` without empty, relative or in-workspace entries, so a file the
/// assistant wrote can never stand in for a program the policy trusts.
pub fn clean_path(path: &OsStr, workspace: &Path) -> OsString {
    let kept: Vec<PathBuf> = std::env::split_paths(path)
        .filter(|p| p.is_absolute())
        .filter(|p| !canonicalize_lenient(p).starts_with(workspace))
        .collect();
    std::env::join_paths(kept).unwrap_or_else(|_| OsString::from("/usr/local/bin:/usr/bin:/bin"))
}

/// Keep git and friends from opening pagers or editors and waiting for a
/// human who is not there.
const NON_INTERACTIVE: &[(&str, &str)] = &[
    ("PAGER", "cat"),
    ("GIT_PAGER", "cat"),
    ("GIT_TERMINAL_PROMPT", "0"),
    ("GIT_EDITOR", "true"),
    ("EDITOR", "true"),
    ("VISUAL", "true"),
    ("TERM", "dumb"),
    ("NO_COLOR", "1"),
    // A repository's fsmonitor hook would run a program on `git status`.
    ("GIT_CONFIG_COUNT", "1"),
    ("GIT_CONFIG_KEY_0", "core.fsmonitor"),
    ("GIT_CONFIG_VALUE_0", "false"),
];

/// Values of secret variables in this process's environment, for redaction.
pub fn secret_values(extra: &[String]) -> Vec<String> {
    let mut values: Vec<String> = std::env::vars_os()
        .filter(|(k, _)| is_secret_var(&k.to_string_lossy(), extra))
        .filter_map(|(_, v)| v.into_string().ok())
        .filter(|v| v.len() >= MIN_REDACT_LEN)
        .collect();
    // Longest first so a value containing another is replaced whole.
    values.sort_by_key(|v| std::cmp::Reverse(v.len()));
    values
}

/// Replace every secret value in `text` with `[redacted]`.
pub fn redact(text: &str, values: &[String]) -> String {
    let mut out = text.to_string();
    for v in values {
        if out.contains(v.as_str()) {
            out = out.replace(v.as_str(), "[redacted]");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_names() {
        for n in [
            "KOI_API_KEY",
            "OPENAI_API_KEY",
            "GITHUB_TOKEN",
            "DB_PASSWORD",
            "SSH_AUTH_SOCK",
            "aws_secret_access_key",
        ] {
            assert!(is_secret_var(n, &[]), "{n}");
        }
        for n in ["PATH", "HOME", "LANG", "CARGO_HOME", "KEYBOARD"] {
            assert!(!is_secret_var(n, &[]), "{n}");
        }
        assert!(is_secret_var("MY_LLM", &["my_llm".to_string()]));
    }

    #[test]
    fn path_is_cleaned() {
        let ws = std::env::temp_dir().join("koi-ws-test");
        let path = std::env::join_paths([
            PathBuf::from("/usr/bin"),
            PathBuf::from("."),
            PathBuf::from("bin"),
            ws.join("node_modules/.bin"),
            PathBuf::from("/bin"),
        ])
        .unwrap();
        let cleaned = clean_path(&path, &ws);
        assert_eq!(cleaned, OsString::from("/usr/bin:/bin"));
    }

    #[test]
    fn redacts() {
        let v = vec!["supersecretvalue".to_string()];
        assert_eq!(redact("x=supersecretvalue;", &v), "x=[redacted];");
    }
}
