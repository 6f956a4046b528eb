//! Reading the session logs koi and `k` write (one JSON object per line,
//! `SESSION.jsonl` beside a `.lock` sidecar), the one way every test does.

use std::path::{Path, PathBuf};

/// The logs in `dir` (not their sidecars), sorted by name.
pub fn files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    files
}

/// Each log's text in `dir`, by session id (the file's stem).
pub fn texts(dir: &Path) -> Vec<(String, String)> {
    files(dir)
        .into_iter()
        .filter_map(|p| {
            let text = std::fs::read_to_string(&p).ok()?;
            Some((p.file_stem()?.to_string_lossy().into_owned(), text))
        })
        .collect()
}

/// How many entries of `kind` (`turn_end`, `approval_asked`, …) the logs
/// in `dir` hold together.
pub fn count(dir: &Path, kind: &str) -> usize {
    let needle = format!("\"type\":\"{kind}\"");
    texts(dir)
        .iter()
        .map(|(_, log)| log.matches(&needle).count())
        .sum()
}

/// Every entry of `kind` in the logs in `dir`, parsed, in file order.
pub fn entries(dir: &Path, kind: &str) -> Vec<serde_json::Value> {
    texts(dir)
        .iter()
        .flat_map(|(_, log)| {
            log.lines()
                .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
                .collect::<Vec<_>>()
        })
        .filter(|e| e["type"] == kind)
        .collect()
}
