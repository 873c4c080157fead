//! Connecting, and database errors as readable [`VwrError::Store`] messages.

use std::io;

use postgres::Client;
use vwr::{Result, VwrError};

use crate::schema::{self, SchemaError};
use crate::PgLocation;

/// Connects to the database `loc` names and makes sure the schema is there (vwr-postgres.md
/// §4).
pub fn connect(loc: &PgLocation) -> Result<Client> {
    let (config, note) = loc.config()?;
    // A Unix socket never uses TLS (and the TLS connector would want a host name for it).
    #[cfg(feature = "tls")]
    let connected = match loc.host {
        Some(_) => config.connect(crate::tls::connector(loc)?),
        None => config.connect(postgres::NoTls),
    };
    #[cfg(not(feature = "tls"))]
    let connected = config.connect(postgres::NoTls);
    let mut client = connected.map_err(|e| {
        let mut err = db_error(loc, &e);
        if let (VwrError::Store { message, .. }, Some(note)) = (&mut err, note) {
            *message += &format!(" (note: {note})");
        }
        err
    })?;
    schema::ensure(&mut client).map_err(|e| match e {
        SchemaError::Db(e) => db_error(loc, &e),
        SchemaError::Version(message) => VwrError::Store {
            location: loc.display(),
            message,
        },
    })?;
    Ok(client)
}

/// The I/O error under a database error, if any.
fn io_source(e: &postgres::Error) -> Option<&io::Error> {
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<io::Error>() {
            return Some(io);
        }
        source = s.source();
    }
    None
}

/// A database error as a [`VwrError::Store`] naming `loc` (without password) and saying what
/// failed in words.
pub fn db_error(loc: &PgLocation, e: &postgres::Error) -> VwrError {
    let message = if let Some(db) = e.as_db_error() {
        let mut m = format!("{}: {}", db.severity(), db.message());
        if let Some(d) = db.detail() {
            m += &format!("; {d}");
        }
        if let Some(h) = db.hint() {
            m += &format!(" (hint: {h})");
        }
        m + &format!(" [SQLSTATE {}]", db.code().code())
    } else if let Some(io) = io_source(e) {
        let server = loc.server();
        match io.kind() {
            io::ErrorKind::ConnectionRefused | io::ErrorKind::NotFound => format!(
                "cannot connect to PostgreSQL at {server}: {io}; the server must be running \
                 and accept connections there"
            ),
            io::ErrorKind::TimedOut => format!(
                "no answer from PostgreSQL at {server} within {} s (connect_timeout)",
                loc.connect_timeout.as_secs()
            ),
            _ => format!("connection to PostgreSQL at {server}: {}", with_causes(e)),
        }
    } else if e.is_closed() {
        "the connection to the server was closed".to_string()
    } else {
        with_causes(e)
    };
    VwrError::Store {
        location: loc.display(),
        message,
    }
}

/// `e` and what caused it (a TLS handshake's "invalid peer certificate: UnknownIssuer"), each
/// said once.
fn with_causes(e: &postgres::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let t = s.to_string();
        if !text.contains(&t) {
            text += &format!(": {t}");
        }
        source = s.source();
    }
    text
}

/// A [`VwrError::Store`] about `loc`.
pub fn store_error(loc: &PgLocation, message: impl Into<String>) -> VwrError {
    VwrError::Store {
        location: loc.display(),
        message: message.into(),
    }
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}
