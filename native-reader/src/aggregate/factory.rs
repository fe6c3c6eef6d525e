//! `FieldAggregatorFactory`: the aggregate function of a field from the table's options.

use crate::error::Result;
use crate::merge::function::{bool_opt, merge_err, option};
use crate::schema::{DataField, DataType, TypeKind};
use crate::table::Table;

/// What aggregate function a field has.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum AggFunc {
    PrimaryKey,
    LastValue,
    LastNonNullValue,
    FirstValue,
    FirstNonNullValue,
    Max,
    Min,
    Sum,
    Product,
    Listagg(String),
    BoolAnd,
    BoolOr,
    /// `collect` of an ARRAY of `element`s, `fields.<f>.distinct`.
    Collect {
        element: DataType,
        distinct: bool,
    },
    /// `merge_map` of a MAP with `key`s.
    MergeMap {
        key: DataType,
    },
    /// `nested_update` of an ARRAY of ROWs of `fields`, keyed by `fields.<f>.nested-key` (indexes).
    NestedUpdate {
        fields: Vec<DataField>,
        key: Vec<usize>,
    },
    Rbm32,
    Rbm64,
    /// `theta_sketch`: [`crate::sketch::theta_union`].
    ThetaSketch,
    /// `hll_sketch`: [`crate::sketch::hll_union`].
    HllSketch,
}

#[derive(Clone, Debug)]
pub(crate) struct AggSpec {
    pub(crate) func: AggFunc,
    pub(crate) name: String,
    pub(crate) ignore_retract: bool,
    pub(crate) kind: TypeKind,
}

/// `FieldAggregatorFactory.create`: the function of field `field` (`is_pk` forces `primary-key`).
pub(crate) fn agg_spec(table: &Table, field: &DataField, func: &str, is_pk: bool) -> Result<AggSpec> {
    let name = if is_pk { "primary-key" } else { func };
    let numeric = matches!(
        field.data_type.kind,
        TypeKind::TinyInt
            | TypeKind::SmallInt
            | TypeKind::Int
            | TypeKind::BigInt
            | TypeKind::Float
            | TypeKind::Double
            | TypeKind::Decimal { .. }
    );
    let check = |ok: bool, what: &str| -> Result<()> {
        if ok {
            Ok(())
        } else {
            Err(merge_err(
                table,
                format!(
                    "Data type for {what} column must be '{}' but was '{:?}' (column `{}`).",
                    match what {
                        "sum" | "product" => "NumericType",
                        "list agg" => "VarCharType",
                        _ => "BooleanType",
                    },
                    field.data_type.kind,
                    field.name
                ),
            ))
        }
    };
    let f = match name {
        "primary-key" => AggFunc::PrimaryKey,
        "last_value" => AggFunc::LastValue,
        "last_non_null_value" => AggFunc::LastNonNullValue,
        "first_value" => AggFunc::FirstValue,
        "first_non_null_value" | "first_not_null_value" => AggFunc::FirstNonNullValue,
        "max" => AggFunc::Max,
        "min" => AggFunc::Min,
        "sum" => {
            check(numeric, "sum")?;
            AggFunc::Sum
        }
        "product" => {
            check(numeric, "product")?;
            AggFunc::Product
        }
        "listagg" => {
            check(
                matches!(field.data_type.kind, TypeKind::VarChar(_)),
                "list agg",
            )?;
            let key = format!("fields.{}.list-agg-delimiter", field.name);
            AggFunc::Listagg(option(table, &key).unwrap_or(",").to_string())
        }
        "bool_and" => {
            check(
                matches!(field.data_type.kind, TypeKind::Boolean),
                "bool and",
            )?;
            AggFunc::BoolAnd
        }
        "bool_or" => {
            check(matches!(field.data_type.kind, TypeKind::Boolean), "bool or")?;
            AggFunc::BoolOr
        }
        "collect" => match &field.data_type.kind {
            TypeKind::Array(element) => AggFunc::Collect {
                element: (**element).clone(),
                distinct: bool_opt(table, &format!("fields.{}.distinct", field.name), false)?,
            },
            _ => {
                return Err(merge_err(
                    table,
                    format!(
                    "Data type for collect column must be 'Array' but was '{:?}' (column `{}`).",
                    field.data_type.kind, field.name
                ),
                ))
            }
        },
        "merge_map" => match &field.data_type.kind {
            TypeKind::Map(key, _) => AggFunc::MergeMap {
                key: (**key).clone(),
            },
            _ => {
                return Err(merge_err(
                    table,
                    format!(
                        "Data type for merge map column must be 'MAP' but was '{:?}' (column `{}`)",
                        field.data_type.kind, field.name
                    ),
                ))
            }
        },
        "nested_update" => {
            let fields = match &field.data_type.kind {
                TypeKind::Array(element) => match &element.kind {
                    TypeKind::Row(fields) => Some(fields.clone()),
                    _ => None,
                },
                _ => None,
            };
            let Some(fields) = fields else {
                return Err(merge_err(
                    table,
                    format!(
                        "Data type for nested table column must be 'Array<Row>' but was '{:?}' \
                         (column `{}`).",
                        field.data_type.kind, field.name
                    ),
                ));
            };
            let mut key = Vec::new();
            if let Some(names) = option(table, &format!("fields.{}.nested-key", field.name)) {
                for name in names.split(',') {
                    key.push(fields.iter().position(|f| f.name == name).ok_or_else(|| {
                        merge_err(
                            table,
                            format!(
                                "nested-key `{name}` of column `{}` is not a field of its rows",
                                field.name
                            ),
                        )
                    })?);
                }
            }
            AggFunc::NestedUpdate { fields, key }
        }
        "rbm32" | "rbm64" => {
            if !matches!(field.data_type.kind, TypeKind::VarBinary(_)) {
                return Err(merge_err(
                    table,
                    format!(
                        "Data type for roaring bitmap column must be 'VarBinaryType' but was \
                         '{:?}' (column `{}`).",
                        field.data_type.kind, field.name
                    ),
                ));
            }
            if name == "rbm32" {
                AggFunc::Rbm32
            } else {
                AggFunc::Rbm64
            }
        }
        "hll_sketch" | "theta_sketch" => {
            // FieldHllSketchAggFactory / FieldThetaSketchAggFactory.
            if !matches!(field.data_type.kind, TypeKind::VarBinary(_)) {
                let what = if name == "hll_sketch" { "hll" } else { "theta" };
                return Err(merge_err(
                    table,
                    format!(
                        "Data type for {what} sketch column must be 'VarBinaryType' but was \
                         '{:?}' (column `{}`).",
                        field.data_type.kind, field.name
                    ),
                ));
            }
            if name == "hll_sketch" {
                AggFunc::HllSketch
            } else {
                AggFunc::ThetaSketch
            }
        }
        other => {
            return Err(merge_err(
                table,
                format!(
                    "Use unsupported aggregation: {other} or spell aggregate function incorrectly! \
                     (column `{}`)",
                    field.name
                ),
            ))
        }
    };
    let ignore_retract = bool_opt(
        table,
        &format!("fields.{}.ignore-retract", field.name),
        false,
    )?;
    Ok(AggSpec {
        func: f,
        name: name.to_string(),
        ignore_retract,
        kind: field.data_type.kind.clone(),
    })
}

