//! The crate's error type.

use std::path::PathBuf;

/// Everything that can go wrong converting a source file into a `.caf` asset.
///
/// Variants separate I/O, malformed input, inputs that are well-formed but not supported (by
/// this converter or by the chosen profile), resource limits and caller misuse. Each message
/// says what is wrong and, where the decoder tells us, where.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// Reading a source or writing an output failed.
    #[error("I/O error on {}: {source}", path.display())]
    Io {
        /// The file involved.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The asset type could not be chosen from the file name.
    #[error("cannot tell the asset type of {}: unknown extension {ext:?} (set the asset type: texture, audio, mesh or shader)", path.display())]
    UnknownType {
        /// The source file.
        path: PathBuf,
        /// Its extension (empty when it has none).
        ext: String,
    },
    /// The input is not a valid file of its format.
    #[error("malformed {format} input: {message}")]
    Malformed {
        /// The format being decoded ("PNG", "WAV", "OBJ", ...).
        format: &'static str,
        /// What the decoder reported, with its position when known.
        message: String,
    },
    /// The input is valid but uses something this converter (or the chosen profile) does not
    /// handle.
    #[error("unsupported {format} input: {message}")]
    Unsupported {
        /// The format being decoded.
        format: &'static str,
        /// What is not supported, and what to do instead.
        message: String,
    },
    /// The input is well-formed but has nothing to convert (no pixels, samples or faces).
    #[error("empty {format} input: {message}")]
    Empty {
        /// The format being decoded.
        format: &'static str,
        /// What is missing.
        message: String,
    },
    /// A size exceeds what the converter accepts (checked before allocating).
    #[error("limit exceeded: {what} is {value}, the limit is {limit}")]
    LimitExceeded {
        /// What was measured.
        what: &'static str,
        /// The measured value.
        value: u64,
        /// The limit.
        limit: u64,
    },
    /// A shader did not compile or did not validate. Shown as `file:line:column: message`,
    /// the position left out where it is unknown (`file: message`, `file:line: message`).
    #[error("{}: {message}", position(file, *line, *column))]
    Shader {
        /// The source file name as given.
        file: String,
        /// 1-based line (0 when the compiler gave no position).
        line: u32,
        /// 1-based column in bytes (0 when unknown).
        column: u32,
        /// The compiler's message.
        message: String,
    },
    /// The caller passed an argument that cannot work (for example raw pixels whose length does
    /// not match width × height × channels).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// A block encoder refused or failed to encode a texture level.
    #[error("cannot encode to {format}: {message}")]
    Encode {
        /// The GPU format being written ("ASTC 4x4").
        format: &'static str,
        /// What the encoder reported.
        message: String,
    },
    /// A sidecar settings file could not be read or has unknown keys or bad values.
    #[error("bad settings in {}: {message}", path.display())]
    Settings {
        /// The sidecar file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The container layer refused the asset.
    #[error(transparent)]
    Caf(#[from] caf::CafError),
}

impl ImportError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        ImportError::Io {
            path: path.into(),
            source,
        }
    }

    pub(crate) fn malformed(format: &'static str, message: impl Into<String>) -> Self {
        ImportError::Malformed {
            format,
            message: message.into(),
        }
    }

    pub(crate) fn unsupported(format: &'static str, message: impl Into<String>) -> Self {
        ImportError::Unsupported {
            format,
            message: message.into(),
        }
    }

    pub(crate) fn empty(format: &'static str, message: impl Into<String>) -> Self {
        ImportError::Empty {
            format,
            message: message.into(),
        }
    }
}

/// Result alias used throughout the crate.
pub type Result<T, E = ImportError> = std::result::Result<T, E>;

/// `file`, `file:line` or `file:line:column`: the parts of a shader position that are known
/// (0 stands for unknown).
fn position(file: &str, line: u32, column: u32) -> String {
    match (line, column) {
        (0, _) => file.to_string(),
        (l, 0) => format!("{file}:{l}"),
        (l, c) => format!("{file}:{l}:{c}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shader_error_shows_only_the_parts_of_its_position_that_are_known() {
        let at = |line, column| {
            ImportError::Shader {
                file: "lit.wgsl".into(),
                line,
                column,
                message: "bad".into(),
            }
            .to_string()
        };
        assert_eq!(at(3, 7), "lit.wgsl:3:7: bad");
        assert_eq!(at(3, 0), "lit.wgsl:3: bad");
        assert_eq!(at(0, 0), "lit.wgsl: bad");
    }
}
