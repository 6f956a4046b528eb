//! The policy table's text format (`ai_tools/tests/policy_table.txt`): one
//! call per line with its expected decision in each mode. Parsed here once
//! so every crate that checks the policy against it (the tools' own tests,
//! `k policy check`'s tests) reads it the same way.
//!
//! A row is `CODES CLASS KIND INPUT`: five decision letters (`A`llow,
//! `Q` ask, `D`eny) for default, accept-edits, plan, dont-ask and bypass;
//! a class (`safe`, `write`, …); the kind (`sh` for a shell command, `shx`
//! for one with `\n`, `\r`, `\t`, `\xHH` escapes, or a tool name whose
//! input is JSON arguments); and the input. `#` starts a comment line.

/// One row of the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// 1-based line number in the file.
    pub line: usize,
    /// The expected decision letter in each of the five modes, in order.
    pub codes: String,
    pub class: String,
    pub kind: String,
    /// The input as written (escapes not yet decoded).
    pub input: String,
}

/// Parse the table; a malformed row is an error naming its line.
pub fn parse(text: &str) -> Result<Vec<Row>, String> {
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let mut parts = line.splitn(4, ' ');
        let (Some(codes), Some(class), Some(kind)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(format!("line {}: expected CODES CLASS KIND INPUT", i + 1));
        };
        if codes.chars().count() != 5 || !codes.chars().all(|c| matches!(c, 'A' | 'Q' | 'D')) {
            return Err(format!("line {}: `{codes}` is not five of A/Q/D", i + 1));
        }
        rows.push(Row {
            line: i + 1,
            codes: codes.to_owned(),
            class: class.to_owned(),
            kind: kind.to_owned(),
            input: parts.next().unwrap_or("").to_owned(),
        });
    }
    Ok(rows)
}

/// Decode `\n`, `\r`, `\t` and `\xHH`; anything else stays as written.
pub fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('x') => {
                let hex: String = chars.by_ref().take(2).collect();
                match u8::from_str_radix(&hex, 16) {
                    Ok(byte) => out.push(char::from(byte)),
                    Err(_) => {
                        out.push_str("\\x");
                        out.push_str(&hex);
                    }
                }
            }
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_parse_and_bad_rows_are_named() {
        let rows =
            parse("# comment\n\nAQDDA safe sh ls -la\nAAADA write shx echo a\\nb\n").unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(
            (rows[0].line, rows[0].codes.as_str(), rows[0].input.as_str()),
            (3, "AQDDA", "ls -la")
        );
        assert_eq!(unescape(&rows[1].input), "echo a\nb");
        assert!(parse("AQ safe sh ls").unwrap_err().contains("line 1"));
        assert!(parse("AQDDX safe sh ls").is_err());
        assert!(parse("AQDDA safe").unwrap_err().contains("line 1"));
    }

    #[test]
    fn escapes() {
        assert_eq!(unescape(r"a\tb\x41\q\"), "a\tbA\\q\\");
        assert_eq!(unescape(r"\xZZ"), "\\xZZ");
    }
}
