//! The file-format seam (paimon-format `FormatReaderFactory`, chosen per file by `FormatReaderMapping`):
//! one [`FormatReader`] per [`FileFormat`], picked in [`FileFormat::reader`] and nowhere else.

use std::path::Path;

use arrow_array::ArrayRef;

use super::{avro, blob, lance, orc, parquet, row_format, vortex};
use crate::error::{Error, Result};
use crate::schema::DataType;

/// The file formats a data file can have, taken from the text after the last `.` of its name
/// (`FormatReaderMapping` / `file.format.per.level`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileFormat {
    /// `.parquet` (paimon-format `ParquetFileFormat`).
    Parquet,
    /// `.orc` (paimon-format `OrcFileFormat`).
    Orc,
    /// `.avro` (paimon-format `AvroFileFormat`).
    Avro,
    /// `.blob` (2.0 paimon-format `BlobFileFormat`): one BLOB column of a data-evolution table.
    Blob,
    /// `.row` (2.0 paimon-format `RowFileFormat`, `file.format=row`): a row store without its row type.
    Row,
    /// `.lance` (2.0 paimon-lance `LanceFileFormat`, `file.format=lance`): a Lance v2.0 file.
    Lance,
    /// `.vortex` (2.0 paimon-vortex `VortexFileFormat`, `file.format=vortex`): a Vortex file.
    Vortex,
    /// `.csv` (1.3+ paimon-format `CsvFileFormat`, `file.format=csv`): one row per line.
    Csv,
    /// `.json` (1.3+ paimon-format `JsonFileFormat`, `file.format=json`): one JSON object per line.
    Json,
    /// `.text` (1.4.1+ paimon-format `TextFileFormat`, `file.format=text`): one STRING per line.
    Text,
}

impl FileFormat {
    /// The format of `file_name` (`DataFilePathFactory.formatIdentifier`: the last extension, or the one
    /// before a Hadoop compression extension, as `data-1.csv.gz`), or [`Error::Unsupported`] naming `path`
    /// for another extension (the 2.0 formats `.managed.blob` packs and `mosaic` are named as such).
    pub fn of(file_name: &str, path: &Path) -> Result<FileFormat> {
        if file_name.ends_with(".blob") && !file_name.ends_with(".managed.blob") {
            return Ok(FileFormat::Blob);
        }
        let mut extensions = file_name.rsplit('.').map(str::to_ascii_lowercase);
        let mut extension = extensions.next();
        if matches!(
            extension.as_deref(),
            Some("gz" | "bz2" | "deflate" | "snappy" | "lz4" | "zst")
        ) {
            extension = extensions.next();
        }
        match extension.as_deref() {
            Some("parquet") => Ok(FileFormat::Parquet),
            Some("orc") => Ok(FileFormat::Orc),
            Some("avro") => Ok(FileFormat::Avro),
            Some("row") => Ok(FileFormat::Row),
            Some("lance") => Ok(FileFormat::Lance),
            Some("vortex") => Ok(FileFormat::Vortex),
            Some("csv") => Ok(FileFormat::Csv),
            Some("json") => Ok(FileFormat::Json),
            Some("text") => Ok(FileFormat::Text),
            Some(other @ ("blob" | "mosaic")) => {
                Err(Error::Unsupported {
                    path: path.to_path_buf(),
                    reason: format!(
                        "data file `{file_name}` has the Paimon 2.0 file format `{other}`, which this reader does not read"
                    ),
                })
            }
            _ => Err(Error::Unsupported {
                path: path.to_path_buf(),
                reason: format!("unknown file format of `{file_name}`"),
            }),
        }
    }
}

/// One column requested from a format reader: its name and Paimon type in the file's own schema.
///
/// A format reader returns, per batch, one array per requested column in request order, each of exactly
/// `types::arrow_type(&data_type)` (nested field names and nullability included), rows in file order with
/// no row skipped.
#[derive(Clone, Debug)]
pub(crate) struct FileColumn {
    /// Column name in the file.
    pub(crate) name: String,
    /// Field id in the file's schema (Parquet `field_id`, ORC `paimon.id`); used only for messages.
    pub(crate) id: i32,
    /// Paimon type in the file's schema.
    pub(crate) data_type: DataType,
    /// Decode a top-level string or binary column as views (`Utf8View`/`BinaryView`): the table's
    /// representation ([`crate::Table::string_views`]).
    pub(crate) views: bool,
    /// The release rebuilds a shredded Parquet VARIANT ([`crate::line::LineRules::variant_shredding`]); when
    /// false, a column holding one is refused.
    pub(crate) variant_shredding: bool,
    /// The release reads a MAP in the shared-shredding layout (2.0.0, `MapSharedShreddingReadPlan`); when
    /// false, a column stored so is refused.
    pub(crate) map_shredding: bool,
}

impl FileColumn {
    /// The Arrow type the column is decoded to (`crate::types::field_arrow_type`).
    pub(crate) fn arrow_type(&self) -> arrow_schema::DataType {
        crate::types::field_arrow_type(&self.data_type, self.id, self.views)
    }
}

/// Batches of a format reader: (row count, one array per requested [`FileColumn`]).
pub(crate) type RawBatches = Box<dyn Iterator<Item = Result<(usize, Vec<ArrayRef>)>> + Send>;

/// Opens data files of one format and decodes the requested columns (paimon-format
/// `FormatReaderFactory.createReader`, with the projection `FormatReaderMapping` computes).
///
/// The batches hold, per batch, the row count and one array per requested [`FileColumn`] in request order,
/// each of exactly `types::field_arrow_type(&column.data_type, column.id)`, rows in file order with no row
/// skipped; a column the file lacks (matched by name) is all NULL.
pub(crate) trait FormatReader: Sync {
    /// Opens the file at `path` and decodes `columns` in batches of at most `batch_size` rows.
    ///
    /// Errors: [`Error::Io`] when the file cannot be opened, [`Error::Decode`] (or [`Error::Library`] of
    /// kind Decode) naming it when its bytes are not readable in this format or a column cannot be brought
    /// to its Paimon type; decoding errors of later batches come from the iterator.
    fn open(&self, path: &Path, columns: &[FileColumn], batch_size: usize) -> Result<RawBatches>;
}

impl FileFormat {
    /// The reader of this format: the one place a [`FileFormat`] is mapped to its decoder. The text formats
    /// (`csv`, `json`, `text`) have none: they read the table's options, so they are opened by
    /// [`super::text::TextRead`].
    pub(crate) fn reader(self) -> Option<&'static dyn FormatReader> {
        Some(match self {
            FileFormat::Parquet => &parquet::ParquetReader,
            FileFormat::Orc => &orc::OrcReader,
            FileFormat::Avro => &avro::AvroReader,
            FileFormat::Blob => &blob::BlobReader,
            FileFormat::Row => &row_format::RowFileReader,
            FileFormat::Lance => &lance::LanceReader,
            FileFormat::Vortex => &vortex::VortexReader,
            FileFormat::Csv | FileFormat::Json | FileFormat::Text => return None,
        })
    }

    /// Opens `path` with this format's [`FormatReader`]. Errors: as [`FormatReader::open`]; a text format
    /// (opened by [`super::text::TextRead`] instead) is an internal [`Error::Unsupported`].
    pub(crate) fn open(
        self,
        path: &Path,
        columns: &[FileColumn],
        batch_size: usize,
    ) -> Result<RawBatches> {
        match self.reader() {
            Some(reader) => reader.open(path, columns, batch_size),
            None => Err(Error::Unsupported {
                path: path.to_path_buf(),
                reason: "internal: a text data file is opened with the table's options".into(),
            }),
        }
    }

    /// The first release line whose bundle has a factory for the format (a table of it opens, its metadata
    /// tables read): 1.3.x for `csv` and `json` (first released in 1.3.0), 1.4.x for `text` (1.4.1), else
    /// [`FileFormat::first_release`].
    pub fn factory_release(self) -> Option<crate::PaimonRelease> {
        match self {
            FileFormat::Csv | FileFormat::Json => Some(crate::PaimonRelease::V1_3_1),
            FileFormat::Text => Some(crate::PaimonRelease::V1_4_2),
            other => other.first_release(),
        }
    }

    /// `csv`, `json` or `text`: one value per line ([`super::text`]).
    pub(crate) fn is_text(self) -> bool {
        matches!(self, FileFormat::Csv | FileFormat::Json | FileFormat::Text)
    }

    /// The first release whose reader this reader models for the format: 2.0.0 for `row` (no factory
    /// before it), `lance` (a plugin module whose 2.0.0 build, with lance-core 0.39, is modelled; the
    /// bundles of 1.3 and 1.4 carry no `lance` factory) and `vortex` (the plugin module paimon-vortex, first
    /// released with 2.0.0); 1.4.2 for the text formats `csv`, `json` (first released in 1.3.0; 1.3's
    /// parsers are not modelled) and `text` (1.4.1), read as 2.0.0 and 1.4.2 read them; None for the
    /// formats of every release.
    pub fn first_release(self) -> Option<crate::PaimonRelease> {
        match self {
            FileFormat::Row | FileFormat::Lance | FileFormat::Vortex => {
                Some(crate::PaimonRelease::V2_0_0)
            }
            FileFormat::Csv | FileFormat::Json | FileFormat::Text => {
                Some(crate::PaimonRelease::V1_4_2)
            }
            FileFormat::Parquet | FileFormat::Orc | FileFormat::Avro | FileFormat::Blob => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_of_2_0_writers_are_named() {
        assert_eq!(
            FileFormat::of("data-1.parquet", Path::new("x")).unwrap(),
            FileFormat::Parquet
        );
        assert_eq!(
            FileFormat::of("data-1.blob", Path::new("x")).unwrap(),
            FileFormat::Blob
        );
        assert_eq!(
            FileFormat::of("data-1.row", Path::new("x")).unwrap(),
            FileFormat::Row
        );
        assert_eq!(
            FileFormat::of("data-1.lance", Path::new("x")).unwrap(),
            FileFormat::Lance
        );
        assert_eq!(
            FileFormat::of("data-1.vortex", Path::new("x")).unwrap(),
            FileFormat::Vortex
        );
        assert_eq!(
            FileFormat::of("data-1.csv.gz", Path::new("x")).unwrap(),
            FileFormat::Csv
        );
        assert_eq!(
            FileFormat::of("data-1.JSON", Path::new("x")).unwrap(),
            FileFormat::Json
        );
        assert_eq!(
            FileFormat::of("data-1.zstd.parquet", Path::new("x")).unwrap(),
            FileFormat::Parquet
        );
        for name in ["data-1.managed.blob", "data-1.mosaic"] {
            let err = FileFormat::of(name, Path::new(name)).unwrap_err();
            assert!(matches!(err, Error::Unsupported { .. }), "{err}");
            assert!(err.to_string().contains("Paimon 2.0 file format"), "{err}");
            assert!(err.to_string().contains(name), "{err}");
        }
        assert!(FileFormat::of("data-1.xyz", Path::new("x"))
            .unwrap_err()
            .to_string()
            .contains("unknown"));
    }
}
