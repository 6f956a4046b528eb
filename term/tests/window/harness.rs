//! A real X server (Xvfb), the real `koi` binary, keys typed with xdotool.
#![allow(dead_code)]

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A private X server for one test.
pub struct Xvfb {
    child: Child,
    pub display: String,
}

impl Xvfb {
    pub fn start() -> Self {
        let mut child = Command::new("Xvfb")
            .args([
                "-displayfd",
                "1",
                "-screen",
                "0",
                "1280x900x24",
                "-nolisten",
                "tcp",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb is needed for window tests (apt-get install xvfb; .ci/run installs it)");
        // Xvfb writes the display number it chose, then a newline.
        let mut out = child.stdout.take().expect("piped stdout");
        let mut number = String::new();
        let mut byte = [0u8; 1];
        while out.read(&mut byte).unwrap_or(0) == 1 && byte[0] != b'\n' {
            number.push(byte[0] as char);
        }
        assert!(!number.is_empty(), "Xvfb did not report a display");
        Self {
            child,
            display: format!(":{}", number.trim()),
        }
    }

    pub fn xdotool(&self, args: &[&str]) -> String {
        let out = Command::new("xdotool")
            .args(args)
            .env("DISPLAY", &self.display)
            .output()
            .expect("xdotool (apt-get install xdotool)");
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    /// What an X selection (`clipboard`, `primary`) holds now, as another
    /// program pasting it would get it; empty when nothing owns it.
    pub fn selection(&self, which: &str) -> String {
        // `timeout`: a selection owner that never answers must fail the
        // test, not hang it.
        let out = Command::new("timeout")
            .args(["5", "xclip", "-o", "-selection", which])
            .env("DISPLAY", &self.display)
            .output()
            .expect("timeout and xclip (apt-get install xclip; .ci/run installs it)");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// What the window shows now, read back from the X server with `xwd`.
    pub fn screenshot(&self, window: &str) -> Image {
        let out = Command::new("xwd")
            .args(["-silent", "-nobdrs", "-id", window])
            .env("DISPLAY", &self.display)
            .output()
            .expect("xwd (apt-get install x11-apps; .ci/run installs it)");
        assert!(out.status.success(), "xwd failed: {:?}", out.status);
        Image::from_xwd(&out.stdout)
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A running koi window.
pub struct Koi {
    child: Child,
    pub window: String,
    pub dump: PathBuf,
    stderr_path: PathBuf,
    /// The file bash touches before each prompt (shell sessions only).
    prompt_marker: Option<PathBuf>,
}

impl Koi {
    /// Start koi running `bash --norc` with `config` as its config file,
    /// and wait for the window and the shell's first prompt.
    pub fn start(x: &Xvfb, dir: &Path, config: &Path, extra: &[&str]) -> Self {
        Self::start_with_env(x, dir, config, extra, &[])
    }

    /// [`Koi::start`] with more environment for koi and its shell (an input
    /// method's `XMODIFIERS`, say).
    pub fn start_with_env(
        x: &Xvfb,
        dir: &Path,
        config: &Path,
        extra: &[&str],
        env: &[(&str, String)],
    ) -> Self {
        Self::start_bash(
            x,
            dir,
            config,
            extra,
            &["bash", "--norc", "--noprofile"],
            env,
        )
    }

    /// [`Koi::start_with_env`] with `bash` started as `argv` (another rc
    /// file, say); `PROMPT_COMMAND` from the environment must still run.
    pub fn start_bash(
        x: &Xvfb,
        dir: &Path,
        config: &Path,
        extra: &[&str],
        argv: &[&str],
        env: &[(&str, String)],
    ) -> Self {
        // bash touches this before each prompt: typing before the first
        // one could race koi's start-up on a loaded machine.
        let ready = dir.join("prompt-ready");
        let _ = std::fs::remove_file(&ready);
        let mut env = env.to_vec();
        env.push(("PS1", "$ ".to_string()));
        env.push(("PROMPT_COMMAND", format!(": > '{}'", ready.display())));
        let mut koi = Self::spawn(x, dir, config, extra, argv, &env);
        koi.prompt_marker = Some(ready.clone());
        koi.find_window(x);
        x.xdotool(&["windowfocus", "--sync", &koi.window]);
        eventually("the shell's first prompt", Duration::from_secs(30), || {
            ready.exists()
        });
        // Give koi a frame to draw it.
        std::thread::sleep(Duration::from_millis(100));
        koi
    }

    /// Wait for koi's window to be mapped and remember its id.
    pub fn find_window(&mut self, x: &Xvfb) {
        let pid = self.child.id().to_string();
        let deadline = Instant::now() + Duration::from_secs(30);
        self.window = loop {
            let found = x.xdotool(&["search", "--sync", "--onlyvisible", "--pid", &pid]);
            if let Some(window) = found.lines().next() {
                break window.to_owned();
            }
            // xdotool gives up on an X error when a window it looks at goes
            // away mid-search (an input method's XIM connection makes and
            // drops such windows): look again, unless koi is gone.
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("koi exited ({status}) without a window:\n{}", self.stderr());
            }
            assert!(Instant::now() < deadline, "koi opened no window");
            std::thread::sleep(Duration::from_millis(50));
        };
    }

    /// Start koi running `command` instead of a shell, for tests that only
    /// watch what a program does to the terminal (nothing is typed, so
    /// nothing waits for the window).
    pub fn run(x: &Xvfb, dir: &Path, config: &Path, command: &[&str]) -> Self {
        Self::spawn(x, dir, config, &[], command, &[])
    }

    fn spawn(
        x: &Xvfb,
        dir: &Path,
        config: &Path,
        extra: &[&str],
        command: &[&str],
        env: &[(&str, String)],
    ) -> Self {
        let dump = dir.join("dump.txt");
        let stderr_path = dir.join("stderr.txt");
        let mut args: Vec<String> = vec![
            "--config".into(),
            config.display().to_string(),
            "--dump-on-exit".into(),
            dump.display().to_string(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        args.push("-e".into());
        args.extend(command.iter().map(|s| s.to_string()));
        let child = Command::new(env!("CARGO_BIN_EXE_koi"))
            .args(&args)
            .env("DISPLAY", &x.display)
            .env("XDG_CONFIG_HOME", dir.join("xdg"))
            .env("XDG_DATA_HOME", dir.join("xdg-data"))
            .env_remove("KOI_API_KEY")
            .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&stderr_path).expect("stderr file"))
            .spawn()
            .expect("start koi");
        Self {
            child,
            window: String::new(),
            dump,
            stderr_path,
            prompt_marker: None,
        }
    }

    pub fn keys(&self, x: &Xvfb, keys: &str) {
        x.xdotool(&["windowfocus", "--sync", &self.window]);
        x.xdotool(&["key", "--delay", "30", keys]);
    }

    pub fn type_text(&self, x: &Xvfb, text: &str) {
        x.xdotool(&["windowfocus", "--sync", &self.window]);
        x.xdotool(&["type", "--delay", "15", text]);
    }

    pub fn type_line(&self, x: &Xvfb, text: &str) {
        x.xdotool(&["windowfocus", "--sync", &self.window]);
        x.xdotool(&["type", "--delay", "15", text]);
        x.xdotool(&["key", "Return"]);
    }

    /// Type `command` at the shell's prompt and wait until it has run and
    /// the next prompt is up.
    pub fn run_command(&self, x: &Xvfb, command: &str) {
        let marker = self.prompt_marker.as_ref().expect("a shell session");
        let _ = std::fs::remove_file(marker);
        self.type_line(x, command);
        eventually(
            &format!("{command:?} to finish"),
            Duration::from_secs(30),
            || marker.exists(),
        );
    }

    /// The window's inner size in pixels.
    pub fn size(&self, x: &Xvfb) -> (u32, u32) {
        let shell = x.xdotool(&["getwindowgeometry", "--shell", &self.window]);
        let value = |key: &str| {
            shell
                .lines()
                .find_map(|l| l.strip_prefix(key)?.parse().ok())
                .unwrap_or_else(|| panic!("no {key} in {shell}"))
        };
        (value("WIDTH="), value("HEIGHT="))
    }

    /// Drag with the left button from `from` to `to` (window pixels),
    /// through the midpoint, pausing as a hand would so every motion is
    /// seen.
    pub fn drag(&self, x: &Xvfb, from: (u32, u32), to: (u32, u32)) {
        self.drag_and_hold(x, from, to, Duration::ZERO);
    }

    /// The same, holding the button still at `to` for `hold` before
    /// letting go.
    pub fn drag_and_hold(&self, x: &Xvfb, from: (u32, u32), to: (u32, u32), hold: Duration) {
        let pause = || std::thread::sleep(Duration::from_millis(120));
        let move_to = |(px, py): (u32, u32)| {
            x.xdotool(&[
                "mousemove",
                "--window",
                &self.window,
                &px.to_string(),
                &py.to_string(),
            ]);
            pause();
        };
        move_to(from);
        x.xdotool(&["mousedown", "1"]);
        pause();
        move_to(((from.0 + to.0) / 2, (from.1 + to.1) / 2));
        move_to(to);
        std::thread::sleep(hold);
        x.xdotool(&["mouseup", "1"]);
        pause();
    }

    /// Wait for koi to exit; returns its exit code.
    pub fn wait(mut self, timeout: Duration) -> (Option<i32>, String, PathBuf) {
        let deadline = Instant::now() + timeout;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                let stderr = std::fs::read_to_string(&self.stderr_path).unwrap_or_default();
                return (status.code(), stderr, self.dump.clone());
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                let stderr = std::fs::read_to_string(&self.stderr_path).unwrap_or_default();
                panic!("koi did not exit in {timeout:?}; stderr:\n{stderr}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr_path).unwrap_or_default()
    }
}

impl Drop for Koi {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A decoded RGBA/RGB PNG.
#[derive(PartialEq, Eq)]
pub struct Image {
    pub width: usize,
    pub height: usize,
    channels: usize,
    data: Vec<u8>,
}

impl Image {
    pub fn load(path: &Path) -> Self {
        let decoder = png::Decoder::new(std::io::BufReader::new(
            std::fs::File::open(path).expect("png exists"),
        ));
        let mut reader = decoder.read_info().expect("png header");
        let mut data = vec![0; reader.output_buffer_size().expect("size")];
        let info = reader.next_frame(&mut data).expect("png data");
        Self {
            width: info.width as usize,
            height: info.height as usize,
            channels: info.color_type.samples(),
            data,
        }
    }

    /// Decode an `xwd` dump of a 24/32-bit TrueColor window: a big-endian
    /// header, the colour map, then pixels in the server's byte order.
    pub fn from_xwd(bytes: &[u8]) -> Self {
        let field = |i: usize| {
            let b = &bytes[i * 4..i * 4 + 4];
            u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize
        };
        let (header_size, width, height) = (field(0), field(4), field(5));
        let (lsb_first, bits_per_pixel, bytes_per_line) = (field(7) == 0, field(11), field(12));
        let masks = [field(14), field(15), field(16)];
        assert_eq!(bits_per_pixel, 32, "a 24-bit screen");
        let pixels = &bytes[header_size + field(19) * 12..];
        let mut data = Vec::with_capacity(width * height * 3);
        for y in 0..height {
            for x in 0..width {
                let b = &pixels[y * bytes_per_line + x * 4..][..4];
                let b = [b[0], b[1], b[2], b[3]];
                let p = if lsb_first {
                    u32::from_le_bytes(b)
                } else {
                    u32::from_be_bytes(b)
                } as usize;
                data.extend(masks.map(|m| ((p & m) >> m.trailing_zeros()) as u8));
            }
        }
        Self {
            width,
            height,
            channels: 3,
            data,
        }
    }

    pub fn rgb(&self, x: usize, y: usize) -> [u8; 3] {
        let i = (y * self.width + x) * self.channels;
        [self.data[i], self.data[i + 1], self.data[i + 2]]
    }

    /// How many pixels in the rectangle differ from `bg`.
    pub fn ink(&self, x0: usize, y0: usize, w: usize, h: usize, bg: [u8; 3]) -> usize {
        let mut n = 0;
        for y in y0..(y0 + h).min(self.height) {
            for x in x0..(x0 + w).min(self.width) {
                if self.rgb(x, y) != bg {
                    n += 1;
                }
            }
        }
        n
    }
}

/// Poll `f` until it returns true.
pub fn eventually(what: &str, timeout: Duration, f: impl Fn() -> bool) {
    let deadline = Instant::now() + timeout;
    while !f() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}
