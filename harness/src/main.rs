//! `paimon-parity`: see `harness::cli` (arguments) and `harness::commands` (what they do).

use clap::Parser;

fn main() {
    let cli = harness::cli::Cli::parse();
    std::process::exit(harness::commands::run(cli));
}
