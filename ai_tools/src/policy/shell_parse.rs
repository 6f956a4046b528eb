//! A small POSIX-ish shell lexer and parser, just enough to judge commands:
//! words with their quoting and expansions, operators, redirects, lists,
//! pipelines, subshells and groups. Anything fancier (loops, functions,
//! `case`) is kept as a keyword marker so callers can abstain, while the
//! words inside are still visible to the floor.

pub use super::shell_words::{ParseError, RedirOp, Word, WordPart};

/// Deepest nesting of `$( )`, subshells and groups the parser follows;
/// beyond this the input is refused (it is never a legitimate command).
pub const MAX_DEPTH: usize = 16;

/// Longest command the parser looks at; longer ones are refused so a
/// hostile string cannot make the policy slow.
pub const MAX_INPUT: usize = 64 * 1024;

/// One redirect, e.g. `2>&1` or `> out.txt`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    /// The explicit fd before the operator, if any.
    pub fd: Option<u32>,
    /// The operator.
    pub op: RedirOp,
    /// The target word (a file, an fd number, or a here-doc delimiter).
    pub target: Word,
}

/// A plain command: assignments, words, redirects.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SimpleCommand {
    /// `NAME=value` prefixes.
    pub assigns: Vec<(String, Word)>,
    /// The command name and its arguments.
    pub words: Vec<Word>,
    /// Redirects, in order.
    pub redirects: Vec<Redirect>,
}

/// One element of a pipeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// A plain command.
    Simple(SimpleCommand),
    /// `( … )`
    Subshell(Script, Vec<Redirect>),
    /// `{ …; }`
    Group(Script, Vec<Redirect>),
    /// A compound-command keyword (`if`, `for`, `while`, `case`, `[[`,
    /// a function definition, …) with the plain words that followed it.
    Keyword(String, SimpleCommand),
}

/// Commands joined by `|` or `|&`, optionally negated with `!`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Pipeline {
    /// `!` in front.
    pub negated: bool,
    /// The commands, left to right.
    pub commands: Vec<Command>,
}

/// How a pipeline is joined to the one before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Connector {
    /// First in its list item, or after `;`/newline.
    Start,
    /// `&&`
    And,
    /// `||`
    Or,
}

/// One `&&`/`||` chain, ended by `;`, `&` or a newline.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ListItem {
    /// The pipelines and how each joins the previous.
    pub chain: Vec<(Connector, Pipeline)>,
    /// Ended by `&`.
    pub background: bool,
}

/// A whole command line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Script {
    /// The list items in order.
    pub items: Vec<ListItem>,
}

impl Script {
    /// Every command in the script, depth-first, including inside
    /// subshells and groups (not inside substitutions).
    pub fn commands(&self) -> Vec<&Command> {
        let mut out = Vec::new();
        collect(self, &mut out);
        out
    }
}

fn collect<'a>(script: &'a Script, out: &mut Vec<&'a Command>) {
    for item in &script.items {
        for (_, pipe) in &item.chain {
            for cmd in &pipe.commands {
                out.push(cmd);
                if let Command::Subshell(inner, _) | Command::Group(inner, _) = cmd {
                    collect(inner, out);
                }
            }
        }
    }
}

/// Parse a command line.
pub fn parse(input: &str) -> Result<Script, ParseError> {
    parse_depth(input, 0)
}

/// Parse at a given nesting depth (substitutions parse their inner text
/// with `depth + 1`).
pub fn parse_depth(input: &str, depth: usize) -> Result<Script, ParseError> {
    if depth > MAX_DEPTH || input.len() > MAX_INPUT {
        return Err(ParseError::TooComplex);
    }
    let tokens = crate::policy::shell_lex::lex(input)?;
    let mut p = Parser {
        tokens,
        pos: 0,
        depth,
    };
    let script = p.script(None)?;
    if p.pos < p.tokens.len() {
        return Err(ParseError::Unexpected(p.tokens[p.pos].describe()));
    }
    Ok(script)
}

use crate::policy::shell_lex::{Op, Token};

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    depth: usize,
}

/// Words that start a compound command or are reserved inside one.
const KEYWORDS: &[&str] = &[
    "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac",
    "in", "function", "select", "[[", "]]", "coproc", "time",
];

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn peek_op(&self) -> Option<Op> {
        match self.peek() {
            Some(Token::Op(op)) => Some(*op),
            _ => None,
        }
    }

    fn skip_newlines(&mut self) {
        while self.peek_op() == Some(Op::Newline) {
            self.pos += 1;
        }
    }

    /// Parse list items until the end or the closing token (`)` or `}`).
    fn script(&mut self, close: Option<&str>) -> Result<Script, ParseError> {
        if self.depth > MAX_DEPTH {
            return Err(ParseError::TooComplex);
        }
        let mut script = Script::default();
        loop {
            self.skip_newlines();
            match self.peek() {
                None => break,
                Some(Token::Op(Op::RParen)) if close == Some(")") => break,
                Some(Token::Word(w)) if close == Some("}") && w.is_bare("}") => break,
                Some(Token::Op(Op::Semi)) if script.items.is_empty() => {
                    return Err(ParseError::Unexpected(";".into()))
                }
                _ => {}
            }
            let item = self.list_item(close)?;
            script.items.push(item);
        }
        Ok(script)
    }

    fn list_item(&mut self, close: Option<&str>) -> Result<ListItem, ParseError> {
        let mut item = ListItem::default();
        let first = self.pipeline(close)?;
        item.chain.push((Connector::Start, first));
        loop {
            match self.peek_op() {
                Some(Op::AndIf) | Some(Op::OrIf) => {
                    let conn = if self.peek_op() == Some(Op::AndIf) {
                        Connector::And
                    } else {
                        Connector::Or
                    };
                    self.pos += 1;
                    self.skip_newlines();
                    let next = self.pipeline(close)?;
                    item.chain.push((conn, next));
                }
                Some(Op::Semi) | Some(Op::Newline) | Some(Op::DSemi) => {
                    self.pos += 1;
                    return Ok(item);
                }
                Some(Op::Amp) => {
                    self.pos += 1;
                    item.background = true;
                    return Ok(item);
                }
                _ => return Ok(item),
            }
        }
    }

    fn pipeline(&mut self, close: Option<&str>) -> Result<Pipeline, ParseError> {
        let mut pipe = Pipeline::default();
        if matches!(self.peek(), Some(Token::Word(w)) if w.is_bare("!")) {
            pipe.negated = true;
            self.pos += 1;
        }
        pipe.commands.push(self.command(close)?);
        while matches!(self.peek_op(), Some(Op::Pipe) | Some(Op::PipeAmp)) {
            self.pos += 1;
            self.skip_newlines();
            pipe.commands.push(self.command(close)?);
        }
        Ok(pipe)
    }

    fn command(&mut self, close: Option<&str>) -> Result<Command, ParseError> {
        match self.peek() {
            Some(Token::Op(Op::LParen)) => {
                self.pos += 1;
                self.depth += 1;
                let inner = self.script(Some(")"))?;
                self.depth -= 1;
                if self.peek_op() != Some(Op::RParen) {
                    return Err(ParseError::Unterminated("subshell"));
                }
                self.pos += 1;
                let redirects = self.trailing_redirects()?;
                Ok(Command::Subshell(inner, redirects))
            }
            Some(Token::Word(w)) if w.is_bare("{") => {
                self.pos += 1;
                self.depth += 1;
                let inner = self.script(Some("}"))?;
                self.depth -= 1;
                match self.peek() {
                    Some(Token::Word(w)) if w.is_bare("}") => self.pos += 1,
                    _ => return Err(ParseError::Unterminated("group")),
                }
                let redirects = self.trailing_redirects()?;
                Ok(Command::Group(inner, redirects))
            }
            Some(Token::Word(w))
                if w.literal().is_some_and(|s| KEYWORDS.contains(&s.as_str()))
                    && matches!(w.parts.as_slice(), [WordPart::Lit(_)]) =>
            {
                let kw = w.literal().unwrap_or_default();
                self.pos += 1;
                let rest = self.simple(close, true)?;
                Ok(Command::Keyword(kw, rest))
            }
            Some(Token::Word(_)) | Some(Token::Redir(..)) => {
                let simple = self.simple(close, false)?;
                // `name() { …; }`: a function definition.
                if self.peek_op() == Some(Op::LParen)
                    && simple.words.len() == 1
                    && simple.redirects.is_empty()
                {
                    self.pos += 1;
                    if self.peek_op() != Some(Op::RParen) {
                        return Err(ParseError::Unexpected("(".into()));
                    }
                    self.pos += 1;
                    return Ok(Command::Keyword("function".into(), simple));
                }
                Ok(Command::Simple(simple))
            }
            Some(tok) => Err(ParseError::Unexpected(tok.describe())),
            None => Err(ParseError::Unexpected("end of input".into())),
        }
    }

    fn trailing_redirects(&mut self) -> Result<Vec<Redirect>, ParseError> {
        let mut out = Vec::new();
        while let Some(Token::Redir(fd, op)) = self.peek().cloned() {
            self.pos += 1;
            out.push(self.redirect_target(fd, op)?);
        }
        Ok(out)
    }

    fn redirect_target(&mut self, fd: Option<u32>, op: RedirOp) -> Result<Redirect, ParseError> {
        match self.peek() {
            Some(Token::Word(w)) => {
                let target = w.clone();
                self.pos += 1;
                Ok(Redirect { fd, op, target })
            }
            _ => Err(ParseError::Unexpected("redirect without a target".into())),
        }
    }

    /// Words, assignments and redirects up to an operator. After a keyword
    /// (`keyword_rest`), a closing `}` or `(` stops nothing special.
    fn simple(
        &mut self,
        close: Option<&str>,
        keyword_rest: bool,
    ) -> Result<SimpleCommand, ParseError> {
        let mut cmd = SimpleCommand::default();
        while let Some(tok) = self.peek().cloned() {
            match tok {
                Token::Op(_) => break,
                Token::Redir(fd, op) => {
                    self.pos += 1;
                    let r = self.redirect_target(fd, op)?;
                    cmd.redirects.push(r);
                }
                Token::Word(w) => {
                    if close == Some("}") && w.is_bare("}") && !keyword_rest {
                        break;
                    }
                    self.pos += 1;
                    if cmd.words.is_empty() && !keyword_rest {
                        if let Some((name, value)) = split_assignment(&w) {
                            cmd.assigns.push((name, value));
                            continue;
                        }
                    }
                    cmd.words.push(w);
                }
            }
        }
        if cmd.words.is_empty()
            && cmd.assigns.is_empty()
            && cmd.redirects.is_empty()
            && !keyword_rest
        {
            return Err(ParseError::Unexpected(
                self.peek()
                    .map_or_else(|| "end of input".into(), Token::describe),
            ));
        }
        Ok(cmd)
    }
}

/// `NAME=value` with an unquoted valid name becomes an assignment.
fn split_assignment(w: &Word) -> Option<(String, Word)> {
    let WordPart::Lit(first) = w.parts.first()? else {
        return None;
    };
    let eq = first.find('=')?;
    let name = &first[..eq];
    let valid = !name.is_empty()
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid {
        return None;
    }
    let mut value = Word::default();
    let rest = &first[eq + 1..];
    if !rest.is_empty() {
        value.parts.push(WordPart::Lit(rest.to_string()));
    }
    value.parts.extend(w.parts.iter().skip(1).cloned());
    Some((name.to_string(), value))
}
