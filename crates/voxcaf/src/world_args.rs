//! The arguments the world commands share: `--format` and `--codec` and the save options
//! they make, and the arguments of `world convert`, which `world_vox` reads too.

use std::path::PathBuf;

use clap::ValueEnum;
use vwr::{Codec, Format, SaveOptions};

use crate::out_arg::OutArg;

/// `--format` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum FormatArg {
    /// v2 when the world fits it (cubic, at most 255 chunks per axis), else v3.
    Auto,
    /// The original format.
    V2,
    /// Header v3 (docs/format/vwr-v3.md).
    V3,
    /// MagicaVoxel .vox (`world convert` only; what a `-` output gets from a .vwr input).
    Vox,
}

/// `--codec` values (v3 only).
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum CodecArg {
    /// Smaller of packed and RLE per chunk, small chunks in zstd groups.
    Auto,
    /// The v2 bit-packed payload, uncompressed.
    Packed,
    /// Run-length payload, uncompressed.
    Rle,
    /// One zstd frame per chunk.
    Zstd,
}

pub(crate) fn save_options(
    format: FormatArg,
    codec: CodecArg,
    level: i32,
    tool: &str,
) -> SaveOptions {
    SaveOptions {
        format: match format {
            FormatArg::Auto | FormatArg::Vox => Format::Auto,
            FormatArg::V2 => Format::V2,
            FormatArg::V3 => Format::V3,
        },
        codec: match codec {
            CodecArg::Auto => Codec::Auto,
            CodecArg::Packed => Codec::Packed,
            CodecArg::Rle => Codec::Rle,
            CodecArg::Zstd => Codec::Zstd,
        },
        level,
        commit: vwr::CommitInfo::now(tool),
        ..SaveOptions::default()
    }
}

/// A positional output that `-o`/`--out` may give instead: an [`OutArg`] read as the path it
/// names, for the commands whose code reads the output as a path (`&a.output`, through
/// `Deref`). Its help and value name can be set with `#[command(mut_arg("output", ...))]`.
#[derive(Clone, Debug, Default)]
pub struct OutPath(PathBuf);

impl From<PathBuf> for OutPath {
    fn from(p: PathBuf) -> Self {
        OutPath(p)
    }
}

impl AsRef<std::path::Path> for OutPath {
    fn as_ref(&self) -> &std::path::Path {
        &self.0
    }
}

impl std::ops::Deref for OutPath {
    type Target = PathBuf;
    fn deref(&self) -> &PathBuf {
        &self.0
    }
}

impl clap::FromArgMatches for OutPath {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
        <OutArg as clap::FromArgMatches>::from_arg_matches(m).map(|o| OutPath(o.path()))
    }
    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl clap::Args for OutPath {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        <OutArg as clap::Args>::augment_args(cmd)
    }
    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        <OutArg as clap::Args>::augment_args_for_update(cmd)
    }
}

/// Arguments of `voxcaf world convert`.
#[derive(clap::Args)]
#[command(mut_arg("output", |a| a.help(
    "Output: .vwr or .vox, or give it with -o (`-` writes standard output; missing folders \
     are created)"
)))]
pub struct ConvertArgs {
    /// Input: .vwr (v2 or v3) or .vox (`-` reads standard input; the kind is then told by its
    /// magic).
    pub input: PathBuf,
    #[command(flatten)]
    pub output: OutPath,
    /// Output format: v2 when the world fits it, else v3; `vox` writes MagicaVoxel (the
    /// default for a .vox output name).
    #[arg(long, value_enum, default_value_t = FormatArg::Auto)]
    pub format: FormatArg,
    /// v3 chunk codec.
    #[arg(long, value_enum, default_value_t = CodecArg::Auto)]
    pub codec: CodecArg,
    /// zstd level for the zstd and auto codecs (1..=22).
    #[arg(long, default_value_t = vwr::DEFAULT_ZSTD_LEVEL,
          value_parser = clap::value_parser!(i32).range(1..=22))]
    pub level: i32,
    /// .vox palette mapping (TOML): MagicaVoxel palette indices to block types, used both ways.
    #[arg(long, value_name = "FILE.toml")]
    pub palette: Option<PathBuf>,
    /// .vox import: where the scene's lowest corner lands, in blocks (default 0,0,0, or where a
    /// voxcaf export had it).
    #[arg(long, value_name = "X,Y,Z", value_parser = parse_origin,
          allow_hyphen_values = true)]
    pub origin: Option<[i32; 3]>,
    /// .vox import: the smallest world per axis instead of the smallest cube (saved as v3).
    #[arg(long)]
    pub tight: bool,
    /// .vox import: the animation frame to import (0, the first, by default; a note says so
    /// when the file has several).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub frame: u32,
    /// Overwrite an existing output that is not of the output's kind.
    #[arg(long)]
    pub force: bool,
    /// Print the result as one JSON object.
    #[arg(long)]
    pub json: bool,
}

impl ConvertArgs {
    /// The .vwr save options the flags ask for.
    pub fn save_options(&self) -> SaveOptions {
        save_options(self.format, self.codec, self.level, "voxcaf world convert")
    }
}

/// Parses `--origin X,Y,Z` (block coordinates).
fn parse_origin(s: &str) -> Result<[i32; 3], String> {
    crate::lists::numbers(s, &[','], "X,Y,Z block coordinates, e.g. 10,0,10")
}

/// A size in bytes: a number, optionally with a unit (`k`/`M`/`G`/`T` powers of 1000, `KiB`/
/// `MiB`/`GiB`/`TiB` powers of 1024; case and a final `B` ignored): `512M`, `2G`, `1.5GiB`.
pub fn parse_byte_size(s: &str) -> std::result::Result<u64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = num.parse().map_err(|_| {
        format!("`{s}` is not a size (a number, then k, M, G, T, KiB, MiB, GiB or TiB)")
    })?;
    let unit = unit.trim().to_ascii_lowercase();
    let scale = match unit.trim_end_matches('b') {
        "" => 1.0,
        "k" => 1e3,
        "m" => 1e6,
        "g" => 1e9,
        "t" => 1e12,
        "ki" => 1024.0,
        "mi" => 1024.0 * 1024.0,
        "gi" => 1024.0 * 1024.0 * 1024.0,
        "ti" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        _ => {
            return Err(format!(
                "`{s}`: unknown unit `{unit}` (use k, M, G, T, KiB, MiB, GiB or TiB)"
            ))
        }
    };
    let v = n * scale;
    if !(1.0..1.8e19).contains(&v) {
        return Err(format!("`{s}` is not a usable size"));
    }
    Ok(v as u64)
}

/// The memory a command may plan to use: what the user allows (`--max-memory`, taken as
/// said: the user may know of swap), else the smaller of the address space the process may
/// map (`ulimit -v`) and the memory the machine has available (both read from `/proc` on
/// Linux; elsewhere no figure).
pub fn memory_budget(user: Option<u64>) -> Option<u64> {
    if user.is_some() {
        return user;
    }
    let proc_value = |file: &str, key: &str, field: usize, scale: u64| -> Option<u64> {
        let text = std::fs::read_to_string(file).ok()?;
        let line = text.lines().find(|l| l.starts_with(key))?;
        let v: u64 = line[key.len()..]
            .split_whitespace()
            .nth(field)?
            .parse()
            .ok()?;
        Some(v.saturating_mul(scale))
    };
    let address_space = proc_value("/proc/self/limits", "Max address space", 0, 1);
    let available = proc_value("/proc/meminfo", "MemAvailable:", 0, 1024);
    [address_space, available].into_iter().flatten().min()
}

#[cfg(test)]
mod byte_size_tests {
    use super::parse_byte_size as p;

    #[test]
    fn the_memory_budget_is_at_most_what_the_user_allows() {
        assert_eq!(super::memory_budget(Some(1000)), Some(1000));
        if cfg!(target_os = "linux") {
            let machine = super::memory_budget(None).expect("MemAvailable on Linux");
            assert!(machine > 1 << 20);
            assert_eq!(super::memory_budget(Some(u64::MAX)), Some(u64::MAX));
        }
    }

    #[test]
    fn sizes_with_and_without_units() {
        assert_eq!(p("4096"), Ok(4096));
        assert_eq!(p("512M"), Ok(512_000_000));
        assert_eq!(p("2G"), Ok(2_000_000_000));
        assert_eq!(p("1.5GiB"), Ok(1_610_612_736));
        assert_eq!(p("64 mib"), Ok(64 << 20));
        assert_eq!(p("10kB"), Ok(10_000));
        for bad in ["", "M", "12X", "-5", "0", "1e99G"] {
            assert!(p(bad).is_err(), "{bad}");
        }
    }
}
