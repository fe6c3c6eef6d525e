package org.paimonparity.bridge;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.data.DataGetters;
import org.apache.paimon.data.InternalArray;
import org.apache.paimon.data.InternalMap;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.table.SpecialFields;
import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.LocalZonedTimestampType;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.RowType;
import org.apache.paimon.types.TimestampType;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeMilliVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The bridge's own row exporter: the Arrow schema and values the release's paimon-arrow gives for
 * the same rows ({@code ArrowUtils.createVectorSchemaRoot(RowType, BufferAllocator)}, {@code
 * ArrowUtils.createArrowFieldWriters} and {@code ArrowFieldWriter.write(int, DataGetters, int)}),
 * written from the behaviour of paimon-arrow 1.0.0 (its jar and sources jar) and 2.0.0 (its release
 * source), and of 1.1.1, 1.2.0, 1.3.1 and 1.4.2 as their tags' {@code paimon-arrow/src/main} read.
 * Used for the releases whose paimon-arrow is not served (1.0.1, 1.1.1, 1.2.0, 1.3.1, 1.4.2), and
 * wherever {@code PAIMON_PARITY_ARROW_EXPORT=bridge} asks for it.
 *
 * <p>The paimon-arrow rules it follows:
 *
 * <ul>
 *   <li><b>Fields</b>: named as the Paimon field (case kept), nullable as its type, with the metadata
 *       {@code PARQUET:field_id} = the field id; a ROW's children the same with their own ids.
 *   <li><b>Types</b>: CHAR, VARCHAR → Utf8; BOOLEAN → Bool; BINARY, VARBINARY → Binary; DECIMAL(p, s) →
 *       Decimal(p, s, 128); TINYINT..BIGINT → signed Int(8/16/32/64); FLOAT, DOUBLE → FloatingPoint
 *       SINGLE, DOUBLE; DATE → Date(DAY); TIME(p) → Time(MILLISECOND, 32) for every p; TIMESTAMP(p) →
 *       Timestamp(unit, no zone) and TIMESTAMP(p) WITH LOCAL TIME ZONE → Timestamp(unit, zone), unit
 *       SECOND for p = 0, MILLISECOND for 1-3, MICROSECOND for 4-6, NANOSECOND above; zone the JVM's
 *       default zone id in every 1.x release, {@code "UTC"} from 2.0; ROW → Struct.
 *   <li><b>ARRAY</b>: List with one child {@code "$data$"} (the element type, nullable as it), whose
 *       field id is {@code SpecialFields.getArrayElementFieldId(id, depth + 1)}; the element's own
 *       children are built with the array's id and {@code depth + 1}.
 *   <li><b>MAP</b>: Map(keysSorted = false) with one NOT NULL child {@code "entries"} (Struct, field id
 *       = the map's id) of {@code "key"} (always NOT NULL, id {@code getMapKeyFieldId(id, depth + 1)})
 *       and {@code "value"} (id {@code getMapValueFieldId(id, depth + 1)}), the value forced NOT NULL up
 *       to 1.2 and nullable as the value type from 1.3.
 *   <li><b>Values</b>: one {@code setSafe} per non-null value; TIMESTAMP values are epoch seconds
 *       ({@code getMillisecond() / 1000}), milliseconds, {@code toMicros()} or {@code getMillisecond() *
 *       1_000_000 + getNanoOfMillisecond()} by the same precision steps, both kinds unshifted (the
 *       writers' cast zone is null); TIME its int millis; DECIMAL {@code toBigDecimal()}. A NULL is
 *       {@code setNull} of that vector. ARRAY: {@code startNewValue}, the elements at a running
 *       offset, {@code endValue}; MAP the same with key and value at the offset and the entry struct
 *       defined; ROW: {@code getRow(pos, children)}, every child written, the struct defined. A MAP's
 *       vector is {@code reAlloc}ed when its writer is made.
 *   <li><b>NOT NULL checks</b>: none in 1.0; from 1.1.1 to 1.4 each writer, nested ones too, checks
 *       against the nullability of the exported RowType itself (always nullable here, so nothing is
 *       refused); from 2.0 each writer against its own type (a map key's never nullable), with the
 *       message of that release.
 *   <li><b>Refused</b>: MULTISET (every release) and VARIANT up to 1.3, with {@code
 *       UnsupportedOperationException}, when the schema is made. VARIANT (a struct of NOT NULL binary
 *       {@code value} and {@code metadata}), VECTOR (FixedSizeList) and BLOB (Binary: {@code
 *       toData()}, which paimon-arrow refuses) from 1.4 are the line's {@code Compat.lineTypeField} /
 *       {@code lineTypeWriter}.
 * </ul>
 */
final class RowArrowExport implements RowExport {

    /** The metadata key paimon-arrow stores field ids under. */
    static final String FIELD_ID = "PARQUET:field_id";

    /** How a release's paimon-arrow checks a NULL against a NOT NULL type while writing. */
    enum NullCheck {
        /** 1.0: never; a NULL is an Arrow null whatever the type. */
        NONE,
        /** 1.1.1-1.4: every writer, nested ones too, by the nullability of the exported RowType. */
        ROW_TYPE,
        /** 2.0: every writer by its own type; a map key's writer is never nullable. */
        PER_TYPE
    }

    private final String release;
    /** The map value is forced NOT NULL in the schema (up to 1.2). */
    private final boolean mapValueNotNull;
    /** The TIMESTAMP_LTZ zone, or {@code null} for the JVM's default zone at each schema (1.x). */
    private final String ltzZone;

    private final NullCheck nullCheck;
    /** The 1.3+ wording of the NOT NULL refusal (else 1.1.1/1.2's). */
    private final boolean mergeEngineNullMessage;

    /**
     * BLOB values as their serialized {@code BlobDescriptor} ({@code blob-as-descriptor}, as the
     * Flink connector returns them), else as {@code toData()}.
     */
    private boolean blobDescriptors;

    private RowArrowExport(String release, int major, int minor) {
        this.release = release;
        boolean atLeast13 = major > 1 || (major == 1 && minor >= 3);
        this.mapValueNotNull = !atLeast13;
        this.ltzZone = major >= 2 ? "UTC" : null;
        this.nullCheck =
                major >= 2 ? NullCheck.PER_TYPE : (major == 1 && minor == 0 ? NullCheck.NONE : NullCheck.ROW_TYPE);
        this.mergeEngineNullMessage = atLeast13;
    }

    /** This exporter, writing BLOB values as serialized descriptors when {@code descriptors}. */
    RowArrowExport withBlobDescriptors(boolean descriptors) {
        this.blobDescriptors = descriptors;
        return this;
    }

    /** Whether BLOB values are written as serialized descriptors ({@code blob-as-descriptor}). */
    boolean blobDescriptors() {
        return blobDescriptors;
    }

    /** The exporter following the paimon-arrow of {@code release} (e.g. "1.2.0"). */
    static RowArrowExport forRelease(String release) {
        String[] parts = release.split("[.-]");
        try {
            return new RowArrowExport(release, Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not a Paimon release version: '" + release + "'", e);
        }
    }

    @Override
    public String name() {
        return "bridge";
    }

    /** The release whose paimon-arrow rules this exporter follows. */
    String release() {
        return release;
    }

    NullCheck nullCheck() {
        return nullCheck;
    }

    // ---------------------------------------------------------------------------------------
    // Schema
    // ---------------------------------------------------------------------------------------

    @Override
    public VectorSchemaRoot createRoot(RowType type, BufferAllocator allocator) {
        List<Field> fields = new ArrayList<>();
        for (DataField f : type.getFields()) {
            fields.add(field(f.name(), f.id(), f.id(), f.type(), 0));
        }
        return VectorSchemaRoot.create(new Schema(fields), allocator);
    }

    /**
     * The Arrow field of {@code type} named {@code name} with field id {@code id} in its metadata;
     * {@code baseId} and {@code depth} are the id and depth its nested ids derive from (the enclosing
     * ARRAY's or MAP's for an element, key or value; its own, at depth 0, for a field).
     */
    Field field(String name, int id, int baseId, DataType type, int depth) {
        ArrowType arrow;
        List<Field> children = null;
        switch (type.getTypeRoot()) {
            case CHAR:
            case VARCHAR:
                arrow = ArrowType.Utf8.INSTANCE;
                break;
            case BOOLEAN:
                arrow = ArrowType.Bool.INSTANCE;
                break;
            case BINARY:
            case VARBINARY:
                arrow = ArrowType.Binary.INSTANCE;
                break;
            case DECIMAL:
                {
                    DecimalType d = (DecimalType) type;
                    arrow = new ArrowType.Decimal(d.getPrecision(), d.getScale(), 128);
                    break;
                }
            case TINYINT:
                arrow = new ArrowType.Int(8, true);
                break;
            case SMALLINT:
                arrow = new ArrowType.Int(16, true);
                break;
            case INTEGER:
                arrow = new ArrowType.Int(32, true);
                break;
            case BIGINT:
                arrow = new ArrowType.Int(64, true);
                break;
            case FLOAT:
                arrow = new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
                break;
            case DOUBLE:
                arrow = new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
                break;
            case DATE:
                arrow = new ArrowType.Date(org.apache.arrow.vector.types.DateUnit.DAY);
                break;
            case TIME_WITHOUT_TIME_ZONE:
                arrow = new ArrowType.Time(TimeUnit.MILLISECOND, 32);
                break;
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                arrow = new ArrowType.Timestamp(unit(((TimestampType) type).getPrecision()), null);
                break;
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                arrow =
                        new ArrowType.Timestamp(
                                unit(((LocalZonedTimestampType) type).getPrecision()),
                                ltzZone != null ? ltzZone : ZoneId.systemDefault().toString());
                break;
            case ARRAY:
                arrow = ArrowType.List.INSTANCE;
                children =
                        Collections.singletonList(
                                field(
                                        ListVector.DATA_VECTOR_NAME,
                                        SpecialFields.getArrayElementFieldId(baseId, depth + 1),
                                        baseId,
                                        ((ArrayType) type).getElementType(),
                                        depth + 1));
                break;
            case MAP:
                {
                    MapType map = (MapType) type;
                    arrow = new ArrowType.Map(false);
                    Field key =
                            field(
                                    MapVector.KEY_NAME,
                                    SpecialFields.getMapKeyFieldId(baseId, depth + 1),
                                    baseId,
                                    map.getKeyType().notNull(),
                                    depth + 1);
                    DataType valueType =
                            mapValueNotNull ? map.getValueType().notNull() : map.getValueType();
                    Field value =
                            field(
                                    MapVector.VALUE_NAME,
                                    SpecialFields.getMapValueFieldId(baseId, depth + 1),
                                    baseId,
                                    valueType,
                                    depth + 1);
                    children =
                            Collections.singletonList(
                                    new Field(
                                            MapVector.DATA_VECTOR_NAME,
                                            new FieldType(
                                                    false, ArrowType.Struct.INSTANCE, null, fieldId(baseId)),
                                            Arrays.asList(key, value)));
                    break;
                }
            case ROW:
                arrow = ArrowType.Struct.INSTANCE;
                children = new ArrayList<>();
                for (DataField f : ((RowType) type).getFields()) {
                    children.add(field(f.name(), f.id(), f.id(), f.type(), 0));
                }
                break;
            case MULTISET:
                throw refused(name, type);
            default:
                Field line = Compat.lineTypeField(this, name, id, baseId, type, depth);
                if (line == null) {
                    throw refused(name, type);
                }
                return line;
        }
        return new Field(name, new FieldType(type.isNullable(), arrow, null, fieldId(id)), children);
    }

    /** The field-id metadata of a field. */
    static java.util.Map<String, String> fieldId(int id) {
        return Collections.singletonMap(FIELD_ID, String.valueOf(id));
    }

    /** SECOND for precision 0, MILLISECOND for 1-3, MICROSECOND for 4-6, NANOSECOND above. */
    static TimeUnit unit(int precision) {
        if (precision == 0) {
            return TimeUnit.SECOND;
        } else if (precision <= 3) {
            return TimeUnit.MILLISECOND;
        } else if (precision <= 6) {
            return TimeUnit.MICROSECOND;
        }
        return TimeUnit.NANOSECOND;
    }

    private UnsupportedOperationException refused(String name, DataType type) {
        return new UnsupportedOperationException(
                "column '" + name + "' (" + type + "): the Arrow export of Paimon " + release
                        + " does not support " + type.getTypeRoot()
                        + " (the release's paimon-arrow refuses it too)");
    }

    // ---------------------------------------------------------------------------------------
    // Values
    // ---------------------------------------------------------------------------------------

    @Override
    public Rows writer(VectorSchemaRoot root, RowType type) {
        List<FieldVector> vectors = root.getFieldVectors();
        Writer[] writers = new Writer[type.getFieldCount()];
        for (int i = 0; i < writers.length; i++) {
            DataType t = type.getTypeAt(i);
            boolean nullable;
            switch (nullCheck) {
                case NONE:
                    nullable = true;
                    break;
                case ROW_TYPE:
                    nullable = type.isNullable();
                    break;
                default:
                    nullable = t.isNullable();
            }
            writers[i] = writer(t, vectors.get(i), nullable);
        }
        return (rowIndex, row) -> {
            for (int i = 0; i < writers.length; i++) {
                writers[i].write(rowIndex, row, i);
            }
        };
    }

    /** Whether the writer of a nested {@code child} (element, value, ROW field) accepts NULL. */
    boolean nestedNullable(boolean parent, DataType child) {
        switch (nullCheck) {
            case NONE:
                return true;
            case ROW_TYPE:
                return parent;
            default:
                return child.isNullable();
        }
    }

    /** Whether the writer of a map's key accepts NULL. */
    private boolean keyNullable(boolean parent) {
        switch (nullCheck) {
            case NONE:
                return true;
            case ROW_TYPE:
                return parent;
            default:
                return false;
        }
    }

    /** The writer of values of {@code type} into {@code vector}; {@code nullable}: NULL accepted. */
    Writer writer(DataType type, FieldVector vector, boolean nullable) {
        switch (type.getTypeRoot()) {
            case CHAR:
            case VARCHAR:
                return new Writer(this, vector, nullable) {
                    @Override
                    void set(int i, DataGetters from, int pos) {
                        ((VarCharVector) vector).setSafe(i, from.getString(pos).toBytes());
                    }
                };
            case BOOLEAN:
                return new Writer(this, vector, nullable) {
                    @Override
                    void set(int i, DataGetters from, int pos) {
                        ((BitVector) vector).setSafe(i, from.getBoolean(pos) ? 1 : 0);
                    }
                };
            case BINARY:
            case VARBINARY:
                return new Writer(this, vector, nullable) {
                    @Override
                    void set(int i, DataGetters from, int pos) {
                        ((VarBinaryVector) vector).setSafe(i, from.getBinary(pos));
                    }
                };
            case DECIMAL:
                {
                    int precision = ((DecimalType) type).getPrecision();
                    int scale = ((DecimalType) type).getScale();
                    return new Writer(this, vector, nullable) {
                        @Override
                        void set(int i, DataGetters from, int pos) {
                            ((DecimalVector) vector)
                                    .setSafe(i, from.getDecimal(pos, precision, scale).toBigDecimal());
                        }
                    };
                }
            case TINYINT:
                return new Writer(this, vector, nullable) {
                    @Override
                    void set(int i, DataGetters from, int pos) {
                        ((TinyIntVector) vector).setSafe(i, from.getByte(pos));
                    }
                };
            case SMALLINT:
                return new Writer(this, vector, nullable) {
                    @Override
                    void set(int i, DataGetters from, int pos) {
                        ((SmallIntVector) vector).setSafe(i, from.getShort(pos));
                    }
                };
            case INTEGER:
                return new Writer(this, vector, nullable) {
                    @Override
                    void set(int i, DataGetters from, int pos) {
                        ((IntVector) vector).setSafe(i, from.getInt(pos));
                    }
                };
            case BIGINT:
                return new Writer(this, vector, nullable) {
                    @Override
                    void set(int i, DataGetters from, int pos) {
                        ((BigIntVector) vector).setSafe(i, from.getLong(pos));
                    }
                };
            case FLOAT:
                return new Writer(this, vector, nullable) {
                    @Override
                    void set(int i, DataGetters from, int pos) {
                        ((Float4Vector) vector).setSafe(i, from.getFloat(pos));
                    }
                };
            case DOUBLE:
                return new Writer(this, vector, nullable) {
                    @Override
                    void set(int i, DataGetters from, int pos) {
                        ((Float8Vector) vector).setSafe(i, from.getDouble(pos));
                    }
                };
            case DATE:
                return new Writer(this, vector, nullable) {
                    @Override
                    void set(int i, DataGetters from, int pos) {
                        ((DateDayVector) vector).setSafe(i, from.getInt(pos));
                    }
                };
            case TIME_WITHOUT_TIME_ZONE:
                return new Writer(this, vector, nullable) {
                    @Override
                    void set(int i, DataGetters from, int pos) {
                        ((TimeMilliVector) vector).setSafe(i, from.getInt(pos));
                    }
                };
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return timestamp(((TimestampType) type).getPrecision(), vector, nullable);
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return timestamp(((LocalZonedTimestampType) type).getPrecision(), vector, nullable);
            case ARRAY:
                return array((ArrayType) type, (ListVector) vector, nullable);
            case MAP:
                return map((MapType) type, (MapVector) vector, nullable);
            case ROW:
                return row((RowType) type, (StructVector) vector, nullable);
            case MULTISET:
                throw refused(vector.getName(), type);
            default:
                Writer line = Compat.lineTypeWriter(this, type, vector, nullable);
                if (line == null) {
                    throw refused(vector.getName(), type);
                }
                return line;
        }
    }

    private Writer timestamp(int precision, FieldVector vector, boolean nullable) {
        return new Writer(this, vector, nullable) {
            @Override
            void set(int i, DataGetters from, int pos) {
                ((TimeStampVector) vector).setSafe(i, epoch(from.getTimestamp(pos, precision), precision));
            }
        };
    }

    /** A timestamp in the unit of {@link #unit}, not shifted by any zone. */
    static long epoch(Timestamp t, int precision) {
        if (precision == 0) {
            return t.getMillisecond() / 1000;
        } else if (precision <= 3) {
            return t.getMillisecond();
        } else if (precision <= 6) {
            return t.toMicros();
        }
        return t.getMillisecond() * 1_000_000 + t.getNanoOfMillisecond();
    }

    private Writer array(ArrayType type, ListVector list, boolean nullable) {
        Writer element =
                writer(
                        type.getElementType(),
                        list.getDataVector(),
                        nestedNullable(nullable, type.getElementType()));
        return new Writer(this, list, nullable) {
            /** Elements written so far into the data vector, over all rows of the batch. */
            private int offset;

            @Override
            void set(int i, DataGetters from, int pos) {
                InternalArray array = from.getArray(pos);
                int size = array.size();
                list.startNewValue(i);
                for (int k = 0; k < size; k++) {
                    element.write(offset + k, array, k);
                }
                offset += size;
                list.endValue(i, size);
            }
        };
    }

    private Writer map(MapType type, MapVector mapVector, boolean nullable) {
        mapVector.reAlloc();
        StructVector entries = (StructVector) mapVector.getDataVector();
        List<FieldVector> keyValue = entries.getChildrenFromFields();
        Writer key = writer(type.getKeyType(), keyValue.get(0), keyNullable(nullable));
        Writer value =
                writer(
                        type.getValueType(),
                        keyValue.get(1),
                        nestedNullable(nullable, type.getValueType()));
        return new Writer(this, mapVector, nullable) {
            /** Entries written so far, over all rows of the batch. */
            private int offset;

            @Override
            void set(int i, DataGetters from, int pos) {
                InternalMap map = from.getMap(pos);
                InternalArray keys = map.keyArray();
                InternalArray values = map.valueArray();
                int size = map.size();
                mapVector.startNewValue(i);
                for (int k = 0; k < size; k++) {
                    key.write(offset + k, keys, k);
                    value.write(offset + k, values, k);
                    entries.setIndexDefined(offset + k);
                }
                offset += size;
                mapVector.endValue(i, size);
            }
        };
    }

    private Writer row(RowType type, StructVector struct, boolean nullable) {
        List<FieldVector> children = struct.getChildrenFromFields();
        Writer[] fields = new Writer[children.size()];
        for (int k = 0; k < fields.length; k++) {
            DataType t = type.getTypeAt(k);
            fields[k] = writer(t, children.get(k), nestedNullable(nullable, t));
        }
        return new Writer(this, struct, nullable) {
            @Override
            void set(int i, DataGetters from, int pos) {
                InternalRow row = from.getRow(pos, fields.length);
                for (int k = 0; k < fields.length; k++) {
                    fields[k].write(i, row, k);
                }
                struct.setIndexDefined(i);
            }
        };
    }

    /**
     * Writes one value of a {@code DataGetters} (row, array) position into its vector: {@code setNull}
     * for a NULL (refused when the writer is not nullable, as the release's paimon-arrow refuses it),
     * else {@link #set}.
     */
    abstract static class Writer {
        private final RowArrowExport export;
        final FieldVector vector;
        private final boolean nullable;

        Writer(RowArrowExport export, FieldVector vector, boolean nullable) {
            this.export = export;
            this.vector = vector;
            this.nullable = nullable;
        }

        final void write(int index, DataGetters from, int pos) {
            if (from.isNullAt(pos)) {
                if (!nullable) {
                    throw new IllegalArgumentException(export.nullRefusal(vector.getName()));
                }
                vector.setNull(index);
            } else {
                set(index, from, pos);
            }
        }

        /** Writes the non-null value at {@code pos} as entry {@code index} of the vector. */
        abstract void set(int index, DataGetters from, int pos);
    }

    /** The message of the release's paimon-arrow for a NULL in a NOT NULL field. */
    String nullRefusal(String field) {
        if (mergeEngineNullMessage) {
            return String.format(
                    "Field '%s' expected not null but found null value. A possible cause is that the table used "
                            + "%s or %s merge-engine and the aggregate function produced null value when retracting.",
                    field, CoreOptions.MergeEngine.PARTIAL_UPDATE, CoreOptions.MergeEngine.AGGREGATE);
        }
        return String.format(
                "Arrow does not support null values in non-nullable fields. Field name : %s expected not null but found null",
                field);
    }
}
