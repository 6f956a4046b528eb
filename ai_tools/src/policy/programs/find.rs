//! GNU find: leading options, starting points, then an expression whose
//! every primary is known with its arity. Actions that delete, write files
//! or run commands are refused; an unknown primary makes the proof abstain.

use super::{Judgement, PathRole, Walk};

/// Primaries without an argument that only test or print.
const NULLARY: &[&str] = &[
    "-daystart",
    "-depth",
    "-d",
    "-follow",
    "-ignore_readdir_race",
    "-noignore_readdir_race",
    "-mount",
    "-xdev",
    "-noleaf",
    "-nowarn",
    "-warn",
    "-help",
    "--help",
    "-version",
    "--version",
    "-empty",
    "-executable",
    "-false",
    "-true",
    "-nogroup",
    "-nouser",
    "-readable",
    "-writable",
    "-print",
    "-print0",
    "-prune",
    "-quit",
    "-ls",
];

/// Primaries taking one argument that is not a path.
const UNARY: &[&str] = &[
    "-maxdepth",
    "-mindepth",
    "-regextype",
    "-amin",
    "-atime",
    "-cmin",
    "-ctime",
    "-fstype",
    "-gid",
    "-group",
    "-ilname",
    "-iname",
    "-inum",
    "-ipath",
    "-iregex",
    "-iwholename",
    "-links",
    "-lname",
    "-mmin",
    "-mtime",
    "-name",
    "-path",
    "-perm",
    "-regex",
    "-size",
    "-type",
    "-uid",
    "-used",
    "-user",
    "-wholename",
    "-xtype",
    "-context",
    "-printf",
];

/// Primaries taking one path whose metadata is read.
const UNARY_PATH: &[&str] = &["-anewer", "-cnewer", "-newer", "-samefile"];

/// Operators.
const OPERATORS: &[&str] = &["(", ")", "!", ",", "-a", "-and", "-o", "-or", "-not"];

/// Actions that change things, and why.
fn refused(primary: &str) -> Option<&'static str> {
    Some(match primary {
        "-delete" => "deletes files",
        "-exec" | "-execdir" | "-ok" | "-okdir" => "runs commands",
        "-fprint" | "-fprint0" | "-fprintf" | "-fls" => "writes a file",
        "-files0-from" => "reads its starting points from a file",
        _ => return None,
    })
}

/// `-newerXY` with X, Y among `aBcmt`.
fn is_newer_xy(p: &str) -> bool {
    p.strip_prefix("-newer")
        .is_some_and(|xy| xy.len() == 2 && xy.chars().all(|c| "aBcmt".contains(c)))
}

/// Judge `find ARGS`.
pub fn judge(args: &[String]) -> Result<Judgement, String> {
    let mut i = 0;
    let mut follow = false;
    // Leading options: -H -L -P, -D debugopts, -Olevel.
    while let Some(a) = args.get(i) {
        match a.as_str() {
            "-H" | "-P" => i += 1,
            "-L" => {
                follow = true;
                i += 1;
            }
            "-D" => i += 2,
            o if o.starts_with("-O") && o[2..].chars().all(|c| c.is_ascii_digit()) => i += 1,
            _ => break,
        }
    }
    let mut roots = Vec::new();
    while let Some(a) = args.get(i) {
        if a.starts_with('-') || a == "(" || a == "!" || a == ")" || a == "," {
            break;
        }
        roots.push(a.clone());
        i += 1;
    }
    let mut j = Judgement::default();
    while let Some(a) = args.get(i) {
        let p = a.as_str();
        i += 1;
        if let Some(why) = refused(p) {
            return Err(format!("{p} {why}"));
        }
        if OPERATORS.contains(&p) || NULLARY.contains(&p) {
            follow |= p == "-follow";
            continue;
        }
        let value = || {
            args.get(i)
                .cloned()
                .ok_or_else(|| format!("{p} is missing its value"))
        };
        if UNARY.contains(&p) {
            value()?;
            i += 1;
        } else if UNARY_PATH.contains(&p) || is_newer_xy(p) {
            let v = value()?;
            // `-newermt 2024-01-01` compares with a date, not a file.
            if !p.ends_with('t') || UNARY_PATH.contains(&p) {
                j.paths.push((v, PathRole::Meta));
            }
            i += 1;
        } else {
            return Err(format!("{p} is not a find primary the checker knows"));
        }
    }
    j.paths
        .extend(roots.iter().map(|r| (r.clone(), PathRole::Meta)));
    if roots.is_empty() {
        roots.push(".".into());
    }
    j.operands = roots.clone();
    j.walk = Some(Walk {
        roots,
        content: false,
        hidden: true,
        ignore_files: false,
        follow,
    });
    Ok(j)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn expressions() {
        assert!(judge(&v(". -name *.rs -type f")).is_ok());
        assert!(judge(&v(". -path ./target -prune -o -name x -print")).is_ok());
        assert!(judge(&v(". ( -name a -o -name b ) -newermt 2024-01-01")).is_ok());
        for bad in [
            ". -delete",
            ". -print -delete",
            ". -exec rm {} ;",
            ". -fprint out",
            ". -fprintf out %p",
            ". -unknownthing",
            ". -name",
            "-files0-from list",
        ] {
            assert!(judge(&v(bad)).is_err(), "{bad}");
        }
        let j = judge(&v("-L src /tmp -name x")).unwrap_or_else(|e| panic!("{e}"));
        let w = j.walk.unwrap_or_else(|| panic!("no walk"));
        assert_eq!(w.roots, ["src", "/tmp"]);
        assert!(w.follow);
    }
}
