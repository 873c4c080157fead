//! World locations: `postgres://USER@HOST:PORT/DB?world=NAME` (vwr-postgres.md §1), and the
//! password from `PGPASSWORD` or a libpq password file.

use std::path::{Path, PathBuf};
use std::time::Duration;

use vwr::{Result, VwrError};

/// The query keys a location may hold.
pub const KNOWN_KEYS: &[&str] = &[
    "world",
    "host",
    "sslmode",
    "sslrootcert",
    "connect_timeout",
    "application_name",
];

/// The Unix socket folder of Debian's server, used when a URL names no host (as libpq).
pub const DEFAULT_SOCKET_DIR: &str = "/var/run/postgresql";

/// How a connection may use TLS (`sslmode=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SslMode {
    /// In clear.
    Disable,
    /// TLS (its certificate verified) when the server offers it, else in clear (the default);
    /// always in clear in a build without the `tls` feature.
    #[default]
    Prefer,
    /// TLS with a verified server certificate, or no connection (a build without the `tls`
    /// feature refuses it, saying so).
    Require,
}

/// A parsed database location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgLocation {
    /// The world's name (`world=`), when given.
    pub world: Option<String>,
    /// The user (`USER@`; else `PGUSER`, else `USER`, else `postgres`).
    pub user: String,
    /// The TCP host; `None` for a Unix socket.
    pub host: Option<String>,
    /// The socket folder (`host=/path`) when no TCP host is given.
    pub socket_dir: Option<PathBuf>,
    /// The port (default 5432).
    pub port: u16,
    /// The database (default: the user's name).
    pub dbname: String,
    /// `sslmode=`.
    pub sslmode: SslMode,
    /// `sslrootcert=PATH`: PEM certificates to trust for the server's (default: the Mozilla
    /// root certificates).
    pub sslrootcert: Option<PathBuf>,
    /// `connect_timeout=SECONDS` (default 10).
    pub connect_timeout: Duration,
    /// `application_name=` (default `voxcaf`).
    pub application_name: String,
}

fn bad(s: &str, message: String) -> VwrError {
    VwrError::Store {
        location: s.to_string(),
        message,
    }
}

/// `%XX` decoding of a URL part.
fn percent_decode(s: &str, part: &str) -> Result<String> {
    let b = part.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = part
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| bad(s, format!("bad %-escape in {part:?}")))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| bad(s, format!("{part:?} is not UTF-8")))
}

/// Checks a world name: 1 to 64 bytes of `A-Z a-z 0-9 _ - .`.
pub fn check_world_name(name: &str) -> std::result::Result<(), String> {
    let ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
    if name.is_empty() || name.len() > 64 || !name.chars().all(ok) {
        return Err(format!(
            "bad world name {name:?}: 1 to 64 characters of A-Z a-z 0-9 _ - ."
        ));
    }
    Ok(())
}

impl PgLocation {
    /// Whether `s` is written as a database location (`postgres://` or `postgresql://`)
    /// rather than a file path.
    pub fn is_url(s: &str) -> bool {
        s.starts_with("postgres://") || s.starts_with("postgresql://")
    }

    /// Parses a location; a password in the URL, an unknown key or a bad world name is an
    /// error that says which.
    pub fn parse(s: &str) -> Result<PgLocation> {
        let rest = s
            .strip_prefix("postgres://")
            .or_else(|| s.strip_prefix("postgresql://"))
            .ok_or_else(|| bad(s, "a database location starts with postgres://".into()))?;
        let (rest, query) = rest.split_once('?').unwrap_or((rest, ""));
        let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
        let (userinfo, hostport) = match authority.rsplit_once('@') {
            Some((u, h)) => (Some(u), h),
            None => (None, authority),
        };
        if userinfo.is_some_and(|u| u.contains(':')) {
            return Err(bad(
                &redact(s),
                "a password in the URL is refused: set PGPASSWORD or use ~/.pgpass".into(),
            ));
        }
        let mut loc = PgLocation::defaults();
        if let Some(u) = userinfo.filter(|u| !u.is_empty()) {
            loc.user = percent_decode(s, u)?;
        }
        loc.parse_hostport(s, hostport)?;
        loc.dbname = match path {
            "" => loc.user.clone(),
            p => percent_decode(s, p)?,
        };
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            loc.set_key(s, &percent_decode(s, k)?, &percent_decode(s, v)?)?;
        }
        if loc.host.is_none() && loc.socket_dir.is_none() {
            loc.socket_dir = Some(PathBuf::from(DEFAULT_SOCKET_DIR));
        }
        Ok(loc)
    }

    fn defaults() -> PgLocation {
        let user = ["PGUSER", "USER"]
            .iter()
            .find_map(|k| std::env::var(k).ok().filter(|v| !v.is_empty()))
            .unwrap_or_else(|| "postgres".into());
        PgLocation {
            world: None,
            dbname: user.clone(),
            user,
            host: None,
            socket_dir: None,
            port: 5432,
            sslmode: SslMode::default(),
            sslrootcert: None,
            connect_timeout: Duration::from_secs(10),
            application_name: "voxcaf".into(),
        }
    }

    fn parse_hostport(&mut self, s: &str, hostport: &str) -> Result<()> {
        let (host, port) = if let Some(r) = hostport.strip_prefix('[') {
            let (h, after) = r
                .split_once(']')
                .ok_or_else(|| bad(s, "unclosed [ in the host".into()))?;
            (h, after.strip_prefix(':'))
        } else {
            match hostport.rsplit_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (hostport, None),
            }
        };
        if let Some(p) = port.filter(|p| !p.is_empty()) {
            self.port = p
                .parse()
                .ok()
                .filter(|&p| p != 0)
                .ok_or_else(|| bad(s, format!("bad port {p:?}: 1 to 65535")))?;
        }
        if !host.is_empty() {
            self.host = Some(percent_decode(s, host)?);
        }
        Ok(())
    }

    fn set_key(&mut self, s: &str, key: &str, value: &str) -> Result<()> {
        match key {
            "world" => {
                check_world_name(value).map_err(|m| bad(s, m))?;
                self.world = Some(value.to_string());
            }
            "host" if value.starts_with('/') => {
                self.host = None;
                self.socket_dir = Some(PathBuf::from(value));
            }
            "host" if !value.is_empty() => self.host = Some(value.to_string()),
            "sslmode" => {
                self.sslmode = match value {
                    "disable" => SslMode::Disable,
                    "prefer" => SslMode::Prefer,
                    "require" => SslMode::Require,
                    v => {
                        return Err(bad(
                            s,
                            format!("bad sslmode {v:?}: disable, prefer or require"),
                        ))
                    }
                }
            }
            "sslrootcert" if !value.is_empty() => self.sslrootcert = Some(PathBuf::from(value)),
            "connect_timeout" => {
                let secs: u64 = value
                    .parse()
                    .map_err(|_| bad(s, format!("bad connect_timeout {value:?}: whole seconds")))?;
                self.connect_timeout = Duration::from_secs(secs.max(1));
            }
            "application_name" => self.application_name = value.to_string(),
            k => {
                return Err(bad(
                    s,
                    format!("unknown key {k:?} (known: {})", KNOWN_KEYS.join(", ")),
                ))
            }
        }
        Ok(())
    }

    /// The location as shown in messages (never a password).
    pub fn display(&self) -> String {
        let mut s = format!("postgres://{}@", self.user);
        let mut query = Vec::new();
        match (&self.host, &self.socket_dir) {
            (Some(h), _) if h.contains(':') => s += &format!("[{h}]:{}", self.port),
            (Some(h), _) => s += &format!("{h}:{}", self.port),
            (None, dir) => {
                if self.port != 5432 {
                    s += &format!(":{}", self.port);
                }
                if let Some(d) = dir.as_ref().filter(|d| *d != Path::new(DEFAULT_SOCKET_DIR)) {
                    query.push(format!("host={}", d.display()));
                }
            }
        }
        s += &format!("/{}", self.dbname);
        if let Some(w) = &self.world {
            query.push(format!("world={w}"));
        }
        if !query.is_empty() {
            s += &format!("?{}", query.join("&"));
        }
        s
    }

    /// The world's name, or an error saying `?world=NAME` is needed.
    pub fn world_name(&self) -> Result<&str> {
        self.world.as_deref().ok_or_else(|| VwrError::Store {
            location: self.display(),
            message: "no world named; add ?world=NAME".into(),
        })
    }

    /// The host a password file entry is matched against (`localhost` for a socket, as libpq).
    fn pgpass_host(&self) -> &str {
        self.host.as_deref().unwrap_or("localhost")
    }

    /// The password: `PGPASSWORD`, else the entry of `PGPASSFILE` or `~/.pgpass` that matches.
    /// The second value is a note to add to a failed connection's message (a password file
    /// ignored because others may read it, as libpq ignores it).
    pub fn password(&self) -> (Option<String>, Option<String>) {
        if let Some(p) = std::env::var("PGPASSWORD").ok().filter(|p| !p.is_empty()) {
            return (Some(p), None);
        }
        let file = match std::env::var_os("PGPASSFILE") {
            Some(f) => PathBuf::from(f),
            None => match std::env::var_os("HOME") {
                Some(h) => Path::new(&h).join(".pgpass"),
                None => return (None, None),
            },
        };
        let port = self.port.to_string();
        match read_pgpass(&file) {
            Ok(Some(text)) => {
                let key = [self.pgpass_host(), &port, &self.dbname, &self.user];
                (pgpass_lookup(&text, key), None)
            }
            Ok(None) => (None, None),
            Err(note) => (None, Some(note)),
        }
    }

    /// The client configuration (in a build without the `tls` feature, `sslmode=require` is
    /// refused here, saying so).
    pub fn config(&self) -> Result<(postgres::Config, Option<String>)> {
        use postgres::config::SslMode as Pg;
        let ssl = match self.sslmode {
            // A Unix socket is local: never TLS over it (as libpq), whatever the mode.
            _ if self.host.is_none() => Pg::Disable,
            SslMode::Disable => Pg::Disable,
            SslMode::Prefer if cfg!(feature = "tls") => Pg::Prefer,
            SslMode::Prefer => Pg::Disable,
            SslMode::Require => Pg::Require,
        };
        if self.sslmode == SslMode::Require && !cfg!(feature = "tls") && self.host.is_some() {
            return Err(VwrError::Store {
                location: self.display(),
                message: "sslmode=require, but this voxcaf is built without TLS support \
                          (use sslmode=prefer or disable, or a build with the tls feature)"
                    .into(),
            });
        }
        let mut c = postgres::Config::new();
        c.user(&self.user)
            .dbname(&self.dbname)
            .port(self.port)
            .connect_timeout(self.connect_timeout)
            .application_name(&self.application_name)
            .ssl_mode(ssl);
        match (&self.host, &self.socket_dir) {
            (Some(h), _) => c.host(h),
            (None, Some(d)) => c.host_path(d),
            (None, None) => c.host_path(DEFAULT_SOCKET_DIR),
        };
        let (password, note) = self.password();
        if let Some(p) = password {
            c.password(p);
        }
        Ok((c, note))
    }

    /// Where the server is, for a connection error: `HOST:PORT` or the socket.
    pub fn server(&self) -> String {
        match (&self.host, &self.socket_dir) {
            (Some(h), _) => format!("{h}:{}", self.port),
            (None, d) => {
                let d = d.as_deref().unwrap_or(Path::new(DEFAULT_SOCKET_DIR));
                format!("{}/.s.PGSQL.{}", d.display(), self.port)
            }
        }
    }
}

/// The URL with any password replaced, for a message.
fn redact(s: &str) -> String {
    match (s.find("://"), s.rfind('@')) {
        (Some(a), Some(b)) if a + 3 < b => {
            let user = &s[a + 3..b];
            let user = user.split(':').next().unwrap_or("");
            format!("{}{user}:***{}", &s[..a + 3], &s[b..])
        }
        _ => s.to_string(),
    }
}

/// A password file's text; `None` when there is none; `Err` (a note) when it is not a plain
/// file or others may read it, so it is ignored as libpq ignores it.
fn read_pgpass(path: &Path) -> std::result::Result<Option<String>, String> {
    use std::os::unix::fs::PermissionsExt;
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(None);
    };
    if !meta.is_file() {
        return Err(format!(
            "password file {} is not a plain file; ignored",
            path.display()
        ));
    }
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(format!(
            "password file {} has group or world access (mode {mode:o}); it is ignored, as \
             libpq ignores it: chmod 600 it",
            path.display()
        ));
    }
    Ok(std::fs::read_to_string(path).ok())
}

/// The password of the first line of a libpq password file (`host:port:db:user:password`,
/// `*` matching anything, `\:` and `\\` escapes, `#` comments) matching `key` (host, port,
/// database, user).
pub fn pgpass_lookup(text: &str, key: [&str; 4]) -> Option<String> {
    text.lines().find_map(|line| {
        let line = line.trim_end_matches('\r');
        if line.starts_with('#') || line.is_empty() {
            return None;
        }
        let fields = split_pgpass(line)?;
        let matches = fields[..4]
            .iter()
            .zip(key)
            .all(|((f, raw), k)| raw == "*" || f == k);
        matches.then(|| fields[4].0.clone())
    })
}

/// The five fields of a line, each unescaped and as written (so that an escaped `\*` is not
/// a wildcard); `None` when the line has fewer than five.
fn split_pgpass(line: &str) -> Option<Vec<(String, String)>> {
    let mut fields = Vec::new();
    let (mut field, mut raw) = (String::new(), String::new());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                raw.push(c);
                if let Some(n) = chars.next() {
                    field.push(n);
                    raw.push(n);
                }
            }
            ':' if fields.len() < 4 => {
                fields.push((std::mem::take(&mut field), std::mem::take(&mut raw)));
            }
            c => {
                field.push(c);
                raw.push(c);
            }
        }
    }
    fields.push((field, raw));
    (fields.len() == 5).then_some(fields)
}
