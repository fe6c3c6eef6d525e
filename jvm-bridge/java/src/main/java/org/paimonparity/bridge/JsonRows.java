package org.paimonparity.bridge;

import org.apache.paimon.types.RowKind;

import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.RowType;

import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;

import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The rows of a corpus scenario, as JSON, turned into Paimon's internal values for the released
 * writer ({@link CorpusWriter}): one JSON array per row, one value per column, typed by the column's
 * {@code DataType}. Types of later lines come from the line's {@code Compat}.
 */
final class JsonRows {

    private JsonRows() {}

    /**
     * The values of one row: {@code values} (a JSON array) converted column by column ({@link
     * #toInternal}). Throws {@code IllegalArgumentException} when the counts differ.
     */
    static Object[] toRow(List<DataField> fields, JsonNode values) {
        if (values.size() != fields.size()) {
            throw new IllegalArgumentException(
                    "expected " + fields.size() + " values, got " + values.size() + ": " + values);
        }
        Object[] out = new Object[fields.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = toInternal(fields.get(i), values.get(i));
        }
        return out;
    }

    /**
     * JSON value to Paimon's internal value: BOOLEAN; TINYINT..BIGINT (JSON integers); FLOAT,
     * DOUBLE (numbers, or "NaN"/"Infinity"/"-Infinity" strings); DECIMAL (string or number);
     * CHAR/VARCHAR/STRING (string); BINARY/VARBINARY/BYTES (base64 string); DATE (int days since
     * epoch); TIME (int millis of day); TIMESTAMP (string {@code yyyy-MM-ddTHH:mm:ss[.f..]});
     * TIMESTAMP WITH LOCAL TIME ZONE (the same string, read as UTC); in 2.0, VARIANT (any JSON value,
     * {@code GenericVariant.fromJson}) and VECTOR (a JSON array of its elements). JSON null is SQL
     * NULL.
     */
    static Object toInternal(DataField field, JsonNode v) {
        if (v == null || v.isNull()) {
            return null;
        }
        DataType type = field.type();
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                if (!v.isBoolean()) {
                    throw mismatch(field, v, "a boolean");
                }
                return v.booleanValue();
            case TINYINT:
                return (byte) integral(field, v, Byte.MIN_VALUE, Byte.MAX_VALUE);
            case SMALLINT:
                return (short) integral(field, v, Short.MIN_VALUE, Short.MAX_VALUE);
            case INTEGER:
            case DATE:
            case TIME_WITHOUT_TIME_ZONE:
                return (int) integral(field, v, Integer.MIN_VALUE, Integer.MAX_VALUE);
            case BIGINT:
                return integral(field, v, Long.MIN_VALUE, Long.MAX_VALUE);
            case FLOAT:
                return (float) floating(field, v);
            case DOUBLE:
                return floating(field, v);
            case DECIMAL:
                {
                    if (!v.isTextual() && !v.isNumber()) {
                        throw mismatch(field, v, "a decimal string");
                    }
                    DecimalType d = (DecimalType) type;
                    Decimal dec;
                    try {
                        dec =
                                Decimal.fromBigDecimal(
                                        new BigDecimal(v.asText()), d.getPrecision(), d.getScale());
                    } catch (NumberFormatException e) {
                        throw mismatch(field, v, "a decimal string");
                    }
                    if (dec == null) {
                        throw new IllegalArgumentException(
                                "column '" + field.name() + "' (" + type + "): " + v
                                        + " does not fit the precision");
                    }
                    return dec;
                }
            case CHAR:
            case VARCHAR:
                if (!v.isTextual()) {
                    throw mismatch(field, v, "a string");
                }
                return BinaryString.fromString(v.asText());
            case BINARY:
            case VARBINARY:
                if (!v.isTextual()) {
                    throw mismatch(field, v, "a base64 string");
                }
                try {
                    return Base64.getDecoder().decode(v.asText());
                } catch (IllegalArgumentException e) {
                    throw mismatch(field, v, "a base64 string");
                }
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                if (!v.isTextual()) {
                    throw mismatch(field, v, "a timestamp string yyyy-MM-ddTHH:mm:ss[.fffffffff]");
                }
                try {
                    return Timestamp.fromLocalDateTime(LocalDateTime.parse(v.asText()));
                } catch (java.time.format.DateTimeParseException e) {
                    throw mismatch(field, v, "a timestamp string yyyy-MM-ddTHH:mm:ss[.fffffffff]");
                }
            case ARRAY:
                {
                    // A JSON array of elements.
                    if (!v.isArray()) {
                        throw mismatch(field, v, "a JSON array");
                    }
                    return toArray(
                            field, ((org.apache.paimon.types.ArrayType) type).getElementType(), v);
                }
            case MAP:
            case MULTISET:
                {
                    // A JSON array of [key, value] pairs (MULTISET: [element, count]), kept in order.
                    if (!v.isArray()) {
                        throw mismatch(field, v, "a JSON array of [key, value] pairs");
                    }
                    DataType keyType;
                    DataType valueType;
                    if (type instanceof org.apache.paimon.types.MapType) {
                        keyType = ((org.apache.paimon.types.MapType) type).getKeyType();
                        valueType = ((org.apache.paimon.types.MapType) type).getValueType();
                    } else {
                        keyType = ((org.apache.paimon.types.MultisetType) type).getElementType();
                        valueType = new org.apache.paimon.types.IntType(false);
                    }
                    DataField key = new DataField(field.id(), field.name() + ".key", keyType);
                    DataField value = new DataField(field.id(), field.name() + ".value", valueType);
                    Map<Object, Object> out = new LinkedHashMap<>();
                    for (JsonNode pair : v) {
                        if (!pair.isArray() || pair.size() != 2) {
                            throw mismatch(field, v, "a JSON array of [key, value] pairs");
                        }
                        out.put(toInternal(key, pair.get(0)), toInternal(value, pair.get(1)));
                    }
                    return new org.apache.paimon.data.GenericMap(out);
                }
            case ROW:
                {
                    // A JSON array of the nested fields' values, in field order.
                    if (!v.isArray()) {
                        throw mismatch(field, v, "a JSON array of field values");
                    }
                    return GenericRow.of(toRow(((RowType) type).getFields(), v));
                }
            default:
                {
                    // Types of later lines (1.4+: VARIANT, VECTOR), by the line's Compat.
                    Object value = Compat.toInternalOfLineType(field, v);
                    if (value != null) {
                        return value;
                    }
                    throw new UnsupportedOperationException(
                            "column '" + field.name() + "': type " + type
                                    + " is not supported in JSON rows");
                }
        }
    }

    /**
     * The elements of the JSON array {@code v} of column {@code field} as a {@code GenericArray} of
     * {@code elementType} values (ARRAY, and VECTOR before {@code BinaryVector.fromInternalArray}).
     */
    static org.apache.paimon.data.GenericArray toArray(
            DataField field, DataType elementType, JsonNode v) {
        DataField element = new DataField(field.id(), field.name() + "[]", elementType);
        Object[] out = new Object[v.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = toInternal(element, v.get(i));
        }
        return new org.apache.paimon.data.GenericArray(out);
    }

    private static long integral(DataField field, JsonNode v, long min, long max) {
        if (!v.isIntegralNumber() || !v.canConvertToLong()) {
            throw mismatch(field, v, "an integer");
        }
        long x = v.longValue();
        if (x < min || x > max) {
            throw mismatch(field, v, "an integer in [" + min + ", " + max + "]");
        }
        return x;
    }

    private static double floating(DataField field, JsonNode v) {
        if (v.isNumber()) {
            return v.doubleValue();
        }
        if (v.isTextual()) {
            switch (v.asText()) {
                case "NaN":
                    return Double.NaN;
                case "Infinity":
                    return Double.POSITIVE_INFINITY;
                case "-Infinity":
                    return Double.NEGATIVE_INFINITY;
                default:
                    break;
            }
        }
        throw mismatch(field, v, "a number");
    }

    private static IllegalArgumentException mismatch(DataField field, JsonNode v, String expected) {
        return new IllegalArgumentException(
                "column '" + field.name() + "' (" + field.type() + "): expected " + expected
                        + ", got " + v);
    }


    /**
     * One row of the corpus writer's rows JSON, {@code {"kind":"+I","values":[..]}}: a {@code
     * GenericRow} of that RowKind with the values converted by {@code fields} ({@link #toRow}).
     */
    static GenericRow rowOf(List<DataField> fields, JsonNode r) {
        JsonNode kind = r.get("kind");
        JsonNode values = r.get("values");
        if (kind == null || !kind.isTextual() || values == null || !values.isArray()) {
            throw new IllegalArgumentException(
                    "every row needs a \"kind\" string and a \"values\" array: " + r);
        }
        return GenericRow.ofKind(RowKind.fromShortString(kind.asText()), toRow(fields, values));
    }
}
