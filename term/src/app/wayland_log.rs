//! Silence libwayland on X11.
//!
//! Mesa's Vulkan device-selection layer looks for a Wayland compositor even
//! when koi runs on X11, and libwayland prints its failure to stderr
//! (`error: XDG_RUNTIME_DIR is invalid or not set in the environment.`,
//! once per GPU enumeration) when there is no runtime directory. Nothing is
//! wrong then, so on X11 koi hands libwayland a log handler of its own that
//! sends its messages to the debug log instead.

use std::ffi::{c_char, c_void, CStr};

/// Route libwayland's messages to koi's log, if libwayland is installed.
pub(super) fn route_to_log() {
    let Some(client) = wayland_sys::client::wayland_client_option() else {
        return;
    };
    // SAFETY: `to_log` has the C signature libwayland expects and lives
    // for the whole process.
    unsafe { (client.wl_log_set_handler_client)(to_log) };
}

/// libwayland's log callback: a printf format and its `va_list`, which is
/// left unread (the format alone says what happened).
unsafe extern "C" fn to_log(format: *const c_char, _args: *const c_void) {
    if format.is_null() {
        return;
    }
    // SAFETY: libwayland passes a NUL-terminated format string.
    let text = unsafe { CStr::from_ptr(format) }.to_string_lossy();
    log::debug!("libwayland: {}", text.trim_end());
}
