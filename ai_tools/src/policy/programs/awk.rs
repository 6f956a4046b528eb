//! awk: read-only only when the program cannot run commands (`system`,
//! pipes, `getline`) or write files (`print > file`). The program text is
//! tokenised as awk does it; where a `/` could start a regex or be a
//! division and the checker cannot tell which (after `++`, `--` or `$`),
//! it abstains instead of guessing.

use super::opts::{Parsed, GNU, POSIX};
use super::{Decl, Judgement, Operands, PathRole, Recursion};

/// gawk's options (gawk's manual, "Command-Line Options").
const GAWK_OPTS: &str = "f,file=!q e,source=!P i,include=!q l,load=!x E,exec=!q \
    F,field-separator= v,assign= b,characters-as-bytes c,traditional C,copyright \
    d,dump-variables?!w D,debug?!q h,help g,gen-pot L,lint? M,bignum N,use-lc-numeric \
    n,non-decimal-data o,pretty-print?!w O,optimize p,profile?!w P,posix r,re-interval \
    s,no-optimize S,sandbox t,lint-old V,version I,trace W=!q";

/// The POSIX options every awk shares; mawk's and others' extensions
/// (`-W …`, long options) are not modelled.
const AWK_OPTS: &str = "F= v= f=!q W=!q";

/// The awk family.
pub const DECLS: &[Decl] = &[
    Decl {
        names: &["gawk"],
        opts: GAWK_OPTS,
        style: GNU,
        operands: Operands::PatternThenContent,
        recursion: Recursion::Never,
        check: Some(awk_check),
    },
    Decl {
        names: &["awk", "mawk", "nawk"],
        opts: AWK_OPTS,
        style: POSIX,
        operands: Operands::PatternThenContent,
        recursion: Recursion::Never,
        check: Some(awk_check),
    },
];

/// Words that run commands or read from them, and the arrays that change
/// which files awk reads (`ARGV[1]=".env"`) or expose the environment.
const FORBIDDEN_WORDS: &[&str] = &["system", "getline", "ARGV", "ARGC", "ENVIRON"];

fn awk_check(p: &Parsed<'_>, j: &mut Judgement) -> Result<(), String> {
    let mut programs = p.values("source");
    if programs.is_empty() {
        programs.extend(p.operands().next());
    }
    for prog in programs {
        check_program(prog)?;
    }
    // `name=value` operands are assignments, not files.
    for (path, role) in &mut j.paths {
        if is_assignment(path) {
            *role = PathRole::NotPath;
        }
    }
    Ok(())
}

fn is_assignment(arg: &str) -> bool {
    arg.split_once('=').is_some_and(|(name, _)| {
        name.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// One awk token, as far as the checker needs to know.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Word(String),
    Str,
    Regex,
    Num,
    Op(String),
    Newline,
}

/// Check one awk program text. A `>` or `>>` inside an action (`{ … }`)
/// outside parentheses may be output redirection: awk continues a
/// statement after a comma, `&&`, `||` or a backslash at the end of a
/// line, so which `print` a `>` belongs to is not followed; any such `>`
/// is taken as a redirect (`{ x = ($1 > 5) }` with the parentheses, or a
/// pattern `$1 > 5 { … }`, stays a comparison).
pub fn check_program(program: &str) -> Result<(), String> {
    let toks = tokenize(program)?;
    let mut parens = 0i32;
    let mut braces = 0i32;
    for t in &toks {
        match t {
            Tok::Word(w) if FORBIDDEN_WORDS.contains(&w.as_str()) => {
                return Err(format!(
                    "the program uses {w}, which can run commands or read other files"
                ));
            }
            Tok::Op(o) if o == "|" || o == "|&" => {
                return Err("the program pipes to or from a command".into());
            }
            Tok::Op(o) if o == "@" => {
                return Err("the program uses a gawk @ directive or indirect call".into());
            }
            Tok::Op(o) if o == "(" || o == "[" => parens += 1,
            Tok::Op(o) if o == ")" || o == "]" => parens -= 1,
            Tok::Op(o) if o == "{" => braces += 1,
            Tok::Op(o) if o == "}" => braces -= 1,
            Tok::Op(o) if (o == ">" || o == ">>") && braces > 0 && parens <= 0 => {
                return Err(
                    "the program may write to a file (> or >> inside an action, outside \
                     parentheses)"
                        .into(),
                );
            }
            _ => {}
        }
        if parens < 0 || braces < 0 {
            return Err("the awk program's brackets do not balance".into());
        }
    }
    Ok(())
}

/// Keywords after which a `/` starts a regex.
const REGEX_AFTER_WORDS: &[&str] = &["print", "printf", "return", "case", "do", "else", "in"];

fn tokenize(program: &str) -> Result<Vec<Tok>, String> {
    let chars: Vec<char> = program.chars().collect();
    let mut toks: Vec<Tok> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' | '\r' => i += 1,
            '\\' if chars.get(i + 1) == Some(&'\n') => i += 2,
            '\\' if chars.get(i + 1) == Some(&'\r') && chars.get(i + 2) == Some(&'\n') => i += 3,
            '\\' => return Err("a backslash outside a string in the awk program".into()),
            '\n' => {
                toks.push(Tok::Newline);
                i += 1;
            }
            '#' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '"' => {
                i = skip_literal(&chars, i + 1, '"')?;
                toks.push(Tok::Str);
            }
            '/' => match regex_allowed(toks.last())? {
                true => {
                    i = skip_regex(&chars, i + 1)?;
                    toks.push(Tok::Regex);
                }
                false => {
                    let op = if chars.get(i + 1) == Some(&'=') {
                        "/="
                    } else {
                        "/"
                    };
                    i += op.len();
                    toks.push(Tok::Op(op.into()));
                }
            },
            c if c.is_ascii_digit()
                || (c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit)) =>
            {
                while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '.') {
                    i += 1;
                }
                toks.push(Tok::Num);
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let start = i;
                while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                toks.push(Tok::Word(chars[start..i].iter().collect()));
            }
            _ => {
                const TWO: &[&str] = &[
                    "++", "--", "&&", "||", "|&", ">>", ">=", "<=", "==", "!=", "+=", "-=", "*=",
                    "%=", "^=", "**",
                ];
                let two: String = chars[i..(i + 2).min(chars.len())].iter().collect();
                if TWO.contains(&two.as_str()) {
                    toks.push(Tok::Op(two));
                    i += 2;
                } else if c.is_ascii_punctuation() {
                    toks.push(Tok::Op(c.to_string()));
                    i += 1;
                } else {
                    return Err(format!(
                        "the awk program holds {c:?}, which the checker does not tokenise"
                    ));
                }
            }
        }
    }
    Ok(toks)
}

/// Can a `/` after `prev` start a regex? `Err` when awk's own grammar
/// decides and the checker cannot be sure.
fn regex_allowed(prev: Option<&Tok>) -> Result<bool, String> {
    match prev {
        None | Some(Tok::Newline) => Ok(true),
        Some(Tok::Str | Tok::Regex | Tok::Num) => Ok(false),
        Some(Tok::Word(w)) => Ok(REGEX_AFTER_WORDS.contains(&w.as_str())),
        Some(Tok::Op(o)) => match o.as_str() {
            ")" | "]" => Ok(false),
            "++" | "--" | "$" => Err(format!(
                "a / after {o} in the awk program could be a regex or a division"
            )),
            _ => Ok(true),
        },
    }
}

fn skip_literal(chars: &[char], mut i: usize, close: char) -> Result<usize, String> {
    loop {
        match chars.get(i) {
            None | Some('\n') => {
                return Err("unterminated string or regex in the awk program".into())
            }
            Some('\\') => i += 2,
            Some(&d) if d == close => return Ok(i + 1),
            Some(_) => i += 1,
        }
    }
}

/// A regex ends at an unescaped `/` outside a bracket expression.
fn skip_regex(chars: &[char], mut i: usize) -> Result<usize, String> {
    let mut in_class = false;
    loop {
        match chars.get(i) {
            None | Some('\n') => return Err("unterminated regex in the awk program".into()),
            Some('\\') => i += 2,
            Some('[') if !in_class => {
                in_class = true;
                i += 1;
                // `[]…]` and `[^]…]` hold a literal `]`.
                if chars.get(i) == Some(&'^') {
                    i += 1;
                }
                if chars.get(i) == Some(&']') {
                    i += 1;
                }
            }
            Some(']') if in_class => {
                in_class = false;
                i += 1;
            }
            Some('/') if !in_class => return Ok(i + 1),
            Some(_) => i += 1,
        }
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
            "{ x = $1 / 2; print x }",
            "{ print a[1] / 3 }",
            "$0 ~ /[/]x/ { n++ } END { print n }",
            "{ print \"a\" } # system(\"id\")",
            "{ if ($1 > 5) print $2 }",
            "$1 > 5 { print }\nNR > 1 { n++ }",
            "{ print ($1 > 5) ? \"big\" : \"small\" }",
            "{ n += ($2 >= 10) }",
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
            "{y=x++ / 2; system(\"id\"); z=1 / 3}",
            "{y=x-- / 2; z=1 / 3}",
            "{ print $1 |& \"cat\" }",
            "{ f = \"system\"; @f(\"id\") }",
            "BEGIN { printf \"%s\",\n\"\\033]52;c;x\\007\" > \"/dev/tty\" }",
            "BEGIN { print \"a\",\n \"b\" >> \"/dev/tty\" }",
            "BEGIN { print \"a\" \\\n > \"/dev/tty\" }",
            "BEGIN { print \"a\" \\\r\n > \"out\" }",
            "{ print $1 &&\n $2 > \"out\" }",
            "BEGIN { x = 1; print x > \"/dev/stderr\" }",
            "BEGIN { printf(\"%s\", \"x\") > \"f\" }",
            "{ print $1 > 5 }",
            "BEGIN { if (1) print \"x\" > \"f\" }",
            "function f() { print \"x\" > \"out\" } BEGIN { f() }",
            "BEGIN { print \"x\" }} { print > \"f\" }",
            "BEGIN { a = \"x\" } \\ { print }",
            "BEGIN { ARGV[1] = \".env\"; ARGC = 2 } { print }",
            "BEGIN { print ENVIRON[\"HOME\"] }",
        ] {
            assert!(check_program(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn options() {
        let v = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let judge = |p: &str, a: &[&str]| super::super::judge(p, &v(a));
        assert!(judge("awk", &["-F:", "{print $1}", "/etc/passwd"]).is_ok());
        assert!(judge("gawk", &["-e", "{print}", "f"]).is_ok());
        for (p, bad) in [
            ("gawk", &["--sou=BEGIN{system(\"id\")}"][..]),
            ("gawk", &["--so", "BEGIN{system(\"id\")}"]),
            ("gawk", &["-eNR==1{system(\"touch p\")}", "f"]),
            ("gawk", &["--exe", "x"]),
            ("gawk", &["--lo", "x"]),
            ("gawk", &["--inc", "x"]),
            ("gawk", &["-f", "p.awk"]),
            ("gawk", &["-o", "{print}"]),
            ("gawk", &["--profile=out", "{print}"]),
            ("awk", &["-f", "p.awk"]),
            ("awk", &["-W", "exec", "p.awk"]),
            ("awk", &["--source", "{print}"]),
        ] {
            assert!(judge(p, bad).is_err(), "{p} {bad:?}");
        }
    }
}
