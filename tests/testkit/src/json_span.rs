//! Raw byte spans of JSON values, so "byte-identical" can be checked on the
//! text the client really sent (parsing and re-serialising would hide a
//! change of key order or escaping, which breaks a provider's prompt cache).
//!
//! The input is assumed to be valid JSON (it was parsed first); the scanner
//! only has to find where each value ends.

/// Index just past the value starting at `i` (after leading whitespace).
fn value_end(b: &[u8], mut i: usize) -> Option<usize> {
    i = skip_ws(b, i);
    match *b.get(i)? {
        b'"' => string_end(b, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            while i < b.len() {
                match b[i] {
                    b'"' => {
                        i = string_end(b, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            None
        }
        _ => {
            while i < b.len() && !matches!(b[i], b',' | b'}' | b']') && !b[i].is_ascii_whitespace()
            {
                i += 1;
            }
            Some(i)
        }
    }
}

/// Index just past the string whose opening quote is at `i`.
fn string_end(b: &[u8], mut i: usize) -> Option<usize> {
    i += 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// The spans of a container's children: for an object, each member's value
/// paired with its raw key text; for an array, each element with an empty key.
fn children(text: &str) -> Option<Vec<(&str, &str)>> {
    let b = text.as_bytes();
    let mut i = skip_ws(b, 0);
    let object = match *b.get(i)? {
        b'{' => true,
        b'[' => false,
        _ => return None,
    };
    i += 1;
    let mut out = Vec::new();
    loop {
        i = skip_ws(b, i);
        if matches!(b.get(i), Some(b'}' | b']')) {
            return Some(out);
        }
        let mut key = "";
        if object {
            let end = string_end(b, i)?;
            key = text.get(i + 1..end - 1)?;
            i = skip_ws(b, end);
            if b.get(i) != Some(&b':') {
                return None;
            }
            i += 1;
        }
        let start = skip_ws(b, i);
        let end = value_end(b, start)?;
        out.push((key, text.get(start..end)?));
        i = skip_ws(b, end);
        match b.get(i) {
            Some(b',') => i += 1,
            Some(b'}' | b']') => return Some(out),
            _ => return None,
        }
    }
}

/// The raw text of the top-level member `key` of the object `text`.
pub(crate) fn member<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    children(text)?
        .into_iter()
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v)
}

/// The raw text of element `n` of the array `text`.
pub(crate) fn element(text: &str, n: usize) -> Option<&str> {
    children(text)?.into_iter().nth(n).map(|(_, v)| v)
}

/// `text` without any member named `key`, at any depth (with the comma
/// that joined it), every other byte as it was.
pub(crate) fn without_key(text: &str, key: &str) -> String {
    let b = text.as_bytes();
    let quoted = format!("\"{key}\"");
    let mut out = String::with_capacity(text.len());
    let (mut i, mut copied) = (0, 0);
    while i < b.len() {
        if b[i] != b'"' {
            i += 1;
            continue;
        }
        let Some(end) = string_end(b, i) else { break };
        let colon = skip_ws(b, end);
        let value = (text.get(i..end) == Some(quoted.as_str()) && b.get(colon) == Some(&b':'))
            .then(|| value_end(b, colon + 1))
            .flatten();
        let Some(value_end) = value else {
            i = end;
            continue;
        };
        let before = &text[copied..i];
        let trimmed = before.trim_end();
        if let Some(kept) = trimmed.strip_suffix(',') {
            out.push_str(kept);
            copied = value_end;
        } else {
            // The first member: the comma after it goes instead.
            out.push_str(before);
            let next = skip_ws(b, value_end);
            copied = if b.get(next) == Some(&b',') {
                next + 1
            } else {
                value_end
            };
        }
        i = copied;
    }
    out.push_str(&text[copied..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_members_and_elements_verbatim() {
        let text = r#"{"a": {"x":"}\"]"}, "tools" :[1, {"b":[2]}], "n":-1.5e3}"#;
        assert_eq!(member(text, "a"), Some(r#"{"x":"}\"]"}"#));
        assert_eq!(member(text, "tools"), Some(r#"[1, {"b":[2]}]"#));
        assert_eq!(member(text, "n"), Some("-1.5e3"));
        assert_eq!(member(text, "missing"), None);
        let tools = member(text, "tools").unwrap();
        assert_eq!(element(tools, 1), Some(r#"{"b":[2]}"#));
        assert_eq!(element(tools, 2), None);
    }

    #[test]
    fn drops_a_key_at_any_depth_and_keeps_every_other_byte() {
        let text = r#"[{"a":1,"cache_control":{"type":"ephemeral"}},{"cache_control":{"x":[1]} , "b":"cache_control"}]"#;
        assert_eq!(
            without_key(text, "cache_control"),
            r#"[{"a":1},{ "b":"cache_control"}]"#
        );
        assert_eq!(without_key(r#"{"a":"b"}"#, "cache_control"), r#"{"a":"b"}"#);
    }
}
