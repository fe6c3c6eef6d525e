package org.paimonparity.bridge;

import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.options.Options;
import org.apache.paimon.utils.JsonSerdeUtil;

import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where the released reader finds a table: a local directory through {@code LocalFileIO}, or a URI of an
 * object store ({@code s3://bucket/wh/db.db/t}) through the release's own file system for its scheme,
 * picked by {@code FileIO.get(path, CatalogContext.create(options))} with the file-system options the
 * Rust side set ({@link #setOptions}: {@code s3.endpoint}, {@code s3.access-key}, …). Hadoop's {@code
 * s3a://} and {@code s3n://} are read as {@code s3://}, the one scheme {@code paimon-s3} registers.
 *
 * <p>One FileIO per scheme and authority, reused by every table and split of the process (a store's
 * FileIO holds its client and connection pool). The options hold secrets: they are never printed.
 */
public final class TableLocations {

    private static volatile Map<String, String> options = new HashMap<>();
    private static final Map<String, FileIO> STORES = new ConcurrentHashMap<>();

    private TableLocations() {}

    /**
     * Sets the file-system options (a JSON object of string values) for the stores opened from now on;
     * stores opened before with other options are dropped.
     */
    public static synchronized void setOptions(String optionsJson) {
        JsonNode node = JsonSerdeUtil.fromJson(optionsJson, JsonNode.class);
        if (node == null || !node.isObject()) {
            throw new IllegalArgumentException("file-system options must be a JSON object");
        }
        Map<String, String> map = new HashMap<>();
        node.fields().forEachRemaining(e -> map.put(e.getKey(), e.getValue().asText()));
        if (!map.equals(options)) {
            options = map;
            STORES.clear();
        }
    }

    /**
     * {@code location} split into the table's location and the branch its last component names
     * after {@code $branch_} (Paimon's name of a branch table), or {@code null}: {@code
     * "wh/t$branch_b1"} gives {@code {"wh/t", "b1"}}. The harness's {@code location::split_branch}.
     */
    public static String[] splitBranch(String location) {
        location = splitSystem(location)[0];
        int last = location.lastIndexOf('/') + 1;
        int at = location.indexOf("$branch_", last);
        if (at < 0 || at + "$branch_".length() >= location.length()) {
            return new String[] {location, null};
        }
        return new String[] {location.substring(0, at), location.substring(at + "$branch_".length())};
    }

    /**
     * {@code location} split into the location without the system table its last component names
     * after its last {@code $} (not a {@code $branch_} part), and that name, or {@code null}: {@code
     * "wh/t$branch_b1$row_tracking"} gives {@code {"wh/t$branch_b1", "row_tracking"}}, as Paimon's
     * {@code Identifier} reads {@code table$branch_b1$row_tracking}. The harness's {@code
     * location::split_system}.
     */
    public static String[] splitSystem(String location) {
        int last = location.lastIndexOf('/') + 1;
        int at = location.lastIndexOf('$');
        if (at <= last || at + 1 >= location.length() || location.startsWith("$branch_", at)) {
            return new String[] {location, null};
        }
        return new String[] {location.substring(0, at), location.substring(at + 1)};
    }

    /** {@code location} as Paimon's {@code Path}: {@code s3a://} and {@code s3n://} as {@code s3://}. */
    public static Path path(String location) {
        String lower = location.toLowerCase();
        if (lower.startsWith("s3a://") || lower.startsWith("s3n://")) {
            return new Path("s3://" + location.substring(6));
        }
        return new Path(location);
    }

    /** The FileIO of {@code location}: {@code LocalFileIO} for a path, else its store's (cached). */
    public static FileIO fileIO(String location) {
        Path path = path(location);
        URI uri = path.toUri();
        String scheme = uri.getScheme();
        if (scheme == null || scheme.equals("file")) {
            return LocalFileIO.create();
        }
        String key = scheme + "://" + (uri.getAuthority() == null ? "" : uri.getAuthority());
        return STORES.computeIfAbsent(
                key,
                k -> {
                    try {
                        return FileIO.get(path, CatalogContext.create(Options.fromMap(options)));
                    } catch (Exception e) {
                        throw new IllegalStateException(
                                "no file system for " + k + ": " + e.getClass().getName() + ": "
                                        + e.getMessage(),
                                e);
                    }
                });
    }
    /**
     * The warehouse of the catalog a table at {@code location} belongs to: the directory above its
     * {@code <db>.db} directory, or its own parent when that is not a database directory. The
     * harness's {@code native_reader::table::warehouse_of}.
     */
    public static String warehouse(String location) {
        String table = location.replaceAll("/+$", "");
        int slash = table.lastIndexOf('/');
        String parent = slash <= 0 ? "." : table.substring(0, slash);
        String name = parent.substring(parent.lastIndexOf('/') + 1);
        if (name.endsWith(".db") && parent.lastIndexOf('/') > 0) {
            return parent.substring(0, parent.lastIndexOf('/'));
        }
        return parent;
    }

    /**
     * The context of the filesystem catalog of {@code location}'s {@link #warehouse}, with the
     * file-system options the Rust side set.
     */
    public static CatalogContext catalogContext(String location) {
        Map<String, String> map = new HashMap<>(options);
        map.put("warehouse", path(warehouse(location)).toString());
        return CatalogContext.create(Options.fromMap(map));
    }

    /**
     * Deletes everything under {@code location} with its file system's recursive {@code delete}
     * (on a store: LIST, then DELETE of each object). Returns whether anything was deleted. Only
     * the sweep and the corpus writer call it, on tables they wrote themselves.
     */
    public static boolean deleteAll(String location) throws IOException {
        return fileIO(location).delete(path(location), true);
    }

    /**
     * Writes {@code content} (UTF-8) to the file at {@code location} with its file system's {@code
     * overwriteFileUtf8} (on a store: one PUT). The corpus writer writes a corpus's {@code
     * scenario.json} and {@code case.json} beside its table with it.
     */
    public static void writeUtf8(String location, String content) throws IOException {
        fileIO(location).overwriteFileUtf8(path(location), content);
    }

    /** Whether {@code location} is a URI with a scheme other than {@code file}: a store. */
    public static boolean isStore(String location) {
        String scheme = path(location).toUri().getScheme();
        return scheme != null && !scheme.equals("file");
    }

    /**
     * Runs {@code open} on the table at {@code location}; for a store, a failure is rethrown naming
     * the location and what failed ({@code cannot open the table at s3://...: <class>: <message>};
     * neither holds the options). Local tables fail exactly as before.
     */
    public static <T> T opening(String location, Callable<T> open) throws Exception {
        if (!isStore(location)) {
            return open.call();
        }
        try {
            return open.call();
        } catch (Exception | LinkageError e) {
            throw new IOException(
                    "cannot open the table at "
                            + location
                            + ": "
                            + e.getClass().getName()
                            + ": "
                            + e.getMessage(),
                    e);
        }
    }
}
