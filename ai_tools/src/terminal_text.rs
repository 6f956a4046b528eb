//! Text from the model, a file or a tool, made safe to show on a terminal.
//!
//! A terminal acts on control characters: `ESC [ 2 J` clears the screen,
//! OSC 52 sets the clipboard, BEL rings, a C1 CSI (U+009B) starts a
//! sequence on its own. Anything outside koi's control that reaches a
//! terminal goes through [`escape_controls`] first, so it can show the
//! sequence but not run it.

use std::borrow::Cow;

/// Whether `c` is one [`escape_controls`] rewrites: every C0 control but
/// newline and tab, DEL, and every C1 control.
pub fn is_unsafe_control(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

/// `s` with every control character but `\n` and `\t` shown instead of
/// sent: C0 controls and DEL as their Unicode control pictures (ESC as
/// `␛`, BEL as `␇`, CR as `␍`), C1 controls as `\x9b`-style escapes.
/// Borrowed (no copy) when there is nothing to escape, as in most text.
pub fn escape_controls(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_unsafe_control) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if !is_unsafe_control(c) {
            out.push(c);
            continue;
        }
        let code = c as u32;
        match code {
            // U+2400..U+241F picture the C0 controls in order.
            0x00..=0x1F => out.push(char::from_u32(0x2400 + code).unwrap_or('?')),
            0x7F => out.push('\u{2421}'),
            _ => out.push_str(&format!("\\x{code:02x}")),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequences_are_shown_not_sent() {
        assert_eq!(escape_controls("a\x1b[2Jb"), "a␛[2Jb");
        assert_eq!(escape_controls("\x1b]52;c;aGk=\x07"), "␛]52;c;aGk=␇");
        assert_eq!(escape_controls("\u{9b}31m\x7f\r\0"), "\\x9b31m␡␍␀");
        assert_eq!(escape_controls("\u{85}"), "\\x85");
    }

    #[test]
    fn ordinary_text_is_untouched() {
        let s = "line one\n\tindented — 文档 ✓ сат\n";
        assert!(matches!(escape_controls(s), Cow::Borrowed(t) if t == s));
    }

    #[test]
    fn nothing_unsafe_survives() {
        let all: String = (0u32..0x200).filter_map(char::from_u32).collect();
        let out = escape_controls(&all);
        assert!(!out.chars().any(is_unsafe_control), "{out}");
        assert!(out.contains('\n') && out.contains('\t'));
    }
}
