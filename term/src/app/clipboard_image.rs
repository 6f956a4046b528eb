//! Image data on the X11 clipboard, for pasting a screenshot into the
//! assistant panel. arboard reads only text here (its image support
//! brings a whole image codec crate, and it hands back decoded pixels),
//! while the provider wants the PNG bytes as they are. So koi asks the
//! clipboard's owner for `image/png` over an X connection of its own,
//! following ICCCM's selection transfer, INCR included.

use std::time::{Duration, Instant};

use ai_chat_engine::image::MAX_IMAGE_BYTES;
use x11rb::connection::Connection as _;
use x11rb::errors::{ConnectError, ConnectionError, ReplyError, ReplyOrIdError};
use x11rb::protocol::xproto::{
    Atom, AtomEnum, ConnectionExt as _, CreateWindowAux, EventMask, GetPropertyReply, Property,
    Window, WindowClass,
};
use x11rb::protocol::Event;
use x11rb::rust_connection::RustConnection;

#[cfg(test)]
mod fake_owner;
#[cfg(test)]
mod tests;

/// How long the clipboard's owner may take to answer (and, for a large
/// image, between two of its chunks). Owners answer at once; one that
/// hangs must not freeze the window for long, since paste waits on it.
const OWNER_WAIT: Duration = Duration::from_secs(1);

/// How long a whole incremental transfer may take. The cap's 5 MB in
/// 64 KiB chunks is some 80 round trips, instant on a local server and a
/// few seconds over a slow forwarded link; an owner trickling bytes just
/// inside [`OWNER_WAIT`] must still not hold the window for good.
const TRANSFER_WAIT: Duration = Duration::from_secs(5);

/// Why the clipboard gave no image although it may hold one.
#[derive(Debug, thiserror::Error)]
enum PasteError {
    #[error("cannot reach the X server: {0}")]
    Connect(#[from] ConnectError),
    #[error("the X connection failed: {0}")]
    Connection(#[from] ConnectionError),
    #[error("the X server refused a request: {0}")]
    Reply(#[from] ReplyError),
    #[error("the X server refused a window: {0}")]
    Window(#[from] ReplyOrIdError),
    #[error("the X server has no screen")]
    NoScreen,
    #[error("the clipboard's owner stopped sending")]
    Stalled,
    #[error("the clipboard's owner took over {TRANSFER_WAIT:?} to send the image")]
    TooSlow,
    #[error("the clipboard's owner sent a chunk of type {0}, not image/png")]
    ChunkType(Atom),
    #[error("the image is over {MAX_IMAGE_BYTES} bytes")]
    TooLarge,
}

/// The PNG on the clipboard, if its owner offers one. `None` on Wayland,
/// without a display, or when the clipboard holds no image.
pub fn clipboard_png() -> Option<Vec<u8>> {
    std::env::var_os("DISPLAY")?;
    match read_png(None) {
        Ok(png) => png,
        Err(e) => {
            log::info!("no image from the clipboard: {e}");
            None
        }
    }
}

/// The atoms of the transfer.
struct Atoms {
    png: Atom,
    property: Atom,
    incr: Atom,
}

/// The clipboard's PNG from the X server `display` (`None`: `$DISPLAY`).
fn read_png(display: Option<&str>) -> Result<Option<Vec<u8>>, PasteError> {
    let (conn, screen) = RustConnection::connect(display)?;
    let root = conn
        .setup()
        .roots
        .get(screen)
        .ok_or(PasteError::NoScreen)?
        .root;
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
    let atom = |name: &str| -> Result<Atom, PasteError> {
        Ok(conn.intern_atom(false, name.as_bytes())?.reply()?.atom)
    };
    let clipboard = atom("CLIPBOARD")?;
    let atoms = Atoms {
        png: atom("image/png")?,
        property: atom("KOI_PASTE")?,
        incr: atom("INCR")?,
    };
    conn.convert_selection(
        window,
        clipboard,
        atoms.png,
        atoms.property,
        x11rb::CURRENT_TIME,
    )?;
    conn.flush()?;
    // The owner stores the data in our property, then says so; an owner
    // without an image answers with no property. The deadline is fixed
    // here: other events on our window must not stretch it.
    let answered_by = Instant::now() + OWNER_WAIT;
    loop {
        match next_event(&conn, answered_by)? {
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
    // Read without deleting: deleting an INCR property is what asks the
    // owner for its first chunk, and a transfer too large is refused
    // before anything is asked for.
    let first = property(&conn, window, &atoms, false)?;
    if first.type_ != atoms.incr {
        conn.delete_property(window, atoms.property)?;
        return Ok((first.type_ == atoms.png).then_some(first.value));
    }
    // INCR's value is a lower bound on the size: too much is known now.
    let announced = first.value32().and_then(|mut v| v.next()).unwrap_or(0);
    if usize::try_from(announced).map_or(true, |n| n > MAX_IMAGE_BYTES) {
        return Err(PasteError::TooLarge);
    }
    conn.delete_property(window, atoms.property)?;
    conn.flush()?;
    read_chunks(&conn, window, &atoms)
}

/// The rest of an INCR transfer: deleting the property (done already)
/// asks for the first chunk; each new value is the next, all of the
/// target's type, and an empty one ends the transfer.
fn read_chunks(
    conn: &RustConnection,
    window: Window,
    atoms: &Atoms,
) -> Result<Option<Vec<u8>>, PasteError> {
    let all_by = Instant::now() + TRANSFER_WAIT;
    let mut chunk_by = Instant::now() + OWNER_WAIT;
    let mut data = Vec::new();
    loop {
        match next_event(conn, chunk_by.min(all_by))? {
            None if chunk_by <= all_by => return Err(PasteError::Stalled),
            None => return Err(PasteError::TooSlow),
            Some(Event::PropertyNotify(e))
                if e.window == window
                    && e.atom == atoms.property
                    && e.state == Property::NEW_VALUE =>
            {
                let chunk = take(conn, window, atoms)?;
                if chunk.value.is_empty() {
                    // The end marker carries no data, so its type misleads
                    // nothing; some owners leave it untyped.
                    return Ok(Some(data));
                }
                if chunk.type_ != atoms.png {
                    return Err(PasteError::ChunkType(chunk.type_));
                }
                data.extend_from_slice(&chunk.value);
                if data.len() > MAX_IMAGE_BYTES {
                    return Err(PasteError::TooLarge);
                }
                chunk_by = Instant::now() + OWNER_WAIT;
            }
            Some(_) => {}
        }
    }
}

/// Our property's value, deleted as it is read (which, mid-INCR, asks
/// the owner for the next chunk).
fn take(
    conn: &RustConnection,
    window: Window,
    atoms: &Atoms,
) -> Result<GetPropertyReply, PasteError> {
    property(conn, window, atoms, true)
}

/// Our property's value, and whether reading it deletes it.
fn property(
    conn: &RustConnection,
    window: Window,
    atoms: &Atoms,
    delete: bool,
) -> Result<GetPropertyReply, PasteError> {
    let length = u32::MAX / 4;
    Ok(conn
        .get_property(delete, window, atoms.property, AtomEnum::ANY, 0, length)?
        .reply()?)
}

/// The next event, or `None` once `deadline` passes.
fn next_event(conn: &RustConnection, deadline: Instant) -> Result<Option<Event>, ConnectionError> {
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
