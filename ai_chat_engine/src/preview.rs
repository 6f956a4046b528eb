//! One-line previews of arguments and results for front ends.

use crate::budgets::PREVIEW_CHARS;

/// Shortens text to one line of at most [`PREVIEW_CHARS`] characters.
pub(crate) fn preview(text: &str) -> String {
    let one_line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let mut out: String = one_line.chars().take(PREVIEW_CHARS).collect();
    if one_line.chars().count() > PREVIEW_CHARS {
        out.push('…');
    }
    out
}
