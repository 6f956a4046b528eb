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
    // A `{}` starting a word never opens a list (find's placeholder);
    // elsewhere its `}` is an ordinary character (bash 5.2).
    assert_eq!(words("x {}\\{a,b}"), ["x", "{}{a,b}"]);
    assert_eq!(words("x {}a,b}"), ["x", "{}a,b}"]);
    assert_eq!(words("x {}{a,b}"), ["x", "{}a", "{}b"]);
    assert_eq!(words("x x{}y,z}"), ["x", "x}y", "xz"]);
    assert_eq!(words("x {\\}a,b}"), ["x", "}a", "b"]);
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
    // A `:` ends the prefix at the word's start too (bash 5.2).
    assert_eq!(
        words("x ~:x a:~ ~:~"),
        ["x", "/home/u:x", "a:~", "/home/u:~"]
    );
    // A quote before the first `/` leaves the word alone.
    assert_eq!(
        words("x ~:'a' ~/'a' ~:a/'b'"),
        ["x", "~:a", "/home/u/a", "/home/u:a/b"]
    );
    assert_eq!(words("x x=~:'a'"), ["x", "x=/home/u:a"]);
    assert_eq!(
        words("x ~+:{1..3..2}"),
        ["x", "/nonexistent-dir:1", "/nonexistent-dir:3"]
    );
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

#[test]
fn slashes_after_a_glob_collapse_as_bash_joins_them() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir_all(dir.path().join("d/sub")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(dir.path().join("d/x"), "").unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(dir.path().join("f"), "").unwrap_or_else(|e| panic!("{e}"));
    let words = |cmd: &str| argv(cmd, dir.path()).words;
    // What bash 5.2 prints for each.
    assert_eq!(words("echo *//"), ["echo", "d/"]);
    assert_eq!(words("echo *//x"), ["echo", "d/x"]);
    assert_eq!(words("echo */sub//"), ["echo", "d/sub/"]);
    assert_eq!(words("echo d//*"), ["echo", "d//sub", "d//x"]);
    assert_eq!(words("echo d/*//"), ["echo", "d/sub/"]);
}
