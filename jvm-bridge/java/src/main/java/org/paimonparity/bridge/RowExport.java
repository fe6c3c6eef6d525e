package org.paimonparity.bridge;

import org.apache.paimon.data.InternalRow;
import org.apache.paimon.types.RowType;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Turns the released reader's {@code InternalRow}s into one Arrow batch, which {@link StockReader}
 * exports through the C Data Interface. Two implementations give the same schema and values:
 *
 * <ul>
 *   <li>{@code PaimonArrowExport} ({@code src/main/java-paimon-arrow}): the release's own
 *       paimon-arrow ({@code ArrowUtils.createVectorSchemaRoot} and {@code
 *       createArrowFieldWriters}), compiled only into the builds that have paimon-arrow on the class
 *       path (1.0.0, 2.0.0);
 *   <li>{@link RowArrowExport}: the bridge's own exporter, following the rules of the release's
 *       paimon-arrow, for the releases whose paimon-arrow is not served.
 * </ul>
 *
 * <p>{@link #select()} picks one: {@code PAIMON_PARITY_ARROW_EXPORT} (or the system property {@code
 * paimon.parity.arrow.export}) {@code bridge} forces {@link RowArrowExport}, {@code paimon-arrow}
 * requires the release's paimon-arrow, unset (or {@code auto}) takes paimon-arrow when the build has
 * it and the bridge's exporter otherwise.
 */
interface RowExport {

    /** Environment variable choosing the exporter: {@code bridge}, {@code paimon-arrow} or {@code auto}. */
    String ENV = "PAIMON_PARITY_ARROW_EXPORT";

    /** System property with the same meaning as {@link #ENV}; it wins over the variable. */
    String PROPERTY = "paimon.parity.arrow.export";

    /** The class of the paimon-arrow exporter, present only in builds with paimon-arrow. */
    String PAIMON_ARROW_CLASS = "org.paimonparity.bridge.PaimonArrowExport";

    /** {@code "paimon-arrow"} or {@code "bridge"}. */
    String name();

    /** An empty root (vectors not yet allocated) whose schema is the Arrow schema of {@code type}. */
    VectorSchemaRoot createRoot(RowType type, BufferAllocator allocator);

    /** Writers of rows of {@code type} into the allocated vectors of {@code root}. */
    Rows writer(VectorSchemaRoot root, RowType type);

    /** Writes whole rows into one batch. */
    interface Rows {
        /** Writes {@code row} as row {@code rowIndex} of the batch. */
        void write(int rowIndex, InternalRow row);
    }

    /** The exporter chosen by {@link #ENV} / {@link #PROPERTY} and the build (see the class doc). */
    static RowExport select() {
        return select(false);
    }

    /**
     * {@link #select()} for a read type that holds a BLOB ({@code blob}), which paimon-arrow refuses
     * ("Doesn't support BlobType"): {@code auto} then takes the bridge's exporter.
     */
    static RowExport select(boolean blob) {
        return select(blob, false);
    }

    /**
     * {@link #select(boolean)}, BLOB values written as serialized descriptors when {@code
     * descriptors} (the table's {@code blob-as-descriptor}).
     */
    static RowExport select(boolean blob, boolean descriptors) {
        String mode = System.getProperty(PROPERTY);
        if (mode == null || mode.trim().isEmpty()) {
            mode = System.getenv(ENV);
        }
        mode = mode == null ? "auto" : mode.trim();
        Class<?> paimonArrow;
        try {
            paimonArrow = Class.forName(PAIMON_ARROW_CLASS, true, RowExport.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            paimonArrow = null;
        }
        switch (mode) {
            case "":
            case "auto":
                return paimonArrow == null || blob
                        ? RowArrowExport.forRelease(StockReader.paimonVersion())
                                .withBlobDescriptors(descriptors)
                        : instantiate(paimonArrow);
            case "bridge":
                return RowArrowExport.forRelease(StockReader.paimonVersion())
                        .withBlobDescriptors(descriptors);
            case "paimon-arrow":
                if (paimonArrow == null) {
                    throw new IllegalStateException(
                            ENV + "=paimon-arrow, but this build of Paimon "
                                    + StockReader.paimonVersion()
                                    + " has no paimon-arrow (only releases whose paimon-arrow is"
                                    + " served are built with it; see scripts/build-java)");
                }
                return instantiate(paimonArrow);
            default:
                throw new IllegalArgumentException(
                        ENV + "='" + mode + "': expected bridge, paimon-arrow or auto");
        }
    }

    static RowExport instantiate(Class<?> c) {
        try {
            return (RowExport) c.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot instantiate " + c.getName(), e);
        }
    }
}
