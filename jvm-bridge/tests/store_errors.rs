//! A table in an object store that the released reader cannot open fails naming its URI and the Java exception
//! (`cannot open the table at s3://…: <class>: <message>`), never showing the secret key; a local table fails
//! as before. No server is needed: the endpoint is a closed port on loopback (S3A's retries bounded by the
//! options). Reading from a live store is tested end to end in `harness/tests/store.rs`.

use std::collections::BTreeMap;
use std::path::Path;

use jvm_bridge::stock::set_file_io_options;
use jvm_bridge::{Error, StockReader};
use native_reader::scan::ScanMode;

/// The message (`<class>: <message>`) and stack of a Java error, asserting it is one.
fn java_error(e: Error) -> (String, String) {
    match e {
        Error::Java {
            class,
            message,
            stack,
        } => (format!("{class}: {message}"), stack),
        other => panic!("not a Java error: {other:?}"),
    }
}

#[test]
fn a_store_table_that_cannot_be_opened_is_named_without_the_secret() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let secret = format!("parity-secret-{}", std::process::id());
    let options: BTreeMap<String, String> = [
        ("s3.endpoint", format!("http://127.0.0.1:{closed}")),
        ("s3.access-key", "parity-access".to_owned()),
        ("s3.secret-key", secret.clone()),
        ("s3.path.style.access", "true".to_owned()),
        ("fs.s3a.attempts.maximum", "1".to_owned()),
        ("fs.s3a.retry.limit", "0".to_owned()),
        ("fs.s3a.connection.establish.timeout", "1000".to_owned()),
        ("fs.s3a.connection.timeout", "1000".to_owned()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    set_file_io_options(&options);
    let reader = StockReader::new().unwrap();
    let batch = ScanMode::Batch { snapshot: None };

    for uri in [
        "s3://paimon-parity/wh/db.db/t",
        "s3a://paimon-parity/wh/db.db/t",
    ] {
        let (message, stack) = java_error(reader.plan(Path::new(uri), batch, 0).unwrap_err());
        assert!(
            message.starts_with(&format!(
                "java.io.IOException: cannot open the table at {uri}: "
            )),
            "{message}"
        );
        assert!(message.contains("127.0.0.1"), "{message}");
        assert!(!message.contains(&secret), "{message}");
        assert!(!stack.contains(&secret), "{stack}");

        let (message, stack) = java_error(reader.latest_snapshot_id(Path::new(uri)).unwrap_err());
        assert!(
            message.contains(&format!("cannot open the table at {uri}: ")),
            "{message}"
        );
        assert!(!stack.contains(&secret), "{stack}");
    }

    // A local table that does not exist fails as it always did, without the store's wording.
    let tmp = tempfile::tempdir().unwrap();
    let (message, _) = java_error(
        reader
            .plan(&tmp.path().join("missing"), batch, 0)
            .unwrap_err(),
    );
    assert!(!message.contains("cannot open the table at"), "{message}");
}
