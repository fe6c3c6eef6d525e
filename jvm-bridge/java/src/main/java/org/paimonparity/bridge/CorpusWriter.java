package org.paimonparity.bridge;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaManager;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeJsonParser;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.JsonSerdeUtil;

import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;

import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes test tables with the released Paimon writer (jvm-bridge's {@code corpus} module).
 *
 * <p>Tables are created without a catalog ({@code SchemaManager.createTable}) and written with
 * {@code StreamWriteBuilder} / {@code StreamTableWrite} / {@code StreamTableCommit}.
 */
public final class CorpusWriter {

    private static final AtomicLong NEXT_HANDLE = new AtomicLong(1);
    private static final Map<Long, Writer> WRITERS = new ConcurrentHashMap<>();

    private CorpusWriter() {}

    /**
     * Creates a table from {@code {"fields":[{"name":..,"type":..}],"partitionKeys":[..],
     * "primaryKeys":[..],"options":{..}}}. A type is a Paimon SQL type string ("INT NOT NULL",
     * "DECIMAL(10, 2)") or Paimon's JSON form of a type (for ARRAY, MAP, ROW).
     */
    public static void createTable(String tableDir, String schemaJson) throws Exception {
        JsonNode root = JsonSerdeUtil.fromJson(schemaJson, JsonNode.class);
        JsonNode fields = root == null ? null : root.get("fields");
        if (fields == null || !fields.isArray() || fields.size() == 0) {
            throw new IllegalArgumentException("schema JSON needs a non-empty \"fields\" array");
        }
        Schema.Builder builder = Schema.newBuilder();
        for (JsonNode f : fields) {
            JsonNode name = f.get("name");
            JsonNode type = f.get("type");
            if (name == null || !name.isTextual() || type == null) {
                throw new IllegalArgumentException(
                        "every field needs a \"name\" string and a \"type\": " + f);
            }
            builder.column(name.asText(), DataTypeJsonParser.parseDataType(type));
        }
        builder.partitionKeys(stringList(root, "partitionKeys"));
        builder.primaryKey(stringList(root, "primaryKeys"));
        JsonNode options = root.get("options");
        if (options != null && !options.isNull()) {
            if (!options.isObject()) {
                throw new IllegalArgumentException("\"options\" must be an object");
            }
            Map<String, String> map = new LinkedHashMap<>();
            Iterator<Map.Entry<String, JsonNode>> it = options.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                map.put(e.getKey(), e.getValue().asText());
            }
            builder.options(map);
        }
        new SchemaManager(LocalFileIO.create(), new Path(tableDir)).createTable(builder.build());
    }

    private static List<String> stringList(JsonNode root, String key) {
        List<String> out = new ArrayList<>();
        JsonNode node = root.get(key);
        if (node == null || node.isNull()) {
            return out;
        }
        if (!node.isArray()) {
            throw new IllegalArgumentException("\"" + key + "\" must be an array of strings");
        }
        for (JsonNode n : node) {
            if (!n.isTextual()) {
                throw new IllegalArgumentException("\"" + key + "\" must be an array of strings");
            }
            out.add(n.asText());
        }
        return out;
    }

    /**
     * Opens {@code newStreamWriteBuilder().withCommitUser(commitUser)}: its {@code newWrite()}
     * (with {@code IOManager.create(ioTmpDir)}) and {@code newCommit()}. Returns a handle.
     */
    public static long openWriter(String tableDir, String commitUser, String ioTmpDir) {
        FileStoreTable table = FileStoreTableFactory.create(LocalFileIO.create(), new Path(tableDir));
        StreamWriteBuilder builder = table.newStreamWriteBuilder().withCommitUser(commitUser);
        IOManager io = IOManager.create(ioTmpDir);
        StreamTableWrite write = null;
        try {
            write = builder.newWrite();
            write.withIOManager(io);
            StreamTableCommit commit = builder.newCommit();
            long handle = NEXT_HANDLE.getAndIncrement();
            WRITERS.put(handle, new Writer(table, write, commit, io));
            return handle;
        } catch (RuntimeException | Error e) {
            closeQuietly(write, e);
            closeQuietly(io, e);
            throw e;
        }
    }

    /**
     * Writes {@code [{"kind":"+I","values":[..]}, ..]}; values are in column order and converted
     * by column type (see {@link #toInternal}).
     */
    public static void write(long handle, String rowsJson) throws Exception {
        Writer w = writer(handle);
        synchronized (w) {
            JsonNode rows = JsonSerdeUtil.fromJson(rowsJson, JsonNode.class);
            if (rows == null || !rows.isArray()) {
                throw new IllegalArgumentException("rows JSON must be an array");
            }
            List<DataField> fields = w.table.rowType().getFields();
            for (JsonNode r : rows) {
                JsonNode kind = r.get("kind");
                JsonNode values = r.get("values");
                if (kind == null || !kind.isTextual() || values == null || !values.isArray()) {
                    throw new IllegalArgumentException(
                            "every row needs a \"kind\" string and a \"values\" array: " + r);
                }
                w.write.write(
                        GenericRow.ofKind(
                                RowKind.fromShortString(kind.asText()), toRow(fields, values)));
            }
        }
    }

    /**
     * {@code write.compact(partition, bucket, full)}; the partition is the JSON array of values for
     * the partition keys (empty for an unpartitioned table).
     */
    public static void compact(long handle, String partitionValuesJson, int bucket, boolean full)
            throws Exception {
        Writer w = writer(handle);
        synchronized (w) {
            JsonNode values = JsonSerdeUtil.fromJson(partitionValuesJson, JsonNode.class);
            if (values == null || !values.isArray()) {
                throw new IllegalArgumentException("partition JSON must be an array");
            }
            RowType partitionType = w.table.schema().logicalPartitionType();
            BinaryRow partition;
            if (partitionType.getFieldCount() == 0 && values.size() == 0) {
                partition = BinaryRow.EMPTY_ROW;
            } else {
                Object[] row = toRow(partitionType.getFields(), values);
                partition =
                        new InternalRowSerializer(partitionType)
                                .toBinaryRow(GenericRow.of(row))
                                .copy();
            }
            w.write.compact(partition, bucket, full);
        }
    }

    /** {@code commit.commit(identifier, write.prepareCommit(waitCompaction, identifier))}. */
    public static void commit(long handle, long identifier, boolean waitCompaction)
            throws Exception {
        Writer w = writer(handle);
        synchronized (w) {
            w.commit.commit(identifier, w.write.prepareCommit(waitCompaction, identifier));
        }
    }

    /** Closes the write, the commit and the IOManager; unknown handles are ignored. */
    public static void closeWriter(long handle) throws Exception {
        Writer w = WRITERS.remove(handle);
        if (w == null) {
            return;
        }
        synchronized (w) {
            Exception first = null;
            for (AutoCloseable c : new AutoCloseable[] {w.write, w.commit, w.io}) {
                try {
                    c.close();
                } catch (Exception e) {
                    if (first == null) {
                        first = e;
                    } else {
                        first.addSuppressed(e);
                    }
                }
            }
            if (first != null) {
                throw first;
            }
        }
    }

    private static Writer writer(long handle) {
        Writer w = WRITERS.get(handle);
        if (w == null) {
            throw new IllegalArgumentException("unknown or closed writer handle " + handle);
        }
        return w;
    }

    private static void closeQuietly(AutoCloseable c, Throwable primary) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception e) {
            primary.addSuppressed(e);
        }
    }

    private static Object[] toRow(List<DataField> fields, JsonNode values) {
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
     * TIMESTAMP WITH LOCAL TIME ZONE (the same string, read as UTC). JSON null is SQL NULL.
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
            default:
                throw new UnsupportedOperationException(
                        "column '" + field.name() + "': type " + type
                                + " is not supported in JSON rows");
        }
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

    /** One open writer. */
    private static final class Writer {
        final FileStoreTable table;
        final StreamTableWrite write;
        final StreamTableCommit commit;
        final IOManager io;

        Writer(FileStoreTable table, StreamTableWrite write, StreamTableCommit commit, IOManager io) {
            this.table = table;
            this.write = write;
            this.commit = commit;
            this.io = io;
        }
    }
}
