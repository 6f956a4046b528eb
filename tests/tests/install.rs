//! `scripts/install` into a fresh prefix, checked with the tools that judge
//! such files elsewhere: desktop-file-validate, appstreamcli, man, infocmp,
//! and the shells' own completion systems. The installed koi gives its
//! programs `TERM=koi`, and `--uninstall` leaves the prefix empty.
//!
//! The script takes the workspace's debug binaries (`--bin-dir`), so no
//! release build runs here.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use koi_testkit::{bins, skip};

/// The repository's root.
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

/// `scripts/install ARGS… --prefix PREFIX --bin-dir <workspace binaries>`,
/// which must succeed.
fn install_script(prefix: &Path, args: &[&str]) -> Output {
    let out = Command::new(repo().join("scripts/install"))
        .args(args)
        .arg("--prefix")
        .arg(prefix)
        .arg("--bin-dir")
        .arg(bins::dir())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "scripts/install {args:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A fresh prefix with koi installed into it (the workspace's binaries
/// must be built: `bins::koi()` says how when they are not).
fn installed() -> tempfile::TempDir {
    bins::koi();
    bins::k();
    let prefix = tempfile::tempdir().unwrap();
    install_script(prefix.path(), &[]);
    prefix
}

/// Whether `program` can be started here; records a skip for `test` when not.
fn have(program: &str, package: &str, family: &str, test: &str) -> bool {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        skip::skip(
            family,
            test,
            &format!("{program} is not installed ({package} in scripts/deps)"),
        );
    }
    found
}

/// Runs `cmd`, which must succeed; its stdout and stderr.
fn run_ok(cmd: &mut Command) -> (String, String) {
    let out = cmd.stdin(Stdio::null()).output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{stdout}{stderr}",
        out.status
    );
    (stdout, stderr)
}

/// Every file under `dir`, sorted.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut todo = vec![dir.to_owned()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// A PNG's width and height, from its IHDR chunk.
fn png_size(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(
        &bytes[..8],
        b"\x89PNG\r\n\x1a\n",
        "{} is not a PNG",
        path.display()
    );
    let be = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    (be(16), be(20))
}

#[test]
fn the_desktop_entry_and_metainfo_validate() {
    const TEST: &str = "the_desktop_entry_and_metainfo_validate";
    if !have(
        "desktop-file-validate",
        "desktop-file-utils",
        skip::PROGRAMS,
        TEST,
    ) || !have("appstreamcli", "appstream", skip::PROGRAMS, TEST)
    {
        return;
    }
    let prefix = installed();
    let share = prefix.path().join("share");
    let desktop = share.join("applications/koi.desktop");
    let (out, err) = run_ok(Command::new("desktop-file-validate").arg(&desktop));
    assert_eq!(format!("{out}{err}"), "", "desktop-file-validate complains");
    // The menu starts the installed binary, whatever PATH holds.
    let text = std::fs::read_to_string(&desktop).unwrap();
    let exec = format!("Exec={}", prefix.path().join("bin/koi").display());
    assert!(text.lines().any(|l| l == exec), "{text}");

    let metainfo = share.join("metainfo/io.github.koi_term.koi.metainfo.xml");
    let (out, _) = run_ok(
        Command::new("appstreamcli")
            .args(["validate", "--no-net"])
            .arg(&metainfo),
    );
    assert!(out.contains("Validation was successful"), "{out}");
    for line in out.lines() {
        // Errors fail the command; warnings must not be there either.
        assert!(!line.starts_with("W:"), "appstreamcli warns: {line}");
    }

    // The icon: the SVG, and each PNG size rendered from it at its size.
    let icons = share.join("icons/hicolor");
    assert!(icons.join("scalable/apps/koi.svg").is_file());
    if have("rsvg-convert", "librsvg2-bin", skip::PROGRAMS, TEST) {
        for size in [16, 24, 32, 48, 64, 128, 256, 512] {
            let png = icons.join(format!("{size}x{size}/apps/koi.png"));
            assert_eq!(png_size(&png), (size, size), "{}", png.display());
        }
    }
}

#[test]
fn the_manual_pages_render_without_warnings() {
    const TEST: &str = "the_manual_pages_render_without_warnings";
    if !have("man", "man-db", skip::PROGRAMS, TEST) {
        return;
    }
    let prefix = installed();
    let man1 = prefix.path().join("share/man/man1");
    let pages: Vec<PathBuf> = files_under(&man1);
    let names: Vec<String> = pages
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for page in [
        "koi.1",
        "k.1",
        "k-sessions.1",
        "k-policy-check.1",
        "k-mcp-add.1",
    ] {
        assert!(names.iter().any(|n| n == page), "no {page} in {names:?}");
    }
    for page in &pages {
        let (text, warnings) = run_ok(
            Command::new("man")
                .args(["--warnings", "-l"])
                .arg(page)
                .env("MANPAGER", "cat")
                .env("MANWIDTH", "100")
                .env("LC_ALL", "C.UTF-8"),
        );
        assert_eq!(warnings, "", "{} renders with warnings", page.display());
        assert!(text.contains("NAME"), "{}:\n{text}", page.display());
    }
    // The pages say what --help says: a flag of each binary.
    let render = |page: &str| {
        run_ok(
            Command::new("man")
                .arg("-l")
                .arg(man1.join(page))
                .env("MANPAGER", "cat")
                .env("MANWIDTH", "200"),
        )
        .0
    };
    assert!(render("k.1").contains("--resume"));
    assert!(render("koi.1").contains("--headless"));
}

#[test]
fn the_terminfo_entry_is_installed_and_koi_uses_it() {
    const TEST: &str = "the_terminfo_entry_is_installed_and_koi_uses_it";
    if !have("infocmp", "ncurses-bin", skip::PROGRAMS, TEST) {
        return;
    }
    let prefix = installed();
    let terminfo = prefix.path().join("share/terminfo");
    let (entry, _) = run_ok(
        Command::new("infocmp")
            .args(["-x", "-A"])
            .arg(&terminfo)
            .arg("koi"),
    );
    for cap in ["Smulx=", "Setulc=", "Sync=", "Tc,", "kxIN=", "BE="] {
        assert!(entry.contains(cap), "infocmp shows no {cap}:\n{entry}");
    }

    // koi's programs, with nothing in the environment pointing at the entry.
    let home = tempfile::tempdir().unwrap();
    let script = r#"echo "TERM=$TERM"; tput Smulx 3 | od -An -tx1 | tr -d ' \n'; echo"#;
    let headless = |koi: &Path, terminfo_dirs: Option<&Path>| {
        let mut cmd = Command::new(koi);
        cmd.args([
            "--headless",
            "--cols",
            "60",
            "--rows",
            "5",
            "-e",
            "sh",
            "-c",
            script,
        ])
        .env_clear()
        .env("HOME", home.path())
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("XDG_CONFIG_HOME", home.path().join("config"));
        if let Some(dirs) = terminfo_dirs {
            cmd.env("TERMINFO_DIRS", dirs);
        }
        run_ok(&mut cmd).0
    };
    let curly = "1b5b343a336d"; // ESC [ 4 : 3 m
                                // The installed koi finds the entry it came with.
    let screen = headless(&prefix.path().join("bin/koi"), None);
    assert!(screen.contains("TERM=koi"), "{screen}");
    assert!(screen.contains(curly), "{screen}");
    // The workspace's koi, with TERMINFO_DIRS naming the entry's directory.
    let screen = headless(&bins::koi(), Some(&terminfo));
    assert!(screen.contains("TERM=koi"), "{screen}");
    assert!(screen.contains(curly), "{screen}");
    // The workspace's koi alone has no entry: xterm-256color, no Smulx.
    if ["/etc/terminfo", "/lib/terminfo", "/usr/share/terminfo"]
        .iter()
        .any(|d| Path::new(d).join("k/koi").exists())
    {
        skip::skip(
            skip::PROGRAMS,
            TEST,
            "koi's entry is installed system-wide here: cannot check the fallback",
        );
        return;
    }
    let screen = headless(&bins::koi(), None);
    assert!(screen.contains("TERM=xterm-256color"), "{screen}");
    assert!(!screen.contains(curly), "{screen}");
}

#[test]
fn bash_zsh_and_fish_load_the_completions() {
    let prefix = installed();
    let share = prefix.path().join("share");
    let home = tempfile::tempdir().unwrap();
    let shell = |program: &str, args: &[&str]| {
        run_ok(
            Command::new(program)
                .args(args)
                .env_clear()
                .env("HOME", home.path())
                .env("PATH", std::env::var("PATH").unwrap_or_default())
                .env("XDG_CONFIG_HOME", home.path().join("config"))
                .env("XDG_DATA_HOME", home.path().join("data")),
        )
    };

    for bin in ["k", "koi"] {
        let file = share.join("bash-completion/completions").join(bin);
        let script = format!("source '{}' && complete -p {bin}", file.display());
        let (out, err) = shell("bash", &["--norc", "--noprofile", "-c", &script]);
        assert_eq!(err, "", "bash complains about {}", file.display());
        assert!(
            out.contains(&format!(" -F _{bin} ")) && out.trim_end().ends_with(&format!(" {bin}")),
            "{out}"
        );
    }

    const TEST: &str = "bash_zsh_and_fish_load_the_completions";
    if have("zsh", "zsh", skip::SHELLS, TEST) {
        let fpath = share.join("zsh/site-functions");
        let script = format!(
            "fpath=('{dir}' $fpath); autoload -U compinit && compinit -u -D; \
             source '{dir}/_k' && source '{dir}/_koi' && print -r -- $_comps[k] $_comps[koi]",
            dir = fpath.display()
        );
        let (out, err) = shell("zsh", &["-f", "-c", &script]);
        assert_eq!(err, "", "zsh complains");
        assert_eq!(out.trim(), "_k _koi");
    }

    if have("fish", "fish", skip::SHELLS, TEST) {
        let dir = share.join("fish/vendor_completions.d");
        for (bin, flag) in [("k", "--resume"), ("koi", "--headless")] {
            let script = format!(
                "source '{}'; complete -C '{bin} --'",
                dir.join(format!("{bin}.fish")).display()
            );
            let (out, err) = shell("fish", &["--no-config", "-c", &script]);
            assert_eq!(err, "", "fish complains about {bin}.fish");
            assert!(
                out.lines().any(|l| l.split('\t').next() == Some(flag)),
                "fish offers no {flag} for {bin}:\n{out}"
            );
        }
    }
}

#[test]
fn uninstall_removes_exactly_what_install_put_there() {
    let prefix = installed();
    let manifest = prefix.path().join("share/koi/install-manifest");
    let listed: Vec<PathBuf> = std::fs::read_to_string(&manifest)
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("file\t"))
        .map(PathBuf::from)
        .collect();
    // The manifest lists every file the install wrote, the manifest aside.
    let mut on_disk = files_under(prefix.path());
    on_disk.retain(|p| p != &manifest);
    let mut sorted = listed.clone();
    sorted.sort();
    assert_eq!(sorted, on_disk);
    assert!(listed.contains(&prefix.path().join("bin/koi")));
    assert!(listed.contains(&prefix.path().join("bin/k")));

    // A second install over the first replaces it and lists the same files.
    install_script(prefix.path(), &[]);
    assert_eq!(files_under(prefix.path()).len(), on_disk.len() + 1);

    // The prefix ends as empty as it began.
    install_script(prefix.path(), &["--uninstall"]);
    let left: Vec<_> = std::fs::read_dir(prefix.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");

    // Something of the user's beside koi's files stays, and so do the
    // directories that hold it.
    install_script(prefix.path(), &[]);
    let own = prefix.path().join("share/man/man1/mine.1");
    std::fs::write(&own, ".TH MINE 1\n").unwrap();
    install_script(prefix.path(), &["--uninstall"]);
    assert_eq!(files_under(prefix.path()), [own]);

    // Nothing to uninstall is an error that says so.
    let out = Command::new(repo().join("scripts/install"))
        .args(["--uninstall", "--prefix"])
        .arg(prefix.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing to uninstall"));
}
