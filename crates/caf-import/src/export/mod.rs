//! The way back out: built `.caf` assets to files that common tools open.
//!
//! | Kind | Output |
//! |---|---|
//! | Font | atlas PNG + JSON of metrics, glyphs and kerning ([`font`]) |

pub mod font;
