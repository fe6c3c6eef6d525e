package org.paimonparity.bridge;

import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.FileStatus;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.PositionOutputStream;
import org.apache.paimon.fs.SeekableInputStream;

import java.io.ByteArrayOutputStream;
import java.io.IOException;

/**
 * The crash points of {@link CrashPoints} on a table in an object store: the store's released
 * {@code FileIO} (S3's {@code S3FileIO} behind its plugin) with each primitive call numbered as the
 * store operation it stands for, and the window's fault at one of them ({@link FaultedOperations}).
 *
 * <ul>
 *   <li>{@code newInputStream}: {@code GET};
 *   <li>{@code newOutputStream}: the create's existence probe, {@code HEAD} (or {@code LIST} when
 *       it overwrites: S3A only checks that the key is no directory); the object appears at the
 *       stream's close, the {@code PUT} (a stream stopped by a crash never uploads);
 *   <li>{@code exists}, {@code getFileStatus}: {@code HEAD}; {@code listStatus}: {@code LIST};
 *       {@code delete}: {@code DELETE}; {@code mkdirs}: the {@code PUT} of a directory marker;
 *   <li>{@code rename}: two operations, as S3A renames a file: the {@code COPY} onto the target (the
 *       publication of a snapshot: it appears whole), then the {@code DELETE} of the source. A fault
 *       after the COPY (its acknowledgement lost) or at the DELETE leaves the temporary object
 *       behind.
 * </ul>
 *
 * <p>The COPY and DELETE of one rename are the released {@code rename} (both done) followed, for the
 * points between them, by the source put back as it was (an uncounted PUT of the bytes read before):
 * the store is then exactly as if the DELETE had not run. Every other default of {@code FileIO}
 * ({@code tryToWriteAtomic}, {@code overwriteFileUtf8}, ...) runs through these calls, as it does
 * over the store's own {@code FileIO}.
 */
public class FaultyStoreFileIO implements FileIO {

    private static final long serialVersionUID = 1L;

    /** The store's released {@code FileIO}, configured with the run's options. */
    private final FileIO store;

    /** The numbered operations of this instance and its crash. */
    private final transient FaultedOperations ops = new FaultedOperations();

    FaultyStoreFileIO(FileIO store) {
        this.store = store;
    }

    @Override
    public boolean isObjectStore() {
        return store.isObjectStore();
    }

    @Override
    public void configure(CatalogContext context) {
        // The store's FileIO is configured already (TableLocations).
    }

    @Override
    public SeekableInputStream newInputStream(Path path) throws IOException {
        return ops.op("GET", path, () -> store.newInputStream(path));
    }

    @Override
    public PositionOutputStream newOutputStream(Path path, boolean overwrite) throws IOException {
        PositionOutputStream out =
                ops.op(
                        overwrite ? "LIST" : "HEAD",
                        path,
                        () -> store.newOutputStream(path, overwrite));
        return ops.track(path, out, "PUT", true);
    }

    @Override
    public FileStatus getFileStatus(Path path) throws IOException {
        return ops.op("HEAD", path, () -> store.getFileStatus(path));
    }

    @Override
    public FileStatus[] listStatus(Path path) throws IOException {
        return ops.op("LIST", path, () -> store.listStatus(path));
    }

    @Override
    public boolean exists(Path path) throws IOException {
        return ops.op("HEAD", path, () -> store.exists(path));
    }

    @Override
    public boolean delete(Path path, boolean recursive) throws IOException {
        return ops.op("DELETE", path, () -> store.delete(path, recursive));
    }

    @Override
    public boolean mkdirs(Path path) throws IOException {
        return ops.op("PUT", new Path(path.toString() + "/"), () -> store.mkdirs(path));
    }

    @Override
    public boolean rename(Path src, Path dst) throws IOException {
        if (FaultedOperations.nested() || CrashPoints.of(dst) == null) {
            return ops.op("COPY", dst, () -> store.rename(src, dst));
        }
        // The source's bytes, to put it back for the points between the COPY and the DELETE.
        byte[] source = FaultedOperations.quietly(() -> readAll(src));
        boolean renamed =
                ops.op(
                        "COPY",
                        dst,
                        () -> {
                            boolean ok = store.rename(src, dst);
                            if (ok) {
                                putBack(src, source);
                            }
                            return ok;
                        });
        if (!renamed) {
            return false;
        }
        ops.op("DELETE", src, () -> store.delete(src, false));
        return true;
    }

    private byte[] readAll(Path path) throws IOException {
        try (SeekableInputStream in = store.newInputStream(path)) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buf = new byte[8192];
            for (int n; (n = in.read(buf)) > 0; ) {
                out.write(buf, 0, n);
            }
            return out.toByteArray();
        }
    }

    private void putBack(Path path, byte[] bytes) throws IOException {
        try (PositionOutputStream out = store.newOutputStream(path, true)) {
            out.write(bytes);
        }
    }
}
