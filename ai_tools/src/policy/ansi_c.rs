//! Decoding bash's ANSI-C quoting, `$'…'`, exactly as bash does: every
//! escape it knows, and its quirks (a NUL ends the string, an unknown
//! escape keeps its backslash, `\x` without digits stays as written).
//! Bytes that are not valid UTF-8 (`\xff`, `\377`) and `\u` escapes past
//! ASCII (whose result depends on the locale) become U+FFFD, which the
//! proof refuses to judge.

/// The character standing for bytes that are not valid UTF-8.
pub const NOT_UTF8: char = '\u{FFFD}';

/// Decode the text between `$'` and `'`.
pub fn decode(raw: &str) -> String {
    let chars: Vec<char> = raw.chars().collect();
    let mut out: Vec<u8> = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c != '\\' || i + 1 >= chars.len() {
            push_char(&mut out, c);
            i += 1;
            continue;
        }
        let e = chars[i + 1];
        i += 2;
        let byte = |b: u8, out: &mut Vec<u8>| out.push(b);
        match e {
            'a' => byte(0x07, &mut out),
            'b' => byte(0x08, &mut out),
            'e' | 'E' => byte(0x1b, &mut out),
            'f' => byte(0x0c, &mut out),
            'n' => byte(b'\n', &mut out),
            'r' => byte(b'\r', &mut out),
            't' => byte(b'\t', &mut out),
            'v' => byte(0x0b, &mut out),
            '\\' | '\'' | '"' | '?' => push_char(&mut out, e),
            '0'..='7' => {
                let (v, used) = digits(&chars[i - 1..], 8, 3);
                i += used - 1;
                // bash keeps the low eight bits of `\777`.
                byte((v & 0xff) as u8, &mut out);
            }
            'x' => {
                if chars.get(i) == Some(&'{') {
                    let close = chars[i..].iter().position(|&c| c == '}');
                    let (v, used) = digits(&chars[i + 1..], 16, usize::MAX);
                    match close {
                        Some(off) if used > 0 && off == used + 1 => {
                            i += off + 1;
                            byte((v & 0xff) as u8, &mut out);
                        }
                        _ => {
                            push_char(&mut out, '\\');
                            push_char(&mut out, 'x');
                        }
                    }
                    continue;
                }
                let (v, used) = digits(&chars[i..], 16, 2);
                if used == 0 {
                    push_char(&mut out, '\\');
                    push_char(&mut out, 'x');
                } else {
                    i += used;
                    byte(v as u8, &mut out);
                }
            }
            'u' | 'U' => {
                let max = if e == 'u' { 4 } else { 8 };
                let (v, used) = digits(&chars[i..], 16, max);
                if used == 0 {
                    push_char(&mut out, '\\');
                    push_char(&mut out, e);
                } else {
                    i += used;
                    push_code_point(&mut out, v);
                }
            }
            'c' => match chars.get(i) {
                None => {
                    push_char(&mut out, '\\');
                    push_char(&mut out, 'c');
                }
                Some(&x) => {
                    i += 1;
                    // `\c\\` consumes the escaped backslash.
                    if x == '\\' && chars.get(i) == Some(&'\\') {
                        i += 1;
                    }
                    if x == '?' {
                        byte(0x7f, &mut out);
                    } else if x.is_ascii() {
                        byte((x.to_ascii_uppercase() as u8) & 0x1f, &mut out);
                    } else {
                        push_char(&mut out, NOT_UTF8);
                    }
                }
            },
            other => {
                push_char(&mut out, '\\');
                push_char(&mut out, other);
            }
        }
    }
    // A NUL ends the C string bash builds.
    if let Some(nul) = out.iter().position(|&b| b == 0) {
        out.truncate(nul);
    }
    match String::from_utf8(out) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes())
            .chars()
            .map(|c| if c == '\u{FFFD}' { NOT_UTF8 } else { c })
            .collect(),
    }
}

/// Up to `max` digits in `radix` at the start of `chars`: (value, count).
fn digits(chars: &[char], radix: u32, max: usize) -> (u32, usize) {
    let mut v: u32 = 0;
    let mut used = 0;
    for c in chars.iter().take(max) {
        match c.to_digit(radix) {
            Some(d) => {
                v = v.saturating_mul(radix).saturating_add(d);
                used += 1;
            }
            None => break,
        }
    }
    (v, used)
}

fn push_char(out: &mut Vec<u8>, c: char) {
    let mut buf = [0u8; 4];
    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
}

/// `\u`/`\U` past ASCII depend on the locale bash runs in (in the C
/// locale bash keeps the escape as written), so they are not known.
fn push_code_point(out: &mut Vec<u8>, v: u32) {
    match char::from_u32(v) {
        Some(c) if c.is_ascii() => push_char(out, c),
        _ => push_char(out, NOT_UTF8),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_escape() {
        let cases: &[(&str, &str)] = &[
            (r"\a\b\e\E\f\n\r\t\v", "\x07\x08\x1b\x1b\x0c\n\r\t\x0b"),
            (r#"\\\'\"\?"#, "\\'\"?"),
            (r"\56config", ".config"),
            (r"\055delete", "-delete"),
            (r"\1234", "S4"),
            (r"\x2e\x2Fx", "./x"),
            (r"\x414", "A4"),
            (r"\x{41}", "A"),
            (r"\x", "\\x"),
            (r"\xg", "\\xg"),
            (r"\u002e", "."),
            (r"\U0000002e", "."),
            (r"\u", "\\u"),
            (r"\cA\ca", "\x01\x01"),
            (r"\c?", "\x7f"),
            (r"\c\\", "\x1c"),
            (r"\c", "\\c"),
            (r"\q", "\\q"),
            (r"\8", "\\8"),
            (r"a\0b", "a"),
            (r"a\u0000b", "a"),
        ];
        for (raw, want) in cases {
            assert_eq!(decode(raw), *want, "{raw}");
        }
    }

    #[test]
    fn bytes_that_are_not_utf8() {
        assert_eq!(decode(r"\xff"), NOT_UTF8.to_string());
        assert_eq!(decode(r"\777"), NOT_UTF8.to_string());
        assert!(decode(r"\ud800").contains(NOT_UTF8));
        // Past ASCII, \u depends on the locale.
        assert_eq!(decode(r"\u00e9"), NOT_UTF8.to_string());
        // Two bytes that together are UTF-8 stay a character.
        assert_eq!(decode(r"\303\251"), "é");
    }
}
