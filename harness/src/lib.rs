//! `harness`: the `paimon-parity` command as a library.
//!
//! It replays a retained Paimon warehouse through the released Java reader (`jvm-bridge`) and the native
//! reader (`native-reader`), matches their splits, diffs their rows, and reports where they first differ.

pub mod audit;
pub mod bench;
pub mod bundle;
pub mod cli;
pub mod commands;
pub mod corpus;
pub mod diff;
pub mod error;
pub mod external;
pub mod inspect;
pub mod location;
pub mod reader;
pub mod replay;
pub mod report;
pub mod store_options;
pub mod sweep;
pub mod system_tables;
pub mod upgrade;

pub use error::{Error, Result};
