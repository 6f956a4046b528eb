//! One-line previews of arguments and results for front ends.

use ai_tools::plural::counted;
use ai_tools::terminal_text::escape_controls;

use crate::budgets::PREVIEW_CHARS;

/// Shortens text to one line of at most [`PREVIEW_CHARS`] characters.
pub(crate) fn preview(text: &str) -> String {
    let one_line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    shorten(&one_line)
}

/// At most [`PREVIEW_CHARS`] characters of `text`, `…` marking a cut.
fn shorten(text: &str) -> String {
    let mut out: String = text.chars().take(PREVIEW_CHARS).collect();
    if text.chars().count() > PREVIEW_CHARS {
        out.push('…');
    }
    out
}

/// A call's arguments summarised for people, by their shape rather than
/// the tool's name: the command, the path with a count of what is written
/// to it, the pattern and where, the URL. Arguments of another shape show
/// as their one-line preview. `fs_write` of one line reads
/// `koi-demo.txt (1 line)`. Control characters in the arguments are shown
/// (`␛`), not sent: a path can hold anything.
pub(crate) fn call_summary(arguments: &str) -> String {
    let Ok(serde_json::Value::Object(map)) = serde_json::from_str(arguments) else {
        return preview(arguments);
    };
    let text = |key: &str| map.get(key).and_then(serde_json::Value::as_str);
    let summary = if let Some(command) = text("command") {
        let mut lines = command.lines();
        let first = lines.next().unwrap_or("").to_string();
        if lines.next().is_some() {
            format!("{first} …")
        } else {
            first
        }
    } else if let Some(pattern) = text("pattern") {
        match text("path") {
            Some(path) => format!("{pattern} in {path}"),
            None => pattern.to_string(),
        }
    } else if let Some(path) = text("path") {
        let mut counts = Vec::new();
        if let Some(content) = text("content") {
            counts.push(counted(content.lines().count(), "line", "lines"));
        }
        if let Some(edits) = map.get("edits").and_then(serde_json::Value::as_array) {
            counts.push(counted(edits.len(), "edit", "edits"));
        }
        if text("append").is_some() {
            counts.push("append".into());
        }
        let line = |key| map.get(key).and_then(serde_json::Value::as_u64);
        match (line("start_line"), line("end_line")) {
            (Some(s), Some(e)) => counts.push(format!("lines {s}–{e}")),
            (Some(s), None) => counts.push(format!("from line {s}")),
            (None, Some(e)) => counts.push(format!("to line {e}")),
            (None, None) => {}
        }
        if counts.is_empty() {
            path.to_string()
        } else {
            format!("{path} ({})", counts.join(", "))
        }
    } else if let Some(url) = text("url") {
        match text("method") {
            Some(method) => format!("{method} {url}"),
            None => url.to_string(),
        }
    } else if let Some(task) = text("task") {
        // A subagent's brief: its first line says what it is about.
        task.lines().next().unwrap_or("").to_string()
    } else if let Some(id) = map.get("id").filter(|v| v.is_u64() || v.is_string()) {
        format!(
            "#{}",
            id.as_str().map_or_else(|| id.to_string(), str::to_string)
        )
    } else if map.is_empty() {
        String::new()
    } else {
        arguments.to_string()
    };
    shorten(&escape_controls(&summary))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_follow_the_arguments_shape() {
        let cases = [
            (
                r#"{"path":"koi-demo.txt","content":"hi\n","expected_revision":"absent"}"#,
                "koi-demo.txt (1 line)",
            ),
            (
                r#"{"path":"a.rs","content":"a\nb\nc","expected_revision":"r"}"#,
                "a.rs (3 lines)",
            ),
            (
                r#"{"path":"a.rs","edits":[{"old":"a","new":"b"}],"expected_revision":"r"}"#,
                "a.rs (1 edit)",
            ),
            (
                r#"{"path":"src/main.rs","start_line":3,"end_line":9}"#,
                "src/main.rs (lines 3–9)",
            ),
            (r#"{"path":"src"}"#, "src"),
            (r#"{"command":"ls -la\nrm x"}"#, "ls -la …"),
            (r#"{"pattern":"TODO","path":"src"}"#, "TODO in src"),
            (r#"{"url":"http://x/","method":"POST"}"#, "POST http://x/"),
            (r#"{"id":3}"#, "#3"),
            (r#"{"task":"where is main?\nthen more"}"#, "where is main?"),
            ("{}", ""),
            (r#"{"query":"weather"}"#, r#"{"query":"weather"}"#),
            ("not json\u{1b}", "not json "),
            (r#"{"path":"a\u001b[2J"}"#, "a␛[2J"),
        ];
        for (args, want) in cases {
            assert_eq!(call_summary(args), want, "{args}");
        }
    }
}
