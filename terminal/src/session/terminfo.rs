//! Which `TERM` koi's programs get: `koi` when a program's terminfo lookup
//! will find koi's own entry (assets/terminfo/koi.terminfo), and
//! `xterm-256color` otherwise, as Alacritty, WezTerm and Kitty decide.
//!
//! The lookup follows ncurses' (terminfo(5)): `$TERMINFO`, `~/.terminfo`,
//! each directory of `$TERMINFO_DIRS`, then the system's directories. An
//! entry lives at `DIR/k/koi`, or `DIR/6b/koi` where the file system folds
//! case. koi also finds the entry it was installed with, in
//! `share/terminfo` beside its own `bin/` (`scripts/install` puts it there,
//! outside the default lookup for a prefix like `~/.local`); programs are
//! then told about that directory through `TERMINFO_DIRS`.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

/// The name of koi's own entry.
pub const KOI: &str = "koi";

/// What programs get when koi's entry is not installed: the entry every
/// system has that comes closest to what koi does.
pub const FALLBACK: &str = "xterm-256color";

/// Where ncurses looks after the environment's directories (Debian's and
/// most distributions' compiled-in list; macOS uses the last).
const SYSTEM_DIRS: &[&str] = &["/etc/terminfo", "/lib/terminfo", "/usr/share/terminfo"];

/// The terminal type koi's programs get, and the `TERMINFO_DIRS` they need
/// to find it when koi found it only beside its own binary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TermChoice {
    /// `TERM`'s value.
    pub term: &'static str,
    /// `TERMINFO_DIRS`' new value, when it must change.
    pub terminfo_dirs: Option<OsString>,
}

/// Decides `TERM` for a child whose environment `var` reads (the child's
/// own variables first, then koi's), given the directory koi's install
/// keeps its compiled entry in (`None` when koi has none).
pub fn choose(var: &dyn Fn(&str) -> Option<OsString>, installed: Option<&Path>) -> TermChoice {
    choose_among(var, installed, SYSTEM_DIRS)
}

/// [`choose`] with the system's directories given.
fn choose_among(
    var: &dyn Fn(&str) -> Option<OsString>,
    installed: Option<&Path>,
    system: &[&str],
) -> TermChoice {
    if search_path(var, system)
        .iter()
        .any(|dir| has_entry(dir, KOI))
    {
        return TermChoice {
            term: KOI,
            terminfo_dirs: None,
        };
    }
    match installed.filter(|dir| has_entry(dir, KOI)) {
        Some(dir) => TermChoice {
            term: KOI,
            terminfo_dirs: Some(append_dir(var("TERMINFO_DIRS").as_deref(), dir)),
        },
        None => TermChoice {
            term: FALLBACK,
            terminfo_dirs: None,
        },
    }
}

/// The compiled entries that came with this koi: `../share/terminfo` from
/// the directory of the running executable (symbolic links resolved).
pub fn installed_dir() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?.canonicalize().ok()?;
    Some(exe.parent()?.parent()?.join("share").join("terminfo"))
}

/// The directories ncurses searches, in its order.
fn search_path(var: &dyn Fn(&str) -> Option<OsString>, system: &[&str]) -> Vec<PathBuf> {
    let non_empty = |v: Option<OsString>| v.filter(|v| !v.is_empty());
    let mut dirs = Vec::new();
    if let Some(dir) = non_empty(var("TERMINFO")) {
        dirs.push(PathBuf::from(dir));
    }
    if let Some(home) = non_empty(var("HOME")) {
        dirs.push(Path::new(&home).join(".terminfo"));
    }
    if let Some(list) = var("TERMINFO_DIRS") {
        // An empty element means the system's directories, searched below anyway.
        dirs.extend(std::env::split_paths(&list).filter(|p| !p.as_os_str().is_empty()));
    }
    dirs.extend(system.iter().map(PathBuf::from));
    dirs
}

/// Whether `dir` holds a compiled entry called `name`, under its first
/// letter or (case-folding file systems) the letter's hex code.
fn has_entry(dir: &Path, name: &str) -> bool {
    let Some(first) = name.bytes().next() else {
        return false;
    };
    let by_letter = dir.join(char::from(first).to_string()).join(name);
    let by_hex = dir.join(format!("{first:02x}")).join(name);
    by_letter.is_file() || by_hex.is_file()
}

/// `list` with `dir` added at its end (`dir` alone when there is no list).
fn append_dir(list: Option<&OsStr>, dir: &Path) -> OsString {
    match list.filter(|l| !l.is_empty()) {
        Some(list) => {
            let mut joined = list.to_owned();
            joined.push(":");
            joined.push(dir.as_os_str());
            joined
        }
        None => dir.as_os_str().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn compiled(root: &Path, subdir: &str) {
        let dir = root.join(subdir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(KOI), b"entry").unwrap();
    }

    fn env(pairs: &[(&str, &Path)]) -> impl Fn(&str) -> Option<OsString> {
        let map: HashMap<String, OsString> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.as_os_str().to_owned()))
            .collect();
        move |k| map.get(k).cloned()
    }

    #[test]
    fn each_variable_of_the_lookup_finds_the_entry() {
        let tmp = tempfile::tempdir().unwrap();
        compiled(&tmp.path().join("home/.terminfo"), "k");
        compiled(&tmp.path().join("ti"), "6b");
        compiled(&tmp.path().join("dirs2"), "k");
        let list =
            std::env::join_paths([tmp.path().join("dirs1"), tmp.path().join("dirs2")]).unwrap();
        let cases: [(&str, &Path); 3] = [
            ("HOME", &tmp.path().join("home")),
            ("TERMINFO", &tmp.path().join("ti")),
            ("TERMINFO_DIRS", Path::new(&list)),
        ];
        for (name, value) in cases {
            let choice = choose_among(&env(&[(name, value)]), None, &[]);
            assert_eq!(
                choice,
                TermChoice {
                    term: KOI,
                    terminfo_dirs: None
                },
                "{name}"
            );
        }
    }

    #[test]
    fn the_system_directories_are_searched_last() {
        let tmp = tempfile::tempdir().unwrap();
        compiled(tmp.path(), "k");
        let system = tmp.path().to_str().unwrap();
        let choice = choose_among(&env(&[]), None, &[system]);
        assert_eq!(choice.term, KOI);
    }

    #[test]
    fn no_entry_means_xterm_256color() {
        let tmp = tempfile::tempdir().unwrap();
        let empty = env(&[("HOME", tmp.path()), ("TERMINFO_DIRS", tmp.path())]);
        assert_eq!(choose_among(&empty, None, &[]).term, FALLBACK);
        // An installed directory without the entry changes nothing.
        assert_eq!(choose_among(&empty, Some(tmp.path()), &[]).term, FALLBACK);
    }

    #[test]
    fn the_entry_beside_koi_is_passed_on_through_terminfo_dirs() {
        let tmp = tempfile::tempdir().unwrap();
        let installed = tmp.path().join("share/terminfo");
        compiled(&installed, "k");
        let none = env(&[("HOME", tmp.path())]);
        assert_eq!(
            choose_among(&none, Some(&installed), &[]).terminfo_dirs,
            Some(installed.as_os_str().to_owned())
        );
        let other = tmp.path().join("other");
        let some = env(&[("HOME", tmp.path()), ("TERMINFO_DIRS", &other)]);
        let mut want = other.into_os_string();
        want.push(":");
        want.push(&installed);
        assert_eq!(
            choose_among(&some, Some(&installed), &[]).terminfo_dirs,
            Some(want)
        );
    }
}
