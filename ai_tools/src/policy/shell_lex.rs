//! The shell lexer: characters to words (with quoting and expansions),
//! control operators and redirect operators.

use crate::policy::shell_words::{ParseError, RedirOp, Word, WordPart};

/// Control operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `|`
    Pipe,
    /// `|&`
    PipeAmp,
    /// `&&`
    AndIf,
    /// `||`
    OrIf,
    /// `;`
    Semi,
    /// `;;` (inside `case`)
    DSemi,
    /// `&`
    Amp,
    /// a newline
    Newline,
    /// `(`
    LParen,
    /// `)`
    RParen,
}

/// One token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    /// A word.
    Word(Word),
    /// A control operator.
    Op(Op),
    /// A redirect operator with its optional fd number.
    Redir(Option<u32>, RedirOp),
}

impl Token {
    /// A short description for error messages.
    pub fn describe(&self) -> String {
        match self {
            Token::Word(w) => w.lossy(),
            Token::Op(op) => format!("{op:?}"),
            Token::Redir(_, op) => format!("{op:?}"),
        }
    }
}

struct Lexer {
    chars: Vec<char>,
    pos: usize,
    tokens: Vec<Token>,
    word: Word,
    in_word: bool,
}

/// Split a command line into tokens.
pub fn lex(input: &str) -> Result<Vec<Token>, ParseError> {
    let mut lx = Lexer {
        chars: input.chars().collect(),
        pos: 0,
        tokens: Vec::new(),
        word: Word::default(),
        in_word: false,
    };
    lx.run()?;
    Ok(lx.tokens)
}

impl Lexer {
    fn at(&self, off: usize) -> Option<char> {
        self.chars.get(self.pos + off).copied()
    }

    fn push_lit(&mut self, c: char) {
        self.in_word = true;
        if let Some(WordPart::Lit(s)) = self.word.parts.last_mut() {
            s.push(c);
        } else {
            self.word.parts.push(WordPart::Lit(c.to_string()));
        }
    }

    fn push_quoted(&mut self, s: &str) {
        self.in_word = true;
        if let Some(WordPart::Quoted(q)) = self.word.parts.last_mut() {
            q.push_str(s);
        } else {
            self.word.parts.push(WordPart::Quoted(s.to_string()));
        }
    }

    fn push_part(&mut self, part: WordPart) {
        self.in_word = true;
        self.word.parts.push(part);
    }

    fn end_word(&mut self) {
        if self.in_word {
            let w = std::mem::take(&mut self.word);
            self.tokens.push(Token::Word(w));
            self.in_word = false;
        }
    }

    /// If the current word is only digits, it is the fd of a redirect.
    fn take_io_number(&mut self) -> Option<u32> {
        if let [WordPart::Lit(s)] = self.word.parts.as_slice() {
            if !s.is_empty() && s.len() <= 4 && s.chars().all(|c| c.is_ascii_digit()) {
                let n = s.parse().ok();
                self.word = Word::default();
                self.in_word = false;
                return n;
            }
        }
        self.end_word();
        None
    }

    fn op(&mut self, op: Op, len: usize) {
        self.end_word();
        self.tokens.push(Token::Op(op));
        self.pos += len;
    }

    fn redir(&mut self, op: RedirOp, len: usize) {
        let fd = self.take_io_number();
        self.tokens.push(Token::Redir(fd, op));
        self.pos += len;
    }

    fn run(&mut self) -> Result<(), ParseError> {
        while let Some(c) = self.at(0) {
            let next = self.at(1);
            match c {
                ' ' | '\t' => {
                    self.end_word();
                    self.pos += 1;
                }
                '\n' => self.op(Op::Newline, 1),
                '#' if !self.in_word => {
                    while self.at(0).is_some_and(|c| c != '\n') {
                        self.pos += 1;
                    }
                }
                '\\' => {
                    match next {
                        Some('\n') => {}
                        Some(n) => self.push_quoted(&n.to_string()),
                        None => self.push_lit('\\'),
                    }
                    self.pos += 2;
                }
                '\'' => {
                    let end = self
                        .find_char(self.pos + 1, '\'')
                        .ok_or(ParseError::Unterminated("single quote"))?;
                    let s: String = self.chars[self.pos + 1..end].iter().collect();
                    self.push_quoted(&s);
                    self.pos = end + 1;
                }
                '"' => self.double_quoted()?,
                '`' => {
                    let inner = self.backtick()?;
                    self.push_part(WordPart::CmdSubst(inner));
                }
                '$' => self.dollar(false)?,
                '|' => match next {
                    Some('|') => self.op(Op::OrIf, 2),
                    Some('&') => self.op(Op::PipeAmp, 2),
                    _ => self.op(Op::Pipe, 1),
                },
                '&' => match next {
                    Some('&') => self.op(Op::AndIf, 2),
                    Some('>') if self.at(2) == Some('>') => self.redir(RedirOp::OutErr, 3),
                    Some('>') => self.redir(RedirOp::OutErr, 2),
                    _ => self.op(Op::Amp, 1),
                },
                ';' => match next {
                    Some(';') => self.op(Op::DSemi, 2),
                    Some('&') => self.op(Op::DSemi, 2),
                    _ => self.op(Op::Semi, 1),
                },
                '(' => self.op(Op::LParen, 1),
                ')' => self.op(Op::RParen, 1),
                '<' | '>' if next == Some('(') => {
                    let end = self.matching_paren(self.pos + 1)?;
                    let inner: String = self.chars[self.pos + 2..end].iter().collect();
                    self.push_part(WordPart::ProcSubst(inner));
                    self.pos = end + 1;
                }
                '<' => match (next, self.at(2)) {
                    (Some('<'), Some('<')) => self.redir(RedirOp::HereString, 3),
                    (Some('<'), Some('-')) => self.redir(RedirOp::HereDoc, 3),
                    (Some('<'), _) => self.redir(RedirOp::HereDoc, 2),
                    (Some('>'), _) => self.redir(RedirOp::ReadWrite, 2),
                    (Some('&'), _) => self.redir(RedirOp::DupIn, 2),
                    _ => self.redir(RedirOp::In, 1),
                },
                '>' => match next {
                    Some('>') => self.redir(RedirOp::Append, 2),
                    Some('|') => self.redir(RedirOp::Out, 2),
                    Some('&') => self.redir(RedirOp::DupOut, 2),
                    _ => self.redir(RedirOp::Out, 1),
                },
                _ => {
                    self.push_lit(c);
                    self.pos += 1;
                }
            }
        }
        self.end_word();
        Ok(())
    }

    fn find_char(&self, from: usize, target: char) -> Option<usize> {
        (from..self.chars.len()).find(|&i| self.chars[i] == target)
    }

    fn double_quoted(&mut self) -> Result<(), ParseError> {
        self.pos += 1;
        // An empty "" still makes a (possibly empty) word.
        self.push_quoted("");
        loop {
            match self.at(0) {
                None => return Err(ParseError::Unterminated("double quote")),
                Some('"') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some('\\') => {
                    match self.at(1) {
                        Some(c @ ('$' | '`' | '"' | '\\')) => self.push_quoted(&c.to_string()),
                        Some('\n') => {}
                        Some(c) => {
                            self.push_quoted("\\");
                            self.push_quoted(&c.to_string());
                        }
                        None => return Err(ParseError::Unterminated("double quote")),
                    }
                    self.pos += 2;
                }
                Some('`') => {
                    let inner = self.backtick()?;
                    self.push_part(WordPart::CmdSubst(inner));
                }
                Some('$') => self.dollar(true)?,
                Some(c) => {
                    self.push_quoted(&c.to_string());
                    self.pos += 1;
                }
            }
        }
    }

    fn backtick(&mut self) -> Result<String, ParseError> {
        let mut inner = String::new();
        let mut i = self.pos + 1;
        loop {
            match self.chars.get(i) {
                None => return Err(ParseError::Unterminated("backtick")),
                Some('`') => break,
                Some('\\') if i + 1 < self.chars.len() => {
                    let n = self.chars[i + 1];
                    if !matches!(n, '`' | '\\' | '$') {
                        inner.push('\\');
                    }
                    inner.push(n);
                    i += 2;
                }
                Some(&c) => {
                    inner.push(c);
                    i += 1;
                }
            }
        }
        self.pos = i + 1;
        Ok(inner)
    }

    /// Index of the `)` matching the `(` at `open`, skipping quotes,
    /// escapes and nested parentheses.
    fn matching_paren(&self, open: usize) -> Result<usize, ParseError> {
        self.matching(open, '(', ')', "$( or <(")
    }

    fn matching(
        &self,
        open: usize,
        o: char,
        c: char,
        what: &'static str,
    ) -> Result<usize, ParseError> {
        let mut depth = 0usize;
        let mut i = open;
        while i < self.chars.len() {
            let ch = self.chars[i];
            match ch {
                '\\' => i += 1,
                '\'' => {
                    i = self
                        .find_char(i + 1, '\'')
                        .ok_or(ParseError::Unterminated("single quote"))?;
                }
                '"' => {
                    let mut j = i + 1;
                    while j < self.chars.len() && self.chars[j] != '"' {
                        if self.chars[j] == '\\' {
                            j += 1;
                        }
                        j += 1;
                    }
                    if j >= self.chars.len() {
                        return Err(ParseError::Unterminated("double quote"));
                    }
                    i = j;
                }
                _ if ch == o => depth += 1,
                _ if ch == c => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return Ok(i);
                    }
                }
                _ => {}
            }
            i += 1;
        }
        Err(ParseError::Unterminated(what))
    }

    fn dollar(&mut self, in_dquote: bool) -> Result<(), ParseError> {
        let next = self.at(1);
        match next {
            Some('(') if self.at(2) == Some('(') => {
                let end = self.matching_paren(self.pos + 1)?;
                let inner: String = self.chars
                    [self.pos + 3..end.saturating_sub(1).max(self.pos + 3)]
                    .iter()
                    .collect();
                self.push_part(WordPart::Arith(inner));
                self.pos = end + 1;
            }
            Some('(') => {
                let end = self.matching_paren(self.pos + 1)?;
                let inner: String = self.chars[self.pos + 2..end].iter().collect();
                self.push_part(WordPart::CmdSubst(inner));
                self.pos = end + 1;
            }
            // bash's older spelling of `$((…))`: `cert.p$[12]` is cert.p12.
            Some('[') => {
                let end = self.matching(self.pos + 1, '[', ']', "$[")?;
                let inner: String = self.chars[self.pos + 2..end].iter().collect();
                self.push_part(WordPart::Arith(inner));
                self.pos = end + 1;
            }
            Some('{') => {
                let end = self.matching(self.pos + 1, '{', '}', "${")?;
                let inner: String = self.chars[self.pos + 2..end].iter().collect();
                self.push_part(WordPart::Var(inner));
                self.pos = end + 1;
            }
            Some('\'') if !in_dquote => {
                let (text, end) = self.ansi_c(self.pos + 2)?;
                self.push_quoted(&text);
                self.pos = end + 1;
            }
            Some('"') if !in_dquote => {
                self.pos += 1;
                self.double_quoted()?;
            }
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                let mut end = self.pos + 1;
                while self
                    .chars
                    .get(end)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
                {
                    end += 1;
                }
                let name: String = self.chars[self.pos + 1..end].iter().collect();
                self.push_part(WordPart::Var(name));
                self.pos = end;
            }
            Some(c) if c.is_ascii_digit() || "@*#?$!-".contains(c) => {
                self.push_part(WordPart::Var(c.to_string()));
                self.pos += 2;
            }
            _ => {
                if in_dquote {
                    self.push_quoted("$");
                } else {
                    self.push_lit('$');
                }
                self.pos += 1;
            }
        }
        Ok(())
    }

    /// `$'…'` decoded as bash does (see [`crate::policy::ansi_c`]);
    /// returns the text and the index of the closing quote.
    fn ansi_c(&self, from: usize) -> Result<(String, usize), ParseError> {
        let mut i = from;
        loop {
            match self.chars.get(i) {
                None => return Err(ParseError::Unterminated("$' quote")),
                Some('\\') => i += 2,
                Some('\'') => break,
                Some(_) => i += 1,
            }
        }
        let raw: String = self.chars[from..i].iter().collect();
        Ok((crate::policy::ansi_c::decode(&raw), i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(input: &str) -> Vec<String> {
        lex(input)
            .unwrap()
            .into_iter()
            .filter_map(|t| match t {
                Token::Word(w) => Some(w.lossy()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn quotes_and_escapes() {
        assert_eq!(
            words(r#"echo 'a b' "c $HOME" d\ e"#),
            ["echo", "a b", "c $HOME", "d e"]
        );
        assert_eq!(words("printf $'a\\tb'"), ["printf", "a\tb"]);
    }

    #[test]
    fn redirect_fd() {
        let toks = lex("ls 2>&1 >/dev/null").unwrap();
        assert!(toks.contains(&Token::Redir(Some(2), RedirOp::DupOut)));
        assert!(toks.contains(&Token::Redir(None, RedirOp::Out)));
    }

    #[test]
    fn substitutions() {
        let toks = lex("echo $(rm x) `id` <(ls)").unwrap();
        let Token::Word(w) = &toks[1] else { panic!() };
        assert_eq!(w.parts, vec![WordPart::CmdSubst("rm x".into())]);
        let Token::Word(w) = &toks[2] else { panic!() };
        assert_eq!(w.parts, vec![WordPart::CmdSubst("id".into())]);
        let Token::Word(w) = &toks[3] else { panic!() };
        assert_eq!(w.parts, vec![WordPart::ProcSubst("ls".into())]);
    }

    #[test]
    fn old_arithmetic_is_arithmetic() {
        let toks = lex("cat cert.p$[12] \"$[a[1]]\"").unwrap();
        let Token::Word(w) = &toks[1] else { panic!() };
        assert_eq!(w.parts[1], WordPart::Arith("12".into()));
        let Token::Word(w) = &toks[2] else { panic!() };
        assert!(w.parts.contains(&WordPart::Arith("a[1]".into())));
        assert!(lex("echo $[1").is_err());
    }

    #[test]
    fn unterminated() {
        assert!(lex("echo 'abc").is_err());
        assert!(lex("echo $(ls").is_err());
        assert!(lex("echo \"abc").is_err());
    }
}
