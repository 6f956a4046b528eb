//! Links and hints end to end: Ctrl+click on an OSC 8 link runs the
//! configured opener (a script that records its argument, never a real
//! browser), also with mouse reporting on; other schemes do not open; a
//! hint label copies its URL to the clipboard.

use std::path::Path;
use std::time::Duration;

use crate::harness::{eventually, Koi, Xvfb};
use crate::write_config;

/// A config whose opener appends its argument to `record`.
fn with_opener(dir: &Path, record: &Path) -> String {
    let opener = dir.join("opener.sh");
    std::fs::write(
        &opener,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$1\" >> '{}'\n",
            record.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&opener, std::fs::Permissions::from_mode(0o755)).unwrap();
    format!("[links]\nopener = \"{}\"\n", opener.display())
}

fn click(koi: &Koi, x: &Xvfb, (px, py): (u32, u32), modifier: &str) {
    x.xdotool(&[
        "mousemove",
        "--window",
        &koi.window,
        &px.to_string(),
        &py.to_string(),
    ]);
    std::thread::sleep(Duration::from_millis(150));
    x.xdotool(&["keydown", modifier]);
    std::thread::sleep(Duration::from_millis(150));
    x.xdotool(&["click", "1"]);
    std::thread::sleep(Duration::from_millis(150));
    x.xdotool(&["keyup", modifier]);
    std::thread::sleep(Duration::from_millis(300));
}

#[test]
fn ctrl_click_opens_allowed_links_with_the_configured_opener() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("opened.txt");
    let config = dir.path().join("koi.toml");
    write_config(&config, "#101418", &with_opener(dir.path(), &record));
    let koi = Koi::start(&x, dir.path(), &config, &["--cols", "60", "--rows", "10"]);
    let (width, height) = koi.size(&x);
    let (cw, ch) = (width / 60, height / 10);
    // Row 0: a good link; row 1: a javascript: one.
    koi.run_command(
        &x,
        "printf '\\e[H\\e[2J\\e]8;;https://example.com/koi\\e\\\\good link\\e]8;;\\e\\\\\\n\\e]8;;javascript:alert(1)\\e\\\\bad link\\e]8;;\\e\\\\\\n'",
    );
    let cell = |col: u32, row: u32| (col * cw + cw / 2, row * ch + ch / 2);
    // A plain click does not open.
    x.xdotool(&[
        "mousemove",
        "--window",
        &koi.window,
        &cell(2, 0).0.to_string(),
        &cell(2, 0).1.to_string(),
    ]);
    x.xdotool(&["click", "1"]);
    // (Had it opened, the record below would hold the link twice.)
    // The application asks for mouse reports: Ctrl+click still opens.
    koi.run_command(&x, "printf '\\e[?1000h'");
    click(&koi, &x, cell(2, 0), "ctrl");
    eventually("the opener to run", Duration::from_secs(10), || {
        record.exists()
    });
    // The javascript: link, then the good one again: once the second good
    // open is recorded, the click before it has been handled.
    click(&koi, &x, cell(2, 1), "ctrl");
    click(&koi, &x, cell(2, 0), "ctrl");
    eventually("the second open", Duration::from_secs(10), || {
        std::fs::read_to_string(&record).is_ok_and(|r| r.lines().count() >= 2)
    });
    assert_eq!(
        std::fs::read_to_string(&record).unwrap(),
        "https://example.com/koi\nhttps://example.com/koi\n",
        "the allowed link once per Ctrl+click; a plain click and javascript: never"
    );
    koi.type_line(&x, "printf '\\e[?1000l'; exit");
    let (code, stderr, _) = koi.wait(Duration::from_secs(30));
    assert_eq!(code, Some(0), "{stderr}");
}

#[test]
fn a_hint_label_copies_its_url_to_the_clipboard() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("opened.txt");
    let config = dir.path().join("koi.toml");
    write_config(&config, "#101418", &with_opener(dir.path(), &record));
    let koi = Koi::start(&x, dir.path(), &config, &["--cols", "60", "--rows", "10"]);
    koi.run_command(
        &x,
        "printf '\\e[H\\e[2Jsee https://example.org/hint-me now\\n'",
    );
    koi.keys(&x, "ctrl+shift+h");
    std::thread::sleep(Duration::from_millis(300));
    // The only target on screen gets the first label.
    koi.keys(&x, "a");
    eventually("the URL on the clipboard", Duration::from_secs(10), || {
        x.selection("clipboard") == "https://example.org/hint-me"
    });
    assert!(
        !record.exists(),
        "a lower-case label copies, it does not open"
    );
    koi.type_line(&x, "exit");
    let (code, stderr, _) = koi.wait(Duration::from_secs(30));
    assert_eq!(code, Some(0), "{stderr}");
}
