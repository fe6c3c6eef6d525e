package org.paimonparity.bridge;

import org.apache.paimon.fs.FileStatus;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.PositionOutputStream;
import org.apache.paimon.fs.SeekableInputStream;
import org.apache.paimon.fs.local.LocalFileIO;

import java.io.IOException;

/**
 * The released {@code LocalFileIO}, plus two kinds of faults. Without either it behaves exactly like
 * {@code LocalFileIO}.
 *
 * <ul>
 *   <li>The manifest-read fault of {@link Faults}: once armed for a table, the first successful
 *       rename onto its {@code snapshot/snapshot-N} (the atomic publication of a snapshot) makes the
 *       next read of a file under its {@code manifest/} throw.
 *   <li>The crash points of {@link CrashPoints}: while a table's window is open, every primitive
 *       operation on a path under it is numbered and recorded, and one of them can crash this
 *       instance (it and every later operation throw; its output streams fail without closing),
 *       fail before it takes effect, or fail after ({@link FaultedOperations}, shared with {@link
 *       FaultyStoreFileIO}).
 * </ul>
 */
public class FaultyFileIO extends LocalFileIO {

    private static final long serialVersionUID = 1L;

    /** The numbered operations of this instance and its crash. */
    private final transient FaultedOperations ops = new FaultedOperations();

    /**
     * The faulty file system of the table at {@code tableDir}: this class on local disk, {@link
     * FaultyStoreFileIO} over the store's released {@code FileIO} for a store URI.
     */
    static org.apache.paimon.fs.FileIO forTable(String tableDir) {
        return TableLocations.isStore(tableDir)
                ? new FaultyStoreFileIO(TableLocations.fileIO(tableDir))
                : new FaultyFileIO();
    }

    @Override
    public boolean rename(Path src, Path dst) throws IOException {
        boolean ok = ops.op("rename", dst, () -> super.rename(src, dst));
        Path dir = dst.getParent();
        if (ok
                && dst.getName().startsWith("snapshot-")
                && dir != null
                && "snapshot".equals(dir.getName())) {
            Faults.Switches s = Faults.of(dir.getParent());
            if (s != null && s.manifestArmed.compareAndSet(true, false)) {
                s.manifestFire.set(true);
            }
        }
        return ok;
    }

    @Override
    public SeekableInputStream newInputStream(Path path) throws IOException {
        Path dir = path.getParent();
        if (dir != null && "manifest".equals(dir.getName())) {
            Faults.Switches s = Faults.of(dir.getParent());
            if (s != null && s.manifestFire.compareAndSet(true, false)) {
                throw new IOException(Faults.INJECTED + ": manifest read " + path);
            }
        }
        return ops.op("newInputStream", path, () -> super.newInputStream(path));
    }

    @Override
    public PositionOutputStream newOutputStream(Path path, boolean overwrite) throws IOException {
        PositionOutputStream out =
                ops.op("newOutputStream", path, () -> super.newOutputStream(path, overwrite));
        return ops.track(path, out, "close", false);
    }

    @Override
    public FileStatus getFileStatus(Path path) throws IOException {
        return ops.op("getFileStatus", path, () -> super.getFileStatus(path));
    }

    @Override
    public FileStatus[] listStatus(Path path) throws IOException {
        return ops.op("listStatus", path, () -> super.listStatus(path));
    }

    @Override
    public boolean exists(Path path) throws IOException {
        return ops.op("exists", path, () -> super.exists(path));
    }

    @Override
    public boolean delete(Path path, boolean recursive) throws IOException {
        return ops.op("delete", path, () -> super.delete(path, recursive));
    }

    @Override
    public boolean mkdirs(Path path) throws IOException {
        return ops.op("mkdirs", path, () -> super.mkdirs(path));
    }
}
