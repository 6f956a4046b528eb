//! What the tests share: `k` run beside koi, in the same config and data
//! directories, and a model that answers titles whenever asked.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use koi_testkit::{bins, FakeProvider, Reply, RequestKind};

/// `PATH` with the workspace's binaries first, so a shell finds `k`.
pub fn path_with_bins() -> String {
    let rest = std::env::var("PATH").unwrap_or_default();
    format!("{}:{rest}", bins::dir().display())
}

/// The environment `k` gets: exactly what koi's shell has for config and
/// data (`koi_testkit::window::Koi` sets the same XDG directories under
/// `dir`), and nothing of the parent's beyond `PATH`.
pub fn k_env(dir: &Path) -> Vec<(String, String)> {
    vec![
        ("HOME".into(), dir.display().to_string()),
        (
            "XDG_CONFIG_HOME".into(),
            dir.join("xdg").display().to_string(),
        ),
        (
            "XDG_DATA_HOME".into(),
            dir.join("xdg-data").display().to_string(),
        ),
        (
            "XDG_CACHE_HOME".into(),
            dir.join("cache").display().to_string(),
        ),
        ("PATH".into(), path_with_bins()),
        ("NO_COLOR".into(), "1".into()),
        ("TERM".into(), "xterm-256color".into()),
    ]
}

/// Runs `k args` in `cwd` with [`k_env`], no terminal, stdin empty.
pub fn run_k(dir: &Path, cwd: &Path, args: &[&str]) -> Output {
    Command::new(bins::k())
        .args(args)
        .current_dir(cwd)
        .env_clear()
        .envs(k_env(dir))
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

pub use koi_testkit::openai_chat::title;

/// A model answering titles with [`title`] and turns with `turns` in order.
pub fn turns_and_titles(turns: Vec<Reply>) -> FakeProvider {
    FakeProvider::builder().always(title()).start(turns)
}

/// The text of every `role` message in an OpenAI chat request.
pub fn message_texts(req: &serde_json::Value, role: &str) -> Vec<String> {
    req["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == role)
        .map(|m| match &m["content"] {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect()
}

/// The turn request (not a title or summary) whose body holds `needle`.
pub fn turn_request(server: &FakeProvider, needle: &str) -> serde_json::Value {
    server
        .requests()
        .iter()
        .find(|r| r.kind == RequestKind::Turn && r.body_str().contains(needle))
        .unwrap_or_else(|| panic!("no turn request mentions {needle:?}"))
        .json()
}
