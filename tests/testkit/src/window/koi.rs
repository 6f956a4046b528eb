//! The real `koi` binary in a window under [`Xvfb`], keys typed with xdotool.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::Xvfb;
use crate::poll::eventually;

/// How long the screen may take to show what a test waits for.
const SCREEN_WAIT: Duration = Duration::from_secs(30);

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

    /// Start koi running the shell its config names (no `-e`: koi injects
    /// its integration) in `cwd`, and wait for the window and for `ready`,
    /// which the user's own rc file touches at each prompt.
    pub fn start_shell(
        x: &Xvfb,
        dir: &Path,
        config: &Path,
        cwd: &Path,
        env: &[(&str, String)],
        ready: &Path,
    ) -> Self {
        let _ = std::fs::remove_file(ready);
        let cwd = cwd.display().to_string();
        let extra = ["--working-directory", cwd.as_str()];
        let mut koi = Self::spawn(x, dir, config, &extra, &[], env);
        koi.prompt_marker = Some(ready.to_owned());
        koi.find_window(x);
        x.xdotool(&["windowfocus", "--sync", &koi.window]);
        eventually("the shell's first prompt", Duration::from_secs(30), || {
            ready.exists()
        });
        std::thread::sleep(Duration::from_millis(100));
        koi
    }

    /// koi's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
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
        if !command.is_empty() {
            args.push("-e".into());
            args.extend(command.iter().map(|s| s.to_string()));
        }
        let child = Command::new(crate::bins::koi())
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

    /// The pixel at the middle of cell (`col`, `row`) of a window that
    /// shows a `cols` × `rows` grid with no padding.
    pub fn cell_center(&self, x: &Xvfb, grid: (u32, u32), cell: (u32, u32)) -> (u32, u32) {
        let (width, height) = self.size(x);
        let (cw, ch) = (width / grid.0, height / grid.1);
        (cell.0 * cw + cw / 2, cell.1 * ch + ch / 2)
    }

    /// Click `button` `count` times at `at` (window pixels), quickly enough
    /// to count as a double or triple click, with `held` (xdotool modifier
    /// keys, `shift`…) down.
    pub fn click(&self, x: &Xvfb, at: (u32, u32), button: u8, count: u8, held: &[&str]) {
        let (px, py) = (at.0.to_string(), at.1.to_string());
        x.xdotool(&["mousemove", "--window", &self.window, &px, &py]);
        for key in held {
            x.xdotool(&["keydown", key]);
        }
        x.xdotool(&[
            "click",
            "--repeat",
            &count.to_string(),
            "--delay",
            "60",
            &button.to_string(),
        ]);
        for key in held {
            x.xdotool(&["keyup", key]);
        }
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
        move_to((u32::midpoint(from.0, to.0), u32::midpoint(from.1, to.1)));
        move_to(to);
        std::thread::sleep(hold);
        x.xdotool(&["mouseup", "1"]);
        pause();
    }

    /// The focused pane's screen as of koi's last frame (`--dump-on-exit`
    /// keeps PATH.screen current); empty before the first frame.
    pub fn screen(&self) -> String {
        let mut path = self.dump.as_os_str().to_owned();
        path.push(".screen");
        std::fs::read_to_string(Path::new(&path)).unwrap_or_default()
    }

    /// Waits until the screen satisfies `f`; a failure shows the screen.
    pub fn wait_for_screen(&self, what: &str, f: impl Fn(&str) -> bool) -> String {
        crate::poll::until(what, SCREEN_WAIT, || {
            let screen = self.screen();
            if f(&screen) {
                Ok(screen)
            } else {
                Err(format!("screen:\n{screen}"))
            }
        })
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
