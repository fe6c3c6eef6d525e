//! `paimon-parity`: see `harness::cli` (arguments) and `harness::commands` (what they do).

use clap::Parser;

/// The process allocator: mimalloc keeps freed decode buffers (Parquet pages, Arrow arrays) for the next
/// ones instead of returning them to the kernel and faulting them in again as fresh zeroed pages, for the
/// native reader and the plain decoders of `bench` alike (the JVM's own memory is not Rust's).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // `--version` says what this build can compare (clap's `-V` stays the short form).
    if std::env::args().nth(1).as_deref() == Some("--version") {
        println!("{}", harness::cli::long_version());
        return;
    }
    let cli = harness::cli::Cli::parse();
    std::process::exit(harness::commands::run(cli));
}
