//! What the model sees of large tool results. How older history leaves
//! the model's view is [`crate::compaction`]'s business.

use crate::budgets::TOOL_RESULT_MODEL_BYTES;
use crate::message::untrusted;

/// Part of a large tool result kept at the start (bytes).
const HEAD_BYTES: usize = TOOL_RESULT_MODEL_BYTES * 3 / 4;
/// Part kept at the end: errors and totals usually sit there.
const TAIL_BYTES: usize = TOOL_RESULT_MODEL_BYTES / 5;

fn floor_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_boundary(s: &str, mut i: usize) -> usize {
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// A tool's text as the model sees it: head + tail with a marker when
/// larger than [`TOOL_RESULT_MODEL_BYTES`] (the log keeps it whole).
pub fn clip_for_model(text: &str) -> String {
    if text.len() <= TOOL_RESULT_MODEL_BYTES {
        return text.to_string();
    }
    let head_end = floor_boundary(text, HEAD_BYTES);
    let tail_start = ceil_boundary(text, text.len() - TAIL_BYTES);
    let elided = tail_start - head_end;
    format!(
        "{}\n[… {elided} bytes elided here; the session log keeps the whole output. To see the \
         missing part, call the tool again with a narrower range (e.g. start_line/end_line, a \
         more specific pattern or path) …]\n{}",
        &text[..head_end],
        &text[tail_start..]
    )
}

/// A successful tool result as shown to the model: clipped and labelled as
/// untrusted data.
pub fn tool_result_view(tool: &str, for_model: &str) -> String {
    untrusted("tool-output", tool, &clip_for_model(for_model))
}

/// A failed tool call's error as shown to the model: the message can
/// quote outside text (a file name, a server's reply), so it is wrapped as
/// untrusted data too.
pub fn tool_error_view(tool: &str, message: &str) -> String {
    format!(
        "error: the call failed; the tool's message follows.\n{}",
        untrusted("tool-error", tool, &clip_for_model(message))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_keeps_head_tail_and_says_how_much() {
        let text: String = (0..5000).map(|i| format!("line {i}\n")).collect();
        let out = clip_for_model(&text);
        assert!(out.len() < TOOL_RESULT_MODEL_BYTES + 400);
        assert!(out.starts_with("line 0\n"));
        assert!(out.ends_with("line 4999\n"));
        assert!(out.contains("bytes elided"));
        let multibyte = "é".repeat(20_000);
        assert!(clip_for_model(&multibyte).contains("elided"));
        assert_eq!(clip_for_model("short"), "short");
    }
}
