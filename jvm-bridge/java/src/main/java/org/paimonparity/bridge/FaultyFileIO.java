package org.paimonparity.bridge;

import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.SeekableInputStream;
import org.apache.paimon.fs.local.LocalFileIO;

import java.io.IOException;

/**
 * The released {@code LocalFileIO}, plus the manifest-read fault of {@link Faults}: once armed for a
 * table, the first successful rename onto its {@code snapshot/snapshot-N} (the atomic publication
 * of a snapshot) makes the next read of a file under its {@code manifest/} throw. Without an armed
 * fault it behaves exactly like {@code LocalFileIO}.
 */
public class FaultyFileIO extends LocalFileIO {

    private static final long serialVersionUID = 1L;

    @Override
    public boolean rename(Path src, Path dst) throws IOException {
        boolean ok = super.rename(src, dst);
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
        return super.newInputStream(path);
    }
}
