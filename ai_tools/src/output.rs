//! Tool results and the budgeting that keeps them small for the model.

/// The result of one successful tool call.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolOutput {
    /// What the model sees: already within the tool's budget (head + tail
    /// with a marker saying how much was cut).
    pub for_model: String,
    /// The whole result, for the session log.
    pub full: String,
    /// One line for the UI, e.g. `read src/main.rs → 120 lines`.
    pub preview: String,
    /// A unified diff when the call changed a file.
    pub diff: Option<String>,
}

impl ToolOutput {
    /// An output whose model text and full text are the same.
    pub fn same(text: String, preview: String) -> Self {
        ToolOutput {
            for_model: text.clone(),
            full: text,
            preview,
            diff: None,
        }
    }
}

/// Keep the first and last parts of `text` within `max_chars` characters,
/// cut at line boundaries where possible, with a marker saying how much was
/// left out. Text already within budget is returned unchanged.
pub fn head_tail(text: &str, max_chars: usize) -> String {
    let total = text.chars().count();
    if total <= max_chars {
        return text.to_string();
    }
    let head_budget = max_chars * 2 / 3;
    let tail_budget = max_chars.saturating_sub(head_budget);
    let head_end = char_boundary_at(text, head_budget);
    let head_end = text[..head_end].rfind('\n').map_or(head_end, |i| i + 1);
    let tail_start = text.len() - char_boundary_at_rev(text, tail_budget);
    let tail_start = text[tail_start..]
        .find('\n')
        .map(|i| tail_start + i + 1)
        .filter(|&i| i < text.len())
        .unwrap_or(tail_start)
        .max(head_end);
    let cut = &text[head_end..tail_start];
    let cut_lines = cut.matches('\n').count();
    format!(
        "{}[… {} characters ({} lines) cut from the middle …]\n{}",
        &text[..head_end],
        cut.chars().count(),
        cut_lines,
        &text[tail_start..]
    )
}

/// Byte index of the `n`th character (or the end).
fn char_boundary_at(text: &str, n: usize) -> usize {
    text.char_indices().nth(n).map_or(text.len(), |(i, _)| i)
}

/// Byte length of the last `n` characters.
fn char_boundary_at_rev(text: &str, n: usize) -> usize {
    if n == 0 {
        return 0;
    }
    text.char_indices()
        .rev()
        .nth(n - 1)
        .map_or(text.len(), |(i, _)| text.len() - i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_unchanged() {
        assert_eq!(head_tail("abc\n", 10), "abc\n");
    }

    #[test]
    fn keeps_head_and_tail() {
        let text: String = (0..1000).map(|i| format!("line {i}\n")).collect();
        let out = head_tail(&text, 600);
        assert!(out.starts_with("line 0\n"));
        assert!(out.ends_with("line 999\n"));
        assert!(out.contains("cut from the middle"));
        assert!(out.chars().count() < 700);
    }

    #[test]
    fn multibyte_safe() {
        let text = "é".repeat(5000);
        let out = head_tail(&text, 100);
        assert!(out.contains("cut"));
    }
}
