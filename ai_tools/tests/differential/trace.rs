//! Read strace's record of a jailed command and name every attempt to
//! change something or reach something.
//!
//! Attempts count, not just successes: the jail's read-only view turns a
//! write into an error that leaves nothing behind, so a failed `unlinkat`
//! is as much an effect as one that worked. The lines look like
//! `openat(AT_FDCWD</ws>, "x", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3</ws/x>`
//! (`-y` names fds by their paths, the dirfd of `*at` calls included).

use std::path::{Component, Path, PathBuf};

/// What a trace is judged against.
pub struct Context<'a> {
    /// The per-run temp dir: writing there is what koi lets every command do.
    pub tmpdir: &'a str,
}

/// Device files a read-only command may open for writing: output that goes
/// nowhere, or to the command's own terminal and standard streams.
const WRITABLE_DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/tty",
    "/dev/stdout",
    "/dev/stderr",
    "/dev/stdin",
    "/dev/random",
    "/dev/urandom",
];

/// Prefixes naming the process's own fds or its terminal.
const OWN_FD_PREFIXES: &[&str] = &[
    "/dev/fd/",
    "/proc/self/fd/",
    "/proc/thread-self/fd/",
    "/dev/pts/",
];

/// Open flags that mean the file may be changed.
const WRITE_FLAGS: &[&str] = &[
    "O_WRONLY",
    "O_RDWR",
    "O_CREAT",
    "O_TRUNC",
    "O_APPEND",
    "O_TMPFILE",
];

/// Unix sockets libc's name-service lookups connect to (nscd, systemd's
/// user database) when a program turns a uid into a name, as `ls -l` does:
/// a query, not a change. In the jail `/run` is empty, so they fail.
const NAME_SERVICE_SOCKETS: &[&str] = &["/var/run/nscd/socket", "/run/nscd/socket"];
const NAME_SERVICE_DIRS: &[&str] = &["/run/systemd/userdb/"];

/// One line per effect: why, then the trace line.
pub fn effects(text: &str, ctx: &Context<'_>) -> Vec<String> {
    text.lines()
        .filter_map(|line| judge(line, ctx).map(|why| format!("{why}: {line}")))
        .collect()
}

/// A parsed trace line.
struct Call<'a> {
    name: &'a str,
    args: Vec<&'a str>,
    result: &'a str,
}

/// Why this line is an effect, or `None` when it is not.
fn judge(line: &str, ctx: &Context<'_>) -> Option<&'static str> {
    let call = parse(line)?;
    match call.name {
        "open" | "openat" | "openat2" | "creat" => write_open(&call, ctx),
        "socket" => {
            let local = match call.args.as_slice() {
                [family, ..] if *family == "AF_UNIX" => true,
                [family, _, protocol, ..] => {
                    *family == "AF_NETLINK" && *protocol == "NETLINK_ROUTE"
                }
                _ => false,
            };
            (!local).then_some("opens a network socket")
        }
        "connect" => {
            let path = call.args.iter().find_map(|a| sun_path(a));
            let lookup = path.as_deref().is_some_and(|p| {
                NAME_SERVICE_SOCKETS.contains(&p)
                    || NAME_SERVICE_DIRS.iter().any(|d| p.starts_with(d))
            });
            (!lookup).then_some("connects a socket")
        }
        // Binding a netlink socket names it to the kernel, nothing more.
        "bind" => (!is_netlink(&call)).then_some("serves on a socket"),
        "listen" | "accept" | "accept4" => Some("serves on a socket"),
        "sendto" | "sendmsg" | "sendmmsg" => {
            let addressed = call.args.iter().any(|a| a.contains("sa_family="));
            (addressed && !(is_netlink(&call) && route_queries_only(&call)))
                .then_some("sends to an address")
        }
        _ => changes(&call, ctx),
    }
}

fn is_netlink(call: &Call<'_>) -> bool {
    call.args.iter().any(|a| a.contains("sa_family=AF_NETLINK"))
}

/// A netlink message that only asks the kernel for its routing tables
/// (`RTM_GET*`, as `hostname -I` and libc's address lookups send) reads
/// state, like `/proc/net`; `RTM_NEW*`/`RTM_DEL*`/`RTM_SET*` would change it.
fn route_queries_only(call: &Call<'_>) -> bool {
    let types: Vec<&str> = call
        .args
        .iter()
        .flat_map(|a| a.split("nlmsg_type=").skip(1))
        .map(|rest| rest.split([',', '}', ' ']).next().unwrap_or(""))
        .collect();
    !types.is_empty() && types.iter().all(|t| t.starts_with("RTM_GET"))
}

fn write_open(call: &Call<'_>, ctx: &Context<'_>) -> Option<&'static str> {
    let writes = call.name == "creat"
        || call
            .args
            .iter()
            .filter(|a| !a.starts_with('"'))
            .flat_map(|a| a.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')))
            .any(|t| WRITE_FLAGS.contains(&t));
    if !writes {
        return None;
    }
    let paths = paths(call);
    let Some((asked, resolved)) = paths.first() else {
        return Some("opens for writing");
    };
    let own = WRITABLE_DEVICES.contains(&asked.as_str())
        || OWN_FD_PREFIXES.iter().any(|p| asked.starts_with(p))
        || resolved.starts_with(ctx.tmpdir)
        || decoration(call.result).is_some_and(|d| d.starts_with("pipe:"));
    (!own).then_some("opens for writing")
}

/// Any other traced call changes something, unless all it touches is in
/// the temp dir.
fn changes(call: &Call<'_>, ctx: &Context<'_>) -> Option<&'static str> {
    let paths = paths(call);
    let fds: Vec<PathBuf> = call
        .args
        .iter()
        .filter(|a| !a.starts_with('"'))
        .filter_map(|a| decoration(a))
        .map(PathBuf::from)
        .collect();
    let touched: Vec<&PathBuf> = if paths.is_empty() {
        fds.iter().collect()
    } else {
        paths.iter().map(|(_, r)| r).collect()
    };
    let in_tmp = !touched.is_empty() && touched.iter().all(|p| p.starts_with(ctx.tmpdir));
    (!in_tmp).then_some(match call.name {
        "mount" | "umount2" | "pivot_root" | "move_mount" | "fsopen" => "mounts",
        "sethostname" | "setdomainname" => "renames the host",
        "clock_settime" | "clock_adjtime" | "settimeofday" | "adjtimex" => "sets the clock",
        "io_uring_setup" => "sets up an io_uring, whose file operations the trace cannot see",
        "add_key" | "keyctl" | "request_key" => "uses the kernel keyring",
        _ => "changes the filesystem",
    })
}

/// The call's path arguments: as written, and resolved against the dirfd
/// argument before them (or left as written when there is none).
fn paths(call: &Call<'_>) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    let mut dir: Option<&str> = None;
    for a in &call.args {
        if a.starts_with('"') {
            let asked = unquote(a);
            let resolved = match dir {
                Some(d) if !asked.starts_with('/') => normalize(&Path::new(d).join(&asked)),
                _ => normalize(Path::new(&asked)),
            };
            out.push((asked, resolved));
            dir = None;
        } else {
            dir = decoration(a).filter(|d| d.starts_with('/'));
        }
    }
    out
}

/// The path strace's `-y` put in `3</path>` or `AT_FDCWD</path>`.
fn decoration(s: &str) -> Option<&str> {
    let start = s.find('<')?;
    let end = s.rfind('>')?;
    (end > start).then(|| &s[start + 1..end])
}

/// The `sun_path` of a `sockaddr_un` argument.
fn sun_path(arg: &str) -> Option<String> {
    let at = arg.find("sun_path=")?;
    let rest = &arg[at + "sun_path=".len()..];
    let rest = rest.strip_prefix('@').unwrap_or(rest);
    rest.starts_with('"').then(|| {
        let end = string_end(rest, 0);
        unquote(&rest[..end])
    })
}

/// Lexical `.`/`..` removal (the jail's paths have no symlinks that matter
/// for the temp-dir test).
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Split `name(args) = result`, respecting strace's quoting and nesting.
fn parse(line: &str) -> Option<Call<'_>> {
    let open = line.find('(')?;
    let name = &line[..open];
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return None;
    }
    let bytes = line.as_bytes();
    let mut args = Vec::new();
    let mut depth = 0usize;
    let mut start = open + 1;
    let mut i = open + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i = string_end(line, i);
                continue;
            }
            b'{' | b'[' | b'(' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b')' if depth > 0 => depth -= 1,
            b')' => {
                push_arg(&mut args, &line[start..i]);
                let result = line[i + 1..]
                    .trim_start()
                    .strip_prefix('=')
                    .unwrap_or("")
                    .trim();
                return Some(Call { name, args, result });
            }
            b',' if depth == 0 => {
                push_arg(&mut args, &line[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    // A line cut short (the process died mid-call): judge what it has.
    push_arg(&mut args, &line[start..]);
    Some(Call {
        name,
        args,
        result: "",
    })
}

fn push_arg<'a>(args: &mut Vec<&'a str>, a: &'a str) {
    let a = a.trim();
    if !a.is_empty() {
        args.push(a);
    }
}

/// Index just past the string literal opening at `at` (a `"`), including
/// strace's `...` mark for a cut string.
fn string_end(s: &str, at: usize) -> usize {
    let b = s.as_bytes();
    let mut i = at + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => {
                i += 1;
                if s[i..].starts_with("...") {
                    i += 3;
                }
                return i.min(b.len());
            }
            _ => i += 1,
        }
    }
    b.len()
}

/// Decode a strace string literal (`"a\"b\n\x41\101"`).
fn unquote(lit: &str) -> String {
    let inner = lit.trim_end_matches("...");
    let inner = inner.strip_prefix('"').unwrap_or(inner);
    let inner = inner.strip_suffix('"').unwrap_or(inner);
    let b = inner.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' || i + 1 >= b.len() {
            out.push(b[i]);
            i += 1;
            continue;
        }
        let c = b[i + 1];
        i += 2;
        match c {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'v' => out.push(0x0b),
            b'f' => out.push(0x0c),
            b'x' => {
                let hex = inner
                    .get(i..i + 2)
                    .and_then(|h| u8::from_str_radix(h, 16).ok());
                match hex {
                    Some(v) => {
                        out.push(v);
                        i += 2;
                    }
                    None => out.push(b'x'),
                }
            }
            b'0'..=b'7' => {
                let mut v = u32::from(c - b'0');
                let mut n = 1;
                while n < 3 && i < b.len() && (b'0'..=b'7').contains(&b[i]) {
                    v = v * 8 + u32::from(b[i] - b'0');
                    i += 1;
                    n += 1;
                }
                out.push(u8::try_from(v).unwrap_or(u8::MAX));
            }
            other => out.push(other),
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    const CTX: Context<'static> = Context {
        tmpdir: "/tmp/koi-run",
    };

    fn judged(line: &str) -> Option<&'static str> {
        judge(line, &CTX)
    }

    #[test]
    fn reads_are_not_effects() {
        for line in [
            r#"openat(AT_FDCWD</ws>, "README.md", O_RDONLY) = 3</ws/README.md>"#,
            r#"openat(AT_FDCWD</ws>, ".", O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_DIRECTORY) = 3</ws>"#,
            r#"openat(AT_FDCWD</ws>, "/dev/null", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3</dev/null>"#,
            r#"openat(AT_FDCWD</ws>, "/dev/stdout", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3</run/output>"#,
            r#"openat(AT_FDCWD</tmp/koi-run>, "sortXYZ", O_RDWR|O_CREAT|O_EXCL, 0600) = 3</tmp/koi-run/sortXYZ>"#,
            r#"unlinkat(AT_FDCWD</ws>, "/tmp/koi-run/sortXYZ", 0) = 0"#,
            r"socket(AF_UNIX, SOCK_STREAM|SOCK_CLOEXEC|SOCK_NONBLOCK, 0) = 3<socket:[1]>",
            r#"connect(3<socket:[1]>, {sa_family=AF_UNIX, sun_path="/var/run/nscd/socket"}, 110) = -1 ENOENT (No such file or directory)"#,
            r#"connect(3<socket:[1]>, {sa_family=AF_UNIX, sun_path="/run/systemd/userdb/io.systemd.DynamicUser"}, 42) = -1 ENOENT (No such file or directory)"#,
            r"socket(AF_NETLINK, SOCK_RAW|SOCK_CLOEXEC, NETLINK_ROUTE) = 3<socket:[5]>",
            r"bind(3<socket:[5]>, {sa_family=AF_NETLINK, nl_pid=0, nl_groups=00000000}, 12) = 0",
            r"sendto(3<socket:[5]>, [{nlmsg_len=20, nlmsg_type=RTM_GETADDR, nlmsg_flags=NLM_F_REQUEST|NLM_F_DUMP, nlmsg_seq=1, nlmsg_pid=0}, {ifa_family=AF_UNSPEC, ...}], 20, 0, {sa_family=AF_NETLINK, nl_pid=0, nl_groups=00000000}, 12) = 20",
            "+++ exited with 0 +++",
        ] {
            assert_eq!(judged(line), None, "{line}");
        }
    }

    #[test]
    fn writes_and_contacts_are_effects() {
        for line in [
            r#"openat(AT_FDCWD</ws>, "out", O_WRONLY|O_CREAT|O_TRUNC, 0666) = -1 EROFS (Read-only file system)"#,
            r#"openat(AT_FDCWD</ws>, "f", O_WRONLY|O_APPEND) = 3</ws/f>"#,
            r#"openat2(AT_FDCWD</ws>, "f", {flags=O_RDWR, mode=0, resolve=0}, 24) = 3</ws/f>"#,
            r#"creat("x", 0644) = 3</ws/x>"#,
            r#"unlinkat(3</ws>, "README.md", 0) = 0"#,
            r#"renameat2(AT_FDCWD</ws>, "a", AT_FDCWD</ws>, "/tmp/koi-run/b", 0) = 0"#,
            r#"mkdir("d", 0777) = 0"#,
            r"fchmod(3</ws/README.md>, 0755) = 0",
            r#"utimensat(AT_FDCWD</ws>, "README.md", NULL, 0) = 0"#,
            r"socket(AF_INET, SOCK_STREAM, IPPROTO_TCP) = 3<socket:[9]>",
            r#"connect(3<socket:[9]>, {sa_family=AF_INET, sin_port=htons(9), sin_addr=inet_addr("127.0.0.1")}, 16) = -1 ENETUNREACH (Network is unreachable)"#,
            r#"connect(3<socket:[9]>, {sa_family=AF_UNIX, sun_path="/run/docker.sock"}, 110) = -1 ENOENT (No such file or directory)"#,
            r#"sendto(3<socket:[9]>, "x", 1, 0, {sa_family=AF_INET6, sin6_port=htons(53)}, 28) = 1"#,
            r#"mount("none", "/", NULL, MS_REMOUNT, NULL) = -1 EPERM (Operation not permitted)"#,
            r"socket(AF_NETLINK, SOCK_RAW, NETLINK_AUDIT) = 3<socket:[6]>",
            r"sendto(3<socket:[5]>, [{nlmsg_len=20, nlmsg_type=RTM_NEWADDR, nlmsg_flags=NLM_F_REQUEST, nlmsg_seq=1, nlmsg_pid=0}], 20, 0, {sa_family=AF_NETLINK, nl_pid=0, nl_groups=00000000}, 12) = 20",
            r#"bind(3<socket:[9]>, {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("0.0.0.0")}, 16) = 0"#,
            r"clock_settime(CLOCK_REALTIME, {tv_sec=1577836800, tv_nsec=0}) = -1 EPERM (Operation not permitted)",
            r#"openat(AT_FDCWD</ws>, "../koi-run/x", O_WRONLY|O_CREAT, 0666) = 3"#,
        ] {
            assert!(judged(line).is_some(), "{line}");
        }
    }

    #[test]
    fn relative_paths_resolve_against_their_dirfd() {
        let line = r#"openat(AT_FDCWD</tmp>, "koi-run/../escape", O_WRONLY|O_CREAT, 0666) = 3"#;
        assert!(judged(line).is_some());
        let line = r#"openat(3</tmp/koi-run>, "x", O_WRONLY|O_CREAT, 0666) = 4</tmp/koi-run/x>"#;
        assert_eq!(judged(line), None);
    }

    #[test]
    fn strings_decode_and_cut_lines_still_judge() {
        assert_eq!(unquote(r#""a\"b\n\x41\101\\""#), "a\"b\nAA\\");
        let call = parse(r#"openat(AT_FDCWD</ws>, "a,b)", O_RDONLY) = 3"#).unwrap();
        assert_eq!(call.args.len(), 3);
        assert_eq!(call.result, "3");
        assert!(judged(r#"unlinkat(AT_FDCWD</ws>, "x", 0"#).is_some());
    }
}
