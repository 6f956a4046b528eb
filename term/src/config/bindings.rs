//! Keybindings: a table of chord → action, with per-platform defaults that
//! users can rebind or unbind (`"none"`).

use std::collections::BTreeMap;

use koi_terminal::input::{Key, Mods};

/// A direction for moving the focus between panes and resizing them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    Left,
    Right,
    Up,
    Down,
}

/// What a keybinding does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    Copy,
    Paste,
    PasteSelection,
    IncreaseFontSize,
    DecreaseFontSize,
    ResetFontSize,
    ScrollPageUp,
    ScrollPageDown,
    ScrollLineUp,
    ScrollLineDown,
    ScrollToTop,
    ScrollToBottom,
    /// Open or close the assistant overlay (Cmd+L / Ctrl+Shift+L).
    ToggleAssistant,
    NewTab,
    CloseTab,
    NextTab,
    PreviousTab,
    /// Show the Nth tab (1-based; past the last shows the last).
    SelectTab(u8),
    MoveTabLeft,
    MoveTabRight,
    SplitRight,
    SplitDown,
    /// Close the focused pane (asks first when a job runs in it).
    ClosePane,
    Focus(Direction),
    Resize(Direction),
    /// Zoom the focused pane to the whole tab, or back.
    ZoomPane,
    /// Open the scrollback search bar.
    Search,
    /// Label URLs, paths, hashes and addresses to copy or open.
    Hints,
    /// Ask the assistant why the last command failed and how to fix it.
    FixLastCommand,
    /// Explicitly unbound: the key goes to the terminal.
    None,
}

/// Every action by its config name.
const ACTION_NAMES: &[(&str, Action)] = &[
    ("copy", Action::Copy),
    ("paste", Action::Paste),
    ("paste_selection", Action::PasteSelection),
    ("increase_font_size", Action::IncreaseFontSize),
    ("decrease_font_size", Action::DecreaseFontSize),
    ("reset_font_size", Action::ResetFontSize),
    ("scroll_page_up", Action::ScrollPageUp),
    ("scroll_page_down", Action::ScrollPageDown),
    ("scroll_line_up", Action::ScrollLineUp),
    ("scroll_line_down", Action::ScrollLineDown),
    ("scroll_to_top", Action::ScrollToTop),
    ("scroll_to_bottom", Action::ScrollToBottom),
    ("toggle_assistant", Action::ToggleAssistant),
    ("new_tab", Action::NewTab),
    ("close_tab", Action::CloseTab),
    ("next_tab", Action::NextTab),
    ("previous_tab", Action::PreviousTab),
    ("tab_1", Action::SelectTab(1)),
    ("tab_2", Action::SelectTab(2)),
    ("tab_3", Action::SelectTab(3)),
    ("tab_4", Action::SelectTab(4)),
    ("tab_5", Action::SelectTab(5)),
    ("tab_6", Action::SelectTab(6)),
    ("tab_7", Action::SelectTab(7)),
    ("tab_8", Action::SelectTab(8)),
    ("tab_9", Action::SelectTab(9)),
    ("move_tab_left", Action::MoveTabLeft),
    ("move_tab_right", Action::MoveTabRight),
    ("split_right", Action::SplitRight),
    ("split_down", Action::SplitDown),
    ("close_pane", Action::ClosePane),
    ("focus_left", Action::Focus(Direction::Left)),
    ("focus_right", Action::Focus(Direction::Right)),
    ("focus_up", Action::Focus(Direction::Up)),
    ("focus_down", Action::Focus(Direction::Down)),
    ("resize_left", Action::Resize(Direction::Left)),
    ("resize_right", Action::Resize(Direction::Right)),
    ("resize_up", Action::Resize(Direction::Up)),
    ("resize_down", Action::Resize(Direction::Down)),
    ("zoom_pane", Action::ZoomPane),
    ("search", Action::Search),
    ("hints", Action::Hints),
    ("fix_last_command", Action::FixLastCommand),
    ("none", Action::None),
];

impl std::str::FromStr for Action {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let wanted = s.trim().to_ascii_lowercase().replace('-', "_");
        ACTION_NAMES
            .iter()
            .find(|(name, _)| *name == wanted)
            .map(|(_, a)| *a)
            .ok_or_else(|| {
                let names: Vec<_> = ACTION_NAMES.iter().map(|(n, _)| *n).collect();
                format!("unknown action `{s}` (one of: {})", names.join(", "))
            })
    }
}

/// A key with modifiers. Letters are stored lower-case: Shift is a modifier.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chord {
    pub mods: Mods,
    pub key: Key,
}

/// Named keys as written in the config.
const KEY_NAMES: &[(&str, Key)] = &[
    ("enter", Key::Enter),
    ("return", Key::Enter),
    ("tab", Key::Tab),
    ("backspace", Key::Backspace),
    ("escape", Key::Escape),
    ("esc", Key::Escape),
    ("up", Key::Up),
    ("down", Key::Down),
    ("left", Key::Left),
    ("right", Key::Right),
    ("home", Key::Home),
    ("end", Key::End),
    ("pageup", Key::PageUp),
    ("pagedown", Key::PageDown),
    ("insert", Key::Insert),
    ("delete", Key::Delete),
    ("space", Key::Char(' ')),
    ("plus", Key::Char('+')),
    ("minus", Key::Char('-')),
    ("equals", Key::Char('=')),
];

impl Chord {
    pub fn new(mods: Mods, key: Key) -> Self {
        Self {
            mods,
            key: normalize(key),
        }
    }
}

fn normalize(key: Key) -> Key {
    match key {
        Key::Char(c) => Key::Char(c.to_lowercase().next().unwrap_or(c)),
        other => other,
    }
}

impl std::str::FromStr for Chord {
    type Err = String;

    /// `"Ctrl+Shift+C"`, `"Cmd+L"`, `"Shift+PageUp"`, `"Ctrl+="`, `"F5"`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let parts: Vec<&str> = if let Some(prefix) = s.strip_suffix("++") {
            // "Ctrl++": the key itself is '+'.
            prefix.split('+').chain(std::iter::once("+")).collect()
        } else {
            s.split('+').collect()
        };
        let (key_name, mod_names) = parts
            .split_last()
            .ok_or_else(|| format!("empty key in `{s}`"))?;
        let mut mods = Mods::NONE;
        for name in mod_names {
            mods = mods.with(match name.trim().to_ascii_lowercase().as_str() {
                "ctrl" | "control" => Mods::CTRL,
                "shift" => Mods::SHIFT,
                "alt" | "option" | "opt" => Mods::ALT,
                "cmd" | "command" | "super" | "logo" | "win" | "meta" => Mods::LOGO,
                other => return Err(format!("unknown modifier `{other}` in `{s}`")),
            });
        }
        let key_name = key_name.trim();
        let lower = key_name.to_ascii_lowercase();
        let key = if let Some((_, key)) = KEY_NAMES.iter().find(|(name, _)| *name == lower) {
            key.clone()
        } else if let Some(n) = lower.strip_prefix('f').and_then(|n| n.parse::<u8>().ok()) {
            if !(1..=24).contains(&n) {
                return Err(format!(
                    "function key F{n} in `{s}` is not supported (F1–F24)"
                ));
            }
            Key::F(n)
        } else {
            let mut chars = key_name.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) => Key::Char(c),
                _ => return Err(format!("unknown key `{key_name}` in `{s}`")),
            }
        };
        Ok(Chord::new(mods, key))
    }
}

impl std::fmt::Display for Chord {
    /// As the config spells it, for hints: `Ctrl+Shift+E`, `Cmd+L`, `F5`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Mods {
            shift,
            alt,
            ctrl,
            logo,
        } = self.mods;
        let cmd = if cfg!(target_os = "macos") {
            "Cmd"
        } else {
            "Super"
        };
        for (held, name) in [(ctrl, "Ctrl"), (alt, "Alt"), (shift, "Shift"), (logo, cmd)] {
            if held {
                write!(f, "{name}+")?;
            }
        }
        match &self.key {
            Key::Char(' ') => f.write_str("Space"),
            Key::Char(c) => write!(f, "{}", c.to_uppercase()),
            Key::F(n) => write!(f, "F{n}"),
            Key::Keypad(k) => write!(f, "Keypad{k:?}"),
            key => write!(f, "{key:?}"),
        }
    }
}

/// One chord bound to one action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    pub chord: Chord,
    pub action: Action,
}

/// The active keybindings: defaults with the user's table laid over them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bindings {
    bindings: Vec<Binding>,
}

/// The primary modifier for app shortcuts: Cmd on macOS, Ctrl+Shift elsewhere
/// (plain Ctrl+C must reach the shell).
#[cfg(target_os = "macos")]
const APP_MODS: Mods = Mods::LOGO;
#[cfg(not(target_os = "macos"))]
const APP_MODS: Mods = Mods::CTRL.with(Mods::SHIFT);

/// Nth-tab keys: Cmd+N on macOS, Alt+N elsewhere (as GNOME Terminal).
#[cfg(target_os = "macos")]
const TAB_NUMBER_MODS: Mods = Mods::LOGO;
#[cfg(not(target_os = "macos"))]
const TAB_NUMBER_MODS: Mods = Mods::ALT;

/// Zoom keys: Cmd on macOS, Ctrl elsewhere.
#[cfg(target_os = "macos")]
const ZOOM_MODS: Mods = Mods::LOGO;
#[cfg(not(target_os = "macos"))]
const ZOOM_MODS: Mods = Mods::CTRL;

impl Default for Bindings {
    fn default() -> Self {
        let bind = |mods, key, action| Binding {
            chord: Chord::new(mods, key),
            action,
        };
        let mut bindings = vec![
            bind(APP_MODS, Key::Char('c'), Action::Copy),
            bind(APP_MODS, Key::Char('v'), Action::Paste),
            bind(Mods::SHIFT, Key::Insert, Action::PasteSelection),
            bind(APP_MODS, Key::Char('l'), Action::ToggleAssistant),
            bind(APP_MODS, Key::Char('e'), Action::FixLastCommand),
            bind(ZOOM_MODS, Key::Char('='), Action::IncreaseFontSize),
            bind(ZOOM_MODS, Key::Char('+'), Action::IncreaseFontSize),
            bind(
                ZOOM_MODS.with(Mods::SHIFT),
                Key::Char('+'),
                Action::IncreaseFontSize,
            ),
            bind(ZOOM_MODS, Key::Char('-'), Action::DecreaseFontSize),
            bind(ZOOM_MODS, Key::Char('0'), Action::ResetFontSize),
            bind(Mods::SHIFT, Key::PageUp, Action::ScrollPageUp),
            bind(Mods::SHIFT, Key::PageDown, Action::ScrollPageDown),
            bind(Mods::SHIFT, Key::Home, Action::ScrollToTop),
            bind(Mods::SHIFT, Key::End, Action::ScrollToBottom),
        ];
        bindings.extend(pane_bindings());
        for n in 1..=9u8 {
            bindings.push(bind(
                TAB_NUMBER_MODS,
                Key::Char(char::from(b'0' + n)),
                Action::SelectTab(n),
            ));
        }
        Self { bindings }
    }
}

/// Tabs and splits, in the conventions of each platform's terminals
/// (iTerm2 and Terminal on macOS; WezTerm, GNOME Terminal on Linux).
fn pane_bindings() -> Vec<Binding> {
    let bind = |mods, key, action| Binding {
        chord: Chord::new(mods, key),
        action,
    };
    #[cfg(target_os = "macos")]
    let (focus, resize, split_down, zoom) = (
        Mods::LOGO.with(Mods::ALT),
        Mods::LOGO.with(Mods::CTRL),
        bind(
            Mods::LOGO.with(Mods::SHIFT),
            Key::Char('d'),
            Action::SplitDown,
        ),
        bind(Mods::LOGO.with(Mods::SHIFT), Key::Enter, Action::ZoomPane),
    );
    #[cfg(not(target_os = "macos"))]
    let (focus, resize, split_down, zoom) = (
        APP_MODS,
        APP_MODS.with(Mods::ALT),
        bind(APP_MODS.with(Mods::ALT), Key::Char('d'), Action::SplitDown),
        bind(APP_MODS, Key::Char('z'), Action::ZoomPane),
    );
    #[cfg(target_os = "macos")]
    let (new_tab, close, split_right, next, previous) = (
        bind(Mods::LOGO, Key::Char('t'), Action::NewTab),
        bind(Mods::LOGO, Key::Char('w'), Action::ClosePane),
        bind(Mods::LOGO, Key::Char('d'), Action::SplitRight),
        bind(
            Mods::LOGO.with(Mods::SHIFT),
            Key::Char('}'),
            Action::NextTab,
        ),
        bind(
            Mods::LOGO.with(Mods::SHIFT),
            Key::Char('{'),
            Action::PreviousTab,
        ),
    );
    #[cfg(not(target_os = "macos"))]
    let (new_tab, close, split_right, next, previous) = (
        bind(APP_MODS, Key::Char('t'), Action::NewTab),
        bind(APP_MODS, Key::Char('w'), Action::ClosePane),
        bind(APP_MODS, Key::Char('d'), Action::SplitRight),
        bind(Mods::CTRL, Key::Tab, Action::NextTab),
        bind(Mods::CTRL.with(Mods::SHIFT), Key::Tab, Action::PreviousTab),
    );
    let arrows = [
        (Key::Left, Direction::Left),
        (Key::Right, Direction::Right),
        (Key::Up, Direction::Up),
        (Key::Down, Direction::Down),
    ];
    #[cfg(target_os = "macos")]
    let search = bind(Mods::LOGO, Key::Char('f'), Action::Search);
    #[cfg(not(target_os = "macos"))]
    let search = bind(APP_MODS, Key::Char('f'), Action::Search);
    #[cfg(target_os = "macos")]
    let hints = bind(Mods::LOGO.with(Mods::SHIFT), Key::Char('h'), Action::Hints);
    #[cfg(not(target_os = "macos"))]
    let hints = bind(APP_MODS, Key::Char('h'), Action::Hints);
    let mut out = vec![
        new_tab,
        close,
        split_right,
        split_down,
        zoom,
        next,
        previous,
        search,
        hints,
    ];
    out.push(bind(Mods::CTRL, Key::PageDown, Action::NextTab));
    out.push(bind(Mods::CTRL, Key::PageUp, Action::PreviousTab));
    out.push(bind(
        Mods::CTRL.with(Mods::SHIFT),
        Key::PageUp,
        Action::MoveTabLeft,
    ));
    out.push(bind(
        Mods::CTRL.with(Mods::SHIFT),
        Key::PageDown,
        Action::MoveTabRight,
    ));
    for (key, direction) in arrows {
        out.push(bind(focus, key.clone(), Action::Focus(direction)));
        out.push(bind(resize, key, Action::Resize(direction)));
    }
    out
}

impl Bindings {
    /// The defaults, then `table` (chord → action name) on top: a chord the
    /// user binds replaces the default for it, and `"none"` unbinds it.
    pub fn with_overrides(table: &BTreeMap<String, String>) -> Result<Self, String> {
        let mut bindings = Self::default();
        for (chord, action) in table {
            let chord: Chord = chord.parse().map_err(|e| format!("keybindings: {e}"))?;
            let action: Action = action
                .parse()
                .map_err(|e| format!("keybindings.\"{chord:?}\": {e}"))?;
            bindings.bindings.retain(|b| b.chord != chord);
            bindings.bindings.push(Binding { chord, action });
        }
        Ok(bindings)
    }

    /// The action bound to `key` with `mods`, if any. `None` also when the
    /// chord is explicitly unbound.
    pub fn action_for(&self, mods: Mods, key: &Key) -> Option<Action> {
        let chord = Chord::new(mods, key.clone());
        self.bindings
            .iter()
            .find(|b| b.chord == chord)
            .map(|b| b.action)
            .filter(|a| *a != Action::None)
    }

    /// The chords bound to `action` (for help text).
    pub fn chords_for(&self, action: Action) -> impl Iterator<Item = &Chord> {
        self.bindings
            .iter()
            .filter(move |b| b.action == action)
            .map(|b| &b.chord)
    }
}
