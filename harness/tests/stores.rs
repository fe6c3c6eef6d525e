//! Tables in an S3-compatible store: replays, writes and the store's errors against a real SeaweedFS server on
//! loopback (harness/tests/s3server), run on the default and the newest release (scripts/test).
mod common;
mod s3server;

mod store;
mod store_write;
