//! The floor for shell commands, held in every mode: credentials are never
//! read or written, obviously catastrophic commands never run, and writes
//! outside the workspace are asked about. It judges the walker's steps
//! (the same expanded argv the proof sees), looks through look-alike
//! characters, substitutions, `sh -c` strings and wrappers like `sudo`,
//! and where a value is unknown it judges the text as written.

use std::path::{Path, PathBuf};

use crate::policy::credentials::{credential_reason, hard_link, HardLink};
use crate::policy::programs::{self, PathRole};
use crate::policy::protected;
use crate::policy::shell_parse::{RedirOp, MAX_DEPTH};
use crate::policy::unicode::fold;
use crate::policy::walk::{self, Redir, Step, Walk};
use crate::policy::wrappers;
use crate::workspace::{canonicalize_lenient, expand_tilde, Workspace};

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
    /// The more severe of two verdicts (the first one wins a tie).
    pub fn worse(self, other: Floor) -> Floor {
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

/// Shells whose `-c` argument is itself a command line.
const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "fish", "ash", "mksh"];

/// Programs that write to their path arguments.
const WRITERS: &[&str] = &[
    "rm", "rmdir", "mv", "cp", "ln", "touch", "mkdir", "chmod", "chown", "chgrp", "tee",
    "truncate", "install", "shred", "rsync", "unlink", "dd", "patch",
];

/// Judge a walked command line (the command text is for the whole-text
/// checks: fork bombs, and look-alike characters folded to ASCII).
pub fn shell_floor(command: &str, walked: Option<&Walk>, ws: &Workspace, cwd: &Path) -> Floor {
    let folded = fold(command);
    if looks_like_fork_bomb(&folded) {
        return Floor::Deny("this looks like a fork bomb".into());
    }
    let mut verdict = match walked {
        Some(w) => walk_floor(w, ws, 0),
        None => raw_floor(&folded),
    };
    // Look-alike characters can hide structure (`｜`): judge the folded
    // text as well. Plain ASCII commands are parsed once.
    if folded != command && !matches!(verdict, Floor::Deny(_)) {
        verdict = verdict.worse(nested(&folded, ws, cwd, 0));
    }
    verdict
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
    text_credentials(text)
}

/// A credential named anywhere in a piece of text.
fn text_credentials(text: &str) -> Floor {
    match text
        .split(|c: char| c.is_whitespace() || "'\"<>|;&()=:@`$".contains(c))
        .find_map(credential_reason)
    {
        Some(why) => Floor::Deny(why),
        None => Floor::Clear,
    }
}

fn walk_floor(w: &Walk, ws: &Workspace, depth: usize) -> Floor {
    let mut verdict = Floor::Clear;
    // Whatever a substitution prints becomes arguments: a credential
    // named anywhere inside it is as good as named outside.
    for text in w.substitutions.iter().chain(&w.unparsed) {
        verdict = verdict.worse(text_credentials(text));
    }
    for text in &w.unparsed {
        verdict = verdict.worse(raw_floor(text));
    }
    for step in &w.steps {
        verdict = verdict.worse(step_floor(step, ws, depth));
        if matches!(verdict, Floor::Deny(_)) {
            return verdict;
        }
    }
    verdict
}

fn nested(text: &str, ws: &Workspace, cwd: &Path, depth: usize) -> Floor {
    if depth >= MAX_DEPTH {
        return Floor::Ask("nested too deeply to check".into());
    }
    let w = walk::walk_text(text, cwd, depth + 1);
    walk_floor(&w, ws, depth + 1)
}

fn step_floor(step: &Step, ws: &Workspace, depth: usize) -> Floor {
    // Where the checker lost track of the directory, each reading of the
    // `cd` it could not follow is judged, and `/` too, the cautious guess:
    // relative paths land outside the workspace.
    let guesses: Vec<PathBuf> = match &step.cwd {
        Some(cwd) => vec![cwd.clone()],
        None => step
            .guesses
            .iter()
            .cloned()
            .chain(std::iter::once(PathBuf::from("/")))
            .collect(),
    };
    guesses.iter().fold(Floor::Clear, |verdict, cwd| {
        verdict.worse(step_floor_in(step, ws, depth, cwd))
    })
}

fn step_floor_in(step: &Step, ws: &Workspace, depth: usize, cwd: &Path) -> Floor {
    let mut verdict = Floor::Clear;
    for r in &step.redirects {
        verdict = verdict.worse(redirect_floor(r, ws, cwd));
    }
    for (_, value) in &step.assigns {
        for v in &value.words {
            verdict = verdict.worse(pieces_credentials(v));
        }
    }
    let words: Vec<String> = step.argv.iter().map(|w| fold(w)).collect();
    verdict = verdict.worse(words_floor(&words, ws, cwd, depth));
    if matches!(verdict, Floor::Deny(_)) {
        return verdict;
    }
    // A glob names "everything in" a directory whatever it matches today.
    let written: Vec<String> = step.written.iter().map(|w| fold(w)).collect();
    let u = wrappers::unwrap(&written);
    if let Some(first) = written.get(u.start) {
        if let Some(why) = catastrophic(wrappers::base(first), &written[u.start + 1..], cwd) {
            return Floor::Deny(format!("refused: {why}"));
        }
    }
    verdict
}

/// Judge one command's expanded (and folded) words.
fn words_floor(words: &[String], ws: &Workspace, cwd: &Path, depth: usize) -> Floor {
    let Some(first) = words.first() else {
        return Floor::Clear;
    };
    let u = wrappers::unwrap(words);
    let mut strings = Floor::Clear;
    for s in &u.shell_strings {
        strings = strings.worse(nested(s, ws, cwd, depth));
    }
    if matches!(strings, Floor::Deny(_)) {
        return strings;
    }
    if !u.names.is_empty() {
        let mut verdict = strings.worse(words_floor(&words[u.start..], ws, cwd, depth));
        // Any wrapper argument that looks like a command line is judged
        // as one too (`watch 'cmd'`, unknown options' values).
        for a in words[..u.start].iter().filter(|a| a.contains(' ')) {
            verdict = verdict.worse(nested(a, ws, cwd, depth));
        }
        for a in &words[..u.start] {
            verdict = verdict.worse(pieces_credentials(a));
        }
        if u.escalates {
            return verdict.worse(Floor::Ask("runs with elevated privileges".into()));
        }
        return verdict;
    }
    let program = wrappers::base(first).to_string();
    let args = &words[1..];
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
    if program == "rm" && args.iter().any(|a| a.contains('$')) {
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
    if let Some(why) = arg_pieces(first).into_iter().find_map(credential_reason) {
        return Floor::Deny(why);
    }
    strings.worse(paths_floor(&program, args, ws, cwd))
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

/// Resolve a path the floor judges; `~` is expanded even where bash would
/// not (a look-alike tilde folded to `~`), which only errs towards caution.
/// `..` is resolved as the kernel does (see [`walk::resolve_arg`]).
fn resolve(arg: &str, cwd: &Path) -> PathBuf {
    walk::resolve_arg(&expand_tilde(arg).to_string_lossy(), cwd)
}

fn redirect_floor(r: &Redir, ws: &Workspace, cwd: &Path) -> Floor {
    if matches!(r.op, RedirOp::HereDoc | RedirOp::HereString) {
        return Floor::Clear;
    }
    let mut verdict = Floor::Clear;
    for text in &r.target.words {
        let text = fold(text);
        if matches!(r.op, RedirOp::DupOut | RedirOp::DupIn)
            && (text == "-" || text.chars().all(|c| c.is_ascii_digit()))
        {
            continue;
        }
        if let Some(why) = credential_reason(&text) {
            return Floor::Deny(why);
        }
        let resolved = resolve(&text, cwd);
        let canonical = canonicalize_lenient(&resolved);
        if let Some(why) = credential_reason(&canonical.to_string_lossy()) {
            return Floor::Deny(format!("{text} resolves to a credential: {why}"));
        }
        if let Some(HardLink::Credential(why)) = hard_link(&canonical, ws.root()) {
            return Floor::Deny(why);
        }
        if let Some(why) = protected::registered_reason(&canonical, ws) {
            return Floor::Deny(why);
        }
        let writes = !matches!(r.op, RedirOp::In | RedirOp::DupIn);
        if writes {
            let s = resolved.to_string_lossy();
            if is_block_device(&s) || is_block_device(&canonical.to_string_lossy()) {
                return Floor::Deny(format!("refused: writes to the block device {s}"));
            }
            if !is_harmless_device(&s) && !canonical.starts_with(ws.root()) {
                verdict = verdict.worse(Floor::Ask(format!(
                    "writes to {}, outside the workspace",
                    canonical.display()
                )));
            }
        }
    }
    verdict
}

/// Is `flag` present as `--long`/`--long=…` or inside a short cluster?
/// The floor's test for catastrophic forms errs towards seeing a flag.
fn has_flag(args: &[String], short: char, long: &str) -> bool {
    args.iter().take_while(|a| *a != "--").any(|a| {
        if let Some(rest) = a.strip_prefix("--") {
            rest == long || rest.starts_with(&format!("{long}="))
        } else if let Some(rest) = a.strip_prefix('-') {
            rest.contains(short)
        } else {
            false
        }
    })
}

/// Positional (non-flag) arguments.
fn positionals(args: &[String]) -> Vec<&String> {
    let mut out = Vec::new();
    let mut after_dashdash = false;
    for a in args {
        if after_dashdash {
            out.push(a);
        } else if a == "--" {
            after_dashdash = true;
        } else if !a.starts_with('-') || a == "-" {
            out.push(a);
        }
    }
    out
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
        let p = resolve(trimmed, cwd);
        let s = p.to_string_lossy();
        p == Path::new("/") || SYSTEM_DIRS.contains(&s.as_ref()) || home.starts_with(&p)
    };
    let pos = positionals(args);
    let recursive = has_flag(args, 'r', "recursive") || has_flag(args, 'R', "recursive");
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
    if !programs::is_known(program) || WRITERS.contains(&program) {
        if let Some(dev) = args.iter().find(|a| is_block_device(a)) {
            return Some(format!("{program} writes to the block device {dev}"));
        }
    }
    None
}

/// A credential in an argument or the parts after `=`, `:`, `@`.
fn pieces_credentials(arg: &str) -> Floor {
    match arg_pieces(arg).into_iter().find_map(credential_reason) {
        Some(why) => Floor::Deny(why),
        None => Floor::Clear,
    }
}

/// Does `sed` edit in place? Where its model cannot parse the arguments,
/// any short cluster holding `i` or a `--in…` option counts.
fn sed_in_place(args: &[String]) -> bool {
    match programs::lookup("sed").map(|m| m.opts.parse(args)) {
        Some(Ok(p)) => p.has("in-place"),
        _ => args.iter().any(|a| {
            a.starts_with("--in") || (a.starts_with('-') && !a.starts_with("--") && a.contains('i'))
        }),
    }
}

/// Credentials named anywhere in the arguments, and writers aimed outside
/// the workspace.
fn paths_floor(program: &str, args: &[String], ws: &Workspace, cwd: &Path) -> Floor {
    let roles = if programs::is_known(program) {
        programs::path_roles(program, args)
    } else {
        args.iter()
            .map(|a| (a.clone(), PathRole::Content))
            .collect()
    };
    // Removing a symlink does not touch what it points at.
    let follow = !matches!(program, "rm" | "unlink" | "rmdir");
    for (arg, role) in &roles {
        if *role == PathRole::NotPath {
            continue;
        }
        for piece in arg_pieces(arg) {
            if let Some(why) = credential_reason(piece) {
                return Floor::Deny(why);
            }
            // Metadata of a symlink is not its target's contents.
            if piece.is_empty() || piece.starts_with('-') || !follow || *role == PathRole::Meta {
                continue;
            }
            let canonical = canonicalize_lenient(&resolve(piece, cwd));
            if let Some(why) = credential_reason(&canonical.to_string_lossy()) {
                return Floor::Deny(format!("{piece} resolves to a credential: {why}"));
            }
            if let Some(HardLink::Credential(why)) = hard_link(&canonical, ws.root()) {
                return Floor::Deny(why);
            }
            if let Some(why) = protected::registered_reason(&canonical, ws) {
                return Floor::Deny(why);
            }
        }
    }
    if WRITERS.contains(&program) || (program == "sed" && sed_in_place(args)) {
        let pos = positionals(args);
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
            let canonical = if follow || t.ends_with('/') {
                canonicalize_lenient(&resolve(t, cwd))
            } else {
                // rm removes the link itself, where it lies.
                link_itself(&resolve(t, cwd))
            };
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

/// Where a path lies without following its last component.
fn link_itself(p: &Path) -> PathBuf {
    match (p.parent(), p.file_name()) {
        (Some(dir), Some(name)) => canonicalize_lenient(dir).join(name),
        _ => canonicalize_lenient(p),
    }
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
