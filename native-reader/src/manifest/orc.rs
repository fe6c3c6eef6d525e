//! ORC manifests (`manifest.format=orc`): the same records as ORC struct columns, decoded with `orc-rust`.

use apache_avro::types::Value;

use super::Malformed;

/// Decodes an ORC manifest (list, manifest or index manifest written with `manifest.format=orc`) into
/// one record value per row, fields by name, so that the Avro field readers apply unchanged.
/// Manifests are small metadata files: the whole file is decoded at once.
pub(super) fn orc_records(bytes: Vec<u8>) -> Result<Vec<Value>, Malformed> {
    let tail = &bytes[bytes
        .len()
        .saturating_sub(crate::decode::orc_tail::TAIL_LEN as usize)..];
    crate::decode::orc_tail::check_tail(tail, bytes.len() as u64)
        .map_err(|e| Malformed::Invalid(e.to_string()))?;
    let bytes = crate::decode::orc_tail::Bounded(bytes::Bytes::from(bytes));
    let reader = orc_rust::ArrowReaderBuilder::try_new(bytes)
        .map_err(|e| Malformed::library("", e))?
        .build();
    let mut out = Vec::new();
    for batch in reader {
        let batch = batch.map_err(|e| Malformed::library("", e))?;
        let columns: Vec<(String, &dyn arrow_array::Array)> = batch
            .schema()
            .fields()
            .iter()
            .zip(batch.columns())
            .map(|(f, c)| (f.name().clone(), c.as_ref()))
            .collect();
        for row in 0..batch.num_rows() {
            let fields = columns
                .iter()
                .map(|(name, c)| Ok((name.clone(), arrow_value(*c, row)?)))
                .collect::<Result<Vec<_>, Malformed>>()?;
            out.push(Value::Record(fields));
        }
    }
    Ok(out)
}

/// The value at `row` of an Arrow array as an Avro value (the types manifests use).
fn arrow_value(array: &dyn arrow_array::Array, row: usize) -> Result<Value, Malformed> {
    use arrow_array::cast::AsArray;
    use arrow_array::types::*;
    use arrow_schema::{DataType as A, TimeUnit};
    if array.is_null(row) {
        return Ok(Value::Null);
    }
    Ok(match array.data_type() {
        A::Boolean => Value::Boolean(array.as_boolean().value(row)),
        A::Int8 => Value::Int(array.as_primitive::<Int8Type>().value(row).into()),
        A::Int16 => Value::Int(array.as_primitive::<Int16Type>().value(row).into()),
        A::Int32 => Value::Int(array.as_primitive::<Int32Type>().value(row)),
        A::Int64 => Value::Long(array.as_primitive::<Int64Type>().value(row)),
        A::Float32 => Value::Float(array.as_primitive::<Float32Type>().value(row)),
        A::Float64 => Value::Double(array.as_primitive::<Float64Type>().value(row)),
        A::Utf8 => Value::String(array.as_string::<i32>().value(row).to_string()),
        A::Binary => Value::Bytes(array.as_binary::<i32>().value(row).to_vec()),
        A::Timestamp(unit, _) => {
            let millis = match unit {
                TimeUnit::Second => array.as_primitive::<TimestampSecondType>().value(row) * 1000,
                TimeUnit::Millisecond => {
                    array.as_primitive::<TimestampMillisecondType>().value(row)
                }
                TimeUnit::Microsecond => array
                    .as_primitive::<TimestampMicrosecondType>()
                    .value(row)
                    .div_euclid(1000),
                TimeUnit::Nanosecond => array
                    .as_primitive::<TimestampNanosecondType>()
                    .value(row)
                    .div_euclid(1_000_000),
            };
            Value::TimestampMillis(millis)
        }
        A::Struct(fields) => {
            let s = array.as_struct();
            Value::Record(
                fields
                    .iter()
                    .zip(s.columns())
                    .map(|(f, c)| Ok((f.name().clone(), arrow_value(c.as_ref(), row)?)))
                    .collect::<Result<_, Malformed>>()?,
            )
        }
        A::List(_) => {
            let values = array.as_list::<i32>().value(row);
            Value::Array(
                (0..values.len())
                    .map(|i| arrow_value(values.as_ref(), i))
                    .collect::<Result<_, Malformed>>()?,
            )
        }
        other => return Err(format!("unexpected column type {other}").into()),
    })
}
