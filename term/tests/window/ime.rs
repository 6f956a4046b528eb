//! A real input method: ibus on a private D-Bus session, its XIM server on
//! the test's Xvfb, the Cangjie table engine composing CJK text.

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::harness::{eventually, Koi, Xvfb};
use crate::{write_config, EXIT_WAIT};

/// What the test needs from the system, for the failure messages.
const PACKAGES: &str = "apt-get install ibus ibus-table ibus-table-cangjie5 dbus-x11; \
                        .ci/run installs them";

/// How long ibus's XIM server may take to register on the display: it
/// comes up in well under a second idle, but the window tests run in
/// parallel on two cores.
const XIM_STARTUP: Duration = Duration::from_secs(60);

/// A process killed (and reaped) when dropped, even by a failing test.
struct Owned(Child);

impl Drop for Owned {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// ibus for one test: a private session bus, the daemon with its XIM
/// server on the test's display, and a `dbus-monitor` recording where
/// clients put the cursor. Everything is stopped on drop.
struct Ibus {
    // Held to be stopped on drop, in this order: the bus last.
    _daemon: Owned,
    _monitor: Option<Owned>,
    _bus: Owned,
    /// Where the monitor writes.
    monitor_log: PathBuf,
    env: Vec<(&'static str, String)>,
}

impl Ibus {
    fn start(x: &Xvfb, dir: &Path) -> Self {
        let home = dir.join("ibus-home");
        let mut bus = Owned(
            Command::new("dbus-daemon")
                .args(["--session", "--nofork", "--print-address=1"])
                // Services the bus starts on demand (ibus's portal) keep
                // their files in the test's home too.
                .env("HOME", &home)
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .unwrap_or_else(|e| panic!("dbus-daemon: {e} ({PACKAGES})")),
        );
        let mut address = String::new();
        BufReader::new(bus.0.stdout.take().unwrap())
            .read_line(&mut address)
            .unwrap();
        assert!(!address.trim().is_empty(), "dbus-daemon gave no address");
        // ibus keeps its address file, registry cache and engine state under
        // the home and XDG directories: the test's own.
        let env = vec![
            ("DISPLAY", x.display.clone()),
            ("DBUS_SESSION_BUS_ADDRESS", address.trim().to_owned()),
            ("HOME", home.display().to_string()),
            ("XDG_CONFIG_HOME", home.join("config").display().to_string()),
            ("XDG_CACHE_HOME", home.join("cache").display().to_string()),
            ("XDG_DATA_HOME", home.join("data").display().to_string()),
            ("GSETTINGS_BACKEND", "memory".to_owned()),
            // ibus-x11 is a GTK program: without this, GTK's accessibility
            // bridge asks the bus to start at-spi and waits on it (up to a
            // 25 s D-Bus timeout on a loaded machine) before the XIM server
            // comes up.
            ("NO_AT_BRIDGE", "1".to_owned()),
        ];
        let daemon_log = dir.join("ibus-daemon.log");
        let daemon = Owned(
            Command::new("ibus-daemon")
                .args(["--xim", "--panel=disable", "--emoji-extension=disable"])
                .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
                .stdout(Stdio::null())
                .stderr(std::fs::File::create(&daemon_log).unwrap())
                .spawn()
                .unwrap_or_else(|e| panic!("ibus-daemon: {e} ({PACKAGES})")),
        );
        let mut ibus = Self {
            _daemon: daemon,
            _monitor: None,
            _bus: bus,
            monitor_log: dir.join("ibus-monitor.txt"),
            env,
        };
        eventually("ibus-daemon to answer", Duration::from_secs(30), || {
            ibus.ibus(&["engine", "xkb:us::eng"]).0
        });
        // koi finds the input method through this root window property,
        // which ibus's XIM server sets once it is up.
        let deadline = Instant::now() + XIM_STARTUP;
        loop {
            let out = Command::new("xprop")
                .args(["-root", "XIM_SERVERS"])
                .env("DISPLAY", &x.display)
                .output()
                .expect("xprop (apt-get install x11-utils)");
            if String::from_utf8_lossy(&out.stdout).contains("@server=ibus") {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "ibus's XIM server did not register on {} within {XIM_STARTUP:?}; \
                 ibus-daemon said:\n{}",
                x.display,
                std::fs::read_to_string(&daemon_log).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let (_, address) = ibus.ibus(&["address"]);
        let log = std::fs::File::create(&ibus.monitor_log).unwrap();
        ibus._monitor = Some(Owned(
            Command::new("dbus-monitor")
                .args([
                    "--address",
                    address.trim(),
                    "interface='org.freedesktop.IBus.InputContext',member='SetCursorLocation'",
                ])
                .stdout(log)
                .stderr(Stdio::null())
                .spawn()
                .unwrap_or_else(|e| panic!("dbus-monitor: {e} ({PACKAGES})")),
        ));
        ibus
    }

    /// Run the `ibus` tool on this daemon: success and stdout.
    fn ibus(&self, args: &[&str]) -> (bool, String) {
        let out = Command::new("timeout")
            .arg("10")
            .arg("ibus")
            .args(args)
            .envs(self.env.iter().map(|(k, v)| (*k, v.as_str())))
            .output()
            .unwrap_or_else(|e| panic!("ibus: {e} ({PACKAGES})"));
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    }

    /// Switch the input method's engine (`xkb:us::eng`, `table:cangjie5`).
    fn engine(&self, name: &str) {
        let (ok, _) = self.ibus(&["engine", name]);
        assert!(ok, "ibus has no engine {name} ({PACKAGES})");
    }

    /// The last cursor location a client gave ibus (x, y, width, height,
    /// in root window pixels), as the monitor recorded it.
    fn cursor_location(&self) -> Option<[i32; 4]> {
        let log = std::fs::read_to_string(&self.monitor_log).unwrap_or_default();
        let call = log.rsplit("member=SetCursorLocation").next()?;
        let values: Vec<i32> = call
            .lines()
            .filter_map(|l| l.trim().strip_prefix("int32 ")?.parse().ok())
            .collect();
        values.try_into().ok()
    }
}

impl Drop for Ibus {
    fn drop(&mut self) {
        // `ibus exit` stops the daemon's components (the XIM server, the
        // engine) with it; the fields then stop the rest.
        let _ = self.ibus(&["exit"]);
    }
}

/// Typing Cangjie through ibus: the composition is drawn at the cursor
/// before anything reaches the shell, the candidate window is asked for
/// just below the cursor's cell, and the committed 日 runs in the shell.
#[test]
fn cjk_typed_through_ibus_reaches_the_shell() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    let ibus = Ibus::start(&x, dir.path());
    let config = dir.path().join("koi.toml");
    write_config(&config, "#101418", "");
    let koi = Koi::start_with_env(
        &x,
        dir.path(),
        &config,
        &[],
        &[("XMODIFIERS", "@im=ibus".to_owned())],
    );
    koi.type_text(&x, "echo ");
    ibus.engine("table:cangjie5");
    // Cangjie's `a` is 日: a composition until space commits it.
    koi.keys(&x, "a");

    // 日 is two cells wide, drawn underlined over the cursor at column 7 of
    // the prompt's row: a line of ink across both cells, which neither a
    // typed `a` nor the cursor block after it would draw.
    let (w, h) = koi.size(&x);
    let (cw, ch) = (w as usize / 40, h as usize / 10);
    let bg = [0x10, 0x14, 0x18];
    eventually(
        "the composition drawn underlined at the cursor",
        Duration::from_secs(10),
        || {
            let shot = x.screenshot(&koi.window);
            let underline = (0..ch).any(|y| (7 * cw..9 * cw).all(|x| shot.rgb(x, y) != bg));
            underline && shot.ink(9 * cw, 0, 30 * cw, ch, bg) == 0
        },
    );

    // The candidate window goes below the cursor's cell (the window is at
    // the screen's origin in Xvfb without a window manager).
    let geometry = x.xdotool(&["getwindowgeometry", &koi.window]);
    assert!(geometry.contains("Position: 0,0"), "{geometry}");
    let want = [7 * cw as i32, ch as i32];
    let deadline = Instant::now() + Duration::from_secs(10);
    while ibus.cursor_location().map(|l| [l[0], l[1]]) != Some(want) {
        assert!(
            Instant::now() < deadline,
            "ibus was told the cursor is at {:?} (x, y, w, h), not at {want:?}, \
             the bottom-left of the cursor's cell",
            ibus.cursor_location()
        );
        std::thread::sleep(Duration::from_millis(50));
    }

    koi.keys(&x, "space");
    ibus.engine("xkb:us::eng");
    koi.type_line(&x, "; exit");
    let (code, stderr, dump) = koi.wait(EXIT_WAIT);
    assert_eq!(code, Some(0), "{stderr}");
    let text = std::fs::read_to_string(&dump).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines.contains(&"$ echo 日; exit") && lines.contains(&"日"),
        "the committed 日 did not reach the shell; the screen was:\n{text}\n\
         ibus last saw the cursor at {:?}",
        ibus.cursor_location()
    );
}
