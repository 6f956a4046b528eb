//! koi on Wayland: a real compositor (weston's headless backend), no X
//! server at all, wgpu presenting through lavapipe's Wayland surface.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::harness::{eventually, Image};

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
        let child = Command::new("weston")
            .args([
                "--backend=headless-backend.so",
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
    let out = Command::new(env!("CARGO_BIN_EXE_koi"))
        .args(["--config", config.to_str().unwrap()])
        .args(["--dump-on-exit", dump.to_str().unwrap()])
        .args(["-e", "sh", "-c", "echo hello-wayland; sleep 0.3"])
        // Only Wayland to talk to: winit cannot fall back to X11.
        .env_remove("DISPLAY")
        .env("WAYLAND_DISPLAY", weston.socket)
        .env("XDG_RUNTIME_DIR", weston.runtime.path())
        .env("XDG_CONFIG_HOME", dir.path().join("xdg"))
        .env("XDG_DATA_HOME", dir.path().join("xdg-data"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let text = std::fs::read_to_string(&dump).unwrap();
    assert_eq!(text.lines().next(), Some("hello-wayland"), "{text}");

    // The last presented frame: the text has ink on the first row only.
    let mut png = dump.into_os_string();
    png.push(".png");
    let image = Image::load(Path::new(&png));
    let (cw, ch) = (image.width / 40, image.height / 10);
    let bg = [0x10, 0x14, 0x18];
    assert!(
        image.ink(0, 0, 13 * cw, ch, bg) > 0,
        "no text drawn on row 0"
    );
    assert_eq!(image.ink(0, 3 * ch, image.width, 7 * ch, bg), 0);
}
