//! `jvm-bridge`: the released Apache Paimon 1.0 Java SDK, driven from Rust in an embedded JVM.
//!
//! - [`candidate`]: a release with patches laid over it (`scripts/build-java --candidate`), run in its place
//!   and labelled as a candidate, never the oracle ([`jvm::select_candidate`]).
//! - [`class_data`]: the class-data-sharing archive of a release's build, used when it fits the class path.
//! - [`jvm`]: starts the one JVM of the process, attaches threads, turns Java exceptions into [`Error::Java`].
//! - [`stock`]: the released reader as the oracle: streaming and batch plans ([`StockReader::plan`],
//!   [`StockReader::plan_stream`]) and split reads ([`StockReader::read_split`]) as Arrow batches
//!   (`_row_kind` Int8, then the table's columns).
//! - [`scan_options`]: what a scan mode means to the released reader (its dynamic options, the streaming
//!   stop rule), decided in Rust; the Java side only applies the options and returns plans.
//! - [`corpus`]: the released writer, to create and write test tables ([`CorpusWriter`]).
//!
//! The Java side (`java/`, package `org.paimonparity.bridge`) only calls released Paimon APIs and exports
//! Arrow; build it with `mvn -B -q -f jvm-bridge/java/pom.xml package` before using this crate.

pub mod candidate;
pub mod class_data;
pub mod corpus;
pub mod error;
pub mod jvm;
pub mod scan_options;
pub mod stock;

pub use candidate::Candidate;
pub use corpus::CorpusWriter;
pub use error::{Error, ProtocolError, Result};
pub use stock::{JavaSplit, StockBatches, StockReader, StockSplit, WireSplit};
