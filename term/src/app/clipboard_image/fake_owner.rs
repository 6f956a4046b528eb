//! A clipboard owner for the tests, on its own X connection: it answers
//! koi's request for `image/png` with an ICCCM INCR transfer, or with one
//! of the ways an owner can get that transfer wrong.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use x11rb::connection::Connection as _;
use x11rb::protocol::xproto::{
    Atom, ChangeWindowAttributesAux, ConnectionExt as _, CreateWindowAux, EventMask, PropMode,
    Property, SelectionNotifyEvent, SelectionRequestEvent, WindowClass, SELECTION_NOTIFY_EVENT,
};
use x11rb::protocol::Event;
use x11rb::rust_connection::RustConnection;
use x11rb::wrapper::ConnectionExt as _;

/// How the owner carries out the transfer.
#[derive(Clone, Copy)]
pub(super) struct Plan {
    /// Bytes in each chunk.
    pub chunk: usize,
    /// The type of each chunk's property; ICCCM wants the target's.
    pub chunk_type: &'static str,
    /// Fall silent after this many chunks.
    pub stop_after: Option<usize>,
    /// Wait this long before each chunk.
    pub pause: Duration,
    /// The size the INCR property announces (ICCCM: a lower bound).
    pub announce: u32,
    /// Send no chunk at all; touch another property on koi's window
    /// again and again instead.
    pub distract: bool,
}

impl Plan {
    /// A transfer by the book in chunks of `chunk` bytes.
    pub fn incr(chunk: usize) -> Self {
        Self {
            chunk,
            chunk_type: "image/png",
            stop_after: None,
            pause: Duration::ZERO,
            announce: 0,
            distract: false,
        }
    }
}

/// What the owner did, for the test to check.
#[derive(Debug, Default)]
pub(super) struct Served {
    /// Chunks written, the empty end marker not counted.
    pub chunks: usize,
    /// Whether it wrote the end marker.
    pub ended: bool,
}

/// The owner, serving one request on its own thread.
pub(super) struct FakeOwner {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<Served>,
}

impl FakeOwner {
    /// Owns the CLIPBOARD of `display` once this returns.
    pub fn start(display: &str, png: Vec<u8>, plan: Plan) -> Self {
        let (conn, screen) = RustConnection::connect(Some(display)).unwrap();
        let root = conn.setup().roots[screen].root;
        let window = conn.generate_id().unwrap();
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
            &CreateWindowAux::new(),
        )
        .unwrap();
        let clipboard = intern(&conn, "CLIPBOARD");
        conn.set_selection_owner(window, clipboard, x11rb::CURRENT_TIME)
            .unwrap();
        let owner = conn
            .get_selection_owner(clipboard)
            .unwrap()
            .reply()
            .unwrap();
        assert_eq!(owner.owner, window, "the fake owner owns the clipboard");
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        let thread = std::thread::spawn(move || serve(&conn, &png, plan, &stopped));
        Self { stop, thread }
    }

    /// Stops the owner and tells what it did.
    pub fn finish(self) -> Served {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().expect("the fake owner panicked")
    }
}

fn intern(conn: &RustConnection, name: &str) -> Atom {
    conn.intern_atom(false, name.as_bytes())
        .unwrap()
        .reply()
        .unwrap()
        .atom
}

fn serve(conn: &RustConnection, png: &[u8], plan: Plan, stop: &AtomicBool) -> Served {
    let mut served = Served::default();
    let request = loop {
        match next_event(conn, stop) {
            Some(Event::SelectionRequest(r)) => break r,
            Some(_) => {}
            None => return served,
        }
    };
    assert_eq!(
        request.target,
        intern(conn, "image/png"),
        "koi asks for a PNG"
    );
    // Before koi can delete the INCR property, so that no deletion is missed.
    conn.change_window_attributes(
        request.requestor,
        &ChangeWindowAttributesAux::new().event_mask(EventMask::PROPERTY_CHANGE),
    )
    .unwrap();
    let incr = intern(conn, "INCR");
    let write = |type_: Atom, data: &[u8]| {
        conn.change_property8(
            PropMode::REPLACE,
            request.requestor,
            request.property,
            type_,
            data,
        )
        .unwrap();
    };
    conn.change_property32(
        PropMode::REPLACE,
        request.requestor,
        request.property,
        incr,
        &[plan.announce],
    )
    .unwrap();
    notify(conn, &request);
    if plan.distract {
        distract(conn, &request, stop);
        return served;
    }
    let chunk_type = intern(conn, plan.chunk_type);
    let mut chunks = png.chunks(plan.chunk);
    // Each deletion of the property by koi asks for the next chunk.
    while wait_for_deletion(conn, &request, stop) {
        if plan.stop_after == Some(served.chunks) {
            continue;
        }
        std::thread::sleep(plan.pause);
        match chunks.next() {
            Some(chunk) => {
                write(chunk_type, chunk);
                served.chunks += 1;
            }
            None => {
                write(chunk_type, &[]);
                conn.flush().unwrap();
                served.ended = true;
                // Stay connected, as real owners do: a client that hangs
                // up at once can lose its last request (the server then
                // sometimes drops the end marker: seen here with Xvfb).
                while next_event(conn, stop).is_some() {}
                break;
            }
        }
        conn.flush().unwrap();
    }
    served
}

/// Tells koi its property holds the answer.
fn notify(conn: &RustConnection, request: &SelectionRequestEvent) {
    let event = SelectionNotifyEvent {
        response_type: SELECTION_NOTIFY_EVENT,
        sequence: 0,
        time: request.time,
        requestor: request.requestor,
        selection: request.selection,
        target: request.target,
        property: request.property,
    };
    conn.send_event(false, request.requestor, EventMask::NO_EVENT, event)
        .unwrap();
    conn.flush().unwrap();
}

/// Whether koi deleted its property; `false` once told to stop.
fn wait_for_deletion(
    conn: &RustConnection,
    request: &SelectionRequestEvent,
    stop: &AtomicBool,
) -> bool {
    loop {
        match next_event(conn, stop) {
            Some(Event::PropertyNotify(e))
                if e.window == request.requestor
                    && e.atom == request.property
                    && e.state == Property::DELETE =>
            {
                return true
            }
            Some(_) => {}
            None => return false,
        }
    }
}

/// Keeps changing a property of koi's window other than the transfer's.
fn distract(conn: &RustConnection, request: &SelectionRequestEvent, stop: &AtomicBool) {
    let other = intern(conn, "KOI_TEST_NOISE");
    let string = intern(conn, "STRING");
    while !stop.load(Ordering::Relaxed) {
        // Errors (koi's window gone) come back as events, not here.
        let _ = conn.change_property8(PropMode::REPLACE, request.requestor, other, string, b"x");
        let _ = conn.flush();
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The next event; `None` once told to stop, or when koi's window is gone
/// (the server answers a request on it with an error).
fn next_event(conn: &RustConnection, stop: &AtomicBool) -> Option<Event> {
    while !stop.load(Ordering::Relaxed) {
        match conn.poll_for_event().unwrap() {
            Some(Event::Error(_)) => return None,
            Some(event) => return Some(event),
            None => std::thread::sleep(Duration::from_millis(2)),
        }
    }
    None
}
