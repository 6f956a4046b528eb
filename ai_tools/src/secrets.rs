//! Which environment variables are secrets, the scrubbed environment every
//! subprocess gets, and redaction of secret values from output.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use crate::workspace::canonicalize_lenient;

mod redact;

pub use redact::{Redactor, MIN_REDACT_LEN};

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

/// The environment a subprocess gets: this process's environment minus
/// every secret variable (by name, or by a value that looks like a
/// credential: `MYAPP_DB_URL=postgres://u:PW@host/db`) and every variable
/// that would change what a
/// command means (exported bash functions, startup files), with `PATH`
/// cleaned of entries the assistant could plant programs in (relative ones
/// and ones inside the workspace), plus settings that keep tools
/// non-interactive.
pub fn scrubbed_env(extra: &[String], workspace: &Path) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = std::env::vars_os()
        .filter(|(k, _)| !is_secret_var(&k.to_string_lossy(), extra))
        .filter(|(k, v)| !is_secret_value(k, v))
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
    // `git status` would otherwise write the refreshed index back, which
    // runs a repository's post-index-change hook.
    ("GIT_OPTIONAL_LOCKS", "0"),
];

/// Values of secret variables in this process's environment (secret by
/// name or by value), for redaction.
pub fn secret_values(extra: &[String]) -> Vec<String> {
    let mut values: Vec<String> = std::env::vars_os()
        .filter(|(k, v)| is_secret_var(&k.to_string_lossy(), extra) || is_secret_value(k, v))
        .filter_map(|(_, v)| v.into_string().ok())
        .filter(|v| v.len() >= MIN_REDACT_LEN)
        .collect();
    // Longest first so a value containing another is replaced whole.
    values.sort_by_key(|v| std::cmp::Reverse(v.len()));
    values
}

/// Replace every secret value in `text` with `[redacted]`, in any of the
/// spellings [`Redactor`] knows (reversed, base64, hex, URL-encoded); the
/// spellings of a set of values are built once and kept.
pub fn redact(text: &str, values: &[String]) -> String {
    redact::redact_cached(text, values)
}

/// Prefixes that providers and services put on their keys and tokens.
const KEY_PREFIXES: &[&str] = &[
    "sk-",
    "sk_live_",
    "sk_test_",
    "rk_live_",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "glpat-",
    "xoxb-",
    "xoxp-",
    "xoxa-",
    "xoxr-",
    "xoxs-",
    "xapp-",
    "AKIA",
    "ASIA",
    "AIza",
    "ya29.",
    "hf_",
    "npm_",
    "pypi-",
    "eyJ",
];

/// Characters a key-shaped word is made of besides its prefix.
fn is_key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+' | '/' | '=')
}

/// Characters after a known prefix before a word counts as a key: short
/// enough for every real key, long enough that `sk-learn` is not one.
const MIN_KEY_BODY: usize = 12;

/// Length from which an unprefixed word of mixed-case letters and digits
/// reads as a generated secret (a 40-character git hash is lower-case
/// hex and stays).
const MIN_GENERIC_KEY_LEN: usize = 24;

/// Whether one word (no spaces) looks like a key or token.
fn is_key_shaped(word: &str) -> bool {
    if !word.chars().all(is_key_char) {
        return false;
    }
    if KEY_PREFIXES
        .iter()
        .any(|p| word.starts_with(p) && word.len() >= p.len() + MIN_KEY_BODY)
    {
        return true;
    }
    word.len() >= MIN_GENERIC_KEY_LEN
        && !word.contains('/')
        && word.chars().any(|c| c.is_ascii_uppercase())
        && word.chars().any(|c| c.is_ascii_lowercase())
        && word.chars().any(|c| c.is_ascii_digit())
}

/// Variables whose values are structure, never credentials, kept whatever
/// they look like (a directory named like a key in `PATH` is still a
/// directory).
const STRUCTURAL_VARS: &[&str] = &[
    "PATH", "HOME", "PWD", "OLDPWD", "SHELL", "USER", "LOGNAME", "LANG", "LANGUAGE", "TERM",
    "TMPDIR", "MANPATH", "INFOPATH",
];

/// Whether an environment variable's value looks like a credential, whatever
/// its name: a URL with a password in it (`postgres://u:PW@host/db`), a
/// private key block, or a word shaped like a provider's key or token
/// (`sk-…`, `ghp_…`, `xoxb-…`, `AKIA…`, `AIza…`, `glpat-…`, a JWT).
pub fn is_secret_value(name: &OsStr, value: &OsStr) -> bool {
    let name = name.to_string_lossy();
    if STRUCTURAL_VARS.contains(&name.as_ref()) || name.starts_with("LC_") {
        return false;
    }
    let value = value.to_string_lossy();
    if value.len() < MIN_REDACT_LEN {
        return false;
    }
    (value.contains("-----BEGIN") && value.contains("PRIVATE KEY"))
        || has_url_password(&value)
        || contains_key_like(&value)
}

/// A URL whose userinfo holds a password (`scheme://user:secret@host`) or a
/// token as the user (`https://ghp_…@github.com`).
fn has_url_password(text: &str) -> bool {
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let scheme_ok = rest[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric());
        let after = &rest[at + 3..];
        let authority = after
            .split(|c: char| c == '/' || c == '?' || c == '#' || c.is_whitespace())
            .next()
            .unwrap_or("");
        if let Some((userinfo, _)) = authority.rsplit_once('@') {
            let password = userinfo.split_once(':').is_some_and(|(_, p)| !p.is_empty());
            if scheme_ok && (password || is_key_shaped(userinfo)) {
                return true;
            }
        }
        rest = after;
    }
    false
}

/// Words of `text` split at whitespace, quotes and the separators keys are
/// written after (`KEY=…`, `token: …`, `Bearer …`), with their byte ranges.
fn words(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let separator = |c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '"' | '\'' | '`' | ',' | ';' | ':' | '(' | ')' | '<' | '>' | '[' | ']' | '{' | '}'
            )
    };
    // Each piece is a subslice of `text`, so its offset is the distance
    // between the two pointers.
    text.split(separator)
        .filter(|w| !w.is_empty())
        .map(move |w| (w.as_ptr() as usize - text.as_ptr() as usize, w))
}

/// Whether `text` holds anything shaped like a key or token (a provider
/// prefix such as `sk-` or `ghp_`, or a long mixed-case, digit-bearing
/// word), or `NAME=value` with a secret-named variable.
pub fn contains_key_like(text: &str) -> bool {
    words(text).any(|(_, w)| {
        let value = w.split_once('=').map_or(w, |(name, value)| {
            if is_secret_var(name, &[]) && value.len() >= MIN_REDACT_LEN {
                "sk-assigned-secret-value"
            } else {
                value
            }
        });
        is_key_shaped(w) || is_key_shaped(value)
    })
}

/// `text` with every key-shaped word (see [`contains_key_like`]) replaced
/// by `[redacted]`: for text that has no environment to compare with,
/// such as a key pasted into a chat.
pub fn redact_key_like(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (start, w) in words(text) {
        if contains_key_like(w) {
            out.push_str(&text[at..start]);
            out.push_str("[redacted]");
            at = start + w.len();
        }
    }
    out.push_str(&text[at..]);
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
    fn key_shaped_words_are_found_and_ordinary_ones_are_not() {
        for text in [
            "my key is sk-ant-api03-AbCdEf0123456789xyz",
            "export OPENAI_API_KEY=abcdefgh12345678",
            "token: ghp_0123456789abcdefABCDEF0123",
            "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload",
            "use 'Zx9kQ2mN7pL4vB8cR1tY6wE3' as the password",
        ] {
            assert!(contains_key_like(text), "{text}");
            let scrubbed = redact_key_like(text);
            assert!(scrubbed.contains("[redacted]"), "{scrubbed}");
            assert!(!contains_key_like(&scrubbed), "{scrubbed}");
        }
        for text in [
            "the project uses cargo nextest and sk-learn",
            "commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39 fixed it",
            "paths like /usr/lib/x86_64-linux-gnu/libFoo2Bar.so.1",
            "PATH=/usr/bin and HOME=/root",
            "id 123e4567-e89b-12d3-a456-426614174000",
        ] {
            assert!(!contains_key_like(text), "{text}");
            assert_eq!(redact_key_like(text), text);
        }
        assert_eq!(redact_key_like("a sk-abcdefghijklmnop b"), "a [redacted] b");
    }

    #[test]
    fn secret_values_whatever_the_name() {
        let secret = |name: &str, value: &str| is_secret_value(OsStr::new(name), OsStr::new(value));
        for (name, value) in [
            ("MYAPP_DB_URL", "postgres://u:PW@db.internal/app"),
            ("DATABASE", "mysql://root:hunter22@127.0.0.1:3306/x"),
            ("REDIS", "redis://:s3cretpass@cache:6379/0"),
            (
                "REPO",
                "https://ghp_0123456789abcdefABCDEF0123@github.com/o/r.git",
            ),
            ("CFG", "see https://user:pa55word@host/path?x=1"),
            ("A", "sk-ant-api03-AbCdEf0123456789xyz"),
            ("B", "sk-proj-AbCdEf0123456789xyzAbC"),
            ("C", "ghp_0123456789abcdefABCDEF0123"),
            ("D", "gho_0123456789abcdefABCDEF0123"),
            ("E", "github_pat_11ABCDEFG0123456789_abcdefghijkl"),
            ("F", "xoxb-123456789012-abcdefghijkl"),
            ("G", "xoxp-123456789012-abcdefghijkl"),
            ("H", "AKIAIOSFODNN7EXAMPLE"),
            ("I", "AIzaSyA-abcdefghijklmnop123"),
            ("J", "glpat-abcdefghijklmnop1234"),
            ("K", "npm_abcdefghijklmnopqrstuv0123"),
            ("L", "hf_abcdefghijklmnopqrstuvwxyz"),
            ("M", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaA==\n"),
            ("N", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl"),
            ("O", "--token=ghp_0123456789abcdefABCDEF0123 --verbose"),
        ] {
            assert!(secret(name, value), "{name}={value}");
        }
        for (name, value) in [
            ("PATH", "/usr/local/bin:/usr/bin:/bin"),
            ("PATH", "/opt/sk-abcdefghijklmnopqrst/bin:/usr/bin"),
            ("HOME", "/home/u"),
            ("LANG", "en_US.UTF-8"),
            ("LC_ALL", "C.UTF-8"),
            ("DOCS_URL", "https://docs.example.com/a/b?c=d"),
            ("GIT_REMOTE", "ssh://git@github.com/o/r.git"),
            ("PROXY", "http://proxy.internal:3128"),
            ("EDITOR", "vim"),
            ("LS_COLORS", "rs=0:di=01;34:ln=01;36:mh=00:pi=40;33"),
            ("RUST_LOG", "info,koi=debug"),
            ("SHORT", "sk-1"),
        ] {
            assert!(!secret(name, value), "{name}={value}");
        }
    }

    #[test]
    fn redacts() {
        let v = vec!["supersecretvalue".to_string()];
        assert_eq!(redact("x=supersecretvalue;", &v), "x=[redacted];");
    }
}
