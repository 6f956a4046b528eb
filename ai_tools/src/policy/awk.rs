//! `awk`: read-only only when the program cannot run commands (`system`,
//! pipes, `getline` from a command) or write files (`print > file`).
//! String and regex literals are set aside first, so `/a|b/` and `"x > y"`
//! are data, and comparisons like `$3 > 5` stay allowed.

use crate::policy::programs::has_flag;

/// Words that run commands or load code, wherever they appear.
const FORBIDDEN_WORDS: &[&str] = &["system", "getline", "@load", "@include", "@namespace"];

/// Check an `awk …` argument list.
pub fn awk_rule(args: &[String]) -> Result<(), String> {
    if has_flag(
        args,
        Some('f'),
        &["file", "include", "load", "exec", "source"],
    ) || has_flag(args, Some('i'), &[])
        || has_flag(args, Some('l'), &[])
        || has_flag(args, Some('E'), &[])
    {
        return Err("loads program text or extensions from files".into());
    }
    // The program is the first positional that is not a -v/-F value.
    let mut skip_next = false;
    for a in args {
        if skip_next {
            skip_next = false;
            continue;
        }
        if a == "-v" || a == "-F" {
            skip_next = true;
            continue;
        }
        if a.starts_with('-') {
            continue;
        }
        return check_program(a);
    }
    Ok(())
}

/// Check one awk program text.
pub fn check_program(program: &str) -> Result<(), String> {
    let code = strip_literals(program)?;
    for w in FORBIDDEN_WORDS {
        if contains_word(&code, w) {
            return Err(format!("the program uses {w}, which can run commands"));
        }
    }
    if code.contains('@') {
        return Err("the program uses a gawk @ directive".into());
    }
    let bytes: Vec<char> = code.chars().collect();
    for (i, c) in bytes.iter().enumerate() {
        if *c == '|' {
            let double = bytes.get(i + 1) == Some(&'|') || (i > 0 && bytes[i - 1] == '|');
            if !double {
                return Err("the program pipes to or from a command".into());
            }
        }
    }
    for statement in code.split([';', '\n', '{', '}']) {
        if output_redirect(statement) {
            return Err("the program writes to a file (print > file)".into());
        }
    }
    Ok(())
}

/// Does this statement print with a `>`/`>>` at paren depth zero?
fn output_redirect(statement: &str) -> bool {
    let Some(pos) = find_word(statement, "print").or_else(|| find_word(statement, "printf")) else {
        return false;
    };
    let mut depth = 0i32;
    for c in statement[pos..].chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            '>' if depth <= 0 => return true,
            _ => {}
        }
    }
    false
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Byte offset of `word` as a whole identifier.
fn find_word(code: &str, word: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(off) = code[from..].find(word) {
        let start = from + off;
        let end = start + word.len();
        let before = code[..start].chars().next_back();
        let after = code[end..].chars().next();
        let starts_ident = word.starts_with(is_ident);
        if !starts_ident || (!before.is_some_and(is_ident) && !after.is_some_and(is_ident)) {
            return Some(start);
        }
        from = end;
    }
    None
}

fn contains_word(code: &str, word: &str) -> bool {
    find_word(code, word).is_some()
}

/// Replace string and regex literals with `S`/`R`, so their contents are
/// never mistaken for code. A `/` starts a regex where an operand is
/// expected (start, after an operator or opening bracket).
fn strip_literals(program: &str) -> Result<String, String> {
    let chars: Vec<char> = program.chars().collect();
    let mut out = String::with_capacity(program.len());
    let mut i = 0;
    let mut last_sig: Option<char> = None;
    while i < chars.len() {
        let c = chars[i];
        if c == '"' || (c == '/' && regex_may_start(last_sig)) {
            let close = c;
            i += 1;
            loop {
                match chars.get(i) {
                    None => return Err("unterminated string or regex in the awk program".into()),
                    Some('\\') => i += 2,
                    Some(&d) if d == close => break,
                    Some(_) => i += 1,
                }
            }
            i += 1;
            out.push(if close == '"' { 'S' } else { 'R' });
            last_sig = Some('S');
            continue;
        }
        if c == '#' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        out.push(c);
        if !c.is_whitespace() {
            last_sig = Some(c);
        }
        i += 1;
    }
    Ok(out)
}

fn regex_may_start(last: Option<char>) -> bool {
    match last {
        None => true,
        Some(c) => "(,~!&|{};=+-*%<>?:".contains(c) || c == '\n',
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs() {
        for ok in [
            "{print $1}",
            "$3 > 5",
            "NR==1",
            "{ s += $1 } END { print s }",
            "{print ($1 > 5)}",
            "$1 == \"a\" || $2 == \"b\"",
            "/a|b/ {print}",
            "{s = \"a|b > c\"} END {print s}",
            "BEGIN { FS=\":\" } { print $1 }",
            "$2 >= 10 && $2 <= 20",
            "{ print length($0) }",
        ] {
            assert!(check_program(ok).is_ok(), "{ok}: {:?}", check_program(ok));
        }
        for bad in [
            "BEGIN{system(\"id\")}",
            "{print > \"out\"}",
            "{ print $1 >> \"log\" }",
            "{printf \"%s\", $1 > \"/tmp/x\"}",
            "{print | \"sh\"}",
            "BEGIN { \"date\" | getline d }",
            "BEGIN { while ((\"ls\" | getline line) > 0) print line }",
            "@load \"x\"",
            "{print \"unterminated}",
        ] {
            assert!(check_program(bad).is_err(), "{bad}");
        }
    }
}
