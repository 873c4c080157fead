//! World locations: `postgres://USER@HOST:PORT/DB?world=NAME` (vwr-postgres.md §1).

use vwr::{Result, VwrError};

/// A parsed database location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgLocation {
    /// The world's name (`world=`), when given.
    pub world: Option<String>,
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
        let _ = s;
        Err(VwrError::Store {
            location: String::new(),
            message: "not yet".into(),
        })
    }

    /// The location as shown in messages (never a password).
    pub fn display(&self) -> String {
        String::new()
    }

    /// The world's name, or an error saying `?world=NAME` is needed.
    pub fn world_name(&self) -> Result<&str> {
        self.world.as_deref().ok_or_else(|| VwrError::Store {
            location: self.display(),
            message: "no world named; add ?world=NAME".into(),
        })
    }
}
