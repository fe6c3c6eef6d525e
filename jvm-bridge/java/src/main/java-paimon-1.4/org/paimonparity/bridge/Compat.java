package org.paimonparity.bridge;

import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryVector;
import org.apache.paimon.data.Blob;
import org.apache.paimon.data.DataGetters;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalVector;
import org.apache.paimon.data.variant.GenericVariant;
import org.apache.paimon.data.variant.Variant;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.options.Options;
import org.apache.paimon.table.CatalogEnvironment;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.DeletionFile;
import org.apache.paimon.table.source.IncrementalSplit;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.VectorType;

import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;

import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;

import static org.apache.paimon.table.SpecialFields.getArrayElementFieldId;

/**
 * The API calls of the Paimon 1.4 generation (1.4.x and 2.0.x) whose signatures differ between
 * generations; everything else of the bridge is in the shared sources. Its twins: {@code
 * src/main/java-paimon-1.0} (1.0-1.2) and {@code src/main/java-paimon-1.3} (1.3.x).
 */
final class Compat {

    private Compat() {}

    /**
     * A {@code DataSplit}'s before files: none ({@code beforeFiles()} is gone from 1.4; an
     * overwrite's changes plan is made of {@code IncrementalSplit}s).
     */
    static List<DataFileMeta> beforeFiles(DataSplit split) {
        return Collections.emptyList();
    }

    /** A {@code DataSplit}'s before deletion files: none, so {@code null}. */
    static List<DeletionFile> beforeDeletionFiles(DataSplit split) {
        return null;
    }

    /**
     * A planned split that is not a {@code DataSplit}: the {@code IncrementalSplit}s of the changes
     * plan of a primary-key overwrite ({@code SnapshotReaderImpl.readChanges}). Their before files
     * become the view's before files, their after files its data files, and the bucket path is the
     * table's {@code FileStorePathFactory.bucketPath}. {@code null} for any other split.
     */
    static SplitView describeOther(Split split, FileStoreTable table) {
        if (!(split instanceof IncrementalSplit)) {
            return null;
        }
        IncrementalSplit s = (IncrementalSplit) split;
        return new SplitView(
                "IncrementalSplit",
                s.snapshotId(),
                s.partition(),
                s.bucket(),
                table.store().pathFactory().bucketPath(s.partition(), s.bucket()).toString(),
                s.afterFiles(),
                s.beforeFiles(),
                s.afterDeletionFiles(),
                s.beforeDeletionFiles(),
                s.isStreaming(),
                false);
    }

    /**
     * A batch write (an overwrite): {@code withExecutionMode} is gone (since 1.3), a write has no
     * execution mode, so the write is returned as it is.
     */
    static TableWriteImpl<?> batchExecution(TableWriteImpl<?> write) {
        return write;
    }

    /**
     * {@code BlobPlaceholder.INSTANCE} (2.0): a row of a BLOB column update whose value an older
     * {@code .blob} file of the column keeps. Looked up by name, as 1.4 has no such class.
     */
    private static Object blobPlaceholder(DataField field) {
        try {
            return Class.forName("org.apache.paimon.data.BlobPlaceholder")
                    .getField("INSTANCE")
                    .get(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException(
                    "column '" + field.name() + "': this Paimon release has no BLOB placeholder"
                            + " (BlobPlaceholder is from 2.0)",
                    e);
        }
    }

    /**
     * {@code Blob.fromView(new BlobViewStruct(Identifier.fromString(table), fieldId, rowId))} (2.0):
     * a {@code blob-view-field} value, a reference to a BLOB of another table's row. Looked up by
     * name, as 1.4 has no such classes.
     */
    private static Object blobView(DataField field, JsonNode view) {
        try {
            Class<?> struct = Class.forName("org.apache.paimon.data.BlobViewStruct");
            Object value =
                    struct.getConstructor(Identifier.class, int.class, long.class)
                            .newInstance(
                                    Identifier.fromString(view.path("table").asText()),
                                    view.path("field_id").asInt(),
                                    view.path("row_id").asLong());
            return Blob.class.getMethod("fromView", struct).invoke(null, value);
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException(
                    "column '" + field.name() + "': this Paimon release has no BLOB view"
                            + " (BlobViewStruct is from 2.0)",
                    e);
        }
    }

    /**
     * {@code table} (opened from {@code options}: its path, and branch if any) again with a catalog
     * context ({@code CatalogEnvironment.catalogContext}), as a catalog's {@code getTable} gives it:
     * 2.0's data-evolution read resolves {@code blob-view-field} values only with one, reading the
     * upstream tables through the catalog it opens from {@code context}.
     */
    static FileStoreTable withCatalogContext(
            FileStoreTable table, FileIO fileIO, Options options, CatalogContext context) {
        return FileStoreTableFactory.create(
                fileIO,
                table.location(),
                table.schema(),
                options,
                new CatalogEnvironment(null, null, null, null, null, context, false, false));
    }

    /**
     * A JSON value of a type new in this generation, for {@code JsonRows.toInternal}: VARIANT
     * from any JSON value ({@code GenericVariant.fromJson} of its text), VECTOR from a JSON array of
     * exactly {@code length} elements ({@code BinaryVector.fromInternalArray}), BLOB from a base64
     * string, {@code {"placeholder": true}} (2.0's {@code BlobPlaceholder}) or {@code {"view":
     * {"table": "db.t", "field_id": 2, "row_id": 0}}} (2.0's {@code BlobViewStruct}); {@code null}
     * for other types.
     */
    static Object toInternalOfLineType(DataField field, JsonNode v) {
        DataType type = field.type();
        switch (type.getTypeRoot()) {
            case VARIANT:
                return GenericVariant.fromJson(v.toString());
            case VECTOR:
                {
                    VectorType vector = (VectorType) type;
                    if (!v.isArray() || v.size() != vector.getLength()) {
                        throw new IllegalArgumentException(
                                "column '" + field.name() + "' (" + type + "): " + v
                                        + " is not a JSON array of " + vector.getLength()
                                        + " elements");
                    }
                    return BinaryVector.fromInternalArray(
                            JsonRows.toArray(field, vector.getElementType(), v),
                            vector.getElementType());
                }
            case BLOB:
                if (v.isObject() && v.path("placeholder").asBoolean(false)) {
                    return blobPlaceholder(field);
                }
                if (v.isObject() && v.has("view")) {
                    return blobView(field, v.path("view"));
                }
                // A base64 string, as BYTES: the blob's data, inline (`Blob.fromData`).
                return Blob.fromData(java.util.Base64.getDecoder().decode(v.asText()));
            default:
                return null;
        }
    }

    /**
     * The Arrow field of a type {@link RowArrowExport} does not handle itself, as 1.4's and 2.0's
     * paimon-arrow make it: VARIANT a Struct (nullable as the type, with the field id) of NOT NULL
     * Binary {@code "value"} and {@code "metadata"} (no field ids); VECTOR(n) a FixedSizeList(n)
     * whose one child {@code "$data$"} is the element, with field id {@code
     * getArrayElementFieldId(baseId, depth + 1)}, as an ARRAY's. BLOB, which paimon-arrow refuses, a
     * Binary with the field id (the bridge's own choice: the bytes the released reader returns).
     */
    static Field lineTypeField(
            RowArrowExport export, String name, int id, int baseId, DataType type, int depth) {
        switch (type.getTypeRoot()) {
            case VARIANT:
                return new Field(
                        name,
                        new FieldType(
                                type.isNullable(),
                                ArrowType.Struct.INSTANCE,
                                null,
                                RowArrowExport.fieldId(id)),
                        Arrays.asList(
                                new Field(
                                        Variant.VALUE,
                                        new FieldType(false, ArrowType.Binary.INSTANCE, null),
                                        null),
                                new Field(
                                        Variant.METADATA,
                                        new FieldType(false, ArrowType.Binary.INSTANCE, null),
                                        null)));
            case VECTOR:
                {
                    VectorType vector = (VectorType) type;
                    Field element =
                            export.field(
                                    ListVector.DATA_VECTOR_NAME,
                                    getArrayElementFieldId(baseId, depth + 1),
                                    baseId,
                                    vector.getElementType(),
                                    depth + 1);
                    return new Field(
                            name,
                            new FieldType(
                                    type.isNullable(),
                                    new ArrowType.FixedSizeList(vector.getLength()),
                                    null,
                                    RowArrowExport.fieldId(id)),
                            Collections.singletonList(element));
                }
            case BLOB:
                return new Field(
                        name,
                        new FieldType(
                                type.isNullable(),
                                ArrowType.Binary.INSTANCE,
                                null,
                                RowArrowExport.fieldId(id)),
                        null);
            default:
                return null;
        }
    }

    /**
     * The writer of such a type, as 1.4's and 2.0's paimon-arrow write it: VARIANT ({@code
     * getVariant}) its {@code value()} and {@code metadata()} into the two children (NOT NULL
     * writers), the struct defined; VECTOR ({@code getVector}, refused unless of exactly the type's
     * length) {@code setNotNull}, its elements at {@code index * length + k}, the data vector's
     * value count raised to cover them. BLOB ({@code getBlob}) the bytes of {@code toData()}, or of
     * its serialized {@code toDescriptor()} when the exporter writes descriptors, as a BYTES column's.
     */
    static RowArrowExport.Writer lineTypeWriter(
            RowArrowExport export, DataType type, FieldVector vector, boolean nullable) {
        switch (type.getTypeRoot()) {
            case VARIANT:
                {
                    StructVector struct = (StructVector) vector;
                    List<FieldVector> children = struct.getChildrenFromFields();
                    RowArrowExport.Writer value =
                            export.writer(DataTypes.BYTES().notNull(), children.get(0), false);
                    RowArrowExport.Writer metadata =
                            export.writer(DataTypes.BYTES().notNull(), children.get(1), false);
                    GenericRow parts = new GenericRow(2);
                    return new RowArrowExport.Writer(export, vector, nullable) {
                        @Override
                        void set(int index, DataGetters from, int pos) {
                            Variant variant = from.getVariant(pos);
                            parts.setField(0, variant.value());
                            parts.setField(1, variant.metadata());
                            value.write(index, parts, 0);
                            metadata.write(index, parts, 1);
                            struct.setIndexDefined(index);
                        }
                    };
                }
            case VECTOR:
                {
                    VectorType vectorType = (VectorType) type;
                    int length = vectorType.getLength();
                    FixedSizeListVector list = (FixedSizeListVector) vector;
                    RowArrowExport.Writer element =
                            export.writer(
                                    vectorType.getElementType(),
                                    list.getDataVector(),
                                    export.nestedNullable(nullable, vectorType.getElementType()));
                    return new RowArrowExport.Writer(export, vector, nullable) {
                        @Override
                        void set(int index, DataGetters from, int pos) {
                            InternalVector v = from.getVector(pos);
                            if (v.size() != length) {
                                throw new IllegalArgumentException(
                                        String.format(
                                                "The size of vector %s is not equal to the length %s",
                                                v.size(), length));
                            }
                            list.setNotNull(index);
                            int base = index * length;
                            for (int k = 0; k < length; k++) {
                                element.write(base + k, v, k);
                            }
                            FieldVector data = list.getDataVector();
                            data.setValueCount(Math.max(data.getValueCount(), base + length));
                        }
                    };
                }
            case BLOB:
                {
                    RowArrowExport.Writer bytes =
                            export.writer(DataTypes.BYTES(), vector, nullable);
                    GenericRow data = new GenericRow(1);
                    return new RowArrowExport.Writer(export, vector, nullable) {
                        @Override
                        void set(int index, DataGetters from, int pos) {
                            Blob blob = from.getBlob(pos);
                            data.setField(
                                    0,
                                    export.blobDescriptors()
                                            ? blob.toDescriptor().serialize()
                                            : blob.toData());
                            bytes.write(index, data, 0);
                        }
                    };
                }
            default:
                return null;
        }
    }
}
