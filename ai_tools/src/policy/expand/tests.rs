use super::*;
use crate::policy::shell_parse::{parse, Command};

fn argv(cmd: &str, cwd: &Path) -> Expanded {
    let script = parse(cmd).unwrap_or_else(|e| panic!("{cmd}: {e}"));
    let Command::Simple(s) = &script.items[0].chain[0].1.commands[0] else {
        panic!("not simple: {cmd}")
    };
    let home = PathBuf::from("/home/u");
    let ctx = Ctx {
        cwd,
        home: Some(&home),
    };
    expand_words(&s.words, &ctx)
}

fn words(cmd: &str) -> Vec<String> {
    let e = argv(cmd, Path::new("/nonexistent-dir"));
    assert!(e.unknown.is_none(), "{cmd}: {:?}", e.unknown);
    e.words
}

#[test]
fn braces() {
    assert_eq!(
        words("find . {-delete,-print}"),
        ["find", ".", "-delete", "-print"]
    );
    assert_eq!(words("x -{delete,print}"), ["x", "-delete", "-print"]);
    assert_eq!(words("x {-exec,x}"), ["x", "-exec", "x"]);
    assert_eq!(words("x a{b,c{d,e}}f"), ["x", "abf", "acdf", "acef"]);
    assert_eq!(words("x {1..3}"), ["x", "1", "2", "3"]);
    assert_eq!(words("x {01..3}"), ["x", "01", "02", "03"]);
    assert_eq!(words("x {3..1}"), ["x", "3", "2", "1"]);
    assert_eq!(words("x {1..10..4}"), ["x", "1", "5", "9"]);
    assert_eq!(words("x {a..c}"), ["x", "a", "b", "c"]);
    assert_eq!(words("x {a{b,c}}"), ["x", "{ab}", "{ac}"]);
    assert_eq!(words("x '{a,b}'"), ["x", "{a,b}"]);
    assert_eq!(words("x {'a,b'}"), ["x", "{a,b}"]);
    assert_eq!(words("x {a}"), ["x", "{a}"]);
    assert_eq!(words("x {,}"), ["x"]);
    assert_eq!(words("x a{,}"), ["x", "a", "a"]);
    assert_eq!(words("x {1.5..3}"), ["x", "{1.5..3}"]);
    assert_eq!(words("x \\${a,b}"), ["x", "$a", "$b"]);
    assert!(argv("x ${HOME,b}", Path::new("/")).unknown.is_some());
    assert!(argv("x {1..100000}", Path::new("/")).unknown.is_some());
}

#[test]
fn tilde() {
    assert_eq!(
        words("x ~ ~/a ~+"),
        ["x", "/home/u", "/home/u/a", "/nonexistent-dir"]
    );
    assert_eq!(words("x '~' \\~/a"), ["x", "~", "~/a"]);
    assert_eq!(words("x a=~/b:~/c"), ["x", "a=/home/u/b:/home/u/c"]);
    assert_eq!(words("x --o=~/b"), ["x", "--o=~/b"]);
    assert_eq!(words("x {~,a}"), ["x", "/home/u", "a"]);
    assert!(argv("x ~root/a", Path::new("/")).unknown.is_some());
}

#[test]
fn ansi_c_and_quotes() {
    assert_eq!(
        words("cat ~/$'\\56'config/koi/koi.toml"),
        ["cat", "/home/u/.config/koi/koi.toml"]
    );
    assert_eq!(words("find . $'\\55delete'"), ["find", ".", "-delete"]);
    assert_eq!(words("x $'\\x2d\\u0064'"), ["x", "-d"]);
    assert_eq!(words("x $\"a b\" \"\" ''"), ["x", "a b", "", ""]);
    assert!(argv("x $'\\xff'", Path::new("/")).unknown.is_some());
}

#[test]
fn unknown_values() {
    for cmd in [
        "x $FOO",
        "x $(id)",
        "x `id`",
        "x $((1+2))",
        "x <(ls)",
        "x ${HOME:-a}",
    ] {
        assert!(argv(cmd, Path::new("/")).unknown.is_some(), "{cmd}");
    }
    assert_eq!(words("x $HOME/a"), ["x", "/home/u/a"]);
}

#[test]
fn globs_see_dash_files() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    for n in ["-delete", "a.rs", ".hidden"] {
        std::fs::write(dir.path().join(n), "").unwrap_or_else(|e| panic!("{e}"));
    }
    let e = argv("find . *", dir.path());
    assert_eq!(e.words, ["find", ".", "-delete", "a.rs"]);
    let e = argv("ls '*' *.none .h*", dir.path());
    assert_eq!(e.words, ["ls", "*", "*.none", ".hidden"]);
}
