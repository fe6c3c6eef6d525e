//! Command-line interface of `paimon-parity`: the clap model only; what each subcommand does is in
//! [`crate::commands`].

mod bench;
mod sql;
mod units;

pub use bench::BenchArgs;
pub use sql::SqlArgs;
pub use units::UnitsArgs;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::audit::AuditReaders;
use crate::replay::ReplayMode;

/// Proves a native reader of Apache Paimon tables returns exactly what the released Java reader returns.
#[derive(Parser, Debug)]
#[command(name = "paimon-parity", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Where tables in object stores are reached from: options for every command.
    #[command(flatten)]
    pub store: StoreArgs,
}

/// The file-system options of tables in object stores (`s3://bucket/wh/db.db/t`), spelled as Paimon
/// spells them; the standard AWS environment (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
/// `AWS_SESSION_TOKEN`, `AWS_REGION`, `AWS_ENDPOINT_URL`) fills what they leave unset. Both readers and
/// external readers get the same map ([`crate::store_options`]); secrets are never printed.
#[derive(clap::Args, Debug, Default)]
pub struct StoreArgs {
    /// A file-system option KEY=VALUE, as Paimon spells it (repeatable): s3.endpoint, s3.access-key,
    /// s3.secret-key, s3.session-token, s3.region, s3.path.style.access, fs.s3a.* (e.g.
    /// fs.s3a.connection.timeout in ms, fs.s3a.attempts.maximum).
    #[arg(long = "option", value_name = "KEY=VALUE", global = true)]
    pub options: Vec<String>,
    /// Read file-system options from FILE: KEY=VALUE or KEY: VALUE lines, # comments; --option wins.
    #[arg(long, value_name = "FILE", global = true)]
    pub options_file: Option<PathBuf>,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Replay a table from a snapshot through the released Java reader and the native reader, split by
    /// split and row by row. Exit 0 when identical, 1 when they differ, 2 when a side cannot read the table.
    ///
    /// Several tables and/or modes (`--mode stream,batch`) run one after another in one JVM; each run prints
    /// its summary and first difference, then a table of table x mode -> splits, rows, verdict. The exit
    /// status is the worst run's.
    #[command(after_help = "Examples:
  paimon-parity replay corpora/c07-deletion-vectors/table
  paimon-parity replay corpora/*/table --mode all --json report.json --junit report.xml
  paimon-parity replay TABLE --mode batch --snapshot 3 -v
  paimon-parity replay TABLE --paimon-version 2.0.0 --reader native,paimon-rust,pypaimon
  paimon-parity replay TABLE --reader mine --reader-command mine='/opt/my-reader --flag'

Exit status: 0 identical, 1 different or incomplete, 2 the released (or native) reader cannot read the
table, 3 nothing compared.")]
    Replay(ReplayArgs),
    /// Print the snapshot timeline of a table: commit kind, user, identifier, time, record counts, files
    /// added and deleted per level and bucket, changelog; APPEND and COMPACT halves of a commit together.
    #[command(after_help = "Example:
  paimon-parity inspect corpora/c00-lookup-fault/table --json timeline.json
  paimon-parity inspect corpora/lookup-partitioned/table --from-snapshot 5 --to-snapshot 9 --partition p1")]
    Inspect {
        /// The table directory, or a bundle file (`paimon-parity retain`).
        table: PathBuf,
        /// Also write the timeline as JSON to FILE (`-` for stdout).
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Also write a self-contained HTML report to FILE (no network needed to view it).
        #[arg(long, value_name = "FILE")]
        html: Option<PathBuf>,
        /// Show snapshots from N on.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(i64).range(1..))]
        from_snapshot: Option<i64>,
        /// Show snapshots up to N.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(i64).range(1..))]
        to_snapshot: Option<i64>,
        /// Show only the files of this partition: its values joined with `/`, `NULL` for a NULL value
        /// (e.g. `2024-01-01/7`); snapshots without such files are left out.
        #[arg(long, value_name = "VALUES")]
        partition: Option<String>,
        /// Read branch NAME of the table: its `branch/branch-NAME/` snapshots and schemas, with the table's
        /// manifests and data files (the same as giving `TABLE$branch_NAME`, Paimon's name of a branch).
        #[arg(long, value_name = "NAME")]
        branch: Option<String>,
    },
    /// Find commits whose changelog was lost (APPEND durable, COMPACT never) and prove it from the data.
    /// Exit 0 when the changelog is complete, 1 when changelog was lost, 2 when the table cannot be read.
    #[command(after_help = "Examples:
  paimon-parity audit corpora/c00-lookup-fault/table
  paimon-parity audit TABLE --reader both --json audit.json")]
    Audit {
        /// The table directory, or a bundle file (`paimon-parity retain`): its buckets whose files it does not
        /// retain are left out and counted.
        table: PathBuf,
        /// Read branch NAME of the table: its `branch/branch-NAME/` snapshots and schemas, with the table's
        /// manifests and data files (the same as giving `TABLE$branch_NAME`, Paimon's name of a branch).
        #[arg(long, value_name = "NAME")]
        branch: Option<String>,
        /// Which reader replays the changelog and reads the table: native, stock, or both (cross-check).
        #[arg(
            long,
            value_enum,
            default_value = "native",
            hide_possible_values = true
        )]
        reader: AuditReaders,
        /// Also write the audit as JSON to FILE (`-` for stdout).
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Also write a self-contained HTML report to FILE (no network needed to view it).
        #[arg(long, value_name = "FILE")]
        html: Option<PathBuf>,
        /// List at most N missing keys.
        #[arg(long, value_name = "N", default_value_t = 20)]
        max_keys: usize,
        /// Released Paimon version of the stock reader and the release whose rules the native reader plans by; default
        /// 1.0.0, or `PAIMON_PARITY_PAIMON_VERSION`.
        #[arg(long, value_name = "VERSION")]
        paimon_version: Option<String>,
        /// Read with candidate NAME (`scripts/build-java --candidate NAME`: a release with patches laid over it,
        /// labelled `candidate NAME (based on V), not a release`) instead of release V; the native reader keeps
        /// V's rules.
        #[arg(long, value_name = "NAME")]
        candidate: Option<String>,
        /// Audit the table as it was at snapshot N (pinned: an audit run again while writers commit finds
        /// the same): later snapshots are left out, and files they committed are not taken for
        /// uncommitted ones. Ids start at 1; one outside the retained snapshots is a usage error.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(i64).range(1..))]
        to_snapshot: Option<i64>,
    },
    /// Decode throughput on the same splits: native (1 thread and parallel), the released reader with and
    /// without Arrow export, plain parquet-rs / orc-rust decoding of the same files, and any reader of the
    /// external protocol asked for with `--reader NAME` (e.g. `--reader paimon-rust`); per split kind
    /// (changelog, raw batch, merge-on-read batch), with every sample.
    #[command(after_help = "Examples:
  paimon-parity bench ~/.cache/paimon-parity/bench-corpus/bench-pk-parquet/table --samples 3
  paimon-parity bench TABLE --native-only --threads 2
  paimon-parity bench TABLE --samples 3 --no-rss --reader paimon-rust --reader pypaimon
  paimon-parity bench TABLE --flamegraph /tmp/flame --html bench.html --compare benches/results/bench-pk-parquet.json")]
    Bench(BenchArgs),
    /// Internal to `bench`: a native-only replay that prints its peak resident memory as JSON.
    #[command(hide = true)]
    BenchRss {
        /// The table directory.
        table: PathBuf,
    },
    /// For every pair A <= B of released Paimon versions, replay the corpora written by release A with
    /// release B, through the native reader and through release A's own reader (`stock@A`), in every scan
    /// mode, and say per pair, corpus and mode: identical, native-differs (a native gap), or upgrade-finding
    /// (release B reads A's table differently from A). Exit 0 when the native reader returns what every
    /// release returns (upgrade findings are listed; `--fail-on-findings` makes them exit 1), 1 when it does
    /// not or a cell could not be compared, 2 when the matrix cannot run, 130 on Ctrl-C.
    #[command(after_help = "Examples:
  paimon-parity upgrade-matrix --releases 1.0.0,2.0.0
  paimon-parity upgrade-matrix c07-deletion-vectors format-parquet --mode stream,batch --json matrix.json
  paimon-parity upgrade-matrix --work /tmp/matrix --html matrix.html --junit matrix.xml
  AWS_ENDPOINT_URL=http://127.0.0.1:8333 paimon-parity upgrade-matrix c01-key-order --store s3://bucket/matrix

The corpora each release writes are kept in --work (default $PAIMON_PARITY_CACHE/upgrade-matrix, else
~/.cache/paimon-parity/upgrade-matrix) and reused while their scenario is unchanged.")]
    UpgradeMatrix(UpgradeMatrixArgs),
    /// Fail one commit of a scenario at every file operation (crash, fail, fail-after), recover as a restarted
    /// Flink job does (`filterAndCommit` of the same committables, twice), and class each point by what it did
    /// to data, changelog and idempotence, with expected values from the scenario's own writes. Exit 0 when
    /// every point is in a success class (OK, ABSORBED, SPURIOUS-FAILURE, DEFERRED-FAILURE), 1 when any point
    /// loses data or changelog, is not idempotent, or the readers differ, 2 when the sweep cannot run.
    #[command(after_help = "Examples:
  paimon-parity sweep corpora/c00-full-compaction-control
  paimon-parity sweep c00-lookup-fault --paimon-version 2.0.0 --fault crash --json sweep.json
  paimon-parity sweep my-scenario.json --commit 2 --ops 20-30 --keep /tmp/points --html sweep.html")]
    Sweep(SweepArgs),
    /// Internal to `--reader stock@V` and `upgrade-matrix`: the released reader of Paimon `V` as an external
    /// reader of `paimon-parity-reader/1` (one request on stdin; `describe`; `record` fills its cache).
    #[command(hide = true)]
    StockReader(StockReaderArgs),
    /// Write an evidence bundle of a table: one compressed archive (tar + zstd) holding the table's metadata,
    /// its data and changelog files (all, none, or those the finding needs), and a manifest (tool and release
    /// versions, the JDK, the command and options that found the finding, its verdict and first difference,
    /// every retained file with its size and SHA-256, every file left out). Without `--report`, the replay
    /// (and the audit) run first. Exit 0 when written, 2 when the table cannot be read or the bundle written,
    /// or when the report is missing (a replay or audit run first wrote none) or names no release: no bundle.
    #[command(after_help = "Examples:
  paimon-parity retain corpora/c00-lookup-fault/table --out c00.tar.zst
  paimon-parity retain TABLE --out b.tar.zst --report replay.json --files findings
  paimon-parity retain TABLE --out all.tar.zst --files all --mode batch

A bundle is given to replay, audit and inspect where they take a table, and to reproduce.")]
    Retain(RetainArgs),
    /// Re-run the command a bundle records on the bundle, and say whether its finding reproduces (the same
    /// verdict, the same first difference, counts of the same run). Exit 0 REPRODUCED, 1 NOT REPRODUCED (a
    /// re-run that compared nothing never reproduces a run that compared something), 2 when it cannot run (a
    /// damaged bundle, the release it was found with is not built here, the re-run wrote no report), 3
    /// NOTHING-COMPARED (neither the recorded run nor the re-run compared anything).
    #[command(after_help = "Example:
  paimon-parity reproduce c00.tar.zst --json reproduce.json")]
    Reproduce(ReproduceArgs),
    /// Print a shell completion script for `paimon-parity` to stdout.
    #[command(after_help = "Examples:
  paimon-parity completions bash > ~/.local/share/bash-completion/completions/paimon-parity
  paimon-parity completions zsh > ~/.zfunc/_paimon-parity
  paimon-parity completions fish > ~/.config/fish/completions/paimon-parity.fish")]
    Completions {
        /// The shell: bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// Work with reports other commands wrote: `merge` the reports of the shards of a replay
    /// (`replay --shard I/N`) into the report of the whole replay.
    #[command(
        after_help = "Example (four shards, e.g. the jobs of a CI matrix, then one merge):
  paimon-parity replay TABLE --mode stream,batch --shard 1/4 --json shard-1.json   # ... up to 4/4
  paimon-parity report merge shard-*.json --json replay.json --junit replay.xml --html replay.html

Exit status: the merged replay's (0 identical, 1 different or incomplete, 2 unreadable, 3 nothing
compared), or 2 when the reports cannot be merged (not shards of one replay: the message names the file)."
    )]
    Report {
        /// What to do.
        #[command(subcommand)]
        command: ReportCommand,
    },
    /// Plan the units of a replay spread over a cluster (`scripts/spark-replay`, a CI matrix): every table
    /// of the locations given (warehouses, databases, folders of tables, tables) pinned to its latest
    /// snapshot, each scan planned by the native planner and cut into shards of about `--unit-size` of table
    /// files; one unit per table, scan and shard, as JSON. Each unit runs as `replay TABLE --mode M
    /// --to-snapshot S --shard I/N --json …`, and `report merge --per-table` merges their reports. Exit 0, 2
    /// when a location cannot be listed.
    #[command(after_help = "Example:
  paimon-parity units corpora --mode stream,batch --unit-size 64m --json units.json")]
    Units(UnitsArgs),
    /// Query Paimon tables, their system tables and a replay's two sides with SQL (DataFusion): tables read
    /// by the native reader, one partition per split. Exit 0 with the result, 2 when a table cannot be
    /// read or the query fails.
    #[command(after_help = "Examples:
  paimon-parity sql 'SELECT snapshot_id, commit_kind FROM \"t$snapshots\"' --table t=corpora/c01-key-order/table
  paimon-parity sql 'SELECT * FROM native EXCEPT ALL SELECT * FROM stock' --replay corpora/c01-key-order/table")]
    Sql(SqlArgs),
    /// Write test corpora with the released Paimon writer.
    #[command(after_help = "Examples:
  paimon-parity corpus list
  paimon-parity corpus generate c01-key-order --out /tmp/c01 --paimon-version 2.0.0")]
    Corpus {
        #[command(subcommand)]
        command: CorpusCommand,
    },
}

/// `paimon-parity corpus ...`.
#[derive(Subcommand, Debug)]
pub enum CorpusCommand {
    /// Run a scenario with the released writer into `<out>/table` and record `<out>/scenario.json` and
    /// `<out>/case.json`.
    Generate {
        /// Scenario file, directory holding `scenario.json`, or corpus name (`corpora/<name>/scenario.json`).
        scenario: String,
        /// Corpus directory to create.
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Released Paimon version that writes it (its build in `jvm-bridge/java/target/paimon-<V>`);
        /// default 1.0.0, or `PAIMON_PARITY_PAIMON_VERSION`.
        #[arg(long, value_name = "VERSION")]
        paimon_version: Option<String>,
        /// Remove what an earlier run wrote there first (`<out>/case.json` and `<out>/table`; in a store
        /// through the released FileIO) instead of refusing a table that exists.
        #[arg(long)]
        replace: bool,
    },
    /// List the committed scenarios (`corpora/*/scenario.json`).
    List,
}

// The arguments of `upgrade-matrix` (no doc comment here: clap takes the about text from the variant).
// Serialized as the JSON report's `options`.
#[derive(clap::Args, Debug, serde::Serialize)]
pub struct UpgradeMatrixArgs {
    /// The scenarios (corpus names, `corpora/<name>` directories or scenario files); default: every
    /// `corpora/*/scenario.json`.
    pub scenarios: Vec<String>,
    /// The releases, comma-separated, or `all`: every release the native reader implements, those whose Java
    /// side is built (`jvm-bridge/java/target/paimon-<V>`) run, the others listed as not checked (exit 3).
    #[arg(long, value_delimiter = ',', default_value = "all")]
    pub releases: Vec<String>,
    /// The work directory: the corpora each release wrote, release A's cached reading, the replays' JSON
    /// reports and logs (default `$PAIMON_PARITY_CACHE/upgrade-matrix`).
    #[arg(long, value_name = "DIR")]
    pub work: Option<PathBuf>,
    /// Write every release's corpora into this store and read them from it (`s3://bucket/prefix`: the
    /// tables go to `<URI>/<release>/<scenario>/table`, reused while their scenario is unchanged), with
    /// the run's `--option`s; the work directory keeps the reports, logs and release A's cached reading.
    #[arg(long, value_name = "URI")]
    pub store: Option<PathBuf>,
    /// The scans, as `replay --mode` takes them.
    #[arg(long, value_delimiter = ',', default_value = "all")]
    pub mode: Vec<ModeArg>,
    /// Also write the matrix as JSON to FILE (`-`: to stdout, the text then goes to stderr).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Also write a self-contained HTML page of the matrix to FILE.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Also write the cells as JUnit XML to FILE (one test case per pair, corpus and mode).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Exit 1 when release B reads a table of release A differently from A (by default such upgrade findings
    /// are listed and exit 0: they are findings about Paimon, not about the native reader).
    #[arg(long)]
    pub fail_on_findings: bool,
}

// The arguments of `sweep` (no doc comment here: clap takes the about text from the variant). Serialized as
// the JSON report's `options`.
#[derive(clap::Args, Debug, serde::Serialize)]
pub struct SweepArgs {
    /// The scenario: a corpus name, a `corpora/<name>` directory or a scenario file.
    pub scenario: String,
    /// The released Paimon that writes and reads every point (its build in `jvm-bridge/java/target/paimon-<V>`);
    /// default 1.0.0, or `PAIMON_PARITY_PAIMON_VERSION`.
    #[arg(long, value_name = "VERSION")]
    pub paimon_version: Option<String>,
    /// Candidate NAME (`scripts/build-java --candidate NAME`: a release with patches laid over it) writes,
    /// commits and recovers every point instead of the release it is based on, whose rules the native reader
    /// keeps; the reports name it `candidate NAME (based on V), not a release`. The oracle stays the
    /// scenario's model.
    #[arg(long, value_name = "NAME")]
    pub candidate: Option<String>,
    /// The fault modes, comma-separated: `crash` (the operation and every later one of the writer and
    /// committer fail), `fail` (the operation throws once before it takes effect), `fail-after` (it takes
    /// effect, then throws once).
    #[arg(long, value_delimiter = ',', default_value = "crash,fail,fail-after")]
    pub fault: Vec<SweepFault>,
    /// The identifier of the commit to sweep (default: the scenario's last commit).
    #[arg(long, value_name = "IDENTIFIER")]
    pub commit: Option<i64>,
    /// Sweep a commit of this writer (a step's `user`; default: any), e.g. one of two subtasks that commit
    /// the same identifier.
    #[arg(long, value_name = "NAME")]
    pub writer: Option<String>,
    /// How many times the restarted job recovers the swept commit (at least 1); the second and later must
    /// commit nothing. With 1 the idempotence of recovery is not checked, and a sweep without findings is
    /// NOT CHECKED (exit 3), not CLEAN.
    #[arg(long, default_value_t = 2, value_name = "K", value_parser = clap::value_parser!(u64).range(1..))]
    pub recovery_attempts: u64,
    /// How the restarted job recovers the swept commit: `stock` (`filterAndCommit`, as released and as
    /// Flink's committer does) or `pair-aware` (the bridge's `PairAwareRecovery`, released APIs only: an
    /// identifier whose APPEND snapshot is durable and whose COMPACT one is not gets its COMPACT half
    /// committed first).
    #[arg(long, value_enum, default_value = "stock")]
    pub recovery: SweepRecovery,
    /// Sweep twice, with the release's own recovery and with the remedy `--recovery` names, and mark each
    /// point `closed`, `still-lost`, `newly-broken` or `unchanged` (exit 0 when the remedy fails nowhere).
    #[arg(long)]
    pub compare: bool,
    /// Also sweep the first recovery's own operations in these modes (comma-separated, as `--fault`), once
    /// for each distinct durable state the commit's faults leave (nothing, APPEND, APPEND + COMPACT), after
    /// the first commit fault that left it; the later recoveries run clean.
    #[arg(long, value_delimiter = ',', value_name = "MODES")]
    pub recovery_fault: Vec<SweepFault>,
    /// Only these operations of the first recovery in the recovery sweep, e.g. `40-45,70-72` (default: every
    /// one its counting run recorded). Needs `--recovery-fault`.
    #[arg(long, value_name = "LIST", requires = "recovery_fault")]
    pub recovery_ops: Option<String>,
    /// Only these operations, e.g. `1-10,24,60` (default: every one the counting run recorded).
    #[arg(long, value_name = "LIST")]
    pub ops: Option<String>,
    /// Keep the table of the first point of each window in DIR (for `inspect`, `audit`, `replay`).
    #[arg(long, value_name = "DIR")]
    pub keep: Option<PathBuf>,
    /// Write the points' tables under LOCATION (default: the system's temporary directory): a local
    /// directory, or a store URI (`s3://bucket/prefix`, with the --option of the store) to sweep the commit
    /// where the table lives; the points are named by the store's operations (HEAD, GET, PUT, COPY, DELETE,
    /// LIST). Each run writes into its own `paimon-parity-sweep-<pid>` below it and removes it at the end.
    #[arg(long, value_name = "LOCATION")]
    pub work: Option<PathBuf>,
    /// Points run at the same time, each in its own table, in one JVM (default: the cores).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Print only the sweep's first line, its totals per fault mode and its verdict.
    #[arg(short, long)]
    pub quiet: bool,
    /// Skip the native reader's replay of each end state (a sweep without findings is then NOT CHECKED,
    /// exit 3, not CLEAN).
    #[arg(long)]
    pub no_parity: bool,
    /// Also write the sweep as JSON to FILE (`-`: to stdout, the text then goes to stderr).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Also write the points as JUnit XML to FILE (a test case per point).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Also write a self-contained HTML page to FILE: a strip per fault mode, an operation per cell.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

/// A `--recovery` value of `sweep` (`jvm_bridge::corpus::RecoveryStrategy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SweepRecovery {
    /// `filterAndCommit`, as released.
    Stock,
    /// The bridge's `PairAwareRecovery`, then `filterAndCommit`.
    PairAware,
}

/// A `--fault` value of `sweep`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SweepFault {
    /// The operation and every later one of the writer and committer fail: the process is gone.
    Crash,
    /// The operation throws once, before it takes effect.
    Fail,
    /// The operation takes effect, then throws once.
    FailAfter,
}

// The arguments of the hidden `stock-reader` (no doc comment here: clap takes the about text from the variant).
#[derive(clap::Args, Debug)]
pub struct StockReaderArgs {
    /// The released Paimon whose reader answers (its build in `jvm-bridge/java/target/paimon-<V>`).
    #[arg(long, value_name = "VERSION")]
    pub paimon_version: String,
    /// Answer with candidate NAME, based on `--paimon-version` (`candidate@NAME`), instead of the release.
    #[arg(long, value_name = "NAME")]
    pub candidate: Option<String>,
    /// Without an action: answer the one request on stdin.
    #[command(subcommand)]
    pub action: Option<StockReaderAction>,
}

/// The subcommands of `paimon-parity report`.
#[derive(Subcommand, Debug)]
pub enum ReportCommand {
    /// Merge the JSON reports of the N shards of one replay (`replay --shard I/N --json`, any order) into
    /// the report the unsharded replay writes: every run's splits in plan order, its totals, first
    /// difference and verdict; refuses reports of different tables, scans, readers, releases or options
    /// (`--unordered`, `--reader-plans`, `--reader-command`, `--reader-timeout`), a missing or repeated
    /// shard, and shards whose splits do not cover the paired plan exactly once.
    Merge {
        /// The shards' JSON reports.
        #[arg(required = true, num_args = 1..)]
        reports: Vec<PathBuf>,
        /// Write the merged report as JSON to FILE (`-` for stdout).
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Write the merged report as JUnit XML to FILE.
        #[arg(long, value_name = "FILE")]
        junit: Option<PathBuf>,
        /// Write the merged report as a self-contained HTML page to FILE.
        #[arg(long, value_name = "FILE")]
        html: Option<PathBuf>,
        /// The reports are the shards of several replays, e.g. the units of a warehouse
        /// (`paimon-parity units`, `scripts/spark-replay`), each holding runs of any tables: group every run
        /// by table, scan and reader, merge each group as the shards of that run, and report the runs side
        /// by side, tables in path order, with the worst exit status; every group must be whole.
        #[arg(long)]
        per_table: bool,
    },
    /// The JSON reports of crash-point sweeps (`sweep --json`) side by side: per release, scenario and fault
    /// mode, each remedy's failing windows and totals (the release's own recovery, `--recovery pair-aware`,
    /// candidates), as a text table, JSON and one HTML page. Exit 0 when every report was read.
    Remedy {
        /// The sweeps' JSON reports.
        #[arg(required = true, num_args = 1..)]
        reports: Vec<PathBuf>,
        /// Also write the report as JSON to FILE (`-` for stdout, the text then goes to stderr).
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Also write the report as a self-contained HTML page to FILE.
        #[arg(long, value_name = "FILE")]
        html: Option<PathBuf>,
    },
}

/// What the hidden `stock-reader` does besides answering a request.
#[derive(Subcommand, Debug)]
pub enum StockReaderAction {
    /// Print what this reader serves (`paimon-parity-reader/1` `describe`).
    Describe,
    /// Plan and read every scan of `--mode` on every table, in one JVM, into the cache.
    Record {
        /// The table directories.
        #[arg(required = true, num_args = 1..)]
        tables: Vec<PathBuf>,
        /// The scans, as `replay --mode` takes them.
        #[arg(long, value_delimiter = ',', default_value = "all")]
        mode: Vec<ModeArg>,
        /// The cache directory (default: `PAIMON_PARITY_STOCK_READER_CACHE`).
        #[arg(long, value_name = "DIR")]
        cache: Option<PathBuf>,
    },
}

/// A `--mode` value of `replay`: one scan, or `all` of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ModeArg {
    /// `scan.mode=from-snapshot` from `--from-snapshot`.
    Stream,
    /// `scan.mode=from-snapshot-full` from `--from-snapshot`.
    StreamFull,
    /// `scan.mode=latest-full`.
    LatestFull,
    /// A batch plan of the latest snapshot, or of `--snapshot`.
    Batch,
    /// The four scans above, in that order.
    All,
}

impl ModeArg {
    /// The replay modes the arguments name, in order, each once.
    pub fn expand(args: &[ModeArg]) -> Vec<ReplayMode> {
        let mut modes = Vec::new();
        for a in args {
            let these: &[ReplayMode] = match a {
                ModeArg::Stream => &[ReplayMode::Stream],
                ModeArg::StreamFull => &[ReplayMode::StreamFull],
                ModeArg::LatestFull => &[ReplayMode::LatestFull],
                ModeArg::Batch => &[ReplayMode::Batch],
                ModeArg::All => &[
                    ReplayMode::Stream,
                    ReplayMode::StreamFull,
                    ReplayMode::LatestFull,
                    ReplayMode::Batch,
                ],
            };
            for m in these {
                if !modes.contains(m) {
                    modes.push(*m);
                }
            }
        }
        modes
    }
}

// The arguments of `replay` (no doc comment here: clap takes the subcommand's about text from the variant).
// Serialized as the JSON report's `options`.
#[derive(clap::Args, Debug, serde::Serialize)]
pub struct ReplayArgs {
    /// The table directories (each the one holding `schema/`, `snapshot/`, `manifest/`), or bundle files
    /// (`paimon-parity retain`): only the splits whose files a bundle retains are compared, the others
    /// counted as `not retained`. `TABLE$snapshots`, `TABLE$schemas`, `TABLE$options`, `TABLE$tags`,
    /// `TABLE$manifests`, `TABLE$partitions`, `TABLE$buckets`, `TABLE$files` compare those system tables
    /// whole; `TABLE$row_tracking` replays the scans with `_ROW_ID` and `_SEQUENCE_NUMBER`,
    /// `TABLE$audit_log` with every row's kind as the column `rowkind`, deletes kept; `TABLE$binlog` the
    /// same with array columns (updates packed); `TABLE$ro` the batch scan of a primary-key table's top
    /// level.
    #[arg(required_unless_present = "units", num_args = 1..)]
    pub tables: Vec<PathBuf>,
    /// Replay the scans a unit of `paimon-parity units` lists instead of TABLES x --mode: a JSON file with
    /// the unit (`{"scans": [{"table", "mode", "to_snapshot", "shard"}, ...]}`), each scan with its own pin
    /// and shard, one run each, in one process. A scan that cannot be replayed is a run with its error.
    #[arg(long, value_name = "UNIT.json", conflicts_with_all = ["all_tables", "shard", "to_snapshot", "snapshot", "from_snapshot"])]
    pub units: Option<PathBuf>,
    /// Replay every table in each warehouse, database or folder of tables given (as `db.table` in a
    /// warehouse), side by side in one report; a table given is replayed as itself.
    #[arg(long)]
    pub all_tables: bool,
    /// Read branch NAME of the table: its `branch/branch-NAME/` snapshots and schemas, with the table's
    /// manifests and data files (the same as giving `TABLE$branch_NAME`, Paimon's name of a branch).
    #[arg(long, value_name = "NAME")]
    pub branch: Option<String>,
    /// First snapshot of the streaming scan (`scan.snapshot-id` of `--mode stream|stream-full`); default: the
    /// earliest retained snapshot. Snapshot ids start at 1 (0 and negative ids are usage errors), and an id
    /// outside the table's retained snapshots is a usage error naming them.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(i64).range(1..))]
    pub from_snapshot: Option<i64>,
    /// The scans to replay, comma-separated: `stream` (`scan.mode=from-snapshot`), `stream-full`
    /// (`from-snapshot-full`), `latest-full`, `batch` (`newScan().plan()`), or `all` (the four).
    #[arg(long, value_delimiter = ',', default_value = "stream")]
    pub mode: Vec<ModeArg>,
    /// With `--mode batch`: read this snapshot (`scan.snapshot-id`) instead of the latest (ids start at 1; an
    /// id outside the table's retained snapshots, or `--snapshot` without a batch mode, is a usage error).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(i64).range(1..))]
    pub snapshot: Option<i64>,
    /// Pin the replay to snapshot N instead of the latest when it starts, so that a replay run again (a
    /// retried task, another shard) computes the same splits while writers keep committing: the streaming
    /// scans end at N, `batch` reads N unless `--snapshot` says otherwise, and `latest-full` plans N in
    /// full (`scan.mode=from-snapshot-full` at N, which is what `latest-full` plans when N is the latest).
    /// Ids start at 1; an id outside the table's retained snapshots is a usage error naming them.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(i64).range(1..))]
    pub to_snapshot: Option<i64>,
    /// Also write the report as JSON to FILE (`-`: to stdout, the text report then goes to stderr).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Also write a self-contained HTML report to FILE (no network needed to view it).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Describe at most N mismatching splits in detail.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub max_mismatches: usize,
    /// Compare the rows of each split as a multiset (any order), for readers whose row order within a
    /// merge split may legitimately differ; reports the rows only one side has.
    #[arg(long)]
    pub unordered: bool,
    /// With --unordered: MiB a split's comparison may hold of rows one side has returned and the other has
    /// not yet matched: half in its own map, beyond which they go to DataFusion's hash aggregation, whose
    /// pool has the other half and spills to disk (each split read at once has its own).
    #[arg(long, value_name = "MIB", default_value_t = 256, value_parser = clap::value_parser!(u64).range(16..), requires = "unordered")]
    pub unordered_memory: u64,
    /// Released Paimon version of the stock reader (its build in `jvm-bridge/java/target/paimon-<V>`) and
    /// the release whose rules the native reader plans by: 1.0.0, 1.0.1, 1.1.1, 1.2.0, 1.3.1, 1.4.2 or 2.0.0;
    /// default 1.0.0, or `PAIMON_PARITY_PAIMON_VERSION`.
    #[arg(long, value_name = "VERSION")]
    pub paimon_version: Option<String>,
    /// Also compare candidate NAME (`scripts/build-java --candidate NAME --based-on V`: release V with patches
    /// laid over it) with the released V, which stays the reference: the reader `candidate@NAME`, run in a
    /// child process of its own JVM, planning by itself (like `stock@V`). `--paimon-version` defaults to V.
    #[arg(long, value_name = "NAME")]
    pub candidate: Option<String>,
    /// The readers to compare with the released one, repeatable or comma-separated: `native` (this
    /// project's), a reader shipped in `adapters/readers.json` (`example`, `paimon-rust`, `pypaimon`), or one
    /// declared with `--reader-command`. Each runs as its own replay; see `adapters/README.md`.
    #[arg(
        long = "reader",
        value_name = "NAME",
        value_delimiter = ',',
        default_value = "native"
    )]
    pub readers: Vec<String>,
    /// Declares an external reader: `NAME=COMMAND` (the command split on whitespace, run without a shell),
    /// speaking `paimon-parity-reader/1`. Repeatable.
    #[arg(long = "reader-command", value_name = "NAME=COMMAND")]
    pub reader_commands: Vec<String>,
    /// Seconds an external reader may take to answer one split before it is stopped and reported.
    #[arg(long, value_name = "SECONDS", default_value_t = crate::external::DEFAULT_TIMEOUT_SECS)]
    pub reader_timeout: u64,
    /// List every split, identical ones included (by default identical splits are counted, not listed).
    #[arg(short, long, conflicts_with = "quiet")]
    pub verbose: bool,
    /// Print only the summary line (and the first difference) of each run.
    #[arg(short, long)]
    pub quiet: bool,
    /// Also write the runs as JUnit XML to FILE: one test case per table x mode x reader, and one per split
    /// that is not identical.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Let external readers that can plan (their `describe` lists `plan`) plan the scan themselves, and diff
    /// their plans against the released planner's; by default they read the released planner's splits.
    #[arg(long)]
    pub reader_plans: bool,
    /// Splits read at once (default: the cores). The released reader reads them on as many JVM threads,
    /// each with its own `TableRead`; an external reader is read in plan order on one thread while the
    /// released reader's splits are read ahead. The report is the same at any number of threads.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub threads: Option<u64>,
    /// MiB of decoded batches the splits read ahead may hold while they wait for their turn (a split being
    /// read is bounded by the split itself).
    #[arg(long, value_name = "MIB", default_value_t = 512, value_parser = clap::value_parser!(u64).range(1..))]
    pub memory_budget: u64,
    /// Compare only shard I of N of the split pairs (`2/4`: positions 1, 5, 9, ... of the paired plan,
    /// 0-based); both readers still plan the whole scan. `paimon-parity report merge` merges the N reports
    /// into the one the whole replay writes.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<crate::replay::Shard>,
}

// The arguments of `retain` (no doc comment here: clap takes the about text from the variant). Serialized
// as the JSON report's `options`.
#[derive(clap::Args, Debug, serde::Serialize)]
pub struct RetainArgs {
    /// The table directory.
    pub table: PathBuf,
    /// The bundle to write (a `.tar.zst` file; replaced if it exists; never inside the table).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// First snapshot of the streaming replay that finds the finding (as `replay --from-snapshot`).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(i64).range(1..))]
    pub from_snapshot: Option<i64>,
    /// The scans of that replay, as `replay --mode` takes them.
    #[arg(long, value_delimiter = ',', default_value = "stream")]
    pub mode: Vec<ModeArg>,
    /// Released Paimon version of the replay and audit (default 1.0.0, or `PAIMON_PARITY_PAIMON_VERSION`).
    #[arg(long, value_name = "VERSION")]
    pub paimon_version: Option<String>,
    /// Which data and changelog files to retain: `all`, `findings` (the files of every split that differed,
    /// failed or was unsupported, and every file of each bucket an audit finding names) or `none`.
    #[arg(long, value_enum, default_value = "findings")]
    pub files: crate::bundle::Files,
    /// The JSON report (`replay --json` or `audit --json`) of the finding; without it the replay (and, for a
    /// table whose replay finds nothing, the audit) run first.
    #[arg(long, value_name = "REPORT.json")]
    pub report: Option<PathBuf>,
    /// Also write what was retained as JSON to FILE (`-`: to stdout, the text then goes to stderr).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

// The arguments of `reproduce` (no doc comment here: clap takes the about text from the variant).
#[derive(clap::Args, Debug, serde::Serialize)]
pub struct ReproduceArgs {
    /// The bundle file (`paimon-parity retain`).
    pub bundle: PathBuf,
    /// Also write the outcome as JSON to FILE (`-`: to stdout, the text then goes to stderr).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// The external reader NAME, run as CMD, for a finding made with it (repeatable). A bundle names the
    /// command its finding ran, but reproduce never runs a program a bundle names: the re-run uses the
    /// command given here for NAME, or cannot run.
    #[arg(long = "reader-command", value_name = "NAME=COMMAND")]
    pub reader_commands: Vec<String>,
}

/// What `paimon-parity --version` prints: the tool's version, the released Paimon builds the stock side can
/// load (`jvm-bridge/java/target/paimon-<V>`, built by `scripts/build-java`), the releases the native
/// reader follows, the JDK (`java -version` of `JAVA_HOME`, else of `java` on `PATH`), and which external
/// readers of `adapters/readers.json` are set up.
pub fn long_version() -> String {
    let mut out = format!("paimon-parity {}\n", env!("CARGO_PKG_VERSION"));
    let (target, built) = jvm_bridge::jvm::built_versions();
    out.push_str(&format!(
        "released Paimon built for the stock reader: {} (in {})\n",
        if built.is_empty() {
            "none (run scripts/build-java)".to_owned()
        } else {
            built.join(", ")
        },
        target.display()
    ));
    out.push_str(&format!(
        "native reader releases: {}\n",
        native_reader::PaimonRelease::supported_list()
    ));
    let java = std::env::var_os("JAVA_HOME")
        .map(|h| PathBuf::from(h).join("bin/java"))
        .unwrap_or_else(|| "java".into());
    let jdk = std::process::Command::new(&java)
        .arg("-version")
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stderr)
                .lines()
                .next()
                .map(str::to_owned)
        })
        .unwrap_or_else(|| format!("not found ({})", java.display()));
    out.push_str(&format!("JDK: {jdk}\n"));
    let readers = crate::external::shipped_readers()
        .map(|rs| {
            rs.iter()
                .map(|r| {
                    let ready = std::path::Path::new(&r.command[0]).exists();
                    format!(
                        "{} ({})",
                        r.name,
                        if ready { "set up" } else { "not set up" }
                    )
                })
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_else(|e| format!("unknown: {e}"));
    out.push_str(&format!("external readers: {readers}"));
    out
}
