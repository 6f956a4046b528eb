//! Tabs and splits end to end: every pane its own shell in its own PTY,
//! sized by the layout, a divider dragged with the mouse, panes closed
//! with their children reaped, and a busy pane asking before it closes.

use std::path::Path;
use std::time::Duration;

use crate::harness::{eventually, Koi, Xvfb};
use crate::write_config;

/// New panes run the configured shell: the same bash the first pane runs,
/// so each one's prompt touches the harness's marker.
const SHELL: &str = "[shell]\nprogram = \"bash\"\nargs = [\"--norc\", \"--noprofile\"]\n";

/// Press `keys` and wait for the new pane's first prompt.
fn open_pane(koi: &Koi, x: &Xvfb, dir: &Path, keys: &str) {
    let marker = dir.join("prompt-ready");
    let _ = std::fs::remove_file(&marker);
    koi.keys(x, keys);
    eventually(
        &format!("a prompt in the pane {keys} opened"),
        Duration::from_secs(30),
        || marker.exists(),
    );
}

fn stty_size(koi: &Koi, x: &Xvfb, file: &Path) -> String {
    koi.run_command(x, &format!("stty size > '{}'", file.display()));
    std::fs::read_to_string(file).unwrap().trim().to_owned()
}

/// The `PATH.panes` dump: each closed pane's screen under its header.
fn pane_dumps(dump: &Path) -> Vec<(String, String)> {
    let mut path = dump.as_os_str().to_owned();
    path.push(".panes");
    let text = std::fs::read_to_string(Path::new(&path)).unwrap_or_default();
    let mut out: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        if let Some(header) = line.strip_prefix("== pane ") {
            out.push((header.trim_end_matches(" ==").to_owned(), String::new()));
        } else if let Some((_, body)) = out.last_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    out
}

/// Whether process `parent` has a child running `name`.
fn has_child(parent: u32, name: &str) -> bool {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .any(|stat| {
            // pid (comm) state ppid …: comm may hold spaces, so split at ')'.
            let Some((head, rest)) = stat.rsplit_once(')') else {
                return false;
            };
            let comm = head.split_once('(').map_or("", |(_, c)| c);
            let ppid = rest.split_whitespace().nth(1).and_then(|p| p.parse().ok());
            comm == name && ppid == Some(parent)
        })
}

fn closed_panes(koi: &Koi) -> usize {
    pane_dumps(&koi.dump).len()
}

/// The focused pane's shell, by its own word (`$$`).
fn shell_pid(koi: &Koi, x: &Xvfb, file: &Path) -> u32 {
    koi.run_command(x, &format!("echo $$ > '{}'", file.display()));
    std::fs::read_to_string(file)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

fn process_alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// The question bar's background (render/src/chrome.rs), on the window's
/// top row.
fn question() -> [u8; 3] {
    crate::chrome_rgb(|c| c.question_background)
}

#[test]
fn three_tabs_and_two_splits_each_run_their_own_shell_sized_by_the_layout() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("koi.toml");
    write_config(&config, "#101418", SHELL);
    // 80 × 24 cells for this test (the harness config says 40 × 10).
    let koi = Koi::start(&x, dir.path(), &config, &["--cols", "80", "--rows", "24"]);
    let (width, height) = koi.size(&x);
    let (cw, ch) = (width / 80, height / 24);

    // Tab 1: a shell, then a split to its right.
    koi.run_command(&x, "echo P$((10+1))");
    open_pane(&koi, &x, dir.path(), "ctrl+shift+d");
    koi.run_command(&x, "echo P$((10+2))");
    // Tab 2: a shell and a split below it.
    open_pane(&koi, &x, dir.path(), "ctrl+shift+t");
    koi.run_command(&x, "echo P$((10+3))");
    open_pane(&koi, &x, dir.path(), "ctrl+shift+alt+d");
    koi.run_command(&x, "echo P$((10+4))");
    // Tab 3.
    open_pane(&koi, &x, dir.path(), "ctrl+shift+t");
    koi.run_command(&x, "echo P$((10+5))");
    let size = dir.path().join("size.txt");
    assert_eq!(stty_size(&koi, &x, &size), "23 80", "a row for the tab bar");

    // Back to tab 1, whose right split has the focus.
    // Keys are handled in order: the next command goes to tab 1.
    koi.keys(&x, "alt+1");
    // 80 columns: 40 | divider | 39. Drag the divider to column 20.
    assert_eq!(stty_size(&koi, &x, &size), "23 39");
    let y = 10 * ch + ch / 2;
    koi.drag(&x, (40 * cw + cw / 2, y), (20 * cw + cw / 2, y));
    assert_eq!(stty_size(&koi, &x, &size), "23 59", "the right pane grew");
    koi.keys(&x, "ctrl+shift+Left");
    assert_eq!(stty_size(&koi, &x, &size), "23 20", "the left pane shrank");

    // The drawn frame shows the divider at its new column, in every row.
    let shot = x.screenshot(&koi.window);
    let bg = [0x10, 0x14, 0x18];
    assert!(
        shot.ink(
            (20 * cw) as usize,
            (5 * ch) as usize,
            cw as usize,
            ch as usize,
            bg
        ) > 0,
        "no divider drawn at column 20"
    );
    assert_eq!(
        shot.ink(
            (40 * cw) as usize,
            (12 * ch) as usize,
            cw as usize,
            ch as usize,
            bg
        ),
        0,
        "the old divider column is blank"
    );

    // Each shell exits by itself; every pane's last screen is dumped.
    for closed in 1..=5 {
        koi.type_line(&x, "exit");
        if closed < 5 {
            // koi moves the focus in the same step that dumps the closed
            // pane, before it handles the next key.
            eventually("the pane to close", Duration::from_secs(20), || {
                closed_panes(&koi) == closed
            });
        }
    }
    let (code, stderr, dump) = koi.wait(Duration::from_secs(30));
    assert_eq!(code, Some(0), "{stderr}");
    let panes = pane_dumps(&dump);
    assert_eq!(panes.len(), 5, "{panes:?}");
    for n in 11..=15 {
        let token = format!("\nP{n}\n");
        let holders = panes
            .iter()
            .filter(|(_, body)| format!("\n{body}").contains(&token))
            .count();
        assert_eq!(holders, 1, "P{n} printed in one pane only: {panes:?}");
    }
    let sizes: Vec<&str> = panes
        .iter()
        .map(|(h, _)| h.split_whitespace().nth(1).unwrap())
        .collect();
    // Each pane's size as it closed: the focused left one first, at the
    // width the drag gave it; its sibling then had the whole width; tab 2's
    // panes shared 23 rows; tab 3, alone at last, lost the bar's row.
    assert_eq!(sizes, ["20x23", "80x23", "80x11", "80x23", "80x24"]);
}

#[test]
fn closing_a_pane_reaps_its_child_and_a_busy_pane_asks_first() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("koi.toml");
    write_config(&config, "#101418", SHELL);
    let koi = Koi::start(&x, dir.path(), &config, &["--cols", "60", "--rows", "12"]);
    open_pane(&koi, &x, dir.path(), "ctrl+shift+d");
    let pid_file = dir.path().join("pid.txt");
    koi.run_command(&x, &format!("echo $$ > '{}'", pid_file.display()));
    let pid: u32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let alive = || Path::new(&format!("/proc/{pid}")).exists();
    assert!(alive());

    // A job in the foreground: closing asks, and "n" keeps the pane.
    koi.type_line(&x, "sleep 300");
    eventually("the job in the foreground", Duration::from_secs(10), || {
        has_child(pid, "sleep")
    });
    let (width, height) = koi.size(&x);
    let ch = height / 12;
    let bg = [0x10, 0x14, 0x18];
    let question_shown = || {
        x.screenshot(&koi.window)
            .ink(0, 0, width as usize, ch as usize, bg)
            > width as usize
    };
    koi.keys(&x, "ctrl+shift+w");
    eventually("the question", Duration::from_secs(10), question_shown);
    koi.keys(&x, "n");
    // The pane staying is a non-event; what comes after "n" is not: Ctrl+C
    // and a command reach the pane's shell, which draws its prompt again
    // (keys are handled in order, so "n" was handled before), and only
    // then is the shell asked about. Then the job again, for the yes.
    koi.keys(&x, "ctrl+c");
    koi.run_command(&x, "true");
    assert!(alive(), "the busy pane closed without a yes");
    koi.type_line(&x, "sleep 300");
    eventually(
        "the job in the foreground again",
        Duration::from_secs(10),
        || has_child(pid, "sleep"),
    );
    koi.keys(&x, "ctrl+shift+w");
    eventually(
        "the question again",
        Duration::from_secs(10),
        question_shown,
    );
    koi.keys(&x, "y");
    // Reaped: not even a zombie is left under koi.
    eventually(
        "the pane's shell to be reaped",
        Duration::from_secs(10),
        || !alive(),
    );
    assert_eq!(closed_panes(&koi), 1);

    // The other pane has the focus and the whole window again.
    let size = dir.path().join("size.txt");
    assert_eq!(stty_size(&koi, &x, &size), "12 60");
    // An idle shell closes without a question.
    koi.keys(&x, "ctrl+shift+w");
    let (code, stderr, dump) = koi.wait(Duration::from_secs(30));
    assert_eq!(code, Some(0), "closed by the user: {stderr}");
    assert_eq!(pane_dumps(&dump).len(), 2);
}

#[test]
fn closing_a_tab_with_a_busy_pane_asks_once_and_a_yes_closes_every_pane_in_it() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("koi.toml");
    // No default chord closes a tab: bind one.
    let extra = format!("{SHELL}[keybindings]\n\"Ctrl+Shift+Q\" = \"close_tab\"\n");
    write_config(&config, "#101418", &extra);
    let koi = Koi::start(&x, dir.path(), &config, &["--cols", "60", "--rows", "12"]);
    let first = shell_pid(&koi, &x, &dir.path().join("first.txt"));
    // Tab 2: two panes, a job in the second.
    open_pane(&koi, &x, dir.path(), "ctrl+shift+t");
    let left = shell_pid(&koi, &x, &dir.path().join("left.txt"));
    open_pane(&koi, &x, dir.path(), "ctrl+shift+d");
    let right = shell_pid(&koi, &x, &dir.path().join("right.txt"));
    koi.type_line(&x, "sleep 300");
    eventually("the job in the foreground", Duration::from_secs(10), || {
        has_child(right, "sleep")
    });
    let (width, height) = koi.size(&x);
    let top_row = (0, 0, width, height / 12);
    let asked = || count_colour(&x.screenshot(&koi.window), top_row, question()) > 0;
    assert!(!asked());

    // "n" keeps the whole tab.
    koi.keys(&x, "ctrl+shift+q");
    eventually("the question", Duration::from_secs(10), asked);
    koi.keys(&x, "n");
    eventually("the question answered", Duration::from_secs(10), || {
        !asked()
    });
    assert!(process_alive(left) && process_alive(right));
    assert_eq!(closed_panes(&koi), 0);

    // "y" closes the tab: both of its shells, the idle one too, reaped.
    koi.keys(&x, "ctrl+shift+q");
    eventually("the question again", Duration::from_secs(10), asked);
    koi.keys(&x, "y");
    eventually(
        "both shells of the tab reaped",
        Duration::from_secs(10),
        || !process_alive(left) && !process_alive(right),
    );
    assert_eq!(closed_panes(&koi), 2);
    assert!(process_alive(first), "tab 1 closed too");

    // Tab 1 is alone again: no bar, the whole window.
    let size = dir.path().join("size.txt");
    assert_eq!(stty_size(&koi, &x, &size), "12 60");
    koi.type_line(&x, "exit");
    let (code, stderr, dump) = koi.wait(Duration::from_secs(30));
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(pane_dumps(&dump).len(), 3);
}

/// Pixels of `rgb` in the rectangle.
fn count_colour(
    shot: &crate::harness::Image,
    (x0, y0, w, h): (u32, u32, u32, u32),
    rgb: [u8; 3],
) -> usize {
    let mut n = 0;
    for y in y0..(y0 + h).min(shot.height as u32) {
        for x in x0..(x0 + w).min(shot.width as u32) {
            if shot.rgb(x as usize, y as usize) == rgb {
                n += 1;
            }
        }
    }
    n
}

#[test]
fn a_hidden_tab_shows_activity_bell_and_a_failed_command_in_the_bar() {
    // The chrome's colours (render/src/chrome.rs).
    let mark = crate::chrome_rgb(|c| c.mark);
    let failed = crate::chrome_rgb(|c| c.failed);
    let x = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("koi.toml");
    write_config(&config, "#101418", SHELL);
    let koi = Koi::start(&x, dir.path(), &config, &["--cols", "80", "--rows", "12"]);
    let (width, height) = koi.size(&x);
    let (cw, ch) = (width / 80, height / 12);
    // A command that fails, as shell integration reports it (OSC 133).
    koi.run_command(&x, "printf '\\e]133;C\\a\\e]133;D;1\\a'");
    // Later, while hidden: output and a bell.
    koi.run_command(&x, "(sleep 2; printf 'late\\a\\n') &");
    open_pane(&koi, &x, dir.path(), "ctrl+shift+t");
    // Tab 1's label: the first 32 columns of the bar (two tabs, 40 each,
    // at most 32 per label).
    let label = (0, 0, 32 * cw, ch);
    let shot = x.screenshot(&koi.window);
    assert!(count_colour(&shot, label, failed) > 0, "no failed mark");
    assert_eq!(count_colour(&shot, label, mark), 0, "no activity yet");
    eventually(
        "the activity and bell marks",
        Duration::from_secs(10),
        || count_colour(&x.screenshot(&koi.window), label, mark) > 0,
    );
    // Showing tab 1 clears its marks (the failed one stays: it is state).
    koi.keys(&x, "alt+1");
    eventually(
        "the marks cleared when shown",
        Duration::from_secs(10),
        || count_colour(&x.screenshot(&koi.window), label, mark) == 0,
    );
    let shot = x.screenshot(&koi.window);
    assert!(count_colour(&shot, label, failed) > 0);
    koi.type_line(&x, "exit");
    eventually("the pane to close", Duration::from_secs(20), || {
        closed_panes(&koi) == 1
    });
    koi.type_line(&x, "exit");
    let (code, stderr, _) = koi.wait(Duration::from_secs(30));
    assert_eq!(code, Some(0), "{stderr}");
}

#[test]
fn a_bottom_tab_bar_takes_the_last_row_takes_clicks_there_and_moves_on_reload() {
    // render's default chrome: the shown tab's label.
    let active = crate::chrome_rgb(|c| c.active_background);
    let x = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("koi.toml");
    let with_position =
        |position: &str| format!("{SHELL}[tabs]\nbar = \"auto\"\nposition = \"{position}\"\n");
    write_config(&config, "#101418", &with_position("bottom"));
    let koi = Koi::start(&x, dir.path(), &config, &["--cols", "60", "--rows", "12"]);
    let (width, height) = koi.size(&x);
    let (cw, ch) = (width / 60, height / 12);
    let row = |r: u32| (0, r * ch, width, ch);
    let first = shell_pid(&koi, &x, &dir.path().join("first.txt"));
    open_pane(&koi, &x, dir.path(), "ctrl+shift+t");
    let size = dir.path().join("size.txt");
    assert_eq!(stty_size(&koi, &x, &size), "11 60", "a row for the bar");
    let shot = x.screenshot(&koi.window);
    assert!(
        count_colour(&shot, row(11), active) > 0,
        "no bar at the bottom"
    );
    assert_eq!(count_colour(&shot, row(0), active), 0, "a bar at the top");
    // The panes start at the top: the new shell's prompt is on row 0.
    assert!(shot.ink(0, 0, width as usize, ch as usize, [0x10, 0x14, 0x18]) > 0);

    // A click on tab 1's label (two labels of 30 columns) shows tab 1.
    koi.click(&x, (5 * cw, 11 * ch + ch / 2), 1, 1, &[]);
    eventually("tab 1 shown by the click", Duration::from_secs(10), || {
        count_colour(
            &x.screenshot(&koi.window),
            (0, 11 * ch, 30 * cw, ch),
            active,
        ) > 0
    });
    assert_eq!(shell_pid(&koi, &x, &dir.path().join("now.txt")), first);

    // Saved with the bar on top: it moves there, the panes below it.
    write_config(&config, "#101418", &with_position("top"));
    eventually("the bar on the top row", Duration::from_secs(10), || {
        let shot = x.screenshot(&koi.window);
        count_colour(&shot, row(0), active) > 0 && count_colour(&shot, row(11), active) == 0
    });
    assert_eq!(stty_size(&koi, &x, &size), "11 60");
    // A position that is not one: the last good one stays, and the banner
    // (drawn over the top row) says why.
    write_config(&config, "#101418", &with_position("left"));
    let banner = crate::chrome_rgb(|c| c.banner_background);
    eventually("the banner", Duration::from_secs(10), || {
        count_colour(&x.screenshot(&koi.window), row(0), banner) > 0
    });
    assert_eq!(count_colour(&x.screenshot(&koi.window), row(11), active), 0);
    koi.type_line(&x, "exit");
    eventually("tab 1 to close", Duration::from_secs(20), || {
        closed_panes(&koi) == 1
    });
    koi.type_line(&x, "exit");
    let (code, stderr, _) = koi.wait(Duration::from_secs(30));
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("unknown variant `left`"), "{stderr}");
}
