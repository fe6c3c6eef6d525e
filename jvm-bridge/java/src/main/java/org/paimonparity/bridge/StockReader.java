package org.paimonparity.bridge;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.JoinedRow;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.Path;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.options.Options;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.SpecialFields;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.source.DeletionFile;
import org.apache.paimon.table.source.EndOfScanException;
import org.apache.paimon.table.source.SnapshotNotExistPlan;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.table.source.StreamTableScan;
import org.apache.paimon.table.source.TableScan;
import org.apache.paimon.table.system.SystemTableLoader;
import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.RowType;
import org.apache.paimon.types.TinyIntType;
import org.apache.paimon.utils.InstantiationUtil;
import org.apache.paimon.utils.JsonSerdeUtil;
import org.apache.paimon.utils.SerializationUtils;
import org.apache.paimon.utils.SnapshotManager;

import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;

import org.apache.arrow.c.ArrowArray;
import org.apache.arrow.c.ArrowSchema;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

import java.lang.reflect.Constructor;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The released Paimon reader, driven from Rust (jvm-bridge's {@code stock} module).
 *
 * <p>Thin on purpose: it opens tables read-only with {@code FileStoreTableFactory}, plans with the
 * released {@code StreamTableScan} and {@code TableScan} with the dynamic options the Rust side
 * computed (which options a scan mode sets, and when a streaming plan loop ends, are decided in Rust), reads with the released {@code TableRead}, and exports rows
 * through the Arrow C Data Interface, turned into Arrow by the release's paimon-arrow where the build
 * has it, else by the bridge's {@link RowArrowExport} (which gives the same schema and values; {@link
 * RowExport#select}). Nothing is ever written into a table.
 */
public final class StockReader {

    /** Rows per exported batch. */
    public static final int BATCH_ROWS = 4096;

    /** Name of the leading RowKind column. */
    public static final String ROW_KIND_COLUMN = "_row_kind";

    /**
     * Field id of the RowKind column in the export RowType: the id of Paimon's own TINYINT row-kind
     * system field {@code _VALUE_KIND} (outside any table's id range). The export writes it as the
     * field's {@code PARQUET:field_id} metadata.
     */
    private static final int ROW_KIND_FIELD_ID = SpecialFields.VALUE_KIND.id();

    private static final BufferAllocator ALLOCATOR = new RootAllocator();
    private static final AtomicLong NEXT_HANDLE = new AtomicLong(1);
    private static final Map<Long, OpenRead> READS = new ConcurrentHashMap<>();
    private static final Map<Long, OpenScan> SCANS = new ConcurrentHashMap<>();

    private StockReader() {}

    /**
     * The table at {@code tableDir}: a local directory or a store URI ({@link TableLocations}); a
     * location ending in {@code $branch_<name>} is that branch of the table ({@code
     * FileStoreTableFactory.create} with the options {@code path} and {@code branch}); one ending in
     * {@code $row_tracking}, {@code $audit_log}, {@code $binlog} or {@code $ro} is checked to be that
     * system table of
     * it ({@link #readTable}); scans and reads go through the system table ({@link #planBatch}).
     */
    private static FileStoreTable openTable(String tableDir) throws Exception {
        String system = TableLocations.splitSystem(tableDir)[1];
        if (system != null
                && !system.equalsIgnoreCase("row_tracking")
                && !system.equalsIgnoreCase("audit_log")
                && !system.equalsIgnoreCase("binlog")
                && !system.equalsIgnoreCase("ro")) {
            // Other system tables plan splits of their own kinds, which the bridge does not export.
            throw new UnsupportedOperationException(
                    "the bridge reads the split-shaped system tables `$row_tracking`, `$audit_log`,"
                            + " `$binlog` and `$ro` only, not `$"
                            + system
                            + "`");
        }
        String[] located = TableLocations.splitBranch(tableDir);
        String location = located[0];
        Options options = new Options();
        options.set(CoreOptions.PATH, TableLocations.path(location).toString());
        if (located[1] != null) {
            options.set(CoreOptions.BRANCH, located[1]);
        }
        FileStoreTable table =
                TableLocations.opening(
                        location,
                        () -> {
                            FileIO fileIO = TableLocations.fileIO(location);
                            FileStoreTable opened = FileStoreTableFactory.create(fileIO, options);
                            // `blob-view-field` values resolve only through a catalog (2.0): the
                            // table gets the context of the catalog of its warehouse, as a
                            // catalog's getTable gives it.
                            if (opened.options().containsKey("blob-view-field")) {
                                return Compat.withCatalogContext(
                                        opened,
                                        fileIO,
                                        options,
                                        TableLocations.catalogContext(location));
                            }
                            return opened;
                        });
        // A system table the release does not have (or that refuses the table) fails here, as a
        // catalog's getTable("db.t$name") does.
        readTable(tableDir, table);
        return table;
    }

    /**
     * What {@code tableDir} reads: its data table ({@link #openTable}), or the system table its
     * location names ({@code SystemTableLoader.load}: {@code $row_tracking} is the data table's scans
     * with {@code newRead().withReadType(rowType())}, the row type adding {@code _ROW_ID} and {@code
     * _SEQUENCE_NUMBER}).
     */
    private static Table readTable(String tableDir, FileStoreTable table) {
        String system = TableLocations.splitSystem(tableDir)[1];
        if (system == null) {
            return table;
        }
        Table loaded = SystemTableLoader.load(system, table);
        if (loaded == null) {
            throw new IllegalArgumentException(
                    "Paimon " + paimonVersion() + " has no system table `" + system + "`");
        }
        return loaded;
    }

    /**
     * The version of the Paimon jar on the classpath: the {@code Implementation-Version} of the jar
     * holding {@code FileStoreTable} (e.g. "1.0.0" for paimon-bundle 1.0.0).
     */
    public static String paimonVersion() {
        Package p = FileStoreTable.class.getPackage();
        String version = p == null ? null : p.getImplementationVersion();
        if (version == null) {
            throw new IllegalStateException(
                    "no Implementation-Version in the manifest of the jar holding "
                            + FileStoreTable.class.getName());
        }
        return version;
    }

    /**
     * {@code SnapshotManager.latestSnapshotId()} of the table, or -1 when it has none; of a branch
     * ({@code $branch_<name>}), that branch's {@code snapshotManager()}.
     */
    public static long latestSnapshotId(String tableDir) throws Exception {
        if (TableLocations.splitBranch(tableDir)[1] != null) {
            Long id = openTable(tableDir).snapshotManager().latestSnapshotId();
            return id == null ? -1L : id;
        }
        Long id =
                TableLocations.opening(
                        tableDir,
                        () ->
                                snapshotManager(
                                                TableLocations.fileIO(tableDir),
                                                TableLocations.path(tableDir))
                                        .latestSnapshotId());
        return id == null ? -1L : id;
    }

    /**
     * A {@code SnapshotManager} of the table at {@code path} (main branch, no cache), for a directory
     * that may hold no schema yet: {@code new SnapshotManager(FileIO, Path)} in 1.0, the only
     * constructor from 1.1 on {@code (FileIO, Path, String branch, SnapshotLoader, Cache)} with
     * {@code null} branch (= main), loader and cache. Picked reflectively so that one source compiles
     * against every release.
     */
    private static SnapshotManager snapshotManager(FileIO fileIO, Path path) {
        Constructor<?> five = null;
        for (Constructor<?> c : SnapshotManager.class.getConstructors()) {
            Class<?>[] p = c.getParameterTypes();
            try {
                if (p.length == 2 && p[0] == FileIO.class && p[1] == Path.class) {
                    return (SnapshotManager) c.newInstance(fileIO, path);
                }
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("new SnapshotManager(FileIO, Path) failed", e);
            }
            if (p.length == 5 && p[0] == FileIO.class && p[1] == Path.class && p[2] == String.class) {
                five = c;
            }
        }
        if (five == null) {
            throw new IllegalStateException(
                    "SnapshotManager has neither a (FileIO, Path) nor a (FileIO, Path, String, SnapshotLoader, Cache) constructor");
        }
        try {
            return (SnapshotManager) five.newInstance(fileIO, path, null, null, null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("new SnapshotManager(FileIO, Path, null, null, null) failed", e);
        }
    }

    /**
     * The row exporter this process uses: {@code "paimon-arrow"} (the release's own) or {@code
     * "bridge"} ({@link RowArrowExport}); see {@link RowExport#select}.
     */
    public static String arrowExport() {
        return RowExport.select().name();
    }

    /**
     * The table at {@code tableDir} with the dynamic options {@code optionsJson} (a JSON object of
     * string values, e.g. {@code {"scan.mode":"from-snapshot","scan.snapshot-id":"1"}}) applied by
     * the released {@code Table.copy(Map)}. Which options a scan mode sets is decided on the Rust side
     * ({@code jvm_bridge::scan_options}).
     */
    private static FileStoreTable openWithOptions(String tableDir, String optionsJson)
            throws Exception {
        JsonNode options = JsonSerdeUtil.fromJson(optionsJson, JsonNode.class);
        if (options == null || !options.isObject()) {
            throw new IllegalArgumentException("scan options JSON must be an object");
        }
        Map<String, String> dynamic = new HashMap<>();
        options.fields().forEachRemaining(e -> dynamic.put(e.getKey(), e.getValue().asText()));
        return openTable(tableDir).copy(dynamic);
    }

    /**
     * {@code newReadBuilder().newScan().plan()} of the table with the given dynamic options, and its
     * splits described.
     *
     * @return JSON array of {@code {"split": <native_reader::Split>, "payload": <base64 of the
     *     Java-serialized Split (DataSplit, or IncrementalSplit from 1.4)>}}; {@code bucket_path} is
     *     {@code DataSplit.bucketPath()} as is.
     */
    public static String planBatch(String tableDir, String optionsJson) throws Exception {
        FileStoreTable table = openWithOptions(tableDir, optionsJson);
        InternalRow.FieldGetter[] partitionGetters = partitionGetters(table);
        List<Object> out = new ArrayList<>();
        // A system table's own scan: `$ro` reads the top level of a primary-key table.
        Table scanned = readTable(tableDir, table);
        for (Split split : scanned.newReadBuilder().newScan().plan().splits()) {
            out.add(planned(split, table, partitionGetters));
        }
        return JsonSerdeUtil.toJson(out);
    }

    /**
     * Opens {@code newReadBuilder().newStreamScan()} of the table with the given dynamic options;
     * returns a handle for {@link #nextStreamPlan} and {@link #closeStreamScan}. The Rust side calls
     * {@code nextStreamPlan} until its stop rule ends the stream.
     */
    public static long openStreamScan(String tableDir, String optionsJson) throws Exception {
        FileStoreTable table = openWithOptions(tableDir, optionsJson);
        StreamTableScan scan = readTable(tableDir, table).newReadBuilder().newStreamScan();
        long handle = NEXT_HANDLE.getAndIncrement();
        SCANS.put(handle, new OpenScan(scan, table, partitionGetters(table)));
        return handle;
    }

    /**
     * One {@code StreamTableScan.plan()} of the scan behind {@code handle}.
     *
     * @return JSON {@code {"splits": [<as planBatch>], "checkpoint": <StreamTableScan.checkpoint(),
     *     the next snapshot to scan, or null>, "snapshot_not_exist": <the plan is a
     *     SnapshotNotExistPlan>, "end_of_scan": <the scan threw EndOfScanException: a bounded
     *     stream ended (scan.bounded.watermark), no split>}}
     */
    public static String nextStreamPlan(long handle) throws Exception {
        OpenScan open = SCANS.get(handle);
        if (open == null) {
            throw new IllegalArgumentException("unknown or closed scan handle " + handle);
        }
        synchronized (open) {
            TableScan.Plan plan;
            try {
                plan = open.scan.plan();
            } catch (EndOfScanException e) {
                Map<String, Object> out = new LinkedHashMap<>();
                out.put("splits", new ArrayList<>());
                out.put("checkpoint", open.scan.checkpoint());
                out.put("snapshot_not_exist", false);
                out.put("end_of_scan", true);
                return JsonSerdeUtil.toJson(out);
            }
            List<Object> splits = new ArrayList<>();
            for (Split split : plan.splits()) {
                splits.add(planned(split, open.table, open.partitionGetters));
            }
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("splits", splits);
            out.put("checkpoint", open.scan.checkpoint());
            out.put("snapshot_not_exist", plan instanceof SnapshotNotExistPlan);
            out.put("end_of_scan", false);
            return JsonSerdeUtil.toJson(out);
        }
    }

    /** Forgets the scan behind {@code handle}; unknown or already closed handles are ignored. */
    public static void closeStreamScan(long handle) {
        SCANS.remove(handle);
    }

    /** Stream scans opened by {@link #openStreamScan} and not yet closed. */
    public static int openScans() {
        return SCANS.size();
    }

    /** One open {@code StreamTableScan} and the partition getters of its table. */
    private static final class OpenScan {
        private final StreamTableScan scan;
        private final FileStoreTable table;
        private final InternalRow.FieldGetter[] partitionGetters;

        OpenScan(
                StreamTableScan scan,
                FileStoreTable table,
                InternalRow.FieldGetter[] partitionGetters) {
            this.scan = scan;
            this.table = table;
            this.partitionGetters = partitionGetters;
        }
    }

    /**
     * {@code InternalRow.createFieldGetter} for each field of the table's logical partition type
     * (the same call in every line; {@code RowType.fieldGetters()} is gone from 1.2).
     */
    private static InternalRow.FieldGetter[] partitionGetters(FileStoreTable table) {
        List<DataField> fields = table.schema().logicalPartitionType().getFields();
        InternalRow.FieldGetter[] getters = new InternalRow.FieldGetter[fields.size()];
        for (int i = 0; i < getters.length; i++) {
            getters[i] = InternalRow.createFieldGetter(fields.get(i).type(), i);
        }
        return getters;
    }

    private static Map<String, Object> planned(
            Split split, FileStoreTable table, InternalRow.FieldGetter[] partitionGetters)
            throws Exception {
        SplitView view = SplitView.of(split, table);
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("split", splitJson(view, partitionGetters));
        entry.put("split_type", view.kind);
        entry.put(
                "payload",
                Base64.getEncoder().encodeToString(InstantiationUtil.serializeObject(split)));
        entry.put("java_split", SplitWire.of(split));
        return entry;
    }

    private static Map<String, Object> splitJson(
            SplitView split, InternalRow.FieldGetter[] partitionGetters) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("snapshot_id", split.snapshotId);
        List<String> partition = new ArrayList<>();
        for (InternalRow.FieldGetter getter : partitionGetters) {
            Object v = getter.getFieldOrNull(split.partition);
            partition.add(v == null ? null : String.valueOf(v));
        }
        m.put("partition", partition);
        m.put("bucket", split.bucket);
        m.put("bucket_path", split.bucketPath);
        m.put("data_files", filesJson(split.dataFiles));
        m.put("before_files", filesJson(split.beforeFiles));
        m.put("deletion_files", deletionFilesJson(split.deletionFiles));
        m.put("before_deletion_files", deletionFilesJson(split.beforeDeletionFiles));
        m.put("is_streaming", split.isStreaming);
        m.put("raw_convertible", split.rawConvertible);
        return m;
    }

    /** Deletion files ({@code null} entries kept); empty when the split has none. */
    private static List<Object> deletionFilesJson(List<DeletionFile> deletionFiles) {
        List<Object> deletions = new ArrayList<>();
        if (deletionFiles != null) {
            for (DeletionFile d : deletionFiles) {
                if (d == null) {
                    deletions.add(null);
                } else {
                    Map<String, Object> dm = new LinkedHashMap<>();
                    dm.put("path", d.path());
                    dm.put("offset", d.offset());
                    dm.put("length", d.length());
                    dm.put("cardinality", d.cardinality());
                    deletions.add(dm);
                }
            }
        }
        return deletions;
    }

    private static List<Object> filesJson(List<DataFileMeta> files) {
        List<Object> out = new ArrayList<>();
        for (DataFileMeta f : files) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("file_name", f.fileName());
            m.put("level", f.level());
            m.put("row_count", f.rowCount());
            m.put("file_size", f.fileSize());
            m.put("min_sequence_number", f.minSequenceNumber());
            m.put("max_sequence_number", f.maxSequenceNumber());
            m.put("schema_id", f.schemaId());
            m.put("delete_row_count", f.deleteRowCount().orElse(null));
            m.put("min_key", unsigned(SerializationUtils.serializeBinaryRow(f.minKey())));
            m.put("max_key", unsigned(SerializationUtils.serializeBinaryRow(f.maxKey())));
            out.add(m);
        }
        return out;
    }

    /** Bytes as a list of unsigned ints (0..255), the JSON shape of Rust's {@code Vec<u8>}. */
    private static List<Integer> unsigned(byte[] bytes) {
        List<Integer> out = new ArrayList<>(bytes.length);
        for (byte b : bytes) {
            out.add(b & 0xff);
        }
        return out;
    }

    /**
     * Opens {@code table.newReadBuilder().newRead().createReader(split)} on the Split that
     * {@link #planBatch} or {@link #nextStreamPlan} serialized into {@code payload}; returns a handle for {@link #nextBatch}.
     */
    public static long openRead(String tableDir, byte[] payload) throws Exception {
        Object decoded =
                InstantiationUtil.deserializeObject(payload, StockReader.class.getClassLoader());
        if (!(decoded instanceof Split)) {
            throw new IllegalArgumentException(
                    "payload is not a Split but "
                            + (decoded == null ? "null" : decoded.getClass().getName()));
        }
        FileStoreTable table = openTable(tableDir);
        Table read = readTable(tableDir, table);
        RowType tableType = read.rowType();
        List<DataField> fields = new ArrayList<>();
        fields.add(new DataField(ROW_KIND_FIELD_ID, ROW_KIND_COLUMN, new TinyIntType(false)));
        // With alter-column-null-to-not-null.disabled=false, files written before a column became NOT
        // NULL keep their NULLs and the reader returns them; paimon-arrow 2.0's field writers reject a
        // NULL under a NOT NULL type, so such a table's columns are exported as nullable (the values are
        // the reader's, unchanged).
        boolean tightened =
                "false".equals(table.options().get("alter-column-null-to-not-null.disabled"));
        for (DataField f : tableType.getFields()) {
            fields.add(tightened ? f.newType(f.type().copy(true)) : f);
        }
        RowType exportType = new RowType(fields);
        RecordReader<InternalRow> reader =
                read.newReadBuilder().newRead().createReader((Split) decoded);
        long handle = NEXT_HANDLE.getAndIncrement();
        boolean blob = tableType.getFields().stream().anyMatch(f -> holdsBlob(f.type()));
        // `blob-as-descriptor`: a reader asking for descriptors gets each BLOB's serialized
        // `BlobDescriptor` (its `.blob` file, offset and length), as the Flink connector returns it.
        String asDescriptor = table.options().get("blob-as-descriptor");
        boolean descriptors = asDescriptor != null && "true".equalsIgnoreCase(asDescriptor.trim());
        READS.put(handle, new OpenRead(reader, exportType, RowExport.select(blob, descriptors)));
        return handle;
    }

    /**
     * Whether {@code type} is or holds a BLOB ({@code $binlog} of a BLOB column is an {@code
     * ARRAY<BLOB>}), which paimon-arrow does not export.
     */
    private static boolean holdsBlob(DataType type) {
        if (type.getTypeRoot().name().equals("BLOB")) {
            return true;
        }
        if (type instanceof ArrayType) {
            return holdsBlob(((ArrayType) type).getElementType());
        }
        if (type instanceof MapType) {
            MapType map = (MapType) type;
            return holdsBlob(map.getKeyType()) || holdsBlob(map.getValueType());
        }
        if (type instanceof RowType) {
            return ((RowType) type).getFields().stream().anyMatch(f -> holdsBlob(f.type()));
        }
        return false;
    }

    /**
     * Opens a read of the whole system table {@code location} names ({@code t$snapshots}): {@code
     * SystemTableLoader.load} of the data table, every split of its {@code newReadBuilder().newScan()}
     * read one after another; returns a handle for {@link #nextBatch}. The rows are exported with
     * {@code _row_kind} first, as {@link #openRead}'s.
     */
    public static long openSystemRead(String location) throws Exception {
        String[] located = TableLocations.splitSystem(location);
        if (located[1] == null) {
            throw new IllegalArgumentException(location + " names no system table");
        }
        Table system = readTable(location, openTable(located[0]));
        RowType type = system.rowType();
        List<DataField> fields = new ArrayList<>();
        fields.add(new DataField(ROW_KIND_FIELD_ID, ROW_KIND_COLUMN, new TinyIntType(false)));
        fields.addAll(type.getFields());
        List<Split> splits = system.newReadBuilder().newScan().plan().splits();
        RecordReader<InternalRow> reader = new SplitsReader(system.newReadBuilder().newRead(), splits);
        long handle = NEXT_HANDLE.getAndIncrement();
        READS.put(handle, new OpenRead(reader, new RowType(fields), RowExport.select()));
        return handle;
    }

    /** The splits of a plan read one after another by one {@code TableRead}. */
    private static final class SplitsReader implements RecordReader<InternalRow> {
        private final org.apache.paimon.table.source.TableRead read;
        private final java.util.Iterator<Split> splits;
        private RecordReader<InternalRow> current;

        SplitsReader(org.apache.paimon.table.source.TableRead read, List<Split> splits) {
            this.read = read;
            this.splits = splits.iterator();
        }

        @Override
        public RecordReader.RecordIterator<InternalRow> readBatch() throws java.io.IOException {
            while (true) {
                if (current == null) {
                    if (!splits.hasNext()) {
                        return null;
                    }
                    current = read.createReader(splits.next());
                }
                RecordReader.RecordIterator<InternalRow> batch = current.readBatch();
                if (batch != null) {
                    return batch;
                }
                current.close();
                current = null;
            }
        }

        @Override
        public void close() throws java.io.IOException {
            if (current != null) {
                current.close();
                current = null;
            }
        }
    }

    /**
     * Exports up to {@link #BATCH_ROWS} rows into the Rust-allocated {@code FFI_ArrowArray} /
     * {@code FFI_ArrowSchema} at the given addresses. Returns the row count, or -1 (nothing
     * exported) once the reader is exhausted.
     */
    public static int nextBatch(long handle, long arrayAddr, long schemaAddr) throws Exception {
        OpenRead read = READS.get(handle);
        if (read == null) {
            throw new IllegalArgumentException("unknown or closed reader handle " + handle);
        }
        synchronized (read) {
            return read.next(arrayAddr, schemaAddr);
        }
    }

    /** Closes the reader behind {@code handle}; unknown or already closed handles are ignored. */
    public static void closeRead(long handle) throws Exception {
        OpenRead read = READS.remove(handle);
        if (read != null) {
            synchronized (read) {
                read.close();
            }
        }
    }

    /**
     * Benchmark helper: reads the Split serialized in {@code payload} with the released reader and
     * only counts its rows (no Arrow export). Returns {@code {rows, nanos}}: the time of
     * {@code createReader} plus the whole read, by {@code System.nanoTime}.
     */
    public static long[] countSplit(String tableDir, byte[] payload) throws Exception {
        Object decoded =
                InstantiationUtil.deserializeObject(payload, StockReader.class.getClassLoader());
        if (!(decoded instanceof Split)) {
            throw new IllegalArgumentException("payload is not a Split");
        }
        Table table = readTable(tableDir, openTable(tableDir));
        long start = System.nanoTime();
        long rows = 0;
        try (RecordReader<InternalRow> reader =
                table.newReadBuilder().newRead().createReader((Split) decoded)) {
            RecordReader.RecordIterator<InternalRow> batch;
            while ((batch = reader.readBatch()) != null) {
                while (batch.next() != null) {
                    rows++;
                }
                batch.releaseBatch();
            }
        }
        return new long[] {rows, System.nanoTime() - start};
    }

    /** Bytes currently allocated by the export allocator (exported batches not yet released). */
    public static long allocatedBytes() {
        return ALLOCATOR.getAllocatedMemory();
    }

    /** Readers opened by {@link #openRead} and not yet closed. */
    public static int openReaders() {
        return READS.size();
    }

    /** One open {@code RecordReader} and its position. */
    private static final class OpenRead {
        private final RecordReader<InternalRow> reader;
        private final RowType exportType;
        private final RowExport export;
        private final GenericRow kindRow = new GenericRow(1);
        private final JoinedRow joined = new JoinedRow();
        private RecordReader.RecordIterator<InternalRow> batch;
        private boolean exhausted;

        OpenRead(RecordReader<InternalRow> reader, RowType exportType, RowExport export) {
            this.reader = reader;
            this.exportType = exportType;
            this.export = export;
        }

        int next(long arrayAddr, long schemaAddr) throws Exception {
            if (exhausted) {
                return -1;
            }
            VectorSchemaRoot root = export.createRoot(exportType, ALLOCATOR);
            try {
                root.allocateNew();
                RowExport.Rows writer = export.writer(root, exportType);
                int rows = 0;
                while (rows < BATCH_ROWS) {
                    if (batch == null) {
                        batch = reader.readBatch();
                        if (batch == null) {
                            exhausted = true;
                            break;
                        }
                    }
                    InternalRow row = batch.next();
                    if (row == null) {
                        batch.releaseBatch();
                        batch = null;
                        continue;
                    }
                    kindRow.setField(0, row.getRowKind().toByteValue());
                    joined.replace(kindRow, row);
                    writer.write(rows, joined);
                    rows++;
                }
                if (rows == 0) {
                    return -1;
                }
                root.setRowCount(rows);
                Data.exportVectorSchemaRoot(
                        ALLOCATOR,
                        root,
                        null,
                        ArrowArray.wrap(arrayAddr),
                        ArrowSchema.wrap(schemaAddr));
                return rows;
            } finally {
                root.close();
            }
        }

        void close() throws Exception {
            exhausted = true;
            try {
                if (batch != null) {
                    batch.releaseBatch();
                    batch = null;
                }
            } finally {
                reader.close();
            }
        }
    }
}
