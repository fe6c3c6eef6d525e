//! VARIANT values (2.0 `org.apache.paimon.data.variant`): the binary encoding ([`encoding`]), a builder that
//! writes values byte for byte as Java's `GenericVariantBuilder` does ([`builder`]), and the rebuild of a
//! shredded Parquet variant into one value and metadata per row ([`shredded`]).

pub(crate) mod builder;
pub(crate) mod encoding;
pub(crate) mod shredded;
