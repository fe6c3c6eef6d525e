//! The protobuf messages of a Lance v2 file that this reader interprets, declared by hand with their field
//! numbers (Lance's `file2.proto`, `file.proto` and `encodings_v2_0.proto`): the column metadata and its
//! pages, the file descriptor holding the schema, and the 2.0 ("legacy") array encodings. Encodings this
//! reader does not decode are kept as their field number only, so that they can be refused by name.

#![allow(missing_docs)]

/// `google.protobuf.Any`, which wraps every page encoding.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct Any {
    #[prost(string, tag = "1")]
    pub(crate) type_url: String,
    #[prost(bytes = "vec", tag = "2")]
    pub(crate) value: Vec<u8>,
}

/// `lance.file.v2.ColumnMetadata`.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct ColumnMetadata {
    #[prost(message, optional, tag = "1")]
    pub(crate) encoding: Option<Encoding>,
    #[prost(message, repeated, tag = "2")]
    pub(crate) pages: Vec<Page>,
    #[prost(uint64, repeated, tag = "3")]
    pub(crate) buffer_offsets: Vec<u64>,
    #[prost(uint64, repeated, tag = "4")]
    pub(crate) buffer_sizes: Vec<u64>,
}

/// `lance.file.v2.ColumnMetadata.Page`.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct Page {
    #[prost(uint64, repeated, tag = "1")]
    pub(crate) buffer_offsets: Vec<u64>,
    #[prost(uint64, repeated, tag = "2")]
    pub(crate) buffer_sizes: Vec<u64>,
    #[prost(uint64, tag = "3")]
    pub(crate) length: u64,
    #[prost(message, optional, tag = "4")]
    pub(crate) encoding: Option<Encoding>,
}

/// `lance.file.v2.Encoding`: where an encoding is (only `direct` is read).
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct Encoding {
    #[prost(message, optional, tag = "1")]
    pub(crate) indirect: Option<Empty>,
    #[prost(message, optional, tag = "2")]
    pub(crate) direct: Option<DirectEncoding>,
}

/// A message whose content is not read.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct Empty {}

/// `lance.file.v2.DirectEncoding`: an `Any` in bytes.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct DirectEncoding {
    #[prost(bytes = "vec", tag = "1")]
    pub(crate) encoding: Vec<u8>,
}

/// `lance.file.FileDescriptor` (global buffer 0).
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct FileDescriptor {
    #[prost(message, optional, tag = "1")]
    pub(crate) schema: Option<Schema>,
    #[prost(uint64, tag = "2")]
    pub(crate) length: u64,
}

/// `lance.file.Schema`.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct Schema {
    #[prost(message, repeated, tag = "1")]
    pub(crate) fields: Vec<Field>,
}

/// `lance.file.Field`: fields in pre-order, each naming its parent's id (-1 at the top).
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct Field {
    #[prost(string, tag = "2")]
    pub(crate) name: String,
    #[prost(int32, tag = "3")]
    pub(crate) id: i32,
    #[prost(int32, tag = "4")]
    pub(crate) parent_id: i32,
    #[prost(string, tag = "5")]
    pub(crate) logical_type: String,
    #[prost(bool, tag = "6")]
    pub(crate) nullable: bool,
    #[prost(map = "string, bytes", tag = "10")]
    pub(crate) metadata: std::collections::HashMap<String, Vec<u8>>,
}

/// `lance.encodings.Buffer`.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct Buffer {
    #[prost(uint32, tag = "1")]
    pub(crate) buffer_index: u32,
    /// 0 page, 1 column, 2 file.
    #[prost(int32, tag = "2")]
    pub(crate) buffer_type: i32,
}

/// `lance.encodings.Compression`.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct Compression {
    #[prost(string, tag = "1")]
    pub(crate) scheme: String,
}

/// `lance.encodings.Flat`: fixed-width values, `bits_per_value` each.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct Flat {
    #[prost(uint64, tag = "1")]
    pub(crate) bits_per_value: u64,
    #[prost(message, optional, tag = "2")]
    pub(crate) buffer: Option<Buffer>,
    #[prost(message, optional, tag = "3")]
    pub(crate) compression: Option<Compression>,
}

/// `lance.encodings.Nullable`.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct Nullable {
    #[prost(message, optional, tag = "1")]
    pub(crate) no_nulls: Option<NoNull>,
    #[prost(message, optional, tag = "2")]
    pub(crate) some_nulls: Option<SomeNull>,
    #[prost(message, optional, tag = "3")]
    pub(crate) all_nulls: Option<Empty>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct NoNull {
    #[prost(message, optional, boxed, tag = "1")]
    pub(crate) values: Option<Box<ArrayEncoding>>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct SomeNull {
    #[prost(message, optional, boxed, tag = "1")]
    pub(crate) validity: Option<Box<ArrayEncoding>>,
    #[prost(message, optional, boxed, tag = "2")]
    pub(crate) values: Option<Box<ArrayEncoding>>,
}

/// `lance.encodings.List`: end offsets, a NULL list's raised by `null_offset_adjustment`.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct List {
    #[prost(message, optional, boxed, tag = "1")]
    pub(crate) offsets: Option<Box<ArrayEncoding>>,
    #[prost(uint64, tag = "2")]
    pub(crate) null_offset_adjustment: u64,
    #[prost(uint64, tag = "3")]
    pub(crate) num_items: u64,
}

/// `lance.encodings.FixedSizeList`.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct FixedSizeList {
    #[prost(uint32, tag = "1")]
    pub(crate) dimension: u32,
    #[prost(message, optional, boxed, tag = "2")]
    pub(crate) items: Option<Box<ArrayEncoding>>,
    #[prost(bool, tag = "3")]
    pub(crate) has_validity: bool,
}

/// `lance.encodings.Binary`: end offsets (a NULL value's raised by `null_adjustment`) and the bytes.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct Binary {
    #[prost(message, optional, boxed, tag = "1")]
    pub(crate) indices: Option<Box<ArrayEncoding>>,
    #[prost(message, optional, boxed, tag = "2")]
    pub(crate) bytes: Option<Box<ArrayEncoding>>,
    #[prost(uint64, tag = "3")]
    pub(crate) null_adjustment: u64,
}

/// `lance.encodings.Dictionary`: 1-based indices (0 is NULL) into `items`.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct Dictionary {
    #[prost(message, optional, boxed, tag = "1")]
    pub(crate) indices: Option<Box<ArrayEncoding>>,
    #[prost(message, optional, boxed, tag = "2")]
    pub(crate) items: Option<Box<ArrayEncoding>>,
    #[prost(uint32, tag = "3")]
    pub(crate) num_dictionary_items: u32,
}

/// `lance.encodings.FixedSizeBinary`.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct FixedSizeBinary {
    #[prost(message, optional, boxed, tag = "1")]
    pub(crate) bytes: Option<Box<ArrayEncoding>>,
    #[prost(uint32, tag = "2")]
    pub(crate) byte_width: u32,
}

/// `lance.encodings.ArrayEncoding`: the 2.0 encodings decoded here, and the others by name.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct ArrayEncoding {
    #[prost(
        oneof = "array_encoding::Kind",
        tags = "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21"
    )]
    pub(crate) kind: Option<array_encoding::Kind>,
}

pub(crate) mod array_encoding {
    use super::{Binary, Dictionary, Empty, FixedSizeBinary, FixedSizeList, Flat, List, Nullable};

    #[derive(Clone, PartialEq, prost::Oneof)]
    pub(crate) enum Kind {
        #[prost(message, tag = "1")]
        Flat(Flat),
        #[prost(message, tag = "2")]
        Nullable(Box<Nullable>),
        #[prost(message, tag = "3")]
        FixedSizeList(Box<FixedSizeList>),
        #[prost(message, tag = "4")]
        List(Box<List>),
        #[prost(message, tag = "5")]
        Struct(Empty),
        #[prost(message, tag = "6")]
        Binary(Box<Binary>),
        #[prost(message, tag = "7")]
        Dictionary(Box<Dictionary>),
        #[prost(message, tag = "8")]
        Fsst(Empty),
        #[prost(message, tag = "9")]
        PackedStruct(Empty),
        #[prost(message, tag = "10")]
        Bitpacked(Empty),
        #[prost(message, tag = "11")]
        FixedSizeBinary(Box<FixedSizeBinary>),
        #[prost(message, tag = "12")]
        BitpackedForNonNeg(Empty),
        #[prost(message, tag = "13")]
        Constant(Empty),
        #[prost(message, tag = "14")]
        InlineBitpacking(Empty),
        #[prost(message, tag = "15")]
        OutOfLineBitpacking(Empty),
        #[prost(message, tag = "16")]
        Variable(Empty),
        #[prost(message, tag = "17")]
        PackedStructFixedWidthMiniBlock(Empty),
        #[prost(message, tag = "18")]
        Block(Empty),
        #[prost(message, tag = "19")]
        Rle(Empty),
        #[prost(message, tag = "20")]
        GeneralMiniBlock(Empty),
        #[prost(message, tag = "21")]
        ByteStreamSplit(Empty),
    }

    impl Kind {
        /// The encoding's name in `encodings_v2_0.proto`, for messages.
        pub(crate) fn name(&self) -> &'static str {
            match self {
                Kind::Flat(_) => "flat",
                Kind::Nullable(_) => "nullable",
                Kind::FixedSizeList(_) => "fixed_size_list",
                Kind::List(_) => "list",
                Kind::Struct(_) => "struct",
                Kind::Binary(_) => "binary",
                Kind::Dictionary(_) => "dictionary",
                Kind::Fsst(_) => "fsst",
                Kind::PackedStruct(_) => "packed_struct",
                Kind::Bitpacked(_) => "bitpacked",
                Kind::FixedSizeBinary(_) => "fixed_size_binary",
                Kind::BitpackedForNonNeg(_) => "bitpacked_for_non_neg",
                Kind::Constant(_) => "constant",
                Kind::InlineBitpacking(_) => "inline_bitpacking",
                Kind::OutOfLineBitpacking(_) => "out_of_line_bitpacking",
                Kind::Variable(_) => "variable",
                Kind::PackedStructFixedWidthMiniBlock(_) => "packed_struct_fixed_width_mini_block",
                Kind::Block(_) => "block",
                Kind::Rle(_) => "rle",
                Kind::GeneralMiniBlock(_) => "general_mini_block",
                Kind::ByteStreamSplit(_) => "byte_stream_split",
            }
        }
    }
}
