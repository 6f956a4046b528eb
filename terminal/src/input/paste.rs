//! Pastes, made safe to hand to an application.

/// The bracketed-paste delimiters (mode 2004).
const PASTE_START: &[u8] = b"\x1b[200~";
const PASTE_END: &[u8] = b"\x1b[201~";

/// Encode pasted `text`. In bracketed mode every ESC (and the 8-bit CSI,
/// U+009B) is removed, so the text cannot contain `ESC[201~` and end the
/// paste early to have the rest run as typed commands. Without brackets,
/// newlines become carriage returns, as a keyboard would type them.
pub fn encode_paste(text: &str, bracketed: bool) -> Vec<u8> {
    if bracketed {
        let mut out = Vec::with_capacity(text.len() + PASTE_START.len() + PASTE_END.len());
        out.extend_from_slice(PASTE_START);
        let mut buf = [0u8; 4];
        for c in text.chars().filter(|&c| c != '\x1b' && c != '\u{9b}') {
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
        out.extend_from_slice(PASTE_END);
        out
    } else {
        text.replace("\r\n", "\r").replace('\n', "\r").into_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bracketed_paste_cannot_be_escaped() {
        let evil = "ls\x1b[201~rm -rf ~\n\u{9b}201~x";
        let out = encode_paste(evil, true);
        assert!(out.starts_with(PASTE_START));
        assert!(out.ends_with(PASTE_END));
        let inner = &out[PASTE_START.len()..out.len() - PASTE_END.len()];
        assert!(!inner.contains(&0x1b), "ESC survived: {inner:?}");
        assert_eq!(String::from_utf8_lossy(inner), "ls[201~rm -rf ~\n201~x");
        let ends = out
            .windows(PASTE_END.len())
            .filter(|w| *w == PASTE_END)
            .count();
        assert_eq!(ends, 1);
    }

    #[test]
    fn unbracketed_newlines_become_returns() {
        assert_eq!(encode_paste("a\nb\r\nc", false), b"a\rb\rc");
    }

    #[test]
    fn empty_and_unicode() {
        assert_eq!(encode_paste("", true), b"\x1b[200~\x1b[201~");
        assert_eq!(encode_paste("你好🦀", false), "你好🦀".as_bytes());
    }
}
