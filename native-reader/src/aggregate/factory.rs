//! `FieldAggregatorFactory`: the aggregate function of a field from the table's options, one constructor
//! per function name ([`FUNCTIONS`]).

use crate::error::Result;
use crate::merge::function::{bool_opt, merge_err, option};
use crate::schema::{DataField, TypeKind};
use crate::table::Table;

use super::bitmap::{Rbm32Agg, Rbm64Agg};
use super::boolean::BoolAgg;
use super::collect::CollectAgg;
use super::last_value::{FirstNonNullValue, FirstValue, LastNonNullValue, LastValue, PrimaryKey};
use super::listagg::Listagg;
use super::merge_map::MergeMapAgg;
use super::nested_update::NestedUpdateAgg;
use super::numeric::{MaxMin, Product, Sum};
use super::sketch::SketchAgg;
use super::{AggField, FieldAggregator, IgnoreRetract};
use crate::line::PaimonRelease;

/// What a constructor gets: the table (for the field's options), the field and its [`AggField`].
pub(crate) struct FactoryInput<'a> {
    table: &'a Table,
    data_field: &'a DataField,
    field: AggField,
}

type Constructor = fn(FactoryInput<'_>) -> Result<Box<dyn FieldAggregator>>;

/// Every aggregate function of Paimon 1.0 by its `fields.<f>.aggregate-function` name (1.0 has no
/// `count`); `primary-key` is the function of primary-key columns.
const FUNCTIONS: &[(&str, Constructor)] = &[
    ("primary-key", |i| Ok(Box::new(PrimaryKey(i.field)))),
    ("last_value", |i| Ok(Box::new(LastValue(i.field)))),
    ("last_non_null_value", |i| {
        Ok(Box::new(LastNonNullValue(i.field)))
    }),
    ("first_value", |i| {
        Ok(Box::new(FirstValue {
            field: i.field,
            initialized: false,
        }))
    }),
    ("first_non_null_value", first_non_null_value),
    ("first_not_null_value", first_non_null_value),
    ("max", |i| {
        Ok(Box::new(MaxMin {
            field: i.field,
            max: true,
        }))
    }),
    ("min", |i| {
        Ok(Box::new(MaxMin {
            field: i.field,
            max: false,
        }))
    }),
    ("sum", |i| {
        type_check(&i, numeric(&i), "sum")?;
        Ok(Box::new(Sum(i.field)))
    }),
    ("product", |i| {
        type_check(&i, numeric(&i), "product")?;
        Ok(Box::new(Product(i.field)))
    }),
    ("listagg", listagg),
    ("bool_and", |i| {
        type_check(
            &i,
            matches!(i.data_field.data_type.kind, TypeKind::Boolean),
            "bool and",
        )?;
        Ok(Box::new(BoolAgg {
            field: i.field,
            and: true,
        }))
    }),
    ("bool_or", |i| {
        type_check(
            &i,
            matches!(i.data_field.data_type.kind, TypeKind::Boolean),
            "bool or",
        )?;
        Ok(Box::new(BoolAgg {
            field: i.field,
            and: false,
        }))
    }),
    ("collect", collect),
    ("merge_map", merge_map),
    ("nested_update", nested_update),
    ("rbm32", |i| {
        roaring_check(&i)?;
        Ok(Box::new(Rbm32Agg(i.field)))
    }),
    ("rbm64", |i| {
        roaring_check(&i)?;
        Ok(Box::new(Rbm64Agg(i.field)))
    }),
    ("hll_sketch", |i| sketch(i, false)),
    ("theta_sketch", |i| sketch(i, true)),
];

/// The function `fields.<f>.aggregate-function` or else `fields.default-aggregate-function` names for
/// `field`, if any.
pub(crate) fn field_function<'a>(table: &'a Table, field: &DataField) -> Option<&'a str> {
    option(table, &format!("fields.{}.aggregate-function", field.name))
        .or(option(table, "fields.default-aggregate-function"))
}

/// `FieldAggregatorFactory.create`: the aggregator of field `field` (column `col`) for function `func`
/// (`is_pk` forces `primary-key`), wrapped in [`IgnoreRetract`] with `fields.<f>.ignore-retract`.
/// Errors: [`crate::Error::Merge`] with Java's message for an unknown function, a field type the function
/// does not take, an invalid option.
pub(crate) fn create(
    table: &Table,
    field: &DataField,
    col: usize,
    func: &str,
    is_pk: bool,
) -> Result<Box<dyn FieldAggregator>> {
    let name = if is_pk { "primary-key" } else { func };
    let Some((_, constructor)) = FUNCTIONS.iter().find(|(n, _)| *n == name) else {
        return Err(merge_err(
            table,
            format!(
                "Use unsupported aggregation: {name} or spell aggregate function incorrectly! \
                 (column `{}`)",
                field.name
            ),
        ));
    };
    let aggregator = constructor(FactoryInput {
        table,
        data_field: field,
        field: AggField {
            function: name.to_string(),
            col,
            kind: field.data_type.kind.clone(),
        },
    })?;
    let ignore_retract = bool_opt(
        table,
        &format!("fields.{}.ignore-retract", field.name),
        false,
    )?;
    Ok(if ignore_retract {
        Box::new(IgnoreRetract(aggregator))
    } else {
        aggregator
    })
}

fn numeric(i: &FactoryInput<'_>) -> bool {
    matches!(
        i.data_field.data_type.kind,
        TypeKind::TinyInt
            | TypeKind::SmallInt
            | TypeKind::Int
            | TypeKind::BigInt
            | TypeKind::Float
            | TypeKind::Double
            | TypeKind::Decimal { .. }
    )
}

/// The factories' type check (`sum`, `product`, `list agg`, `bool and`, `bool or`).
fn type_check(i: &FactoryInput<'_>, ok: bool, what: &str) -> Result<()> {
    if ok {
        return Ok(());
    }
    Err(merge_err(
        i.table,
        format!(
            "Data type for {what} column must be '{}' but was '{:?}' (column `{}`).",
            match what {
                "sum" | "product" => "NumericType",
                "list agg" => "VarCharType",
                _ => "BooleanType",
            },
            i.data_field.data_type.kind,
            i.data_field.name
        ),
    ))
}

fn first_non_null_value(i: FactoryInput<'_>) -> Result<Box<dyn FieldAggregator>> {
    Ok(Box::new(FirstNonNullValue {
        field: i.field,
        initialized: false,
    }))
}

fn listagg(i: FactoryInput<'_>) -> Result<Box<dyn FieldAggregator>> {
    type_check(
        &i,
        matches!(i.data_field.data_type.kind, TypeKind::VarChar(_)),
        "list agg",
    )?;
    let key = format!("fields.{}.list-agg-delimiter", i.data_field.name);
    let delimiter = option(i.table, &key).unwrap_or(",").to_string();
    Ok(Box::new(Listagg {
        field: i.field,
        delimiter,
    }))
}

fn collect(i: FactoryInput<'_>) -> Result<Box<dyn FieldAggregator>> {
    let f = i.data_field;
    match &f.data_type.kind {
        TypeKind::Array(element) => Ok(Box::new(CollectAgg {
            element: (**element).clone(),
            distinct: bool_opt(i.table, &format!("fields.{}.distinct", f.name), false)?,
            field: i.field,
        })),
        _ => Err(merge_err(
            i.table,
            format!(
                "Data type for collect column must be 'Array' but was '{:?}' (column `{}`).",
                f.data_type.kind, f.name
            ),
        )),
    }
}

fn merge_map(i: FactoryInput<'_>) -> Result<Box<dyn FieldAggregator>> {
    let f = i.data_field;
    match &f.data_type.kind {
        TypeKind::Map(key, _) => Ok(Box::new(MergeMapAgg {
            key: (**key).clone(),
            field: i.field,
        })),
        _ => Err(merge_err(
            i.table,
            format!(
                "Data type for merge map column must be 'MAP' but was '{:?}' (column `{}`)",
                f.data_type.kind, f.name
            ),
        )),
    }
}

fn nested_update(i: FactoryInput<'_>) -> Result<Box<dyn FieldAggregator>> {
    let f = i.data_field;
    let fields = match &f.data_type.kind {
        TypeKind::Array(element) => match &element.kind {
            TypeKind::Row(fields) => Some(fields.clone()),
            _ => None,
        },
        _ => None,
    };
    let Some(fields) = fields else {
        return Err(merge_err(
            i.table,
            format!(
                "Data type for nested table column must be 'Array<Row>' but was '{:?}' \
                 (column `{}`).",
                f.data_type.kind, f.name
            ),
        ));
    };
    let mut key = Vec::new();
    if let Some(names) = option(i.table, &format!("fields.{}.nested-key", f.name)) {
        for name in names.split(',') {
            key.push(fields.iter().position(|x| x.name == name).ok_or_else(|| {
                merge_err(
                    i.table,
                    format!(
                        "nested-key `{name}` of column `{}` is not a field of its rows",
                        f.name
                    ),
                )
            })?);
        }
    }
    let rules = i.table.release().rules();
    // Options of FieldNestedUpdateAgg this reader does not merge by, from the release that brought them
    // (`count-limit` 1.3.0, apache/paimon#6309; the others 2.0.0): refused, naming them, unless at their
    // default. A release before them ignores them, and so does this reader.
    let release = i.table.release();
    for (suffix, default, first) in [
        ("nested-sequence-field", None, PaimonRelease::V2_0_0),
        ("count-limit", None, PaimonRelease::V1_3_1),
        (
            "nested-key-null-strategy",
            Some("merge"),
            PaimonRelease::V2_0_0,
        ),
    ] {
        if release < first {
            continue;
        }
        let key = format!("fields.{}.{suffix}", f.name);
        if let Some(v) = option(i.table, &key) {
            if Some(v.trim().to_ascii_lowercase().as_str()) != default {
                return Err(crate::Error::Unsupported {
                    path: i.table.path().join("schema"),
                    reason: format!(
                        "{key}={v} (nested_update of column `{}`, read as Paimon {release})",
                        f.name
                    ),
                });
            }
        }
    }
    Ok(Box::new(NestedUpdateAgg {
        field: i.field,
        fields,
        key,
        null_accumulator: rules.nested_update_null_accumulator,
    }))
}

fn roaring_check(i: &FactoryInput<'_>) -> Result<()> {
    if matches!(i.data_field.data_type.kind, TypeKind::VarBinary(_)) {
        return Ok(());
    }
    Err(merge_err(
        i.table,
        format!(
            "Data type for roaring bitmap column must be 'VarBinaryType' but was \
             '{:?}' (column `{}`).",
            i.data_field.data_type.kind, i.data_field.name
        ),
    ))
}

/// `FieldHllSketchAggFactory` / `FieldThetaSketchAggFactory`.
fn sketch(i: FactoryInput<'_>, theta: bool) -> Result<Box<dyn FieldAggregator>> {
    if !matches!(i.data_field.data_type.kind, TypeKind::VarBinary(_)) {
        let what = if theta { "theta" } else { "hll" };
        return Err(merge_err(
            i.table,
            format!(
                "Data type for {what} sketch column must be 'VarBinaryType' but was \
                 '{:?}' (column `{}`).",
                i.data_field.data_type.kind, i.data_field.name
            ),
        ));
    }
    Ok(Box::new(SketchAgg {
        field: i.field,
        theta,
    }))
}
