//! The crate's error type.

/// Why a gameplay call refused its input. Nothing here panics on bad input.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PlayError {
    /// A coordinate, direction or displacement was NaN or infinite.
    #[error("{what} must be finite numbers, got {value:?}")]
    NotFinite {
        /// Which argument (`"ray origin"`, `"displacement"`, ...).
        what: &'static str,
        /// The value given.
        value: [f64; 3],
    },
    /// A ray direction of length zero.
    #[error("the ray direction is zero")]
    ZeroDirection,
    /// A box whose minimum corner is above its maximum corner on some axis.
    #[error("box min {min:?} is above max {max:?} on some axis")]
    InvertedBox {
        /// The minimum corner given.
        min: [f64; 3],
        /// The maximum corner given.
        max: [f64; 3],
    },
    /// A negative or NaN maximum distance.
    #[error("maximum distance {0} is negative or NaN")]
    BadMaxDistance(f64),
    /// A line of an input script could not be read.
    #[error("input script line {line}: {msg}")]
    Script {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        msg: String,
    },
    /// The world's metadata records could not be decoded (a MoveObject of a bad size).
    #[error(transparent)]
    World(#[from] vwr::VwrError),
}
