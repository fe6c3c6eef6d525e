#!/usr/bin/env python3
"""`paimon-parity-reader/1` adapter for the released PyPI package pypaimon 2.1.0.

Run with the interpreter of the virtual environment that `adapters/pypaimon/setup` prints:

    VENV/bin/python adapters/pypaimon/paimon_parity_pypaimon.py describe
    VENV/bin/python adapters/pypaimon/paimon_parity_pypaimon.py < request.json > streams.arrows

The request (JSON on stdin) and the answer (one Arrow IPC stream per split on stdout) are described in
`adapters/README.md`. This adapter only drives pypaimon: it never corrects what pypaimon returns. Both of
pypaimon's routes into its Rust binding (`scan.native-plan.enabled`, `read.native.enabled`) are pinned to
`false`, so the Python planner and reader are what is measured.
"""

import base64
import copy
import json
import logging
import os
import struct
import sys
import traceback

PROTOCOL = "paimon-parity-reader/1"
READER = "pypaimon 2.1.0"
ACTIONS = ["read", "plan"]

# org.apache.paimon.types.RowKind#toByteValue, keyed by the short strings pypaimon puts in `_row_kind`.
ROW_KIND_CODES = {"+I": 0, "-U": 1, "+U": 2, "-D": 3}
ROW_KIND_COLUMN = "_row_kind"

# Options forced onto the table whatever the request asks: keep pypaimon off its Rust paths.
PINNED_OPTIONS = {
    "scan.native-plan.enabled": "false",
    "read.native.enabled": "false",
}

# SplitSerializer frame: i64 "SPLIT_V1", i32 frame version 1, i32 split type (1 = DataSplit).
SPLIT_V1_HEADER = struct.pack(">qii", 0x53504C49545F5631, 1, 1)
DATA_SPLIT_MAGIC = -2394839472490812314
# DataSplit body versions whose DataFileMeta rows pypaimon 2.1.0 decodes.
DECODABLE_BODY_VERSIONS = (8, 9)

MESSAGE_LIMIT = 2000

log = logging.getLogger("paimon-parity-pypaimon")


class Unsupported(Exception):
    """Something a split needs that pypaimon 2.1.0 (or this adapter on top of it) does not provide."""


class UnusableRequest(Exception):
    """The request cannot be understood at all: answered on stderr with exit status 2."""


# --------------------------------------------------------------------------------------------------
# Output plumbing


def claim_stdout():
    """Keep fd 1 for the Arrow streams only.

    Returns a binary file on a duplicate of the original stdout and points fd 1 (and `sys.stdout`) at
    stderr, so a stray `print` or a native library writing to fd 1 cannot corrupt the IPC streams.
    """
    sys.stdout.flush()
    out_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(out_fd, "wb", buffering=1 << 16)


def one_line(text, limit=MESSAGE_LIMIT):
    text = " ".join(str(text).split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text


def describe_exception(error):
    message = one_line(error)
    if isinstance(error, Unsupported):
        return message
    name = type(error).__name__
    return "%s: %s" % (name, message) if message else name


def relax_type(pa, data_type):
    """`data_type` with every nested field nullable (map keys stay non-null, as Arrow requires)."""
    t = pa.types
    if t.is_struct(data_type):
        return pa.struct([relax_field(pa, data_type.field(i)) for i in range(data_type.num_fields)])
    if t.is_map(data_type):
        return pa.map_(
            data_type.key_field,
            relax_field(pa, data_type.item_field),
            keys_sorted=data_type.keys_sorted,
        )
    if t.is_large_list(data_type):
        return pa.large_list(relax_field(pa, data_type.value_field))
    if t.is_fixed_size_list(data_type):
        return pa.list_(relax_field(pa, data_type.value_field), data_type.list_size)
    if t.is_list(data_type):
        return pa.list_(relax_field(pa, data_type.value_field))
    return data_type


def relax_field(pa, field):
    return pa.field(field.name, relax_type(pa, field.type), nullable=True, metadata=field.metadata)


def row_kind_field(pa):
    return pa.field(ROW_KIND_COLUMN, pa.int8(), nullable=False)


def table_answer_schema(pa, table):
    """The columns every stream carries: `_row_kind`, then the table's fields, all nullable."""
    from pypaimon.schema.data_types import PyarrowFieldParser

    fields = [row_kind_field(pa)]
    for data_field in table.fields:
        fields.append(relax_field(pa, PyarrowFieldParser.from_paimon_field(data_field)))
    return pa.schema(fields)


def fallback_schema(pa, table):
    """A schema for a stream that carries no rows, even when the table's types cannot be mapped."""
    if table is not None:
        try:
            return table_answer_schema(pa, table)
        except Exception as error:  # a type pypaimon cannot map; the status says what failed
            log.warning("cannot map the table's types to Arrow: %s", describe_exception(error))
            return pa.schema([row_kind_field(pa)] + [pa.field(f.name, pa.null()) for f in table.fields])
    return pa.schema([row_kind_field(pa)])


def write_stream(pa, out, schema, batches, metadata):
    schema = schema.with_metadata({k: v for k, v in metadata.items() if v is not None})
    with pa.ipc.new_stream(out, schema) as writer:
        for batch in batches:
            writer.write_batch(batch)
    out.flush()


def status_metadata(index, status, message=None):
    meta = {
        "paimon.parity.split": str(index),
        "paimon.parity.status": status,
        "paimon.parity.reader": READER,
    }
    if message is not None:
        meta["paimon.parity.message"] = one_line(message)
    return meta


# --------------------------------------------------------------------------------------------------
# Converting what pypaimon returns into the answer's shape


def convert_result(pa, pc, table, schema, batches):
    """Map pypaimon's string `_row_kind` to Int8 codes and relax nullability.

    Returns the answer schema and batches. Raises `ValueError` when pypaimon's columns are not
    `_row_kind` plus the table's columns (in any order), or a RowKind string is unknown.
    """
    names = schema.names
    table_names = [f.name for f in table.fields]
    if not names or names[0] != ROW_KIND_COLUMN:
        raise ValueError("pypaimon returned no leading %s column (columns: %s)" % (ROW_KIND_COLUMN, names))
    data_names = names[1:]
    if sorted(data_names) != sorted(table_names):
        raise ValueError("pypaimon returned columns %s, the table has %s" % (data_names, table_names))
    positions = [names.index(n) for n in table_names]
    if positions != list(range(1, len(names))):
        log.warning("pypaimon returned the columns in another order (%s); reordered by name", data_names)

    out_fields = [row_kind_field(pa)] + [relax_field(pa, schema.field(i)) for i in positions]
    out_schema = pa.schema(out_fields)
    kinds = pa.array(list(ROW_KIND_CODES.keys()), pa.string())
    codes = pa.array(list(ROW_KIND_CODES.values()), pa.int8())

    out_batches = []
    for batch in batches:
        kind_column = batch.column(0)
        if not pa.types.is_string(kind_column.type) and not pa.types.is_large_string(kind_column.type):
            kind_column = kind_column.cast(pa.string())
        positions_in_kinds = pc.index_in(kind_column, value_set=kinds)
        if positions_in_kinds.null_count:
            unknown = sorted({v for v in kind_column.to_pylist() if v not in ROW_KIND_CODES}, key=str)
            raise ValueError("pypaimon returned unknown row kinds %s" % unknown)
        arrays = [pc.take(codes, positions_in_kinds)]
        for out_field, i in zip(out_fields[1:], positions):
            column = batch.column(i)
            if column.type != out_field.type:
                column = column.cast(out_field.type)
            arrays.append(column)
        out_batches.append(pa.RecordBatch.from_arrays(arrays, schema=out_schema))
    return out_schema, out_batches


def read_split(pa, pc, table, table_read, split):
    """Read one pypaimon split with RowKinds; every batch is in memory before anything is written."""
    reader = table_read.to_arrow_batch_reader([split])
    try:
        batches = [b for b in reader]
        schema = reader.schema
    finally:
        close = getattr(reader, "close", None)
        if close is not None:
            close()
    return convert_result(pa, pc, table, schema, batches)


# --------------------------------------------------------------------------------------------------
# Getting a pypaimon split for each requested one


class SplitSource:
    """Turns the request's splits into pypaimon splits, reading manifests at most once per snapshot."""

    def __init__(self, table):
        self.table = table
        self._entries = {}

    def build(self, request_split):
        split_type = request_split.get("split_type") or "DataSplit"
        if split_type == "IncrementalSplit":
            raise Unsupported(
                "pypaimon 2.1.0 has no IncrementalSplit (the before/after changes split of a "
                "streaming-read-overwrite plan): its DataSplit carries no before files and "
                "deserialize_split_v1 decodes only DataSplit and IndexedSplit"
            )
        if split_type != "DataSplit":
            raise Unsupported("split type %s is not read by pypaimon 2.1.0" % split_type)

        java_split = request_split.get("java_split")
        description = request_split.get("split")
        if isinstance(java_split, dict) and java_split.get("base64"):
            fmt = java_split.get("format")
            data = base64.b64decode(java_split["base64"])
            if fmt == "split-v1":
                return self._decode_frame(data), "split-v1"
            if fmt == "data-split":
                version = body_version(data)
                if version in DECODABLE_BODY_VERSIONS:
                    return self._decode_frame(SPLIT_V1_HEADER + data), "data-split v%d" % version
                log.info("DataSplit body version %s is not decodable by pypaimon; rebuilding the split "
                         "from its description", version)
            else:
                log.info("unknown java_split format %r; rebuilding the split from its description", fmt)
        if not isinstance(description, dict):
            raise Unsupported("the split has neither decodable Java bytes nor a description to rebuild it from")
        return self.rebuild(description), "manifests"

    def _decode_frame(self, data):
        from pypaimon.read.split_serializer import deserialize_split_v1

        try:
            return deserialize_split_v1(
                data,
                self.table.partition_keys_fields,
                self.table.trimmed_primary_keys_fields or None,
            )
        except ValueError as error:
            if str(error).lower().startswith("unsupported"):
                raise Unsupported("deserialize_split_v1: %s" % one_line(error))
            raise

    def _index(self, snapshot, source):
        """{(bucket, file name): ManifestEntry} of one snapshot's `all`, `delta` or `changelog` manifests."""
        key = (snapshot.id, source)
        if key not in self._entries:
            from pypaimon.manifest.manifest_file_manager import ManifestFileManager
            from pypaimon.manifest.manifest_list_manager import ManifestListManager

            lists = ManifestListManager(self.table)
            if source == "all":
                manifests = lists.read_all(snapshot)
            elif source == "delta":
                manifests = lists.read_delta(snapshot)
            else:
                manifests = lists.read_changelog(snapshot)
            index = {}
            if manifests:
                entries = ManifestFileManager(self.table).read_entries_parallel(manifests)
                for entry in entries:
                    index.setdefault((entry.bucket, entry.file.file_name), entry)
            self._entries[key] = index
        return self._entries[key]

    def rebuild(self, description):
        """A pypaimon `DataSplit` from the split's JSON description and that snapshot's manifests."""
        from pypaimon.read.split import DataSplit
        from pypaimon.table.source.deletion_file import DeletionFile
        from pypaimon.utils.file_store_path_factory import canonical_data_file_path
        from pypaimon.utils.path import to_file_io_path

        if description.get("before_files"):
            raise Unsupported(
                "the split is a changes split with before files (the streaming-read-overwrite plan of an "
                "OVERWRITE snapshot), which pypaimon 2.1.0's DataSplit cannot carry")
        snapshot_id = description.get("snapshot_id")
        bucket = description.get("bucket")
        wanted = [f.get("file_name") for f in description.get("data_files") or []]
        if snapshot_id is None or bucket is None:
            raise ValueError("the split description has no snapshot_id or bucket")
        snapshot = self.table.snapshot_manager().get_snapshot_by_id(int(snapshot_id))
        if snapshot is None:
            raise ValueError("snapshot %s of the split is not in the table" % snapshot_id)
        is_streaming = bool(description.get("is_streaming"))
        sources = ("changelog", "delta", "all") if is_streaming else ("all", "delta", "changelog")

        entries = []
        missing = []
        for name in wanted:
            found = None
            for source in sources:
                found = self._index(snapshot, source).get((int(bucket), name))
                if found is not None:
                    break
            if found is None:
                missing.append(name)
            else:
                entries.append(found)
        if missing:
            raise LookupError("files %s of bucket %s are in none of snapshot %s's manifests"
                              % (missing, bucket, snapshot_id))

        bucket_path = description.get("bucket_path")
        partition = entries[0].partition if entries else self._empty_partition()
        files = []
        for entry in entries:
            meta = copy.copy(entry.file)
            if meta.external_path:
                meta.file_path = meta.physical_path()
            elif bucket_path:
                meta.file_path = to_file_io_path("%s/%s" % (bucket_path.rstrip("/"), meta.file_name))
            else:
                meta.file_path = canonical_data_file_path(
                    self.table, tuple(entry.partition.values), entry.bucket, meta.file_name)
            files.append(meta)

        deletion_files = None
        described = description.get("deletion_files") or []
        if described:
            if len(described) != len(files):
                raise ValueError("the split has %d deletion file entries for %d data files"
                                 % (len(described), len(files)))
            deletion_files = []
            for d in described:
                if d is None:
                    deletion_files.append(None)
                    continue
                cardinality = d.get("cardinality")
                deletion_files.append(DeletionFile(
                    dv_index_path=to_file_io_path(d["path"]),
                    offset=int(d["offset"]),
                    length=int(d["length"]),
                    cardinality=None if cardinality is None or cardinality < 0 else int(cardinality),
                ))

        return DataSplit(
            files=files,
            partition=partition,
            bucket=int(bucket),
            raw_convertible=bool(description.get("raw_convertible")),
            data_deletion_files=deletion_files,
            snapshot_id=int(snapshot_id),
            is_streaming=is_streaming,
            bucket_path=bucket_path,
            total_buckets=entries[0].total_buckets if entries else None,
        )

    def _empty_partition(self):
        from pypaimon.table.row.generic_row import GenericRow

        if self.table.partition_keys_fields:
            raise ValueError("a split of a partitioned table with no data files has no partition to read")
        return GenericRow([], [])


def body_version(data):
    """The version of a raw `DataSplit#serialize` body, or None when it is not one."""
    if len(data) < 12:
        return None
    magic, version = struct.unpack(">qi", data[:12])
    return version if magic == DATA_SPLIT_MAGIC else None


# --------------------------------------------------------------------------------------------------
# Describing pypaimon's own splits (action `plan`)


def java_string(value):
    """Java's `toString()` of a partition value as Paimon holds it internally."""
    import datetime
    import decimal

    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", "replace")
    if isinstance(value, datetime.datetime):
        # LocalDateTime#toString: seconds and the fraction only when non-zero
        text = value.strftime("%Y-%m-%dT%H:%M")
        if value.second or value.microsecond:
            text += value.strftime(":%S")
        if value.microsecond:
            text += ("%06d" % value.microsecond).rstrip("0").ljust(3, "0")
        return text
    if isinstance(value, datetime.date):
        return str((value - datetime.date(1970, 1, 1)).days)
    if isinstance(value, datetime.time):
        return str(((value.hour * 60 + value.minute) * 60 + value.second) * 1000 + value.microsecond // 1000)
    if isinstance(value, float):
        if value != value:
            return "NaN"
        if value in (float("inf"), float("-inf")):
            return "Infinity" if value > 0 else "-Infinity"
        text = repr(value)
        return text if ("." in text or "e" in text or "E" in text) else text + ".0"
    if isinstance(value, decimal.Decimal):
        return str(value)
    return str(value)


def local_path(path):
    if path is None:
        return None
    path = str(path)
    for prefix in ("file://", "file:"):
        if path.startswith(prefix):
            return "/" + path[len(prefix):].lstrip("/")
    return path


def row_bytes(row):
    from pypaimon.table.row.generic_row import GenericRowSerializer

    if row is None or not getattr(row, "fields", None):
        return []
    try:
        return list(GenericRowSerializer.to_bytes(row))
    except Exception:
        return []


def describe_split(split):
    files = []
    for f in split.files:
        files.append({
            "file_name": f.file_name,
            "level": f.level,
            "row_count": f.row_count,
            "file_size": f.file_size,
            "min_sequence_number": f.min_sequence_number,
            "max_sequence_number": f.max_sequence_number,
            "schema_id": f.schema_id,
            "delete_row_count": f.delete_row_count,
            "min_key": row_bytes(f.min_key),
            "max_key": row_bytes(f.max_key),
            "external_path": f.external_path,
        })
    bucket_path = getattr(split, "bucket_path", None)
    if not bucket_path and split.files and not split.files[0].external_path and split.files[0].file_path:
        bucket_path = str(split.files[0].file_path).rsplit("/", 1)[0]
    deletion_files = []
    for d in split.data_deletion_files or []:
        deletion_files.append(None if d is None else {
            "path": local_path(d.dv_index_path),
            "offset": d.offset,
            "length": d.length,
            "cardinality": d.cardinality,
        })
    return {
        "snapshot_id": split.snapshot_id,
        "partition": [java_string(v) for v in split.partition.values],
        "bucket": split.bucket,
        "bucket_path": local_path(bucket_path) or "",
        "data_files": files,
        "before_files": [],
        "deletion_files": deletion_files,
        "before_deletion_files": [],
        "is_streaming": bool(getattr(split, "is_streaming", False)),
        "raw_convertible": bool(split.raw_convertible),
    }


def plan_splits(table, scan):
    """pypaimon's own splits for the request's scan, in plan order (one list per planned snapshot)."""
    mode = scan.get("mode") or "batch"
    from_snapshot = scan.get("from_snapshot")
    end_snapshot = scan.get("end_snapshot")
    snapshot_manager = table.snapshot_manager()
    latest = snapshot_manager.get_latest_snapshot()
    if latest is None:
        return []
    last = int(end_snapshot) if end_snapshot is not None else latest.id

    if mode == "batch":
        at = scan.get("snapshot")
        planned = table if at is None else table.copy({"scan.snapshot-id": str(int(at))})
        plan = planned.new_read_builder().new_scan().plan()
        return with_snapshot(plan.splits(), getattr(plan, "snapshot_id", None) or at or latest.id)

    from pypaimon.read.streaming_table_scan import AsyncStreamingTableScan

    # No prefetch thread, and no diff catch-up that would fold a long gap into one plan: every snapshot
    # is planned on its own by pypaimon's follow-up scanner, as a streaming consumer that keeps up would.
    streaming = AsyncStreamingTableScan(table, prefetch_enabled=False, diff_threshold=1 << 62)
    splits = []
    if mode in ("stream-full", "latest-full"):
        start = last if mode == "latest-full" else int(from_snapshot if from_snapshot is not None else 1)
        snapshot = snapshot_manager.get_snapshot_by_id(start)
        if snapshot is None:
            raise ValueError("snapshot %s is not in the table" % start)
        splits.extend(with_snapshot(streaming._create_initial_plan(snapshot).splits(), start))
        first_follow_up = start + 1
    elif mode == "stream":
        first_follow_up = int(from_snapshot if from_snapshot is not None else 1)
    else:
        raise Unsupported("scan mode %s is not planned by this adapter" % mode)
    for snapshot_id in range(first_follow_up, last + 1):
        snapshot = snapshot_manager.get_snapshot_by_id(snapshot_id)
        if snapshot is None or not streaming.follow_up_scanner.should_scan(snapshot):
            continue
        splits.extend(with_snapshot(streaming._create_follow_up_plan(snapshot).splits(), snapshot_id))
    return splits


def with_snapshot(splits, snapshot_id):
    splits = list(splits)
    for split in splits:
        if getattr(split, "snapshot_id", None) is None and snapshot_id is not None:
            split.snapshot_id = int(snapshot_id)
    return splits


# --------------------------------------------------------------------------------------------------
# The request


def parse_request(raw):
    try:
        request = json.loads(raw)
    except ValueError as error:
        raise UnusableRequest("the request is not JSON: %s" % one_line(error))
    if not isinstance(request, dict):
        raise UnusableRequest("the request is not a JSON object")
    if request.get("protocol") != PROTOCOL:
        raise UnusableRequest("protocol %r is not %s" % (request.get("protocol"), PROTOCOL))
    action = request.get("action")
    if action not in ACTIONS:
        raise UnusableRequest("action %r is not one of %s" % (action, ACTIONS))
    if not isinstance(request.get("table_path"), str) or not request["table_path"]:
        raise UnusableRequest("the request has no table_path")
    if action == "read" and not isinstance(request.get("splits"), list):
        raise UnusableRequest("a read request needs a splits list")
    if action == "plan" and not isinstance(request.get("scan"), dict):
        raise UnusableRequest("a plan request needs a scan object")
    for key in ("options", "file_io_options"):
        if not isinstance(request.get(key) or {}, dict):
            raise UnusableRequest("%s must be a JSON object" % key)
    return request


def open_table(table_path, options, file_io_options=None):
    """The table at table_path (a local path, or a store URI such as s3://bucket/wh/db.db/t, reached with
    file_io_options: s3.endpoint, s3.access-key, ... as the harness got them; pypaimon reads the same
    key families), with the dynamic options."""
    from pypaimon.table.file_store_table import FileStoreTable

    dynamic = {str(k): str(v) for k, v in (options or {}).items()}
    dynamic.update(PINNED_OPTIONS)
    storage = {str(k): str(v) for k, v in (file_io_options or {}).items()}
    table = FileStoreTable.from_path(table_path, storage or None)
    return table.copy(dynamic)


def new_table_read(table):
    return table.new_stream_read_builder().with_include_row_kind(True).new_read()


def classify(error):
    if isinstance(error, (Unsupported, NotImplementedError)):
        return "unsupported"
    return "error"


def run_read(pa, pc, out, request):
    splits = request["splits"]
    table = table_error = None
    try:
        table = open_table(request["table_path"], request.get("options"), request.get("file_io_options"))
    except Exception as error:
        table_error = error
        log.error("cannot open the table:\n%s", traceback.format_exc())

    table_read = read_error = None
    if table is not None:
        try:
            table_read = new_table_read(table)
        except Exception as error:
            read_error = error
            log.error("pypaimon refuses to read the table:\n%s", traceback.format_exc())

    source = SplitSource(table) if table is not None else None
    for position, request_split in enumerate(splits):
        index = request_split.get("index", position) if isinstance(request_split, dict) else position
        empty = fallback_schema(pa, table)
        if table_error is not None:
            write_stream(pa, out, empty, [], status_metadata(
                index, "error", "cannot open the table: %s" % describe_exception(table_error)))
            continue
        try:
            if not isinstance(request_split, dict):
                raise ValueError("the split is not a JSON object")
            split, route = source.build(request_split)
            if read_error is not None:
                raise read_error
            schema, batches = read_split(pa, pc, table, table_read, split)
        except Exception as error:
            status = classify(error)
            if status == "error":
                log.warning("%s", traceback.format_exc().rstrip())
            log.warning("split %s: %s: %s", index, status, describe_exception(error))
            write_stream(pa, out, empty, [], status_metadata(index, status, describe_exception(error)))
            continue
        rows = sum(b.num_rows for b in batches)
        log.info("split %s: %d rows (split from %s)", index, rows, route)
        write_stream(pa, out, schema, batches, status_metadata(index, "ok"))


def plan_answer(split):
    """One entry of the JSON plan answer: the split's description and pypaimon's own bytes for it."""
    from pypaimon.read.split_serializer import serialize_split_v1

    java_split = None
    try:
        data = serialize_split_v1(split)
        java_split = {"format": "split-v1", "data_split_version": body_version(data[16:]) or 0,
                      "base64": base64.b64encode(data).decode("ascii")}
    except Exception as error:  # the read request then rebuilds the split from its description
        log.warning("cannot serialize a planned split: %s", describe_exception(error))
    return {"split": describe_split(split), "java_split": java_split, "split_type": "DataSplit"}


def run_plan(pa, pc, out, request):
    """Plans the scan with pypaimon and answers one JSON document,
    `{"splits": [{"split", "java_split", "split_type"}]}` (adapters/README.md); the harness sends the splits
    back in a `read` request, where `java_split` (pypaimon's own `serialize_split_v1` bytes) makes the read
    decode exactly the split pypaimon planned.
    """
    table = open_table(request["table_path"], request.get("options"), request.get("file_io_options"))
    splits = plan_splits(table, request["scan"])
    answer = {"splits": [plan_answer(split) for split in splits]}
    out.write(json.dumps(answer, separators=(",", ":")).encode("utf-8") + b"\n")
    out.flush()


def main(argv):
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING,
                        format="pypaimon-adapter %(levelname)s %(message)s")
    # Per-split progress only on request: the harness shows the last stderr lines with an error.
    log.setLevel(logging.INFO if os.environ.get("PAIMON_PARITY_VERBOSE") else logging.WARNING)
    if len(argv) == 2 and argv[1] == "describe":
        sys.stdout.write(json.dumps({"protocol": PROTOCOL, "reader": READER, "actions": ACTIONS}) + "\n")
        sys.stdout.flush()
        return 0
    if len(argv) != 1:
        sys.stderr.write("usage: %s [describe] < request.json\n" % argv[0])
        return 2

    out = claim_stdout()
    try:
        request = parse_request(sys.stdin.read())
    except UnusableRequest as error:
        sys.stderr.write("pypaimon-adapter: unusable request: %s\n" % error)
        return 2

    try:
        import pyarrow as pa
        import pyarrow.compute as pc
        import pypaimon  # noqa: F401  (fail here, not per split, when the environment is broken)
    except Exception as error:
        sys.stderr.write("pypaimon-adapter: cannot import pyarrow/pypaimon (run adapters/pypaimon/setup "
                         "and use the python it prints): %s\n" % describe_exception(error))
        return 2

    try:
        if request["action"] == "read":
            run_read(pa, pc, out, request)
        else:
            try:
                run_plan(pa, pc, out, request)
            except Exception as error:
                # Planning itself failed: nothing to answer split by split.
                log.error("planning failed:\n%s", traceback.format_exc())
                sys.stderr.write("pypaimon-adapter: planning failed: %s\n" % describe_exception(error))
                return 1
    except BrokenPipeError:
        sys.stderr.write("pypaimon-adapter: stdout closed by the reader of the streams\n")
        return 1
    finally:
        try:
            out.flush()
        except Exception:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
