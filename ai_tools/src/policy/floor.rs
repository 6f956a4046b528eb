//! The floor for shell commands, held in every mode: credentials are never
//! read or written, obviously catastrophic commands never run, and writes
//! outside the workspace are asked about. It looks through look-alike
//! characters, substitutions, `sh -c` strings and wrappers like `sudo`.

use std::path::{Path, PathBuf};

use crate::policy::credentials::{self, credential_reason};
use crate::policy::glob;
use crate::policy::programs::{self, PathRole};
use crate::policy::readonly::{expand_known, resolve_arg};
use crate::policy::shell_parse::{
    parse_depth, Command, RedirOp, Script, SimpleCommand, Word, MAX_DEPTH,
};
use crate::policy::unicode::fold;
use crate::workspace::{canonicalize_lenient, Workspace};

/// The floor's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Floor {
    /// Nothing the floor objects to.
    Clear,
    /// Must be asked about in every mode (denied where asking is not possible).
    Ask(String),
    /// Never, in any mode.
    Deny(String),
}

impl Floor {
    fn worse(self, other: Floor) -> Floor {
        match (&self, &other) {
            (Floor::Deny(_), _) => self,
            (_, Floor::Deny(_)) => other,
            (Floor::Ask(_), _) => self,
            (_, Floor::Ask(_)) => other,
            _ => Floor::Clear,
        }
    }
}

/// Top-level system directories; removing or re-owning one is catastrophic.
const SYSTEM_DIRS: &[&str] = &[
    "/",
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/home",
    "/lib",
    "/lib32",
    "/lib64",
    "/opt",
    "/proc",
    "/root",
    "/sbin",
    "/srv",
    "/sys",
    "/usr",
    "/var",
    "/Users",
    "/System",
    "/Library",
    "/Applications",
];

/// Programs that pass the rest of their arguments on as a command.
const WRAPPERS: &[&str] = &[
    "sudo", "doas", "env", "nice", "nohup", "timeout", "time", "command", "exec", "stdbuf",
    "ionice", "xargs", "watch", "strace", "chrt", "taskset", "setsid", "unbuffer", "builtin",
    "busybox", "su",
];

/// Shells whose `-c` argument is itself a command line.
const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "fish", "ash", "mksh"];

/// Programs that write to their path arguments.
const WRITERS: &[&str] = &[
    "rm", "rmdir", "mv", "cp", "ln", "touch", "mkdir", "chmod", "chown", "chgrp", "tee",
    "truncate", "install", "shred", "rsync", "unlink", "dd", "patch",
];

/// Judge a whole command line run in `cwd`.
pub fn shell_floor(command: &str, ws: &Workspace, cwd: &Path) -> Floor {
    let folded = fold(command);
    if looks_like_fork_bomb(&folded) {
        return Floor::Deny("this looks like a fork bomb".into());
    }
    match parse_depth(&folded, 0) {
        Ok(script) => script_floor(&script, ws, cwd, 0),
        Err(_) => raw_floor(&folded),
    }
}

fn looks_like_fork_bomb(s: &str) -> bool {
    let squeezed: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    squeezed.contains("(){")
        && squeezed.contains('|')
        && squeezed.contains('&')
        && squeezed.contains("};")
}

/// When the command does not parse, look for the worst patterns in the text.
fn raw_floor(text: &str) -> Floor {
    let lower = text.to_lowercase();
    let patterns = [
        (
            r"\brm\s+(-[a-z]*\s+)*-[a-z]*r[a-z]*\s+(-[a-z]*\s+)*(/|~|\$home)(\s|/?\*|/?$)",
            "removes / or the home directory",
        ),
        (r"\bmkfs", "formats a file system"),
        (
            r"of=/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk|dm-|mapper)",
            "writes to a block device",
        ),
        (
            r">\s*/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk|dm-|mapper)",
            "writes to a block device",
        ),
        (r"--no-preserve-root", "disables rm's root protection"),
    ];
    for (pat, why) in patterns {
        if regex::Regex::new(pat).is_ok_and(|re| re.is_match(&lower)) {
            return Floor::Deny(format!("refused: the command {why}"));
        }
    }
    if let Some(why) = text
        .split(|c: char| c.is_whitespace() || "'\"<>|;&()=:@".contains(c))
        .find_map(credential_reason)
    {
        return Floor::Deny(why);
    }
    Floor::Clear
}

fn script_floor(script: &Script, ws: &Workspace, cwd: &Path, depth: usize) -> Floor {
    let mut verdict = Floor::Clear;
    let mut cwd = cwd.to_path_buf();
    for cmd in script.commands() {
        let (simple, redirects) = match cmd {
            Command::Simple(s) | Command::Keyword(_, s) => (s, &s.redirects),
            Command::Subshell(_, r) | Command::Group(_, r) => (&EMPTY, r),
        };
        for r in redirects {
            verdict = verdict.worse(redirect_floor(r.op, &r.target, ws, &cwd));
            verdict = verdict.worse(substitutions_floor(&r.target, ws, &cwd, depth));
        }
        for (_, value) in &simple.assigns {
            verdict = verdict.worse(substitutions_floor(value, ws, &cwd, depth));
        }
        for w in &simple.words {
            verdict = verdict.worse(substitutions_floor(w, ws, &cwd, depth));
        }
        let words: Vec<String> = simple
            .words
            .iter()
            .map(|w| expand_known(w, &cwd).unwrap_or_else(|| w.lossy()))
            .collect();
        verdict = verdict.worse(words_floor(&words, ws, &mut cwd, depth));
        if matches!(verdict, Floor::Deny(_)) {
            return verdict;
        }
    }
    verdict
}

static EMPTY: SimpleCommand = SimpleCommand {
    assigns: Vec::new(),
    words: Vec::new(),
    redirects: Vec::new(),
};

fn substitutions_floor(w: &Word, ws: &Workspace, cwd: &Path, depth: usize) -> Floor {
    let mut verdict = Floor::Clear;
    for inner in w.substitutions() {
        // Whatever a substitution prints becomes arguments: a credential
        // named anywhere inside it is as good as named outside.
        if let Some(why) = inner
            .split(|c: char| c.is_whitespace() || "'\"<>|;&()=:@`$".contains(c))
            .find_map(credential_reason)
        {
            return Floor::Deny(why);
        }
        verdict = verdict.worse(nested(inner, ws, cwd, depth));
    }
    verdict
}

fn nested(text: &str, ws: &Workspace, cwd: &Path, depth: usize) -> Floor {
    if depth >= MAX_DEPTH {
        return Floor::Ask("nested too deeply to check".into());
    }
    match parse_depth(text, depth + 1) {
        Ok(script) => script_floor(&script, ws, cwd, depth + 1),
        Err(_) => raw_floor(text),
    }
}

fn is_block_device(path: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "/dev/sd",
        "/dev/hd",
        "/dev/vd",
        "/dev/xvd",
        "/dev/nvme",
        "/dev/mmcblk",
        "/dev/disk",
        "/dev/dm-",
        "/dev/mapper/",
        "/dev/md",
        "/dev/loop",
        "/dev/mem",
        "/dev/kmem",
        "/dev/port",
    ];
    PREFIXES.iter().any(|p| path.starts_with(p))
}

/// Harmless device targets for writes.
fn is_harmless_device(path: &str) -> bool {
    matches!(
        path,
        "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty" | "/dev/zero"
    ) || path.starts_with("/dev/fd/")
        || path.starts_with("/dev/pts/")
}

fn redirect_floor(op: RedirOp, target: &Word, ws: &Workspace, cwd: &Path) -> Floor {
    let text = expand_known(target, cwd).unwrap_or_else(|| target.lossy());
    if matches!(op, RedirOp::HereDoc | RedirOp::HereString) {
        return Floor::Clear;
    }
    if matches!(op, RedirOp::DupOut | RedirOp::DupIn)
        && (text == "-" || text.chars().all(|c| c.is_ascii_digit()))
    {
        return Floor::Clear;
    }
    if let Some(why) = credential_reason(&text) {
        return Floor::Deny(why);
    }
    let resolved = resolve_arg(&text, cwd);
    let canonical = canonicalize_lenient(&resolved);
    if let Some(why) = credential_reason(&canonical.to_string_lossy()) {
        return Floor::Deny(format!("{text} resolves to a credential: {why}"));
    }
    let writes = !matches!(op, RedirOp::In | RedirOp::DupIn);
    if writes {
        let r = resolved.to_string_lossy();
        if is_block_device(&r) || is_block_device(&canonical.to_string_lossy()) {
            return Floor::Deny(format!("refused: writes to the block device {r}"));
        }
        if !is_harmless_device(&r) && !canonical.starts_with(ws.root()) {
            return Floor::Ask(format!(
                "writes to {}, outside the workspace",
                canonical.display()
            ));
        }
    }
    Floor::Clear
}

/// Judge one command's expanded words.
fn words_floor(words: &[String], ws: &Workspace, cwd: &mut PathBuf, depth: usize) -> Floor {
    let Some(first) = words.first() else {
        return Floor::Clear;
    };
    let program = first.rsplit('/').next().unwrap_or(first).to_string();
    let args = &words[1..];

    if WRAPPERS.contains(&program.as_str()) {
        let rest = unwrap_wrapper(&program, args);
        let mut inner = words_floor(rest, ws, cwd, depth);
        // `su -c 'cmd'`, `watch 'cmd'`, `env -S 'cmd'` take a command line
        // as one string: judge every such argument as shell text too.
        for a in args.iter().filter(|a| a.contains(' ')) {
            inner = inner.worse(nested(a, ws, cwd, depth));
        }
        // `sudo`/`su`/`doas` escalate: never silently.
        if matches!(program.as_str(), "sudo" | "doas" | "su") {
            return inner.worse(Floor::Ask("runs with elevated privileges".into()));
        }
        return inner;
    }
    if SHELLS.contains(&program.as_str()) || program == "eval" {
        // Every argument may be the script text (`-c` can sit anywhere in
        // a cluster like `-lc`, after long options like `--norc`): judge
        // each one as shell text; a file name parses as a harmless command.
        let mut verdict = if program == "eval" {
            nested(&args.join(" "), ws, cwd, depth)
        } else {
            Floor::Clear
        };
        for a in args.iter().filter(|a| !a.starts_with('-')) {
            verdict = verdict.worse(nested(a, ws, cwd, depth));
        }
        return verdict.worse(paths_floor(&program, args, ws, cwd));
    }
    if let Some(why) = catastrophic(&program, args, cwd) {
        return Floor::Deny(format!("refused: {why}"));
    }
    if program == "rm" && args.iter().any(|a| a.starts_with('$')) {
        return Floor::Ask(
            "removes a path computed from a variable the checker cannot know".into(),
        );
    }
    if program == "find" {
        // `find … -exec CMD … ;` runs CMD.
        if let Some(i) = args
            .iter()
            .position(|a| a.starts_with("-exec") || a.starts_with("-ok"))
        {
            let end = args[i + 1..]
                .iter()
                .position(|a| a == ";" || a == "+")
                .map_or(args.len(), |e| i + 1 + e);
            let inner = words_floor(&args[i + 1..end], ws, cwd, depth);
            if let Floor::Deny(_) = inner {
                return inner;
            }
        }
    }
    if program == "cd" {
        if let Some(t) = args.iter().find(|a| !a.starts_with('-')) {
            *cwd = canonicalize_lenient(&resolve_arg(t, cwd));
        }
    }
    if let Some(why) = arg_pieces(first).into_iter().find_map(credential_reason) {
        return Floor::Deny(why);
    }
    paths_floor(&program, args, ws, cwd)
}

/// Skip a wrapper's own options to reach the wrapped command.
fn unwrap_wrapper<'a>(program: &str, args: &'a [String]) -> &'a [String] {
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if a.starts_with('-') {
            // Options that take a value.
            if matches!(
                (program, a.as_str()),
                ("nice", "-n")
                    | ("sudo", "-u")
                    | ("sudo", "-g")
                    | ("ionice", "-c")
                    | ("ionice", "-n")
                    | ("timeout", "-s")
                    | ("timeout", "-k")
                    | ("xargs", "-I")
                    | ("xargs", "-n")
                    | ("xargs", "-P")
                    | ("watch", "-n")
                    | ("su", "-c")
            ) {
                i += 1;
            }
            i += 1;
            continue;
        }
        if program == "env" && a.contains('=') {
            i += 1;
            continue;
        }
        if program == "timeout" && a.chars().next().is_some_and(|c| c.is_ascii_digit()) {
            i += 1;
            continue;
        }
        break;
    }
    &args[i.min(args.len())..]
}

/// Obviously catastrophic commands.
fn catastrophic(program: &str, args: &[String], cwd: &Path) -> Option<String> {
    if args.iter().any(|a| a == "--no-preserve-root") {
        return Some("--no-preserve-root removes the whole system".into());
    }
    let home = dirs::home_dir().unwrap_or_else(|| PathBuf::from("/root"));
    // `/`, the home directory, anything above it, and the system's own
    // directories. A trailing `*` means "everything in it", which is as bad.
    let is_vital = |arg: &str| -> bool {
        let trimmed = arg.trim_end_matches('*');
        let trimmed = if trimmed.is_empty() { "." } else { trimmed };
        let p = resolve_arg(trimmed, cwd);
        let s = p.to_string_lossy();
        p == Path::new("/") || SYSTEM_DIRS.contains(&s.as_ref()) || home.starts_with(&p)
    };
    let pos = programs::positionals(args);
    let recursive = programs::has_flag(args, Some('r'), &["recursive"])
        || programs::has_flag(args, Some('R'), &[]);
    match program {
        "rm" | "chmod" | "chown" | "chgrp" | "shred" if recursive || program == "shred" => {
            if let Some(t) = pos.iter().find(|a| is_vital(a)) {
                return Some(format!(
                    "{program} -r {t} destroys the system or the home directory"
                ));
            }
        }
        "mv" => {
            if let Some(t) = pos.iter().find(|a| is_vital(a)) {
                return Some(format!("mv {t} moves a vital directory away"));
            }
        }
        "find" if args.iter().any(|a| a == "-delete") => {
            if let Some(t) = args
                .iter()
                .take_while(|a| !a.starts_with('-'))
                .find(|a| is_vital(a))
            {
                return Some(format!("find {t} -delete removes a vital directory"));
            }
        }
        "dd" => {
            if let Some(of) = args.iter().find_map(|a| a.strip_prefix("of=")) {
                if is_block_device(of) {
                    return Some(format!("dd writes to the block device {of}"));
                }
            }
        }
        "shutdown" | "reboot" | "halt" | "poweroff" | "wipefs" | "mke2fs" | "mkswap" => {
            return Some(format!("{program} is catastrophic"));
        }
        "kill" if args.iter().any(|a| a == "-1" || a == "1") => {
            return Some("kill -1 / kill 1 stops every process".into());
        }
        _ if program.starts_with("mkfs") => return Some("formats a file system".into()),
        _ => {}
    }
    if programs::lookup(program).is_none() || WRITERS.contains(&program) {
        if let Some(dev) = args.iter().find(|a| is_block_device(a)) {
            return Some(format!("{program} writes to the block device {dev}"));
        }
    }
    None
}

/// Credentials named anywhere in the arguments, and writers aimed outside
/// the workspace.
fn paths_floor(program: &str, args: &[String], ws: &Workspace, cwd: &Path) -> Floor {
    let roles = if programs::lookup(program).is_some() {
        programs::path_args(program, args)
    } else {
        vec![PathRole::Content; args.len()]
    };
    // Removing a symlink does not touch what it points at.
    let follow = !matches!(program, "rm" | "unlink" | "rmdir");
    let expanded: Vec<(String, PathRole)> = args
        .iter()
        .zip(roles)
        .flat_map(|(arg, role)| glob::brace_expand(arg).into_iter().map(move |w| (w, role)))
        .collect();
    for (arg, role) in &expanded {
        let (arg, role) = (arg.as_str(), *role);
        if role == PathRole::NotPath {
            continue;
        }
        if role == PathRole::Content && glob::has_wildcards(arg) {
            for p in glob::expand(arg, cwd).unwrap_or_default() {
                let canonical = if follow {
                    canonicalize_lenient(&p)
                } else {
                    p.clone()
                };
                if let Some(why) = credentials::path_reason(&p, &canonical) {
                    return Floor::Deny(format!("the glob {arg} matches a credential: {why}"));
                }
            }
        }
        for piece in arg_pieces(arg) {
            if let Some(why) = credential_reason(piece) {
                return Floor::Deny(why);
            }
            if piece.is_empty() || piece.starts_with('-') || !follow {
                continue;
            }
            let canonical = canonicalize_lenient(&resolve_arg(piece, cwd));
            if let Some(why) = credential_reason(&canonical.to_string_lossy()) {
                return Floor::Deny(format!("{piece} resolves to a credential: {why}"));
            }
        }
    }
    if WRITERS.contains(&program)
        || (program == "sed" && programs::has_flag(args, Some('i'), &["in-place"]))
    {
        let pos = programs::positionals(args);
        let targets: Vec<&String> = match program {
            "cp" | "ln" | "install" | "rsync" => pos.last().copied().into_iter().collect(),
            "dd" => Vec::new(),
            "sed" => pos.iter().skip(1).copied().collect(),
            _ => pos,
        };
        let dd_out = args
            .iter()
            .filter(|_| program == "dd")
            .filter_map(|a| a.strip_prefix("of="));
        for t in targets.iter().map(|s| s.as_str()).chain(dd_out) {
            let canonical = canonicalize_lenient(&resolve_arg(t, cwd));
            if !canonical.starts_with(ws.root())
                && !is_harmless_device(&canonical.to_string_lossy())
            {
                return Floor::Ask(format!(
                    "{program} changes {}, outside the workspace",
                    canonical.display()
                ));
            }
        }
    }
    Floor::Clear
}

/// An argument and the parts of it that may be paths: after `=`, `:`, `@`.
fn arg_pieces(arg: &str) -> Vec<&str> {
    let mut out = vec![arg];
    for sep in ['=', ':', '@'] {
        if let Some((_, v)) = arg.rsplit_once(sep) {
            out.push(v);
        }
    }
    out
}
