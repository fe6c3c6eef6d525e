"""The archive shipped to every executor: the `paimon-parity` binary and the Java side of the releases.

Layout inside the archive (unpacked by Spark as `pp/`, from `--archives bundle.tar.gz#pp` or
`SparkContext.addArchive`)::

    bin/paimon-parity
    java/paimon-<V>/classes/...     the bridge's classes, built against release V
    java/paimon-<V>/lib/*.jar       release V and its dependencies
    BUNDLE.json                     what the archive holds: releases, binary size, when it was made

A task points the binary at `java/` with `PAIMON_PARITY_JAVA_TARGET`. The class-data archives (`*.jsa`) stay
out: they record absolute class paths, which differ once unpacked.
"""

from __future__ import annotations

import hashlib
import json
import os
import tarfile
import time
from pathlib import Path

#: The name the archive is unpacked under on every executor (`#pp` fragment).
ARCHIVE_NAME = "pp"


class BundleError(Exception):
    """The archive cannot be built: a missing binary or release build (the message names it)."""


def _fingerprint(binary: Path, java_target: Path, releases: list[str]) -> str:
    """A key that changes when the binary or a release's build changes (sizes and modification times)."""
    h = hashlib.sha256()
    for path in [binary] + [java_target / f"paimon-{v}" for v in releases]:
        for root, _dirs, files in os.walk(path) if path.is_dir() else [(str(path.parent), [], [path.name])]:
            for name in sorted(files):
                p = Path(root) / name
                if p.suffix in (".jsa", ".log", ".classpath"):
                    continue
                st = p.stat()
                h.update(f"{p}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:16]


def build(binary: Path, java_target: Path, releases: list[str], cache_dir: Path) -> Path:
    """Builds (or reuses) the archive of `binary` and the builds of `releases` under `java_target`.

    Returns the path of `bundle-<fingerprint>.tar.gz` in `cache_dir`; an archive with the same fingerprint
    is reused. Raises BundleError naming a missing binary or release build.
    """
    if not binary.is_file():
        raise BundleError(f"{binary}: no paimon-parity binary there (cargo build -p harness --bin paimon-parity)")
    for v in releases:
        classes = java_target / f"paimon-{v}" / "classes"
        if not classes.is_dir():
            raise BundleError(
                f"{java_target / f'paimon-{v}'}: the Java side of Paimon {v} is not built "
                f"(scripts/build-java --paimon-version {v})"
            )
    cache_dir.mkdir(parents=True, exist_ok=True)
    out = cache_dir / f"bundle-{_fingerprint(binary, java_target, releases)}.tar.gz"
    if out.is_file():
        os.utime(out)
        return out
    # Every rebuilt binary makes a new archive: keep the two used last.
    old = sorted(cache_dir.glob("bundle-*.tar.gz"), key=lambda p: p.stat().st_mtime, reverse=True)
    for stale in old[1:]:
        stale.unlink(missing_ok=True)
    tmp = out.with_suffix(f".tmp-{os.getpid()}")
    manifest = {
        "releases": releases,
        "binary_bytes": binary.stat().st_size,
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    # Jars are compressed already: the fastest gzip level costs little size.
    with tarfile.open(tmp, "w:gz", compresslevel=1) as tar:
        tar.add(binary, arcname="bin/paimon-parity")
        for v in releases:
            build_dir = java_target / f"paimon-{v}"
            for sub in ("classes", "lib"):
                tar.add(build_dir / sub, arcname=f"java/paimon-{v}/{sub}")
            for jar in sorted(build_dir.glob("*.jar")):
                tar.add(jar, arcname=f"java/paimon-{v}/{jar.name}")
        data = json.dumps(manifest, indent=2).encode()
        info = tarfile.TarInfo("BUNDLE.json")
        info.size = len(data)
        import io

        tar.addfile(info, io.BytesIO(data))
    tmp.replace(out)
    return out
