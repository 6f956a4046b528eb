//! Image data on the X11 clipboard, for pasting a screenshot into the
//! assistant panel. arboard reads only text here (its image support
//! brings a whole image codec crate, and it hands back decoded pixels),
//! while the provider wants the PNG bytes as they are. So koi asks the
//! clipboard's owner for `image/png` over an X connection of its own,
//! following ICCCM's selection transfer, INCR included.

use std::time::{Duration, Instant};

use ai_chat_engine::image::MAX_IMAGE_BYTES;
use x11rb::connection::Connection as _;
use x11rb::protocol::xproto::{
    AtomEnum, ConnectionExt as _, CreateWindowAux, EventMask, Property, WindowClass,
};
use x11rb::protocol::Event;
use x11rb::rust_connection::RustConnection;

/// How long the clipboard's owner may take to answer (and, for a large
/// image, between two of its chunks). Owners answer at once; one that
/// hangs must not freeze the window for long, since paste waits on it.
const OWNER_WAIT: Duration = Duration::from_secs(1);

/// The PNG on the clipboard, if its owner offers one. `None` on Wayland,
/// without a display, or when the clipboard holds no image.
pub fn clipboard_png() -> Option<Vec<u8>> {
    std::env::var_os("DISPLAY")?;
    match read_png() {
        Ok(png) => png,
        Err(e) => {
            log::info!("no image from the clipboard: {e}");
            None
        }
    }
}

fn read_png() -> Result<Option<Vec<u8>>, Box<dyn std::error::Error>> {
    let (conn, screen) = RustConnection::connect(None)?;
    let root = conn.setup().roots.get(screen).ok_or("no X screen")?.root;
    let window = conn.generate_id()?;
    conn.create_window(
        0,
        window,
        root,
        0,
        0,
        1,
        1,
        0,
        WindowClass::INPUT_ONLY,
        0,
        &CreateWindowAux::new().event_mask(EventMask::PROPERTY_CHANGE),
    )?;
    let atom = |name: &str| -> Result<u32, Box<dyn std::error::Error>> {
        Ok(conn.intern_atom(false, name.as_bytes())?.reply()?.atom)
    };
    let (clipboard, png, property, incr) = (
        atom("CLIPBOARD")?,
        atom("image/png")?,
        atom("KOI_PASTE")?,
        atom("INCR")?,
    );
    conn.convert_selection(window, clipboard, png, property, x11rb::CURRENT_TIME)?;
    conn.flush()?;
    // The owner stores the data in our property, then says so; an owner
    // without an image answers with no property.
    loop {
        match next_event(&conn, Instant::now() + OWNER_WAIT)? {
            None => return Ok(None),
            Some(Event::SelectionNotify(e)) if e.requestor == window => {
                if e.property == u32::from(AtomEnum::NONE) {
                    return Ok(None);
                }
                break;
            }
            Some(_) => {}
        }
    }
    let take = || conn.get_property(true, window, property, AtomEnum::ANY, 0, u32::MAX / 4);
    let first = take()?.reply()?;
    if first.type_ == png {
        return Ok(Some(first.value));
    }
    if first.type_ != incr {
        return Ok(None);
    }
    // INCR: deleting the property (done above) asks for the first chunk;
    // each new value is the next, and an empty one ends the transfer.
    let mut data = Vec::new();
    loop {
        match next_event(&conn, Instant::now() + OWNER_WAIT)? {
            None => return Err("the clipboard's owner stopped sending".into()),
            Some(Event::PropertyNotify(e))
                if e.window == window && e.atom == property && e.state == Property::NEW_VALUE =>
            {
                let chunk = take()?.reply()?;
                if chunk.value.is_empty() {
                    return Ok(Some(data));
                }
                data.extend_from_slice(&chunk.value);
                if data.len() > MAX_IMAGE_BYTES {
                    return Err(format!("the image is over {MAX_IMAGE_BYTES} bytes").into());
                }
            }
            Some(_) => {}
        }
    }
}

/// The next event, or `None` once `deadline` passes.
fn next_event(
    conn: &RustConnection,
    deadline: Instant,
) -> Result<Option<Event>, x11rb::errors::ConnectionError> {
    loop {
        if let Some(event) = conn.poll_for_event()? {
            return Ok(Some(event));
        }
        if Instant::now() >= deadline {
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}
