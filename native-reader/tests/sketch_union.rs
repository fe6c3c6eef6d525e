//! `theta_sketch` and `hll_sketch` unions against the released Paimon 1.0.0: every case of
//! `tests/sketches/unions.txt` (written by `tests/sketches/GenerateUnions.java` with the released
//! `ThetaSketch.union` and `HllSketchUtil.union`) must come out byte for byte.

use native_reader::sketch::{hll_union, theta_union};

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn unions_are_byte_identical_to_the_released_writer() {
    let text = include_str!("sketches/unions.txt");
    let mut failures = Vec::new();
    let mut cases = 0;
    for line in text.lines().filter(|l| !l.is_empty()) {
        let f: Vec<&str> = line.split(' ').collect();
        let (kind, name, acc, input, want) = (f[0], f[1], unhex(f[2]), unhex(f[3]), unhex(f[4]));
        let got = match kind {
            "theta" => theta_union(&acc, &input),
            "hll" => hll_union(&acc, &input),
            other => panic!("unknown kind {other}"),
        };
        cases += 1;
        match got {
            Ok(got) if got == want => {}
            Ok(got) => {
                let at = got.iter().zip(&want).position(|(a, b)| a != b);
                failures.push(format!(
                    "{kind} {name}: {} bytes vs {} expected, first difference at byte {at:?}",
                    got.len(),
                    want.len()
                ));
            }
            Err(e) => failures.push(format!("{kind} {name}: error {e}")),
        }
    }
    assert!(cases >= 80, "{cases} cases");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn malformed_images_are_errors() {
    assert!(theta_union(b"not a sketch", b"").is_err());
    assert!(hll_union(&[2, 1, 7, 12, 3, 8, 9, 0], &[]).is_err());
    // A compact SET image announcing more coupons than it holds.
    let mut set = vec![3u8, 1, 7, 12, 5, 8, 0, 1];
    set.extend_from_slice(&100u32.to_le_bytes());
    set.extend_from_slice(&7u32.to_le_bytes());
    let e = hll_union(&set, &set).unwrap_err();
    assert!(e.contains("announces 100 coupons"), "{e}");
}

/// The batch read of `corpora/c13-sketch-aggregation` (4 level-0 files merged per key) returns the
/// sketches the released reader returned when the corpus was written (`case.json`,
/// `expected.batch_latest.values`: `+I (k, <theta hex>, <hll hex>)`).
#[test]
fn merged_sketches_of_the_c13_corpus_match_the_released_reader() {
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int32Type;
    use arrow_array::{Array, BinaryViewArray};
    use std::path::Path;
    use std::sync::Arc;

    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpora/c13-sketch-aggregation");
    let case: serde_json::Value =
        serde_json::from_slice(&std::fs::read(corpus.join("case.json")).unwrap()).unwrap();
    let expected: Vec<String> = case["expected"]["batch_latest"]["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    assert_eq!(expected.len(), 4);

    let table = Arc::new(native_reader::Table::open(&corpus.join("table")).unwrap());
    let splits = table.plan_batch(None).unwrap();
    let hex = |a: &BinaryViewArray, i: usize| -> String {
        if a.is_null(i) {
            "null".into()
        } else {
            a.value(i).iter().map(|b| format!("{b:02x}")).collect()
        }
    };
    let mut got = Vec::new();
    for split in &splits {
        for batch in native_reader::merge::read_split(&table, split, 1024).unwrap() {
            let batch = batch.unwrap();
            let k = batch.column(1).as_primitive::<Int32Type>();
            let th = batch.column(2).as_binary_view();
            let hl = batch.column(3).as_binary_view();
            for r in 0..batch.num_rows() {
                got.push(format!(
                    "+I ({}, {}, {})",
                    k.value(r),
                    hex(th, r),
                    hex(hl, r)
                ));
            }
        }
    }
    got.sort();
    let mut want = expected;
    want.sort();
    assert_eq!(got, want);
}
