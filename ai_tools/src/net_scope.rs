//! Which network a URL reaches. A GET to the public internet reads; a GET
//! to this machine or the local network can reach services that trust
//! their network (admin pages, cloud metadata with credentials, dev
//! servers with side-effecting GETs), so it needs the user's approval.
//!
//! The check happens twice: the policy classifies the URL as written, and a
//! request to a public URL runs with a resolver and a redirect policy that
//! refuse local addresses, so neither DNS nor a redirect can turn an
//! approved-as-public request into a local one.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::Url;

/// Host names that only mean something on a local network.
const LOCAL_SUFFIXES: &[&str] = &[".localhost", ".local", ".internal", ".lan", ".home.arpa"];

/// How far a request may go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// Public addresses only, through DNS and redirects.
    Public,
    /// Anywhere: the URL names a local host, so the gate asked the user.
    Local,
}

impl Reach {
    /// What a request to `url` may reach: local only if the URL itself
    /// says so (and the policy therefore asked).
    pub fn of(url: &Url) -> Reach {
        match local_reason(url) {
            Some(_) => Reach::Local,
            None => Reach::Public,
        }
    }
}

/// Why `url` reaches this machine or a local network, or `None` when it
/// names a public host.
pub fn local_reason(url: &Url) -> Option<String> {
    // The URL parser has already normalised IP literals (`0x7f.1` is
    // `127.0.0.1`), and writes IPv6 ones in brackets.
    let host = url.host_str()?;
    let literal = host.strip_prefix('[').and_then(|h| h.strip_suffix(']'));
    match literal.unwrap_or(host).parse::<IpAddr>() {
        Ok(ip) => {
            (!is_public(ip)).then(|| format!("{ip} is a loopback, private or link-local address"))
        }
        Err(_) => local_name_reason(host),
    }
}

fn local_name_reason(name: &str) -> Option<String> {
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    let local = name == "localhost"
        || !name.contains('.')
        || LOCAL_SUFFIXES.iter().any(|s| name.ends_with(s));
    local.then(|| format!("{name} names this machine or a local network host"))
}

/// True for addresses on the public internet.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => is_public_v4(v4),
            None => is_public_v6(v6),
        },
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_broadcast()
        || ip.is_documentation()
        || ip.is_multicast()
        || a == 0 // "this network"
        || (a == 100 && (64..128).contains(&b)) // carrier-grade NAT, 100.64/10
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 198 && (18..20).contains(&b)) // benchmarking, 198.18/15
        || a >= 240) // reserved
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    let seg = ip.segments();
    let first = seg[0];
    // Addresses that carry an IPv4 one reach it: NAT64 (64:ff9b::/96)
    // and 6to4 (2002::/16) are only as public as the address inside.
    let embedded = |hi: u16, lo: u16| {
        let [a, b] = hi.to_be_bytes();
        let [c, d] = lo.to_be_bytes();
        Ipv4Addr::new(a, b, c, d)
    };
    if seg[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return is_public_v4(embedded(seg[6], seg[7]));
    }
    if first == 0x2002 {
        return is_public_v4(embedded(seg[1], seg[2]));
    }
    !(ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_multicast()
        || (first & 0xfe00) == 0xfc00 // unique local, fc00::/7
        || (first & 0xffc0) == 0xfe80 // link-local, fe80::/10
        || (first == 0x2001 && ip.segments()[1] == 0x0db8)) // documentation
}

/// The error a guarded request fails with.
fn refused(what: &str) -> String {
    format!("{what}; a request that was not approved for the local network cannot reach it")
}

/// Resolves names like the system does, keeping only public addresses.
#[derive(Debug, Default)]
pub struct PublicOnlyResolver;

impl Resolve for PublicOnlyResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_string();
        Box::pin(async move {
            let found: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let public = public_addrs(&host, found)?;
            let addrs: Addrs = Box::new(public.into_iter());
            Ok(addrs)
        })
    }
}

/// The public subset of what `host` resolved to; an error when none is.
fn public_addrs(host: &str, found: Vec<SocketAddr>) -> Result<Vec<SocketAddr>, String> {
    let public: Vec<SocketAddr> = found
        .iter()
        .copied()
        .filter(|a| is_public(a.ip()))
        .collect();
    match (public.is_empty(), found.first()) {
        (false, _) => Ok(public),
        (true, Some(a)) => Err(refused(&format!("{host} resolves to {}", a.ip()))),
        (true, None) => Err(format!("{host} did not resolve")),
    }
}

/// Follows at most `max` redirects, none of them to a local URL.
pub fn public_redirects(max: usize) -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(move |attempt| {
        if attempt.previous().len() > max {
            return attempt.error(format!("more than {max} redirects"));
        }
        match local_reason(attempt.url()) {
            Some(why) => {
                let error = refused(&format!("redirected to {}: {why}", attempt.url()));
                attempt.error(error)
            }
            None => attempt.follow(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reason(url: &str) -> Option<String> {
        local_reason(&Url::parse(url).unwrap())
    }

    #[test]
    fn local_urls_are_recognised() {
        for url in [
            "http://127.0.0.1:8080/",
            "http://localhost/",
            "http://LOCALHOST./x",
            "http://app.localhost/",
            "http://printer.local/",
            "http://metadata.google.internal/computeMetadata/v1/",
            "http://169.254.169.254/latest/meta-data/",
            "http://10.0.0.1/",
            "http://172.16.5.4/",
            "http://192.168.1.1/admin",
            "http://100.64.0.1/",
            "http://0.0.0.0:3000/",
            "http://[::1]/",
            "http://[fd00::1]/",
            "http://[fe80::1]/",
            "http://[::ffff:127.0.0.1]/",
            "http://[64:ff9b::a9fe:a9fe]/", // NAT64 of 169.254.169.254
            "http://[2002:c0a8:101::1]/",   // 6to4 of 192.168.1.1
            "http://router/",
            "http://2130706433/", // 127.0.0.1 as one number
            "http://0x7f.1/",     // and in hex
        ] {
            assert!(reason(url).is_some(), "{url} counted as public");
        }
    }

    #[test]
    fn public_urls_are_not() {
        for url in [
            "https://example.com/",
            "https://docs.rs/reqwest",
            "http://93.184.215.14/",
            "http://[2606:4700::1111]/",
            "http://[64:ff9b::5db8:d70e]/", // NAT64 of 93.184.215.14
            "https://local.example.com/",
        ] {
            assert_eq!(reason(url), None, "{url}");
        }
    }

    #[test]
    fn resolved_addresses_keep_only_public_ones() {
        let addr = |s: &str| SocketAddr::new(s.parse().unwrap(), 0);
        let mixed = vec![addr("127.0.0.1"), addr("93.184.215.14")];
        assert_eq!(
            public_addrs("h", mixed).unwrap(),
            vec![addr("93.184.215.14")]
        );
        let err = public_addrs("rebind.example", vec![addr("10.1.2.3")]).unwrap_err();
        assert!(err.contains("rebind.example resolves to 10.1.2.3"), "{err}");
        assert!(public_addrs("h", vec![]).is_err());
    }
}
