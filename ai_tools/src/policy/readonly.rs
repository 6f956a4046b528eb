//! The read-only proof: a command line auto-runs only if every part of it
//! is proven not to change anything. Anything the proof cannot see through
//! (substitutions, subshells, here-docs, background jobs, unknown programs,
//! variable expansion in command position, redirects to files) abstains.

use std::path::{Path, PathBuf};

use crate::policy::credentials;
use crate::policy::glob;
use crate::policy::programs::{self, PathRole};
use crate::policy::shell_parse::{
    Command, RedirOp, Redirect, Script, SimpleCommand, Word, WordPart,
};
use crate::policy::unicode;
use crate::workspace::{canonicalize_lenient, expand_tilde, normalize, Workspace};

/// Variables whose expansion in an argument is harmless and whose value the
/// proof can know (secrets are scrubbed from the environment anyway).
const KNOWN_VARS: &[&str] = &[
    "HOME", "PWD", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "PATH", "TMPDIR",
];

/// Prefix assignments that cannot make a read-only program run code.
/// `LD_PRELOAD`, `GIT_*`, `PAGER` and the like are exactly the ones that can.
const SAFE_ASSIGNMENTS: &[&str] = &[
    "LC_ALL", "LANG", "LANGUAGE", "TZ", "NO_COLOR", "COLUMNS", "LINES", "TERM",
];

/// Most directory entries the proof walks to check that a recursive
/// search would not read a credential; bigger trees are not proven (ask).
pub const MAX_WALK_ENTRIES: usize = 20_000;

/// Expand a word the proof can fully know: literals, a leading `~`, and
/// [`KNOWN_VARS`]. `None` for substitutions or any other variable.
pub fn expand_known(w: &Word, cwd: &Path) -> Option<String> {
    let mut out = String::new();
    for (i, part) in w.parts.iter().enumerate() {
        match part {
            WordPart::Lit(s) if i == 0 && (s == "~" || s.starts_with("~/")) => {
                out.push_str(&expand_tilde(s).to_string_lossy());
            }
            WordPart::Lit(s) | WordPart::Quoted(s) => out.push_str(s),
            WordPart::Var(v) if KNOWN_VARS.contains(&v.as_str()) => {
                if v == "PWD" {
                    out.push_str(&cwd.to_string_lossy());
                } else {
                    out.push_str(&std::env::var(v).unwrap_or_default());
                }
            }
            _ => return None,
        }
    }
    Some(out)
}

/// Resolve a path argument against the command's working directory.
pub fn resolve_arg(arg: &str, cwd: &Path) -> PathBuf {
    let p = expand_tilde(arg);
    if p.is_absolute() {
        normalize(&p)
    } else {
        normalize(&cwd.join(p))
    }
}

/// Prove the script read-only, or say why not.
pub fn prove(script: &Script, ws: &Workspace, cwd: &Path) -> Result<(), String> {
    let mut cwd = cwd.to_path_buf();
    for item in &script.items {
        if item.background {
            return Err("runs a command in the background (&)".into());
        }
        for (_, pipe) in &item.chain {
            for cmd in &pipe.commands {
                match cmd {
                    Command::Simple(simple) => prove_simple(simple, ws, &mut cwd)?,
                    Command::Subshell(..) => return Err("uses a subshell ( … )".into()),
                    Command::Group(..) => return Err("uses a command group { …; }".into()),
                    Command::Keyword(kw, rest) if kw == "time" => {
                        let skip = rest.words.iter().take_while(|w| w.is_bare("-p")).count();
                        let inner = SimpleCommand {
                            assigns: Vec::new(),
                            words: rest.words[skip..].to_vec(),
                            redirects: rest.redirects.clone(),
                        };
                        if !inner.words.is_empty() {
                            prove_simple(&inner, ws, &mut cwd)?;
                        }
                    }
                    Command::Keyword(kw, _) => {
                        return Err(format!(
                            "uses shell syntax the checker does not follow ({kw})"
                        ))
                    }
                }
            }
        }
    }
    Ok(())
}

fn prove_simple(cmd: &SimpleCommand, ws: &Workspace, cwd: &mut PathBuf) -> Result<(), String> {
    for (name, value) in &cmd.assigns {
        if cmd.words.is_empty() {
            return Err(format!("sets a shell variable ({name}=…)"));
        }
        if !SAFE_ASSIGNMENTS.contains(&name.as_str()) {
            return Err(format!(
                "sets {name} for the command, which can change what it runs"
            ));
        }
        if value.literal().is_none() {
            return Err(format!("computes the value of {name}"));
        }
    }
    for w in &cmd.words {
        if w.substitutions().next().is_some() {
            return Err(format!("contains a substitution in {}", w.lossy()));
        }
        if unicode::has_tricky_chars(&w.lossy()) {
            return Err(format!(
                "contains look-alike or invisible characters in {:?}",
                unicode::visible(&w.lossy())
            ));
        }
    }
    let Some(first) = cmd.words.first() else {
        // Only redirects, e.g. `> file`: creates or truncates a file.
        for r in &cmd.redirects {
            check_redirect(r, cwd)?;
        }
        return Ok(());
    };
    if first.vars().next().is_some() || first.literal().is_none() {
        return Err("expands a variable in command position".into());
    }
    if first.has_glob() && !first.is_bare("[") {
        return Err("uses a glob in command position".into());
    }
    let name = first.literal().unwrap_or_default();
    let program = program_name(&name)?;
    let mut args = Vec::with_capacity(cmd.words.len() - 1);
    for w in &cmd.words[1..] {
        match expand_known(w, cwd) {
            Some(a) => args.push((a, w.has_glob())),
            None => {
                return Err(format!(
                    "expands a variable the checker cannot know in {}",
                    w.lossy()
                ))
            }
        }
    }
    for r in &cmd.redirects {
        check_redirect(r, cwd)?;
    }
    let plain: Vec<String> = args.iter().map(|(a, _)| a.clone()).collect();
    if let Some(skip) = wrapper_skip(program, &plain) {
        let inner = SimpleCommand {
            assigns: Vec::new(),
            words: cmd.words[1 + skip..].to_vec(),
            redirects: cmd.redirects.clone(),
        };
        if inner.words.is_empty() {
            return Ok(());
        }
        return prove_simple(&inner, ws, cwd);
    }
    let spec = programs::lookup(program)
        .ok_or_else(|| format!("{program} is not a known read-only program"))?;
    (spec.check)(&plain).map_err(|why| format!("{program}: {why}"))?;
    let roles = programs::path_args(program, &plain);
    for (i, (arg, glob)) in args.iter().enumerate() {
        let role = roles.get(i).copied().unwrap_or(PathRole::NotPath);
        check_path_arg(arg, *glob, role, cwd)?;
    }
    if program == "cd" {
        let target = plain.iter().find(|a| !a.starts_with('-'));
        match target.map(String::as_str) {
            Some("-") => return Err("cd - depends on history the checker cannot see".into()),
            Some(t) => *cwd = canonicalize_lenient(&resolve_arg(t, cwd)),
            None => *cwd = dirs::home_dir().unwrap_or_else(|| cwd.clone()),
        }
    }
    for dir in programs::recursive_roots(program, &plain) {
        let root = canonicalize_lenient(&resolve_arg(&dir.path, cwd));
        if tree_has_credentials(&root, dir.hidden, dir.ignore_files)? {
            return Err(format!(
                "{program} would search {} recursively, and it holds credential files",
                ws.display(&root)
            ));
        }
    }
    Ok(())
}

/// For `timeout` and `nice`, how many of their own arguments come before
/// the wrapped command (which is then proven on its own).
fn wrapper_skip(program: &str, args: &[String]) -> Option<usize> {
    let takes_value: &[&str] = match program {
        "timeout" => &["-s", "-k", "--signal", "--kill-after"],
        "nice" => &["-n", "--adjustment"],
        _ => return None,
    };
    let mut i = 0;
    while i < args.len() && args[i].starts_with('-') && args[i] != "--" {
        if takes_value.contains(&args[i].as_str()) {
            i += 1;
        }
        i += 1;
    }
    if args.get(i).map(String::as_str) == Some("--") {
        i += 1;
    }
    if program == "timeout" {
        // The duration.
        i += 1;
    }
    Some(i.min(args.len()))
}

/// The program's bare name; a path is accepted only in the system bin dirs.
fn program_name(name: &str) -> Result<&str, String> {
    if !name.contains('/') {
        return Ok(name);
    }
    const SYSTEM_BINS: &[&str] = &[
        "/bin/",
        "/usr/bin/",
        "/usr/local/bin/",
        "/sbin/",
        "/usr/sbin/",
    ];
    match SYSTEM_BINS.iter().find(|d| name.starts_with(*d)) {
        Some(dir) if !name[dir.len()..].contains('/') => Ok(&name[dir.len()..]),
        _ => Err(format!("runs {name}, which is not a system program")),
    }
}

/// Only `/dev/null` targets, fd duplication (`2>&1`) and reading a file
/// (`< file`) are read-only.
fn check_redirect(r: &Redirect, cwd: &Path) -> Result<(), String> {
    let target = r.target.literal();
    match r.op {
        RedirOp::HereDoc | RedirOp::HereString => Err("uses a here-document".into()),
        RedirOp::ReadWrite => Err("opens a file for writing (<>)".into()),
        RedirOp::DupOut | RedirOp::DupIn => match target.as_deref() {
            Some(t) if t == "-" || t.chars().all(|c| c.is_ascii_digit()) && !t.is_empty() => Ok(()),
            Some("/dev/null") => Ok(()),
            _ => Err(format!("redirects output to {}", r.target.lossy())),
        },
        RedirOp::Out | RedirOp::Append | RedirOp::OutErr => match target.as_deref() {
            Some("/dev/null" | "/dev/stdout" | "/dev/stderr") => Ok(()),
            _ => Err(format!("writes to {}", r.target.lossy())),
        },
        RedirOp::In => {
            let t = expand_known(&r.target, cwd).ok_or("reads from a computed file name")?;
            if r.target.has_glob() {
                return Err("reads from a glob".into());
            }
            check_path_arg(&t, false, PathRole::Content, cwd)
        }
    }
}

/// A path argument must not name a credential (as written or after
/// following symlinks), and a glob read for content must not be able to
/// match one.
fn check_path_arg(arg: &str, glob: bool, role: PathRole, cwd: &Path) -> Result<(), String> {
    if role == PathRole::NotPath {
        return Ok(());
    }
    if glob && arg.contains('{') {
        for word in glob::brace_expand(arg) {
            check_one_path(&word, glob::has_wildcards(&word), role, cwd)?;
        }
        return Ok(());
    }
    check_one_path(arg, glob, role, cwd)
}

fn check_one_path(arg: &str, glob: bool, role: PathRole, cwd: &Path) -> Result<(), String> {
    let pieces = std::iter::once(arg).chain(arg.split_once('=').map(|(_, v)| v));
    for piece in pieces {
        let resolved = resolve_arg(piece, cwd);
        let canonical = canonicalize_lenient(&resolved);
        if let Some(why) = credentials::path_reason(Path::new(piece), &canonical) {
            return Err(why);
        }
    }
    if let Some(dev) = resolve_arg(arg, cwd)
        .to_str()
        .filter(|p| p.starts_with("/dev/"))
    {
        if !matches!(
            dev,
            "/dev/null" | "/dev/zero" | "/dev/stdin" | "/dev/urandom" | "/dev/random"
        ) && !dev.starts_with("/dev/fd/")
        {
            return Err(format!("reads the device {dev}"));
        }
    }
    if glob && role == PathRole::Content {
        match glob::expand(arg, cwd) {
            Some(paths) => {
                for p in paths {
                    let canonical = canonicalize_lenient(&p);
                    if let Some(why) = credentials::path_reason(&p, &canonical) {
                        return Err(format!("the glob {arg} matches a credential: {why}"));
                    }
                }
            }
            None if glob_may_match_credential(arg) => {
                return Err(format!("the glob {arg} could match a credential file"));
            }
            None => {}
        }
    }
    Ok(())
}

/// Could the last component of this glob match a credential name?
pub fn glob_may_match_credential(glob: &str) -> bool {
    let last = glob.rsplit('/').next().unwrap_or(glob);
    let mut re = String::from("^");
    let mut chars = last.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' => re.push_str(".*"),
            '?' => re.push('.'),
            '[' | '{' => {
                // A class or brace list: allow anything for its span.
                let close = if c == '[' { ']' } else { '}' };
                for n in chars.by_ref() {
                    if n == close {
                        break;
                    }
                }
                re.push_str(".*");
            }
            c => re.push_str(&regex::escape(&c.to_string())),
        }
    }
    re.push('$');
    let Ok(re) = regex::Regex::new(&re) else {
        return true;
    };
    credentials::CREDENTIAL_SAMPLES.iter().any(|sample| {
        // Without dotglob a leading wildcard does not match a dot file.
        let dot_ok = !sample.starts_with('.') || last.starts_with('.');
        dot_ok && re.is_match(sample)
    })
}

/// Walk `root` (bounded) looking for credential files a recursive search
/// would read. Too big a tree counts as "might".
pub fn tree_has_credentials(root: &Path, hidden: bool, ignore_files: bool) -> Result<bool, String> {
    if root.is_file() {
        return Ok(credentials::credential_reason(&root.to_string_lossy()).is_some());
    }
    let walker = ignore::WalkBuilder::new(root)
        .hidden(!hidden)
        .git_ignore(ignore_files)
        .git_global(ignore_files)
        .git_exclude(ignore_files)
        .ignore(ignore_files)
        .parents(ignore_files)
        .follow_links(false)
        .build();
    for (n, entry) in walker.enumerate() {
        if n >= MAX_WALK_ENTRIES {
            return Err(format!(
                "the tree under {} is too big to check for credential files",
                root.display()
            ));
        }
        let Ok(entry) = entry else { continue };
        let path = entry.path();
        let Ok(rel) = path.strip_prefix(root) else {
            continue;
        };
        if credentials::credential_reason(&rel.to_string_lossy()).is_some() {
            return Ok(true);
        }
        // A symlink inside the tree pointing at a credential.
        if entry.path_is_symlink() {
            let target = canonicalize_lenient(path);
            if credentials::credential_reason(&target.to_string_lossy()).is_some() {
                return Ok(true);
            }
        }
    }
    Ok(false)
}
