//! The crate's error type.

/// Errors of meshing, export and rendering.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MeshError {
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The mesh is too large for the output format (e.g. more than u32::MAX vertices).
    #[error("mesh too large for {format}: {what}")]
    TooLarge {
        /// The output format.
        format: &'static str,
        /// What overflowed.
        what: String,
    },
    /// The output would take more memory than the caller allows.
    #[error("{what} would take about {} of memory, more than the {} allowed", crate::units::human_bytes(*need), crate::units::human_bytes(*limit))]
    OverMemory {
        /// Estimated bytes.
        need: u64,
        /// The allowance.
        limit: u64,
        /// What would be built.
        what: String,
    },
    /// The caller asked for something invalid (an output extension we do not know, a zero
    /// image size, a layer outside the world).
    #[error("{0}")]
    Invalid(String),
    /// Building or encoding an output failed.
    #[error("{format} export: {msg}")]
    Export {
        /// The output format.
        format: &'static str,
        /// What went wrong.
        msg: String,
    },
    /// The world's metadata records could not be decoded.
    #[error(transparent)]
    World(#[from] vwr::VwrError),
}

impl MeshError {
    /// [`MeshError::Export`] in `format`, saying `e`.
    pub(crate) fn export(format: &'static str, e: impl std::fmt::Display) -> MeshError {
        MeshError::Export {
            format,
            msg: e.to_string(),
        }
    }

    /// [`MeshError::TooLarge`]: `what` does not fit `format`.
    pub(crate) fn too_large(format: &'static str, what: String) -> MeshError {
        MeshError::TooLarge { format, what }
    }
}
