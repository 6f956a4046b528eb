//! Pure encoders from user input to the bytes an application expects, as
//! xterm sends them: keys ([`keys`], with the kitty keyboard protocol when
//! the application asks for it), mouse reports ([`mouse`]) and pastes
//! ([`paste`]). They read the terminal's modes and touch nothing else, so
//! they are table-tested without a PTY.

pub mod key_event;
pub mod keys;
mod kitty;
pub mod mouse;
pub mod paste;
pub mod xterm_table;

pub use key_event::{Key, KeyAction, KeyEvent};
pub use keys::encode_key;
pub use mouse::{encode_mouse, MouseAction, MouseButton, MouseReport};
pub use paste::encode_paste;

/// Modifier keys held during an input event.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Mods {
    pub shift: bool,
    pub alt: bool,
    pub ctrl: bool,
    pub logo: bool,
}

impl Mods {
    pub const NONE: Mods = Mods {
        shift: false,
        alt: false,
        ctrl: false,
        logo: false,
    };
    pub const SHIFT: Mods = Mods {
        shift: true,
        ..Mods::NONE
    };
    pub const ALT: Mods = Mods {
        alt: true,
        ..Mods::NONE
    };
    pub const CTRL: Mods = Mods {
        ctrl: true,
        ..Mods::NONE
    };
    pub const LOGO: Mods = Mods {
        logo: true,
        ..Mods::NONE
    };

    /// Both sets of modifiers held.
    pub const fn with(self, other: Mods) -> Mods {
        Mods {
            shift: self.shift || other.shift,
            alt: self.alt || other.alt,
            ctrl: self.ctrl || other.ctrl,
            logo: self.logo || other.logo,
        }
    }

    pub fn is_empty(self) -> bool {
        self == Mods::NONE
    }

    /// The modifier parameter of xterm's `CSI 1;{m}X` forms (and kitty's):
    /// 1 + shift·1 + alt·2 + ctrl·4 + super·8.
    pub fn param(self) -> u8 {
        1 + u8::from(self.shift)
            + 2 * u8::from(self.alt)
            + 4 * u8::from(self.ctrl)
            + 8 * u8::from(self.logo)
    }
}
