//! Java's float order, digit counts, and datums through arrays.

use std::cmp::Ordering;

use crate::aggregate::numeric::number_digits;
use crate::merge::output::{datum_at, datums_to_array};
use crate::value::compare::{compare_codegen, java_float_compare};

use super::*;

#[test]
fn java_float_order() {
    assert_eq!(java_float_compare(f64::NAN, 1.0), Ordering::Greater);
    assert_eq!(java_float_compare(-0.0, 0.0), Ordering::Less);
    assert_eq!(java_float_compare(f64::NAN, f64::NAN), Ordering::Equal);
    assert_eq!(
        compare_codegen(&Datum::Double(-0.0), &Datum::Double(0.0)),
        Ordering::Equal
    );
}

#[test]
fn digits() {
    assert_eq!(number_digits(0), 1);
    assert_eq!(number_digits(999), 3);
    assert_eq!(number_digits(-1000), 4);
}

#[test]
fn scalars_round_trip_through_arrays() {
    let decimal = |unscaled| Datum::Decimal {
        unscaled,
        precision: 5,
        scale: 2,
    };
    let a = datums_to_array(
        &ArrowType::Decimal128(5, 2),
        vec![Some(decimal(12345)), None],
    )
    .unwrap();
    assert_eq!(datum_at(a.as_ref(), 0).unwrap(), Some(decimal(12345)));
    assert_eq!(datum_at(a.as_ref(), 1).unwrap(), None);
    assert!(datums_to_array(&ArrowType::Int32, vec![Some(Datum::String("x".into()))]).is_err());
}
