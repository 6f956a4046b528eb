//! Unicode tricks: look-alike letters, invisible and bidi characters (both
//! judged by [`crate::unicode_fold`], from Unicode's own data), and making
//! control characters visible in what the user is asked to approve.

use crate::unicode_fold::is_lookalike;
pub use crate::unicode_fold::{fold, is_invisible};

/// Does the text hold a look-alike or an invisible character?
pub fn has_tricky_chars(s: &str) -> bool {
    s.chars().any(|c| is_invisible(c) || is_lookalike(c))
}

/// The exact text with control, invisible and look-alike characters made
/// visible (`\n`, `\x1b`, `\u{200b}`), for approval prompts.
pub fn visible(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                if (c as u32) < 0x100 {
                    out.push_str(&format!("\\x{:02x}", c as u32));
                } else {
                    out.push_str(&format!("\\u{{{:x}}}", c as u32));
                }
            }
            c if is_invisible(c) || is_lookalike(c) => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_lookalikes() {
        assert_eq!(fold("саt .еnv"), "cat .env");
        assert_eq!(fold("ｒｍ －ｒｆ ／"), "rm -rf /");
        assert_eq!(fold("l\u{200b}s"), "ls");
    }

    #[test]
    fn makes_visible() {
        assert_eq!(visible("ls\x1b[2J\n"), "ls\\x1b[2J\\n");
        assert_eq!(visible("сat"), "\\u{441}at");
        assert_eq!(visible("文档.md"), "文档.md");
    }
}
