//! koi on Wayland: a real compositor (weston's headless backend), no X
//! server at all, wgpu presenting through lavapipe's Wayland surface, and
//! the compositor's own screenshot of what it shows.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::harness::{eventually, Image};

/// The headless output's size in pixels: smaller than koi's 40×10 window,
/// so weston's desktop shell puts the window at the output's origin (it
/// places a window at random only where it fits with room to spare).
const OUTPUT: (usize, usize) = (300, 120);

/// A headless weston with its own runtime directory, killed when dropped.
struct Weston {
    child: Child,
    runtime: tempfile::TempDir,
    socket: &'static str,
}

impl Weston {
    fn start() -> Weston {
        let runtime = tempfile::tempdir().unwrap();
        let socket = "koi-test-wayland";
        // No panel, so the window's origin is the output's.
        let ini = runtime.path().join("weston.ini");
        std::fs::write(&ini, "[shell]\npanel-position=none\n").unwrap();
        let child = Command::new("weston")
            .args([
                "--backend=headless-backend.so",
                // Real pixels to read back: the headless backend's default
                // renderer draws nothing.
                "--use-pixman",
                // Lets weston-screenshooter bind the screenshot protocol.
                "--debug",
                &format!("--config={}", ini.display()),
                &format!("--width={}", OUTPUT.0),
                &format!("--height={}", OUTPUT.1),
                &format!("--socket={socket}"),
                "--idle-time=0",
            ])
            .env("XDG_RUNTIME_DIR", runtime.path())
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("weston (apt-get install weston; .ci/run installs it)");
        let weston = Weston {
            child,
            runtime,
            socket,
        };
        let path = weston.runtime.path().join(socket);
        eventually("weston's socket", Duration::from_secs(20), || path.exists());
        weston
    }

    /// What the output shows now, as weston's screenshooter saves it.
    fn screenshot(&self, dir: &Path) -> Image {
        let _ = std::fs::remove_dir_all(dir);
        std::fs::create_dir_all(dir).unwrap();
        let status = Command::new("timeout")
            .args(["10", "weston-screenshooter"])
            .current_dir(dir)
            .env("WAYLAND_DISPLAY", self.socket)
            .env("XDG_RUNTIME_DIR", self.runtime.path())
            .env_remove("DISPLAY")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("weston-screenshooter (apt-get install weston)");
        assert!(status.success(), "weston-screenshooter: {status}");
        let shot: PathBuf = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|e| e == "png"))
            .expect("weston-screenshooter saved a png");
        Image::load(&shot)
    }
}

impl Drop for Weston {
    /// SIGTERM first: weston then ends and reaps the helper clients it
    /// launched (a SIGKILL would leave them as zombies).
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while std::time::Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn koi_runs_and_draws_on_wayland_without_x() {
    let weston = Weston::start();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("koi.toml");
    std::fs::write(
        &config,
        "[colors]\nbackground = \"#101418\"\n[window]\npadding = 0\ncolumns = 40\nlines = 10\n",
    )
    .unwrap();
    let dump = dir.path().join("dump.txt");
    // koi stays up, showing its line, until the test has looked.
    let release = dir.path().join("release");
    let script = format!(
        "echo hello-wayland; while [ ! -e '{}' ]; do sleep 0.05; done",
        release.display()
    );
    let mut koi = Command::new(env!("CARGO_BIN_EXE_koi"))
        .args(["--config", config.to_str().unwrap()])
        .args(["--dump-on-exit", dump.to_str().unwrap()])
        .args(["-e", "sh", "-c", &script])
        // Only Wayland to talk to: winit cannot fall back to X11.
        .env_remove("DISPLAY")
        .env("WAYLAND_DISPLAY", weston.socket)
        .env("XDG_RUNTIME_DIR", weston.runtime.path())
        .env("XDG_CONFIG_HOME", dir.path().join("xdg"))
        .env("XDG_DATA_HOME", dir.path().join("xdg-data"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();

    // What the compositor shows: the line on row 0, nothing from row 2 on
    // (row 1 has the cursor). The cell height comes from the window's
    // size, which the compositor clips to the output.
    let bg = [0x10, 0x14, 0x18];
    let shots = dir.path().join("shots");
    let drawn = |image: &Image, ch: usize| {
        image.rgb(OUTPUT.0 - 1, OUTPUT.1 - 1) == bg
            && image.ink(0, 0, image.width, ch, bg) > 0
            && image.ink(0, 2 * ch, image.width, image.height, bg) == 0
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let cell_height = loop {
        let image = weston.screenshot(&shots);
        assert_eq!((image.width, image.height), OUTPUT);
        // koi's cells at its default font are 13–30 px high. The smallest
        // height that explains the shot is the real one, as the cursor
        // block fills row 1 to its bottom.
        if let Some(ch) = (13..=30).find(|&ch| drawn(&image, ch)) {
            break ch;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "weston never showed the line over koi's background: \
             the last shot's bottom-right pixel is {:?}",
            image.rgb(OUTPUT.0 - 1, OUTPUT.1 - 1)
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    std::fs::write(&release, "").unwrap();
    let status = koi.wait().unwrap();
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut koi.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(0), "{stderr}");
    let text = std::fs::read_to_string(&dump).unwrap();
    assert_eq!(text.lines().next(), Some("hello-wayland"), "{text}");

    // The offscreen dump (a debugging aid) agrees on the cell height.
    let mut png = dump.into_os_string();
    png.push(".png");
    let image = Image::load(Path::new(&png));
    assert_eq!(image.height / 10, cell_height, "the dump's rows");
}
