//! Walking a parsed command line: the one place that turns the typed tree
//! into the steps bash would run, each with its expanded argv, its
//! wrappers peeled off (see [`wrappers`]), its redirects and the directory
//! it runs in (`cd` followed). The floor and the proof both judge these
//! steps; neither walks the tree on its own.

use std::path::{Path, PathBuf};

use crate::policy::expand::{self, Ctx, Expanded};
use crate::policy::shell_parse::{
    parse_depth, Command, RedirOp, Script, SimpleCommand, Word, MAX_DEPTH,
};
use crate::policy::wrappers::{self, Unwrapped};
use crate::workspace::canonicalize_lenient;

/// Where a step sits, for the proof (which only follows plain lists).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Context {
    /// A plain command in a list or pipeline.
    Plain,
    /// Inside syntax the proof does not follow; the reason says which.
    Unfollowed(String),
    /// Inside a command or process substitution (run to compute words).
    Substitution,
}

/// One redirect, expanded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redir {
    /// The operator.
    pub op: RedirOp,
    /// The target, expanded.
    pub target: Expanded,
    /// The target as written.
    pub written: String,
}

/// One command bash would run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// The whole argv, expanded (wrappers included).
    pub argv: Vec<String>,
    /// The words as written, before expansion (`rm -rf ~/*` is judged
    /// by the floor as written too, whatever the glob matches).
    pub written: Vec<String>,
    /// Why some word's value is unknown (`argv` then shows it as written).
    pub unknown: Option<String>,
    /// The wrappers and where the wrapped command starts.
    pub wrap: Unwrapped,
    /// `NAME=value` prefixes, the values expanded.
    pub assigns: Vec<(String, Expanded)>,
    /// Redirects in order.
    pub redirects: Vec<Redir>,
    /// The directory it runs in, if the checker can know it.
    pub cwd: Option<PathBuf>,
    /// Where it may run when `cwd` is unknown: the readings of each `cd`
    /// the checker could not follow (logical and physical). The proof
    /// abstains on an unknown directory; the floor judges every guess.
    pub guesses: Vec<PathBuf>,
    /// Where it sits.
    pub context: Context,
    /// The first word was a glob or expansion (the program is computed).
    pub computed_program: bool,
}

impl Step {
    /// The wrapped command's argv (the program and its arguments).
    pub fn command(&self) -> &[String] {
        &self.argv[self.wrap.start.min(self.argv.len())..]
    }
}

/// A whole command line, walked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Walk {
    /// Every command, in order, including those inside substitutions,
    /// subshells, groups and compound commands.
    pub steps: Vec<Step>,
    /// The first piece of structure the proof does not follow.
    pub unfollowed: Option<String>,
    /// Raw inner texts of substitutions (the floor scans them as text).
    pub substitutions: Vec<String>,
    /// Texts that should have been commands but did not parse.
    pub unparsed: Vec<String>,
}

/// Parse and walk a command line (at a nesting depth).
pub fn walk_text(text: &str, cwd: &Path, depth: usize) -> Walk {
    let mut w = Walk::default();
    if depth > MAX_DEPTH {
        w.unparsed.push(text.to_string());
        return w;
    }
    match parse_depth(text, depth) {
        Ok(script) => walk_script(&script, cwd, depth, &mut w),
        Err(_) => w.unparsed.push(text.to_string()),
    }
    w
}

/// Walk a parsed script run in `cwd`.
pub fn walk(script: &Script, cwd: &Path) -> Walk {
    let mut w = Walk::default();
    walk_script(script, cwd, 0, &mut w);
    w
}

struct Walker<'w> {
    out: &'w mut Walk,
    cwd: Option<PathBuf>,
    /// See [`Step::guesses`].
    guesses: Vec<PathBuf>,
    home: Option<PathBuf>,
    depth: usize,
}

fn walk_script(script: &Script, cwd: &Path, depth: usize, out: &mut Walk) {
    let mut walker = Walker {
        out,
        cwd: Some(cwd.to_path_buf()),
        guesses: Vec::new(),
        home: expand::home(),
        depth,
    };
    walker.script(script, &Context::Plain);
}

impl Walker<'_> {
    fn unfollowed(&mut self, why: &str) -> Context {
        if self.out.unfollowed.is_none() {
            self.out.unfollowed = Some(why.to_string());
        }
        Context::Unfollowed(why.to_string())
    }

    fn script(&mut self, script: &Script, ctx: &Context) {
        for item in &script.items {
            let ctx = if item.background {
                self.unfollowed("runs a command in the background (&)")
            } else {
                ctx.clone()
            };
            for (_, pipe) in &item.chain {
                for cmd in &pipe.commands {
                    self.command(cmd, &ctx);
                }
            }
        }
    }

    fn command(&mut self, cmd: &Command, ctx: &Context) {
        match cmd {
            Command::Simple(s) => self.simple(s, ctx),
            Command::Subshell(inner, redirects) => {
                let ctx = self.unfollowed("uses a subshell ( … )");
                self.redirects_only(redirects, &ctx);
                let saved = self.cwd.clone();
                self.script(inner, &ctx);
                self.cwd = saved;
            }
            Command::Group(inner, redirects) => {
                let ctx = self.unfollowed("uses a command group { …; }");
                self.redirects_only(redirects, &ctx);
                self.script(inner, &ctx);
            }
            Command::Keyword(kw, rest) if kw == "time" => {
                let skip = rest.words.iter().take_while(|w| w.is_bare("-p")).count();
                let inner = SimpleCommand {
                    assigns: rest.assigns.clone(),
                    words: rest.words[skip..].to_vec(),
                    redirects: rest.redirects.clone(),
                };
                if !inner.words.is_empty() || !inner.redirects.is_empty() {
                    self.simple(&inner, ctx);
                }
            }
            Command::Keyword(kw, rest) => {
                let ctx = self.unfollowed(&format!(
                    "uses shell syntax the checker does not follow ({kw})"
                ));
                if !rest.words.is_empty() || !rest.redirects.is_empty() {
                    self.simple(rest, &ctx);
                }
            }
        }
    }

    fn redirects_only(
        &mut self,
        redirects: &[crate::policy::shell_parse::Redirect],
        ctx: &Context,
    ) {
        if redirects.is_empty() {
            return;
        }
        let s = SimpleCommand {
            assigns: Vec::new(),
            words: Vec::new(),
            redirects: redirects.to_vec(),
        };
        self.simple(&s, ctx);
    }

    fn ctx(&self) -> Option<Ctx<'_>> {
        self.cwd.as_deref().map(|cwd| Ctx {
            cwd,
            home: self.home.as_deref(),
        })
    }

    fn expand(&mut self, w: &Word) -> Expanded {
        self.substitutions(w);
        match self.ctx() {
            Some(ctx) => expand::expand_word(w, &ctx),
            None => Expanded {
                words: vec![w.lossy()],
                unknown: Some("runs in a directory the checker cannot know".into()),
            },
        }
    }

    /// Walk what a word's substitutions run.
    fn substitutions(&mut self, w: &Word) {
        for inner in w.substitutions() {
            self.out.substitutions.push(inner.to_string());
            if self.depth >= MAX_DEPTH {
                self.out.unparsed.push(inner.to_string());
                continue;
            }
            let cwd = self.cwd.clone().unwrap_or_else(|| PathBuf::from("/"));
            let nested = walk_text(inner, &cwd, self.depth + 1);
            for mut step in nested.steps {
                step.context = Context::Substitution;
                self.out.steps.push(step);
            }
            self.out.substitutions.extend(nested.substitutions);
            self.out.unparsed.extend(nested.unparsed);
        }
    }

    fn simple(&mut self, s: &SimpleCommand, ctx: &Context) {
        let assigns = s
            .assigns
            .iter()
            .map(|(n, v)| (n.clone(), self.expand(v)))
            .collect();
        let mut argv = Expanded::default();
        for w in &s.words {
            let e = self.expand(w);
            argv.extend(e);
        }
        let computed_program = s
            .words
            .first()
            .is_some_and(|w| w.literal().is_none() || (w.has_glob() && !w.is_bare("[")));
        let redirects = s
            .redirects
            .iter()
            .map(|r| Redir {
                op: r.op,
                target: if matches!(r.op, RedirOp::HereDoc) {
                    Expanded {
                        words: vec![r.target.lossy()],
                        unknown: None,
                    }
                } else {
                    self.expand(&r.target)
                },
                written: r.target.lossy(),
            })
            .collect();
        let wrap = wrappers::unwrap(&argv.words);
        let step = Step {
            wrap,
            unknown: argv.unknown,
            argv: argv.words,
            written: s.words.iter().map(Word::lossy).collect(),
            assigns,
            redirects,
            cwd: self.cwd.clone(),
            guesses: self.guesses.clone(),
            context: ctx.clone(),
            computed_program,
        };
        self.follow_cd(&step);
        self.out.steps.push(step);
    }

    /// `cd DIR` (and `pushd DIR`) changes where the following commands run.
    fn follow_cd(&mut self, step: &Step) {
        let cmd = step.command();
        match cmd.first().map(String::as_str) {
            Some("cd" | "pushd") => {}
            // Back to a directory the checker did not record.
            Some("popd") => {
                self.cwd = None;
                return;
            }
            _ => return,
        }
        let target = cmd[1..].iter().find(|a| !a.starts_with('-') || *a == "-");
        let landed = match (target.map(String::as_str), &self.cwd) {
            _ if step.unknown.is_some() => None,
            (Some("-"), _) | (_, None) => None,
            (None, _) => self.home.clone(),
            (Some(t), Some(cwd)) => cd_target(t, cwd),
        };
        self.guesses = match (&landed, target) {
            (Some(_), _) => Vec::new(),
            (None, Some(t)) if t != "-" && step.unknown.is_none() => {
                let from: Vec<PathBuf> = self.cwd.iter().chain(&self.guesses).cloned().collect();
                let mut guesses: Vec<PathBuf> =
                    from.iter().flat_map(|d| cd_readings(t, d)).collect();
                guesses.sort();
                guesses.dedup();
                guesses
            }
            (None, _) => std::mem::take(&mut self.guesses),
        };
        self.cwd = landed;
    }
}

/// The two directories `cd T` from `cwd` may mean: bash's logical reading
/// (`..` removed lexically) and the kernel's physical one.
fn cd_readings(t: &str, cwd: &Path) -> [PathBuf; 2] {
    let joined = if Path::new(t).is_absolute() {
        PathBuf::from(t)
    } else {
        cwd.join(t)
    };
    [
        canonicalize_lenient(&crate::workspace::normalize(&joined)),
        crate::workspace::physical(&joined, true),
    ]
}

/// Where `cd T` from `cwd` (canonical) lands, when the checker can be sure.
/// bash's `cd` removes `..` lexically (`-L`), `cd -P` and the kernel climb
/// from a symlink's target, and a logical path that does not exist makes
/// bash fall back to the physical one: `cd link/..` with `link` pointing
/// at `/proc/self` is the workspace for one reading and `/proc` for the
/// other. Only a directory both readings agree on is followed; otherwise
/// (or if it does not exist, so `cd` fails and `;` runs on in the old
/// directory) the directory is unknown.
fn cd_target(t: &str, cwd: &Path) -> Option<PathBuf> {
    let [logical, physical] = cd_readings(t, cwd);
    (logical == physical && physical.is_dir()).then_some(physical)
}

/// Resolve a path argument against a working directory as the kernel will
/// when a program opens it: `..` after a symlink climbs from its target
/// (see [`crate::workspace::physical`]). The last component is not
/// followed (a caller reading contents canonicalises it).
pub fn resolve_arg(arg: &str, cwd: &Path) -> PathBuf {
    let p = Path::new(arg);
    if p.is_absolute() {
        crate::workspace::physical(p, false)
    } else {
        crate::workspace::physical(&cwd.join(p), false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(cmd: &str, cwd: &Path) -> Walk {
        walk_text(cmd, cwd, 0)
    }

    #[test]
    fn follows_cd_and_marks_where_steps_sit() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        std::fs::create_dir(dir.path().join("sub")).unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
        let w = steps("cd sub && ls; cd -; ls", &root);
        let cwds: Vec<Option<PathBuf>> = w.steps.iter().map(|s| s.cwd.clone()).collect();
        assert_eq!(cwds[0], Some(root.clone()));
        assert_eq!(cwds[1], Some(root.join("sub")));
        assert_eq!(cwds[3], None, "cd - leaves the directory unknown");

        let w = steps("echo $(rm -rf x) | (cat) &", &root);
        assert!(w.steps.iter().any(|s| s.context == Context::Substitution));
        assert_eq!(w.substitutions, ["rm -rf x"]);
        assert!(w.unfollowed.is_some());
        let rm = w
            .steps
            .iter()
            .find(|s| s.argv.first().map(String::as_str) == Some("rm"))
            .unwrap_or_else(|| panic!("no rm step"));
        assert_eq!(rm.argv, ["rm", "-rf", "x"]);
    }

    #[test]
    fn expands_and_unwraps_once_for_both_judges() {
        let root = PathBuf::from("/");
        let w = steps("timeout 5 find . {-delete,-print} > /dev/null", &root);
        let s = &w.steps[0];
        assert_eq!(s.command(), ["find", ".", "-delete", "-print"]);
        assert_eq!(s.wrap.names, ["timeout"]);
        assert_eq!(s.written, ["timeout", "5", "find", ".", "{-delete,-print}"]);
        assert_eq!(s.redirects[0].target.words, ["/dev/null"]);
        let w = steps("cat $X", &root);
        assert!(w.steps[0].unknown.is_some());
        assert!(steps("echo 'unterminated", &root).unparsed.len() == 1);
    }
}
