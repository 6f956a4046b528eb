use std::path::Path;

use super::*;

fn argv(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| (*w).to_owned()).collect()
}

fn env_of<'a>(launch: &'a Launch, name: &str) -> Option<&'a str> {
    launch
        .env
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

#[test]
fn shells_are_known_by_their_file_name() {
    assert_eq!(ShellKind::detect("/usr/bin/zsh"), Some(ShellKind::Zsh));
    assert_eq!(ShellKind::detect("-bash"), Some(ShellKind::Bash));
    assert_eq!(ShellKind::detect("fish"), Some(ShellKind::Fish));
    assert_eq!(ShellKind::detect("/bin/sh"), None);
    assert_eq!(ShellKind::detect("/usr/bin/bashful"), None);
}

#[test]
fn bash_gets_an_rcfile_or_posix_env_when_login() {
    let dir = Path::new("/run/k");
    let none = |_: &str| None;
    let plain = plan(&argv(&["/bin/bash", "-i"]), dir, &none).unwrap();
    assert_eq!(
        plain.argv,
        argv(&["/bin/bash", "--rcfile", "/run/k/bash/rc.bash", "-i"])
    );
    assert!(plain.env.is_empty());

    let user_env = |k: &str| (k == "ENV").then(|| "/home/u/.shrc".to_owned());
    let login = plan(&argv(&["bash", "--login"]), dir, &user_env).unwrap();
    assert_eq!(login.argv, argv(&["bash", "--posix", "-l"]));
    assert_eq!(env_of(&login, "ENV"), Some("/run/k/bash/login.bash"));
    assert_eq!(env_of(&login, RESTORE_ENV), Some("/home/u/.shrc"));
}

#[test]
fn zsh_and_fish_get_their_directories_with_the_users_values_kept() {
    let dir = Path::new("/run/k");
    let var = |k: &str| match k {
        "ZDOTDIR" => Some("/home/u/.config/zsh".to_owned()),
        _ => None,
    };
    let zsh = plan(&argv(&["zsh", "-l"]), dir, &var).unwrap();
    assert_eq!(zsh.argv, argv(&["zsh", "-l"]));
    assert_eq!(env_of(&zsh, "ZDOTDIR"), Some("/run/k/zsh"));
    assert_eq!(env_of(&zsh, RESTORE_ZDOTDIR), Some("/home/u/.config/zsh"));

    let fish = plan(&argv(&["fish"]), dir, &var).unwrap();
    assert_eq!(
        env_of(&fish, "XDG_DATA_DIRS"),
        Some("/run/k/fish:/usr/local/share:/usr/share")
    );
    assert_eq!(env_of(&fish, RESTORE_XDG_DATA_DIRS), None);
    let set = |k: &str| (k == "XDG_DATA_DIRS").then(|| "/opt/share".to_owned());
    let fish = plan(&argv(&["fish"]), dir, &set).unwrap();
    assert_eq!(
        env_of(&fish, "XDG_DATA_DIRS"),
        Some("/run/k/fish:/opt/share")
    );
    assert_eq!(env_of(&fish, RESTORE_XDG_DATA_DIRS), Some("/opt/share"));
}

#[test]
fn a_shell_told_to_do_something_else_is_left_alone() {
    let dir = Path::new("/run/k");
    let none = |_: &str| None;
    for words in [
        &["bash", "-c", "echo hi"][..],
        &["bash", "--norc"],
        &["zsh", "script.zsh"],
        &["fish", "--no-config"],
        &["sh"],
    ] {
        assert_eq!(plan(&argv(words), dir, &none), None, "{words:?}");
    }
}

#[cfg(unix)]
#[test]
fn install_writes_private_files_and_refuses_a_shared_directory() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("koi");
    let dir = install(&root).unwrap();
    for (rel, text) in FILES {
        assert_eq!(std::fs::read_to_string(dir.join(rel)).unwrap(), *text);
    }
    for d in [&root, &dir, &dir.join("fish/fish/vendor_conf.d")] {
        let mode = std::fs::metadata(d).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700, "{}", d.display());
    }
    // A second install finds everything in place.
    assert_eq!(install(&root).unwrap(), dir);

    std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o777)).unwrap();
    let err = install(&root).unwrap_err();
    assert!(matches!(err, IntegrationError::NotPrivate { .. }), "{err}");
}
