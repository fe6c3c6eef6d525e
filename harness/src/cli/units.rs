//! The arguments of `paimon-parity units`.

use std::path::PathBuf;

use super::ModeArg;

// The arguments of `units` (no doc comment here: clap takes the about text from the variant).
#[derive(clap::Args, Debug)]
pub struct UnitsArgs {
    /// Warehouses, databases, folders of tables or tables (paths or store URIs).
    #[arg(required = true, num_args = 1..)]
    pub locations: Vec<PathBuf>,
    /// The scans to plan, as `replay --mode` takes them.
    #[arg(long, value_delimiter = ',', default_value = "stream")]
    pub mode: Vec<ModeArg>,
    /// Target size of a unit, in bytes of table files planned (data, changelog and before files): a number
    /// with an optional binary suffix `k`, `m`, `g` (KiB, MiB, GiB), e.g. `256m`.
    #[arg(long, value_name = "SIZE", default_value = "256m", value_parser = parse_size)]
    pub unit_size: u64,
    /// The release whose rules plan the splits (default 1.0.0, or `PAIMON_PARITY_PAIMON_VERSION`).
    #[arg(long, value_name = "VERSION")]
    pub paimon_version: Option<String>,
    /// Write the plan to FILE (default `-`: stdout).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

/// A size of `units --unit-size`: digits with an optional suffix `k`, `m` or `g` (binary), at least 1 byte.
fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim().to_ascii_lowercase();
    let t = t
        .strip_suffix("ib")
        .or_else(|| t.strip_suffix('b'))
        .unwrap_or(&t);
    let (digits, shift) = match t.chars().last() {
        Some('k') => (&t[..t.len() - 1], 10),
        Some('m') => (&t[..t.len() - 1], 20),
        Some('g') => (&t[..t.len() - 1], 30),
        _ => (t, 0),
    };
    let n: u64 = digits
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a size: digits with k, m or g, e.g. 256m"))?;
    n.checked_shl(shift)
        .filter(|v| *v >= 1 && v >> shift == n)
        .ok_or_else(|| format!("`{s}`: a size from 1 byte to 2^64 - 1 bytes"))
}
