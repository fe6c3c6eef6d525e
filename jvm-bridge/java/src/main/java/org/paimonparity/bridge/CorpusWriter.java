package org.paimonparity.bridge;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.fs.Path;
import org.apache.paimon.manifest.ManifestCommittable;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.schema.SchemaManager;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.apache.paimon.table.sink.TableCommitImpl;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataTypeJsonParser;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.JsonSerdeUtil;

import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes test tables with the released Paimon writer (jvm-bridge's {@code corpus} module).
 *
 * <p>Tables are created without a catalog ({@code SchemaManager.createTable}) and written with
 * {@code StreamWriteBuilder} / {@code StreamTableWrite} / {@code StreamTableCommit}, one writer
 * per commit user. A commit is two calls, {@link #prepare} then {@link #commitPrepared}, so that
 * the messages of a failed commit stay pending for {@link #recover} ({@code filterAndCommit} after
 * a restart with the same commit user). Faults are armed through {@link Faults}. The scenario
 * logic (which user writes what, when to fail, what to expect) lives in Rust.
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
        new SchemaManager(TableLocations.fileIO(tableDir), TableLocations.path(tableDir))
                .createTable(builder.build());
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
     *
     * <p>The table is opened on {@link FaultyFileIO} (the released {@code LocalFileIO} unless a
     * fault is armed) with the dynamic options {@code commit.callbacks} naming {@link
     * FailAfterAppendCallback} (a no-op unless armed) and its parameter, the table directory;
     * nothing else differs from a plain writer.
     */
    public static long openWriter(String tableDir, String commitUser, String ioTmpDir) {
        return openWriterWithOptions(tableDir, commitUser, ioTmpDir, "{}");
    }

    /**
     * {@link #openWriter} with dynamic table options for this writer only ({@code
     * {"data-file.prefix":"a-"}}), applied with {@code table.copy(options)}.
     */
    public static long openWriterWithOptions(
            String tableDir, String commitUser, String ioTmpDir, String optionsJson) {
        JsonNode options = JsonSerdeUtil.fromJson(optionsJson, JsonNode.class);
        if (options == null || !options.isObject()) {
            throw new IllegalArgumentException("writer options JSON must be an object");
        }
        Map<String, String> dynamic = new LinkedHashMap<>();
        Iterator<Map.Entry<String, JsonNode>> it = options.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            dynamic.put(e.getKey(), e.getValue().asText());
        }
        Writer w = new Writer(tableDir, commitUser, ioTmpDir, dynamic);
        w.open();
        long handle = NEXT_HANDLE.getAndIncrement();
        WRITERS.put(handle, w);
        return handle;
    }

    /**
     * Writes {@code [{"kind":"+I","values":[..]}, ..]}; values are in column order and converted
     * by column type (see {@link JsonRows#toInternal}). Remembers the (partition, bucket) of every row for
     * {@link #compactTouched}.
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
                GenericRow row = JsonRows.rowOf(fields, r);
                if (w.write instanceof TableWriteImpl) {
                    TableWriteImpl<?> impl = (TableWriteImpl<?>) w.write;
                    w.touched.add(new Touched(impl.getPartition(row).copy(), impl.getBucket(row)));
                }
                w.write.write(row);
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
                Object[] row = JsonRows.toRow(partitionType.getFields(), values);
                partition =
                        new InternalRowSerializer(partitionType)
                                .toBinaryRow(GenericRow.of(row))
                                .copy();
            }
            w.write.compact(partition, bucket, full);
        }
    }

    /**
     * {@code write.compact(partition, bucket, full)} for every (partition, bucket) written since
     * the last {@link #prepare}; returns how many.
     */
    public static int compactTouched(long handle, boolean full) throws Exception {
        Writer w = writer(handle);
        synchronized (w) {
            for (Touched t : w.touched) {
                w.write.compact(t.partition, t.bucket, full);
            }
            return w.touched.size();
        }
    }

    /**
     * {@code write.prepareCommit(waitCompaction, identifier)}; keeps the messages as pending for
     * {@link #commitPrepared} and {@link #recover}. Returns what they hold, as JSON: {@code
     * {"messages":n,"new_files":n,"deleted_files":n,"append_changelog":n,"compact_before":n,
     * "compact_after":n,"compact_changelog":n}} (file counts summed over the messages).
     */
    public static String prepare(long handle, long identifier, boolean waitCompaction)
            throws Exception {
        Writer w = writer(handle);
        synchronized (w) {
            if (w.pending.containsKey(identifier)) {
                throw new IllegalStateException(
                        "identifier " + identifier + " is already prepared and not committed");
            }
            List<CommitMessage> messages = w.write.prepareCommit(waitCompaction, identifier);
            w.pending.put(identifier, messages);
            w.kept.put(identifier, messages);
            w.touched.clear();
            return summary(messages);
        }
    }

    /**
     * {@code commit.commit(identifier, messages)} with the messages {@link #prepare} kept. On
     * success they are dropped; on failure they stay pending for {@link #recover}, and the write
     * and commit must not be used again before {@link #recover} or {@link #reopen}.
     */
    public static void commitPrepared(long handle, long identifier) throws Exception {
        Writer w = writer(handle);
        synchronized (w) {
            w.commit.commit(identifier, prepared(w, identifier));
            w.pending.remove(identifier);
        }
    }

    /**
     * {@link #commitPrepared} of a committable that carries {@code watermark}, as Flink's committer
     * commits its checkpoint's watermark: {@code TableCommitImpl.commit(ManifestCommittable)}, the
     * call {@code commit(identifier, messages)} makes with no watermark. The snapshots it publishes
     * carry the larger of {@code watermark} and the latest snapshot's.
     */
    public static void commitPreparedWithWatermark(long handle, long identifier, long watermark)
            throws Exception {
        Writer w = writer(handle);
        synchronized (w) {
            ManifestCommittable committable = new ManifestCommittable(identifier, watermark);
            for (CommitMessage message : prepared(w, identifier)) {
                committable.addFileCommittable(message);
            }
            ((TableCommitImpl) w.commit).commit(committable);
            w.pending.remove(identifier);
        }
    }

    private static List<CommitMessage> prepared(Writer w, long identifier) {
        List<CommitMessage> messages = w.pending.get(identifier);
        if (messages == null) {
            throw new IllegalStateException("identifier " + identifier + " is not prepared");
        }
        return messages;
    }

    /**
     * What a restarted job does: closes the write and the commit, builds new ones from a freshly
     * loaded table with the same commit user, and calls {@code filterAndCommit} with every pending
     * identifier. Returns how many identifiers it committed (Paimon's answer).
     */
    public static int recover(long handle) throws Exception {
        Writer w = writer(handle);
        synchronized (w) {
            Map<Long, List<CommitMessage>> pending = new LinkedHashMap<>(w.pending);
            w.pending.clear();
            w.reopen();
            return w.commit.filterAndCommit(pending);
        }
    }

    /**
     * What a job restarted from the checkpoint that holds the committables of {@code identifier}
     * does, whether or not their commit returned: closes the write and the commit (errors ignored:
     * after a crash they are gone), builds new ones with the same commit user from a freshly loaded
     * table, and calls {@code filterAndCommit} with that identifier and the messages {@link
     * #prepare} returned for it. Can be called again (a second restart from the same checkpoint).
     * Returns how many identifiers Paimon committed.
     */
    public static int recoverIdentifier(long handle, long identifier) throws Exception {
        Writer w = writer(handle);
        synchronized (w) {
            return w.commit.filterAndCommit(restart(w, identifier));
        }
    }

    /**
     * The restart of {@link #recoverIdentifier}: drops {@code identifier} from the pending ones,
     * reopens the write and the commit, and returns the committables to recover (that identifier
     * with the messages {@link #prepare} returned for it). The caller holds {@code w}'s lock.
     */
    private static Map<Long, List<CommitMessage>> restart(Writer w, long identifier) {
        List<CommitMessage> messages = w.kept.get(identifier);
        if (messages == null) {
            throw new IllegalStateException("identifier " + identifier + " was never prepared");
        }
        w.pending.remove(identifier);
        w.reopen();
        Map<Long, List<CommitMessage>> committables = new LinkedHashMap<>();
        committables.put(identifier, messages);
        return committables;
    }

    /**
     * {@link #recoverIdentifier} with a recovery strategy: {@code stock} ({@code filterAndCommit},
     * as released) or {@code pair-aware} ({@link PairAwareRecovery}: the missing COMPACT half of an
     * identifier whose APPEND is durable is committed first). Returns, as JSON, {@code
     * {"committed":n,"compact_halves":[identifiers],"conflicts":[identifiers]}}.
     */
    public static String recoverIdentifierWith(long handle, long identifier, String strategy)
            throws Exception {
        Writer w = writer(handle);
        synchronized (w) {
            Map<Long, List<CommitMessage>> committables = restart(w, identifier);
            switch (strategy) {
                case "stock":
                    return "{\"committed\":"
                            + w.commit.filterAndCommit(committables)
                            + ",\"compact_halves\":[],\"conflicts\":[]}";
                case "pair-aware":
                    PairAwareRecovery.Outcome o =
                            PairAwareRecovery.recover(
                                    w.table, w.commitUser, committables, w.commit);
                    return "{\"committed\":"
                            + o.committed()
                            + ",\"compact_halves\":"
                            + o.compactHalves
                            + ",\"conflicts\":"
                            + o.conflicts
                            + "}";
                default:
                    throw new IllegalArgumentException("unknown recovery strategy " + strategy);
            }
        }
    }

    /** {@link CrashPoints#open}: numbers the table's file operations from now on, with one fault. */
    public static void openCrashWindow(String tableDir, String mode, int at) {
        CrashPoints.open(tableDir, mode, at);
    }

    /** {@link CrashPoints#close}: the operations of the table's window, as JSON. */
    public static String closeCrashWindow(String tableDir) {
        return CrashPoints.close(tableDir);
    }

    /**
     * Closes the write and the commit and builds new ones with the same commit user, as a job
     * restarted from its last successful checkpoint does (they restore from the latest
     * snapshot). Fails when prepared messages are pending (use {@link #recover}).
     */
    public static void reopen(long handle) throws Exception {
        Writer w = writer(handle);
        synchronized (w) {
            if (!w.pending.isEmpty()) {
                throw new IllegalStateException(
                        "identifiers " + w.pending.keySet() + " are pending; recover them first");
            }
            w.reopen();
        }
    }

    /**
     * {@code table.createTag(name, snapshot)}: tag {@code tag/tag-<name>} of snapshot {@code
     * snapshot} ({@code TagManager}: the snapshot's JSON); with {@code timeRetained} (an ISO-8601
     * duration, {@code Duration.parse}) {@code table.createTag(name, snapshot, duration)}, whose tag
     * also holds its create time and retention ({@code Tag.fromSnapshotAndTagTtl}).
     */
    public static void createTag(String tableDir, String name, long snapshot, String timeRetained) {
        FileStoreTable table =
                FileStoreTableFactory.create(
                        TableLocations.fileIO(tableDir), TableLocations.path(tableDir));
        if (timeRetained == null) {
            table.createTag(name, snapshot);
        } else {
            table.createTag(name, snapshot, java.time.Duration.parse(timeRetained));
        }
    }

    /**
     * {@code new ConsumerManager(fileIO, tablePath).resetConsumer(id, new Consumer(nextSnapshot))}:
     * {@code consumer/consumer-<id>}, where a streaming scan with {@code consumer-id=<id>} starts.
     */
    public static void resetConsumer(String tableDir, String id, long nextSnapshot) {
        new org.apache.paimon.consumer.ConsumerManager(
                        TableLocations.fileIO(tableDir), TableLocations.path(tableDir))
                .resetConsumer(id, new org.apache.paimon.consumer.Consumer(nextSnapshot));
    }

    /**
     * {@code table.createBranch(name)}: an empty branch {@code branch/branch-<name>/} with the
     * table's latest schema ({@code BranchManager}); its writers open it with the writer option
     * {@code branch}.
     */
    public static void createBranch(String tableDir, String name) {
        FileStoreTableFactory.create(TableLocations.fileIO(tableDir), TableLocations.path(tableDir))
                .createBranch(name);
    }

    /**
     * One batch overwrite, the released batch write path of {@code
     * newBatchWriteBuilder().withOverwrite(staticPartition)} ({@code BatchWriteBuilderImpl}): {@code
     * table.newWrite(commitUser).withIgnorePreviousFiles(true).withExecutionMode(false)}, the rows
     * written, {@code prepareCommit()}, then {@code table.newCommit(commitUser)
     * .withOverwrite(staticPartition).ignoreEmptyCommit(true).commit(messages)} (identifier {@code
     * BatchWriteBuilder.COMMIT_IDENTIFIER}). The only difference from {@code BatchWriteBuilderImpl}
     * is the commit user, given instead of a random UUID so that a corpus is reproducible.
     *
     * <p>{@code partitionValuesJson} is {@code null} (overwrite the whole table) or the JSON array
     * of static partition values for the first partition keys, rendered with {@code asText()}
     * ({@code [1]} gives {@code {"p":"1"}}). With {@code dynamic-partition-overwrite=true} (the
     * default) Paimon overwrites only the partitions the rows touch. The table is opened on the
     * released {@code LocalFileIO} with {@code optionsJson} as dynamic options. Returns what {@link
     * #prepare} returns for the messages.
     */
    public static String overwrite(
            String tableDir,
            String commitUser,
            String ioTmpDir,
            String optionsJson,
            String partitionValuesJson,
            String rowsJson)
            throws Exception {
        JsonNode options = JsonSerdeUtil.fromJson(optionsJson, JsonNode.class);
        if (options == null || !options.isObject()) {
            throw new IllegalArgumentException("writer options JSON must be an object");
        }
        Map<String, String> dynamic = new LinkedHashMap<>();
        Iterator<Map.Entry<String, JsonNode>> it = options.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            dynamic.put(e.getKey(), e.getValue().asText());
        }
        FileStoreTable table =
                FileStoreTableFactory.create(
                                TableLocations.fileIO(tableDir), TableLocations.path(tableDir))
                        .copy(dynamic);
        Map<String, String> staticPartition = new LinkedHashMap<>();
        if (partitionValuesJson != null) {
            JsonNode values = JsonSerdeUtil.fromJson(partitionValuesJson, JsonNode.class);
            List<String> keys = table.schema().partitionKeys();
            if (values == null || !values.isArray() || values.size() > keys.size()) {
                throw new IllegalArgumentException(
                        "overwrite partition must be a JSON array of at most "
                                + keys.size()
                                + " partition values");
            }
            for (int i = 0; i < values.size(); i++) {
                if (values.get(i).isNull()) {
                    throw new IllegalArgumentException("overwrite partition values cannot be null");
                }
                staticPartition.put(keys.get(i), values.get(i).asText());
            }
        }
        JsonNode rows = JsonSerdeUtil.fromJson(rowsJson, JsonNode.class);
        if (rows == null || !rows.isArray()) {
            throw new IllegalArgumentException("rows JSON must be an array");
        }
        List<DataField> fields = table.rowType().getFields();
        try (IOManager io = IOManager.create(ioTmpDir);
                TableWriteImpl<?> write =
                        Compat.batchExecution(table.newWrite(commitUser))
                                .withIgnorePreviousFiles(true)
                                .withIOManager(io);
                TableCommitImpl commit =
                        table.newCommit(commitUser)
                                .withOverwrite(staticPartition)
                                .ignoreEmptyCommit(true)) {
            for (JsonNode r : rows) {
                write.write(JsonRows.rowOf(fields, r));
            }
            List<CommitMessage> messages = write.prepareCommit();
            String summary = summary(messages);
            commit.commit(messages);
            return summary;
        }
    }

    /**
     * What a prepared commit holds, as JSON: the number of messages, and of new, deleted and changelog files
     * of the writes and of compaction before and after files and compaction changelog files.
     */
    static String summary(List<CommitMessage> messages) {
        long[] n = new long[6];
        for (CommitMessage m : messages) {
            if (!(m instanceof CommitMessageImpl)) {
                continue;
            }
            CommitMessageImpl c = (CommitMessageImpl) m;
            n[0] += c.newFilesIncrement().newFiles().size();
            n[1] += c.newFilesIncrement().deletedFiles().size();
            n[2] += c.newFilesIncrement().changelogFiles().size();
            n[3] += c.compactIncrement().compactBefore().size();
            n[4] += c.compactIncrement().compactAfter().size();
            n[5] += c.compactIncrement().changelogFiles().size();
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("messages", messages.size());
        out.put("new_files", n[0]);
        out.put("deleted_files", n[1]);
        out.put("append_changelog", n[2]);
        out.put("compact_before", n[3]);
        out.put("compact_after", n[4]);
        out.put("compact_changelog", n[5]);
        return JsonSerdeUtil.toJson(out);
    }

    /** Arms a fault of {@link Faults} by name for the table at {@code tableDir}. */
    public static void armFault(String tableDir, String fault) {
        Faults.arm(fault, tableDir);
    }

    /**
     * Disarms every fault of the table at {@code tableDir}; returns those that were armed and did
     * not fire (comma-separated).
     */
    public static String disarmFaults(String tableDir) {
        return Faults.disarmAll(tableDir);
    }

    /**
     * {@code new SchemaManager(FileIO, table).commitChanges(...)} for {@code
     * [{"op":"add-column","name":..,"type":..}, {"op":"rename-column","from":..,"to":..},
     * {"op":"drop-column","name":..}, {"op":"set-option","key":..,"value":..},
     * {"op":"remove-option","key":..}, {"op":"update-column-nullability","name":..,"nullable":..}]}.
     * Open writers of the table keep the old schema: reopen
     * them.
     */
    public static void alterTable(String tableDir, String changesJson) throws Exception {
        JsonNode changes = JsonSerdeUtil.fromJson(changesJson, JsonNode.class);
        if (changes == null || !changes.isArray()) {
            throw new IllegalArgumentException("changes JSON must be an array");
        }
        List<SchemaChange> out = new ArrayList<>();
        for (JsonNode c : changes) {
            String op = text(c, "op");
            switch (op) {
                case "add-column":
                    out.add(
                            SchemaChange.addColumn(
                                    text(c, "name"), DataTypeJsonParser.parseDataType(c.get("type"))));
                    break;
                case "rename-column":
                    out.add(SchemaChange.renameColumn(text(c, "from"), text(c, "to")));
                    break;
                case "drop-column":
                    out.add(SchemaChange.dropColumn(text(c, "name")));
                    break;
                case "update-column-type":
                    out.add(
                            SchemaChange.updateColumnType(
                                    text(c, "name"), DataTypeJsonParser.parseDataType(c.get("type"))));
                    break;
                case "move-first":
                    out.add(SchemaChange.updateColumnPosition(SchemaChange.Move.first(text(c, "name"))));
                    break;
                case "update-column-nullability":
                    JsonNode nullable = c.get("nullable");
                    if (nullable == null || !nullable.isBoolean()) {
                        throw new IllegalArgumentException("\"nullable\" must be a boolean in " + c);
                    }
                    out.add(
                            SchemaChange.updateColumnNullability(
                                    text(c, "name"), nullable.booleanValue()));
                    break;
                case "set-option":
                    out.add(SchemaChange.setOption(text(c, "key"), text(c, "value")));
                    break;
                case "remove-option":
                    out.add(SchemaChange.removeOption(text(c, "key")));
                    break;
                default:
                    throw new IllegalArgumentException("unknown schema change op '" + op + "'");
            }
        }
        new SchemaManager(TableLocations.fileIO(tableDir), TableLocations.path(tableDir))
                .commitChanges(out);
    }

    private static String text(JsonNode node, String key) {
        JsonNode v = node.get(key);
        if (v == null || !v.isTextual()) {
            throw new IllegalArgumentException("\"" + key + "\" must be a string in " + node);
        }
        return v.asText();
    }

    /** Closes the write, the commit and the IOManager; unknown handles are ignored. */
    public static void closeWriter(long handle) throws Exception {
        Writer w = WRITERS.remove(handle);
        if (w == null) {
            return;
        }
        synchronized (w) {
            w.close();
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

    /** A (partition, bucket) written since the last prepare. */
    private static final class Touched {
        final BinaryRow partition;
        final int bucket;

        Touched(BinaryRow partition, int bucket) {
            this.partition = partition;
            this.bucket = bucket;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Touched)) {
                return false;
            }
            Touched t = (Touched) o;
            return bucket == t.bucket && partition.equals(t.partition);
        }

        @Override
        public int hashCode() {
            return 31 * partition.hashCode() + bucket;
        }
    }

    /** One open writer: a commit user's write and commit, rebuilt on {@link #reopen}. */
    private static final class Writer {
        final String tableDir;
        final String commitUser;
        final String ioTmpDir;
        final Map<String, String> options;
        final Set<Touched> touched = new LinkedHashSet<>();
        final Map<Long, List<CommitMessage>> pending = new TreeMap<>();
        /** The messages of every identifier prepared, for {@link #recoverIdentifier}. */
        final Map<Long, List<CommitMessage>> kept = new TreeMap<>();
        FileStoreTable table;
        StreamTableWrite write;
        StreamTableCommit commit;
        IOManager io;

        Writer(String tableDir, String commitUser, String ioTmpDir, Map<String, String> options) {
            this.tableDir = tableDir;
            this.commitUser = commitUser;
            this.ioTmpDir = ioTmpDir;
            this.options = options;
        }

        void open() {
            Map<String, String> dynamic = new HashMap<>(options);
            dynamic.put("commit.callbacks", FailAfterAppendCallback.class.getName());
            dynamic.put(
                    "commit.callback." + FailAfterAppendCallback.class.getName() + ".param",
                    tableDir);
            // A writer of a branch (writer option `branch`): `switchToBranch`, then the options.
            String branch = dynamic.remove("branch");
            FileStoreTable base =
                    FileStoreTableFactory.create(
                            FaultyFileIO.forTable(tableDir), TableLocations.path(tableDir));
            if (branch != null) {
                base = base.switchToBranch(branch);
            }
            FileStoreTable t = base.copy(dynamic);
            StreamWriteBuilder builder = t.newStreamWriteBuilder().withCommitUser(commitUser);
            IOManager newIo = IOManager.create(ioTmpDir);
            StreamTableWrite newWrite = null;
            try {
                newWrite = builder.newWrite();
                newWrite.withIOManager(newIo);
                StreamTableCommit newCommit = builder.newCommit();
                table = t;
                write = newWrite;
                commit = newCommit;
                io = newIo;
                touched.clear();
            } catch (RuntimeException | Error e) {
                closeQuietly(newWrite, e);
                closeQuietly(newIo, e);
                throw e;
            }
        }

        /** Closes the current write and commit (errors ignored: they may be broken) and opens anew. */
        void reopen() {
            RuntimeException ignored = new RuntimeException("close before reopen");
            closeQuietly(write, ignored);
            closeQuietly(commit, ignored);
            closeQuietly(io, ignored);
            open();
        }

        void close() throws Exception {
            Exception first = null;
            for (AutoCloseable c : new AutoCloseable[] {write, commit, io}) {
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
}
