//! The crate's error type.

use std::path::PathBuf;

/// What went wrong in an editing session or its server.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The world file (or the autosave journal) is not a valid world.
    #[error("{}: {source}", path.display())]
    World {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        source: vwr::VwrError,
    },
    /// An edit script was refused (malformed or not applicable); nothing was applied.
    #[error("{}", .errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; "))]
    Script {
        /// One error per malformed line, or the one operation the world refused.
        errors: Vec<vwr_edit::script::ScriptError>,
    },
    /// A `fill` operation asks for more cells than the server allows.
    #[error("line {line}: flood fill limit {asked} exceeds the server's maximum of {max} cells")]
    FillLimit {
        /// The script line (1-based).
        line: usize,
        /// The limit the operation gave.
        asked: u64,
        /// The server's maximum.
        max: u64,
    },
    /// An edit script had no operations.
    #[error("the edit script has no operations")]
    EmptyScript,
    /// A layer outside the world was asked for.
    #[error("layer y={y} is outside the world (0..{height})")]
    LayerOutside {
        /// The Y level asked for.
        y: i32,
        /// The world's height in blocks.
        height: u32,
    },
    /// A layer wider than the layer map shows was asked for.
    #[error("layer y={y} is {width}×{depth} cells, more than the {max} the layer map shows")]
    LayerTooLarge {
        /// The Y level asked for.
        y: i32,
        /// Its cells along x.
        width: u32,
        /// Its cells along z.
        depth: u32,
        /// The most cells the layer map shows.
        max: u64,
    },
    /// A layer region that is outside the world, or not given whole (`x0`, `z0`, `x1`, `z1`).
    #[error("{message}")]
    LayerRegion {
        /// What is wrong.
        message: String,
    },
    /// `GET /api/lod` was asked for a level of detail it does not serve.
    #[error("{message}")]
    LodLevel {
        /// What is wrong and which levels there are.
        message: String,
    },
    /// Recovery was asked for but there is no autosave journal to recover.
    #[error("there is no autosave journal to recover")]
    NoJournal,
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A play-test request could not be served (no play test running, bad buttons, too many
    /// ticks, or a level the gameplay layer refuses).
    #[error("play test: {message}")]
    Play {
        /// What is wrong.
        message: String,
    },
    /// No random session token could be made.
    #[error("cannot make a random session token: {0}")]
    Random(String),
    /// Another editor holds the file's write lock.
    #[error("{message}")]
    Locked {
        /// The lock's message, naming the holder.
        message: String,
    },
    /// A save-as name that cannot be used.
    #[error("cannot save as {name:?}: {message}")]
    SaveAs {
        /// The name asked for.
        name: String,
        /// Why not.
        message: String,
    },
    /// Database mode: an edit another editor's commit conflicts with (an undo or redo of
    /// cells changed since, or other editors committing first every time); nothing was
    /// written.
    #[error("{message}")]
    Refused {
        /// What was refused and why.
        message: String,
    },
    /// The file changed on disk since it was opened or saved: the page offers to reload it,
    /// overwrite it, or save as a new file.
    #[error("{message}")]
    Conflict {
        /// What changed.
        message: String,
    },
}

impl ServeError {
    /// An operation the log refused.
    pub(crate) fn from_log(e: vwr_edit::oplog::LogError) -> ServeError {
        use vwr_edit::oplog::LogError;
        match e {
            LogError::Script(e) => ServeError::Script { errors: vec![e] },
            e => ServeError::Refused {
                message: e.to_string(),
            },
        }
    }

    /// A world error of `path`, lock and change conflicts as their own kinds.
    pub(crate) fn world(path: &std::path::Path, source: vwr::VwrError) -> ServeError {
        match source {
            e @ vwr::VwrError::Locked { .. } => ServeError::Locked {
                message: e.to_string(),
            },
            e @ vwr::VwrError::ChangedOnDisk { .. } => ServeError::Conflict {
                message: e.to_string(),
            },
            vwr::VwrError::Io { path, source } => ServeError::Io { path, source },
            source => ServeError::World {
                path: path.to_path_buf(),
                source,
            },
        }
    }

    pub(crate) fn io(path: &std::path::Path, source: std::io::Error) -> ServeError {
        ServeError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// A short machine-readable name of the error, used as `error.kind` in API answers.
    pub fn kind(&self) -> &'static str {
        match self {
            ServeError::Io { .. } => "io",
            ServeError::World { .. } => "world",
            ServeError::Script { .. } => "script",
            ServeError::FillLimit { .. } => "limit",
            ServeError::EmptyScript => "script",
            ServeError::LayerOutside { .. }
            | ServeError::LayerTooLarge { .. }
            | ServeError::LayerRegion { .. }
            | ServeError::LodLevel { .. } => "range",
            ServeError::NoJournal => "state",
            ServeError::Bind { .. } => "io",
            ServeError::Random(_) => "io",
            ServeError::Play { .. } => "play",
            ServeError::Locked { .. } => "locked",
            ServeError::Conflict { .. } => "conflict",
            ServeError::Refused { .. } => "refused",
            ServeError::SaveAs { .. } => "usage",
        }
    }
}

/// Shorthand for results of this crate.
pub type Result<T, E = ServeError> = std::result::Result<T, E>;
