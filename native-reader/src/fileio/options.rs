//! The options of a table's file system, spelled as Paimon spells them (`s3.endpoint`, `s3.access-key`,
//! `s3.secret-key`, `s3.path.style.access`, `s3.region`, …): the one map that reaches the released Java
//! reader (through `CatalogContext.create(Options)`), the native reader's [`super::FileIO`] and external
//! readers.
//!
//! Keys are passed on as given. The native reader reads them the way Paimon's `S3FileIO` does: a key
//! starting with `s3.`, `s3a.`, `fs.s3a.` or `fs.s3.` names the Hadoop S3A option after the prefix, and
//! `-` and `.` are the same (`s3.access-key` is `fs.s3a.access.key`).

use std::collections::BTreeMap;
use std::time::Duration;

/// What every secret value is shown as in reports, logs and errors.
pub const REDACTED: &str = "****";

/// The key prefixes Paimon's S3 file system maps onto Hadoop's `fs.s3a.*` (and pypaimon's `fs.s3.`).
const S3_PREFIXES: [&str; 4] = ["fs.s3a.", "fs.s3.", "s3a.", "s3."];

/// The standard AWS environment and the option each one fills when the options do not set it.
const AWS_ENVIRONMENT: [(&str, &str); 7] = [
    ("AWS_ACCESS_KEY_ID", "s3.access-key"),
    ("AWS_SECRET_ACCESS_KEY", "s3.secret-key"),
    ("AWS_SESSION_TOKEN", "s3.session-token"),
    ("AWS_REGION", "s3.region"),
    ("AWS_DEFAULT_REGION", "s3.region"),
    ("AWS_ENDPOINT_URL_S3", "s3.endpoint"),
    ("AWS_ENDPOINT_URL", "s3.endpoint"),
];

/// A map of file-system options (string to string), in the order of their keys.
///
/// `Debug` shows secrets as [`REDACTED`]; [`FileIOOptions::redacted`] is the map to print anywhere.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct FileIOOptions {
    map: BTreeMap<String, String>,
}

impl std::fmt::Debug for FileIOOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.redacted()).finish()
    }
}

/// The S3 settings the native reader uses, read from a [`FileIOOptions`] (see [`FileIOOptions::s3`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct S3Settings {
    /// `s3.endpoint` (`fs.s3a.endpoint`): `http://127.0.0.1:9000`; `None` is AWS itself.
    pub endpoint: Option<String>,
    /// `s3.region` (`fs.s3a.endpoint.region`); `us-east-1` when `None`.
    pub region: Option<String>,
    /// `s3.access-key` (`fs.s3a.access.key`).
    pub access_key: Option<String>,
    /// `s3.secret-key` (`fs.s3a.secret.key`).
    pub secret_key: Option<String>,
    /// `s3.session-token` (`fs.s3a.session.token`).
    pub session_token: Option<String>,
    /// `s3.path.style.access` (`fs.s3a.path.style.access`): buckets in the path, not in the host name.
    pub path_style: bool,
    /// `fs.s3a.attempts.maximum`: retries of a request that failed transiently (5xx, throttling, a reset
    /// connection); 3 when unset.
    pub max_retries: usize,
    /// `fs.s3a.connection.timeout` (milliseconds): the limit on one request; 30 s when unset.
    pub request_timeout: Duration,
    /// `fs.s3a.connection.establish.timeout` (milliseconds): the limit on connecting; 5 s when unset.
    pub connect_timeout: Duration,
}

impl FileIOOptions {
    /// No options.
    pub fn new() -> Self {
        Self::default()
    }

    /// Options from `KEY=VALUE` pairs; the later of two equal keys wins.
    pub fn from_map(map: BTreeMap<String, String>) -> Self {
        FileIOOptions { map }
    }

    /// Sets `key` to `value`, replacing what it held.
    pub fn set(&mut self, key: impl Into<String>, value: impl Into<String>) {
        self.map.insert(key.into(), value.into());
    }

    /// The value of `key` exactly as spelled, if set.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.map.get(key).map(String::as_str)
    }

    /// Whether no option is set.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The options as given (secrets included: hand them to readers only, never print them).
    pub fn as_map(&self) -> &BTreeMap<String, String> {
        &self.map
    }

    /// The options with every secret value (see [`is_secret`]) replaced by [`REDACTED`]: what reports,
    /// logs and errors may show.
    pub fn redacted(&self) -> BTreeMap<String, String> {
        self.map
            .iter()
            .map(|(k, v)| {
                let shown = if is_secret(k) { REDACTED } else { v.as_str() };
                (k.clone(), shown.to_string())
            })
            .collect()
    }

    /// Fills what the options leave unset from the standard AWS environment (`AWS_ACCESS_KEY_ID`,
    /// `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION` or `AWS_DEFAULT_REGION`,
    /// `AWS_ENDPOINT_URL_S3` or `AWS_ENDPOINT_URL`), read through `env`. An option given in any spelling
    /// (`s3.access.key`, `fs.s3a.access.key`) keeps its value.
    pub fn with_aws_environment(mut self, env: impl Fn(&str) -> Option<String>) -> Self {
        for (variable, key) in AWS_ENVIRONMENT {
            let canonical = s3_name(key).unwrap_or_default();
            if self.s3_value(&canonical).is_some() {
                continue;
            }
            if let Some(value) = env(variable).filter(|v| !v.is_empty()) {
                self.map.insert(key.to_string(), value);
            }
        }
        self
    }

    /// Sets `s3.path.style.access=true` when the endpoint's host is an IP address or `localhost` and no
    /// spelling of the option is set: a bucket cannot be a sub-domain of an address, so the
    /// virtual-hosted style (S3A's default) cannot reach it. Both readers then see the same choice.
    pub fn with_path_style_for_addresses(mut self) -> Self {
        if self.s3_value("path.style.access").is_some() {
            return self;
        }
        let Some(endpoint) = self.s3_value("endpoint") else {
            return self;
        };
        let host = endpoint
            .split_once("://")
            .map_or(endpoint, |(_, rest)| rest)
            .split(['/', '?'])
            .next()
            .unwrap_or_default();
        let host = host
            .strip_prefix('[')
            .and_then(|h| h.split_once(']'))
            .map_or_else(
                || host.rsplit_once(':').map_or(host, |(h, _)| h),
                |(h, _)| h,
            );
        if host == "localhost" || host.parse::<std::net::IpAddr>().is_ok() {
            self.map
                .insert("s3.path.style.access".to_string(), "true".to_string());
        }
        self
    }

    /// Bounds what Hadoop S3A would otherwise retry for minutes (its defaults: 7 retries of a failed
    /// request, 20 of a throttled one, each SDK call attempted up to 10 or 20 times), where no spelling of
    /// the option is given: `fs.s3a.attempts.maximum=3`, `fs.s3a.retry.limit=3` and
    /// `fs.s3a.retry.throttle.limit=3`. Both readers then give up on a store that keeps failing within
    /// seconds, not minutes; the native reader reads `attempts.maximum` as its retries.
    pub fn with_bounded_retries(mut self) -> Self {
        for name in ["attempts.maximum", "retry.limit", "retry.throttle.limit"] {
            if self.s3_value(name).is_none() {
                self.map.insert(format!("fs.s3a.{name}"), "3".to_string());
            }
        }
        self
    }

    /// The value of the S3 option `name` (after the prefix, `.`-separated: `endpoint`, `access.key`) in any
    /// spelling; when several spellings are set, the one with the longest prefix (`fs.s3a.` before `s3.`).
    fn s3_value(&self, name: &str) -> Option<&str> {
        self.map
            .iter()
            .filter(|(k, _)| s3_name(k).as_deref() == Some(name))
            .max_by_key(|(k, _)| k.len() - name.len())
            .map(|(_, v)| v.as_str())
    }

    /// The S3 settings of these options (see [`S3Settings`]); values that do not parse are errors naming
    /// the key.
    pub fn s3(&self) -> Result<S3Settings, String> {
        let text = |names: &[&str]| {
            names
                .iter()
                .find_map(|n| self.s3_value(n))
                .map(str::to_string)
        };
        let millis = |name: &str, default: u64| -> Result<Duration, String> {
            match self.s3_value(name) {
                None => Ok(Duration::from_millis(default)),
                Some(v) => v
                    .trim()
                    .parse::<u64>()
                    .map(Duration::from_millis)
                    .map_err(|_| {
                        format!("option fs.s3a.{name}: `{v}` is not a number of milliseconds")
                    }),
            }
        };
        let path_style = match self.s3_value("path.style.access") {
            None => false,
            Some(v) if v.eq_ignore_ascii_case("true") => true,
            Some(v) if v.eq_ignore_ascii_case("false") => false,
            Some(v) => {
                return Err(format!(
                    "option s3.path.style.access: `{v}` is neither true nor false"
                ))
            }
        };
        let max_retries = match self.s3_value("attempts.maximum") {
            None => 3,
            Some(v) => v
                .trim()
                .parse::<usize>()
                .map_err(|_| format!("option fs.s3a.attempts.maximum: `{v}` is not a count"))?,
        };
        Ok(S3Settings {
            endpoint: text(&["endpoint"]),
            region: text(&["region", "endpoint.region"]),
            access_key: text(&["access.key", "access.key.id"]),
            secret_key: text(&["secret.key", "secret.access.key"]),
            session_token: text(&["session.token"]),
            path_style,
            max_retries,
            request_timeout: millis("connection.timeout", 30_000)?,
            connect_timeout: millis("connection.establish.timeout", 5_000)?,
        })
    }
}

/// The S3 option a key names (`s3.access-key` → `access.key`), or `None` for a key of another family.
fn s3_name(key: &str) -> Option<String> {
    let lower = key.to_ascii_lowercase();
    S3_PREFIXES
        .iter()
        .find_map(|p| lower.strip_prefix(p))
        .map(|rest| rest.replace(['-', '_'], "."))
}

/// Whether the value of `key` is a secret (a secret key, session token, password, credential, access key
/// id): shown as [`REDACTED`] wherever options are printed.
pub fn is_secret(key: &str) -> bool {
    let k = key.to_ascii_lowercase().replace(['-', '_'], ".");
    ["secret", "token", "password", "credential", "access.key"]
        .iter()
        .any(|w| k.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(pairs: &[(&str, &str)]) -> FileIOOptions {
        FileIOOptions::from_map(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    #[test]
    fn every_spelling_of_the_s3_keys_is_read() {
        for (access, secret, style) in [
            ("s3.access-key", "s3.secret-key", "s3.path.style.access"),
            ("s3.access.key", "s3.secret.key", "s3.path-style-access"),
            (
                "fs.s3a.access.key",
                "fs.s3a.secret.key",
                "fs.s3a.path.style.access",
            ),
            ("s3a.access-key", "s3a.secret-key", "s3a.path.style.access"),
        ] {
            let s3 = options(&[
                (access, "AK"),
                (secret, "SK"),
                (style, "true"),
                ("s3.endpoint", "http://127.0.0.1:9000"),
            ])
            .s3()
            .unwrap();
            assert_eq!(s3.access_key.as_deref(), Some("AK"), "{access}");
            assert_eq!(s3.secret_key.as_deref(), Some("SK"), "{secret}");
            assert!(s3.path_style, "{style}");
            assert_eq!(s3.endpoint.as_deref(), Some("http://127.0.0.1:9000"));
        }
        let e = options(&[("s3.path.style.access", "yes")])
            .s3()
            .unwrap_err();
        assert!(
            e.contains("s3.path.style.access") && e.contains("`yes`"),
            "{e}"
        );
        let e = options(&[("fs.s3a.connection.timeout", "10s")])
            .s3()
            .unwrap_err();
        assert!(e.contains("fs.s3a.connection.timeout"), "{e}");
        let s3 = options(&[
            ("fs.s3a.connection.timeout", "1500"),
            ("fs.s3a.attempts.maximum", "0"),
        ])
        .s3()
        .unwrap();
        assert_eq!(
            (s3.request_timeout, s3.max_retries),
            (Duration::from_millis(1500), 0)
        );
    }

    #[test]
    fn the_aws_environment_fills_only_what_the_options_leave_unset() {
        let env = |v: &str| match v {
            "AWS_ACCESS_KEY_ID" => Some("env-ak".to_string()),
            "AWS_SECRET_ACCESS_KEY" => Some("env-sk".to_string()),
            "AWS_ENDPOINT_URL" => Some("http://127.0.0.1:8333".to_string()),
            "AWS_REGION" => Some("eu-west-1".to_string()),
            _ => None,
        };
        let o = options(&[("fs.s3a.access.key", "given")]).with_aws_environment(env);
        let s3 = o.s3().unwrap();
        assert_eq!(s3.access_key.as_deref(), Some("given"));
        assert_eq!(s3.secret_key.as_deref(), Some("env-sk"));
        assert_eq!(s3.region.as_deref(), Some("eu-west-1"));
        assert_eq!(o.get("s3.endpoint"), Some("http://127.0.0.1:8333"));
        assert_eq!(o.get("s3.access-key"), None);
        let o = o.with_path_style_for_addresses();
        assert_eq!(o.get("s3.path.style.access"), Some("true"));
        let named = options(&[("s3.endpoint", "https://s3.example.internal")])
            .with_path_style_for_addresses();
        assert_eq!(named.get("s3.path.style.access"), None);
        let chosen = options(&[
            ("s3.endpoint", "http://[::1]:9000"),
            ("s3.path-style-access", "false"),
        ])
        .with_path_style_for_addresses();
        assert!(!chosen.s3().unwrap().path_style);
        let v6 = options(&[("s3.endpoint", "http://[::1]:9000")]).with_path_style_for_addresses();
        assert!(v6.s3().unwrap().path_style);
    }

    #[test]
    fn secrets_never_show() {
        let o = options(&[
            ("s3.access-key", "AKIA123"),
            ("s3.secret-key", "very-secret"),
            ("fs.s3a.session.token", "tok"),
            ("s3.endpoint", "http://127.0.0.1:9000"),
        ]);
        let shown = format!("{o:?} {:?}", o.redacted());
        for secret in ["AKIA123", "very-secret", "tok\""] {
            assert!(!shown.contains(secret), "{shown}");
        }
        assert!(shown.contains("http://127.0.0.1:9000"), "{shown}");
        assert_eq!(o.redacted()["s3.secret-key"], REDACTED);
        assert!(!is_secret("s3.endpoint") && !is_secret("s3.region"));
    }
}
