//! The native reader's integration tests, a module each, in one binary (each test binary links arrow, parquet,
//! ORC, Avro, Lance and Vortex: one per file filled the disk). `cargo test -p native-reader --test integration
//! blob::` runs one module.
mod common;

mod audit_log_sequence;
mod batch_scan_mode;
mod blob;
mod data_evolution;
mod default_values;
mod external_corpora;
mod failed_files;
mod fallback_branch;
mod incremental_between;
mod read_splits;
mod scan_bucket;
mod scan_version;
mod scan_watermark;
mod sketch_union;
mod snapshot_ordering;
mod start_times;
mod stream_start;
