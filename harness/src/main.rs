//! `paimon-parity`: see `harness::cli`.

use clap::Parser;

fn main() {
    let cli = harness::cli::Cli::parse();
    std::process::exit(harness::cli::run(cli));
}
