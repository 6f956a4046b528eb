//! `sed`: read-only only without `-i` and without `w`/`W`/`e` commands or
//! `s///w`/`s///e` flags. The script is parsed, not pattern-matched.

use super::opts::{Parsed, GNU};
use super::{Decl, Judgement, Operands, Recursion};

/// GNU sed's options (`sed --help`).
const SED_OPTS: &str = "n,quiet silent debug e,expression=!P f,file=!q follow-symlinks \
    i,in-place?!w l,line-length= posix E,regexp-extended r s,separate sandbox u,unbuffered \
    z,null-data help version";

/// The sed family.
pub const DECLS: &[Decl] = &[Decl {
    names: &["sed"],
    opts: SED_OPTS,
    style: GNU,
    operands: Operands::PatternThenContent,
    recursion: Recursion::Never,
    check: Some(sed_check),
}];

/// Every script given (`-e`, or the first operand) must be read-only.
fn sed_check(p: &Parsed<'_>, _: &mut Judgement) -> Result<(), String> {
    let mut scripts = p.values("expression");
    if scripts.is_empty() {
        scripts.extend(p.operands().next());
    }
    for s in scripts {
        check_script(s)?;
    }
    Ok(())
}

/// Commands that only print, delete from the pattern space or move text
/// between buffers.
const SAFE_COMMANDS: &str = "pdqQnNDPgGhHxl=z{}!#:btTaic";

/// Walk a sed script command by command.
pub fn check_script(script: &str) -> Result<(), String> {
    let chars: Vec<char> = script.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' | '\n' | ';' | '}' | '{' | '!' => i += 1,
            '0'..='9' | '$' | ',' | '~' | '+' => i += 1,
            '/' | '\\' => {
                // An address regex: /re/ or \cREc
                let delim = if c == '\\' {
                    i += 1;
                    *chars.get(i).ok_or("unterminated address")?
                } else {
                    '/'
                };
                i = skip_delimited(&chars, i + 1, delim)?;
                // Optional I/M flags after an address regex.
                while matches!(chars.get(i), Some('I') | Some('M')) {
                    i += 1;
                }
            }
            's' | 'y' => {
                let delim = *chars.get(i + 1).ok_or("unterminated s command")?;
                if delim == '\n' || delim == '\\' {
                    return Err("unusual s delimiter".into());
                }
                i = skip_delimited(&chars, i + 2, delim)?;
                i = skip_delimited(&chars, i, delim)?;
                if c == 's' {
                    while let Some(&f) = chars.get(i) {
                        match f {
                            'g' | 'p' | 'i' | 'I' | 'm' | 'M' | '0'..='9' => i += 1,
                            'w' | 'W' | 'e' => {
                                return Err(format!(
                                    "the s///{f} flag writes a file or runs a command"
                                ))
                            }
                            ';' | '\n' | ' ' | '}' => break,
                            other => return Err(format!("unknown s flag {other}")),
                        }
                    }
                }
            }
            'a' | 'i' | 'c' => {
                // Text to the end of the line (GNU one-liner form).
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            'b' | 't' | 'T' | ':' => {
                // A label runs to ; or newline.
                i += 1;
                while i < chars.len() && chars[i] != ';' && chars[i] != '\n' {
                    i += 1;
                }
            }
            '#' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            'w' | 'W' | 'e' | 'r' | 'R' | 'F' => {
                if matches!(c, 'r' | 'R' | 'F') {
                    return Err(format!(
                        "the {c} command reads a file the checker cannot see"
                    ));
                }
                return Err(format!("the {c} command writes a file or runs a command"));
            }
            c if SAFE_COMMANDS.contains(c) => i += 1,
            other => return Err(format!("unknown sed command {other:?}")),
        }
    }
    Ok(())
}

/// Skip to just past the next unescaped `delim`.
fn skip_delimited(chars: &[char], mut i: usize, delim: char) -> Result<usize, String> {
    while i < chars.len() {
        if chars[i] == '\\' {
            i += 2;
            continue;
        }
        if chars[i] == delim {
            return Ok(i + 1);
        }
        i += 1;
    }
    Err("unterminated regex in sed script".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts() {
        for ok in [
            "s/a/b/g",
            "1,10p",
            "/foo/d",
            "s|x|y|",
            "$p",
            "/a/,/b/p;s/x/y/2",
            "y/abc/xyz/",
            "10q",
            "s/a\\/b/c/",
        ] {
            assert!(check_script(ok).is_ok(), "{ok}");
        }
        for bad in [
            "s/a/b/w out",
            "w out",
            "1e id",
            "s/x/id/e",
            "/x/w /tmp/y",
            "r /etc/passwd",
            "s/a/b/gw f",
        ] {
            assert!(check_script(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn flags() {
        let v = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let judge = |a: &[&str]| super::super::judge("sed", &v(a));
        assert!(judge(&["-n", "1,5p", "file"]).is_ok());
        assert!(judge(&["-s", "-E", "s/a/b/", "file"]).is_ok());
        for bad in [
            &["-i", "s/a/b/", "file"][..],
            &["-ni", "p", "file"],
            &["-nie", "p", "file"],
            &["--in-place=.bak", "s/a/b/", "f"],
            &["--in", "s/a/b/", "f"],
            &["--in-pl", "s/a/b/", "f"],
            &["-e", "s/a/b/w x", "f"],
            &["-ne", "s/a/b/e", "f"],
            &["-f", "script.sed", "f"],
            &["p", "f", "-i"],
        ] {
            assert!(judge(bad).is_err(), "{bad:?}");
        }
    }
}
