//! A reader of the JDK's `lib/modules` file, the jimage format.
//!
//! Layout, all integers in the byte order the magic reveals (the image is written in the native
//! order of the platform that built it):
//!
//! ```text
//! header   magic 0xCAFEDADA, version (major << 16 | minor, major 1), flags, resource count,
//!          table length, locations size, strings size             (7 × u32)
//! redirect table_length × s32     (perfect-hash redirects; unused here, see below)
//! offsets  table_length × u32     (offset of each location in the locations blob)
//! locations                        (attribute streams, one per resource)
//! strings                          (NUL-terminated names)
//! resources                        (start right after the index, at `index_size`)
//! ```
//!
//! A location is a stream of attributes: a byte `kind << 3 | (length - 1)` then `length` bytes
//! of big-endian value, ended by kind 0. Kinds: 1 module, 2 parent, 3 base, 4 extension (string
//! offsets), 5 resource offset, 6 compressed size, 7 uncompressed size. A resource's name is
//! `/module/parent/base.extension`.
//!
//! Every location is walked once when the image is opened, so lookups by name go through our
//! own map and the redirect table is not needed. Resources are read on demand with positioned
//! reads. A compressed resource (`jlink --compress`) starts with one or more headers — magic
//! 0xCAFEFAFA, compressed size (u64), uncompressed size (u64), offset of the decompressor's name
//! in the strings (u32), content offset (u32), is-terminal (u8) — each wrapping the next layer;
//! the `zip` decompressor (zlib) is supported, others (`compact-cp`) are refused with a clear
//! error.

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::archive::io_error;
use membound_jvm::error::{Error, Result};

const MAGIC: u32 = 0xCAFE_DADA;
const HEADER_SIZE: usize = 7 * 4;
const COMPRESSED_MAGIC: u32 = 0xCAFE_FAFA;
const COMPRESSED_HEADER_SIZE: usize = 4 + 8 + 8 + 4 + 4 + 1;
/// Most compression layers one resource may have (jlink stacks at most two).
const MAX_COMPRESSION_LAYERS: usize = 4;
const SUPPORTED_MAJOR: u32 = 1;

/// A class listed by an image: its module, its internal name, where its bytes are.
pub(crate) type ImageClass = (String, String, Resource);

/// Where one class's bytes are in the image.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Resource {
    offset: u64,
    compressed_size: u64,
    uncompressed_size: u64,
}

/// An opened jimage.
pub(crate) struct Jimage {
    path: PathBuf,
    file: File,
    /// First byte of the resources area.
    resources_start: u64,
    /// Length of the file.
    size: u64,
    order: ByteOrder,
    /// The strings blob, for the names of decompressors.
    strings: Vec<u8>,
}

/// The fields of one location that we use.
#[derive(Default)]
struct Location {
    module: u32,
    parent: u32,
    base: u32,
    extension: u32,
    resource: Option<Resource>,
}

impl Jimage {
    /// Opens an image and lists its classes: (module, internal class name, resource).
    pub(crate) fn open(path: &Path) -> Result<(Jimage, Vec<ImageClass>)> {
        let file = File::open(path).map_err(|source| io_error(path, source))?;
        let bad = |what: &str| Error::Input(format!("{}: bad jimage: {what}", path.display()));
        let mut header = [0u8; HEADER_SIZE];
        file.read_exact_at(&mut header, 0)
            .map_err(|_| bad("file is shorter than the header"))?;
        let order = ByteOrder::from_magic(&header).ok_or_else(|| bad("no 0xCAFEDADA magic"))?;
        let word = |i: usize| order.u32_at(&header, i * 4).unwrap_or(0);
        let major = word(1) >> 16;
        if major != SUPPORTED_MAJOR {
            return Err(bad(&format!("version {major} is not supported (only 1)")));
        }
        let table_length = word(4) as usize;
        let locations_size = word(5) as usize;
        let strings_size = word(6) as usize;
        let index_size = HEADER_SIZE + table_length * 8 + locations_size + strings_size;
        let file_size = file
            .metadata()
            .map_err(|source| io_error(path, source))?
            .len();
        if index_size as u64 > file_size {
            return Err(bad("index is larger than the file"));
        }
        let mut index = vec![0u8; index_size - HEADER_SIZE];
        file.read_exact_at(&mut index, HEADER_SIZE as u64)
            .map_err(|_| bad("file is shorter than its index"))?;
        let offsets_start = table_length * 4;
        let locations_start = offsets_start + table_length * 4;
        let strings_start = locations_start + locations_size;
        let tables = Tables {
            locations: &index[locations_start..strings_start],
            strings: &index[strings_start..],
        };
        let mut classes = Vec::new();
        for slot in 0..table_length {
            let offset = order
                .u32_at(&index, offsets_start + slot * 4)
                .ok_or_else(|| bad("offsets table is truncated"))?;
            let location = tables
                .location(offset as usize)
                .map_err(|e| bad(&format!("location {offset}: {e}")))?;
            if let Some(class) = tables.class_entry(&location) {
                classes.push(class);
            }
        }
        let strings = tables.strings.to_vec();
        let image = Jimage {
            path: path.to_path_buf(),
            file,
            resources_start: index_size as u64,
            size: file_size,
            order,
            strings,
        };
        Ok((image, classes))
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The bytes of a resource, decompressed; `name` is for error messages.
    pub(crate) fn read(&self, resource: Resource, name: &str) -> Result<Vec<u8>> {
        let stored = if resource.compressed_size != 0 {
            resource.compressed_size
        } else {
            resource.uncompressed_size
        };
        let at = self
            .resources_start
            .checked_add(resource.offset)
            .filter(|at| at.checked_add(stored).is_some_and(|end| end <= self.size))
            .ok_or_else(|| self.bad(name, "lies outside the image"))?;
        let mut bytes = vec![0u8; usize::try_from(stored).unwrap_or(0)];
        self.file
            .read_exact_at(&mut bytes, at)
            .map_err(|source| io_error(&self.path, source))?;
        if resource.compressed_size == 0 {
            return Ok(bytes);
        }
        self.decompress(bytes, name)
    }

    /// Peels compression layers off a resource until its plain bytes are left.
    fn decompress(&self, mut bytes: Vec<u8>, name: &str) -> Result<Vec<u8>> {
        for _ in 0..MAX_COMPRESSION_LAYERS {
            let Some(header) = self.compression_header(&bytes) else {
                return Ok(bytes);
            };
            let decompressor = string_at(&self.strings, header.decompressor).unwrap_or("?");
            if decompressor != "zip" {
                return Err(self.bad(
                    name,
                    &format!("is compressed with '{decompressor}' (jlink --compress=1), which is not supported; use a JDK with jmods or an image made with --compress=2 or none"),
                ));
            }
            let content = bytes.get(COMPRESSED_HEADER_SIZE..).unwrap_or(&[]);
            bytes = inflate(content, header.uncompressed_size)
                .ok_or_else(|| self.bad(name, "does not decompress"))?;
        }
        Err(self.bad(name, "has too many compression layers"))
    }

    fn compression_header(&self, bytes: &[u8]) -> Option<CompressionHeader> {
        if self.order.u32_at(bytes, 0)? != COMPRESSED_MAGIC {
            return None;
        }
        Some(CompressionHeader {
            uncompressed_size: self.order.u64_at(bytes, 12)?,
            decompressor: self.order.u32_at(bytes, 20)?,
        })
    }

    fn bad(&self, name: &str, what: &str) -> Error {
        Error::Input(format!("{}: class {name} {what}", self.path.display()))
    }
}

/// The fields of a compressed resource's header that decompression needs.
struct CompressionHeader {
    uncompressed_size: u64,
    /// Offset of the decompressor's name in the strings blob.
    decompressor: u32,
}

/// Inflates zlib data that must come out exactly `size` bytes long.
fn inflate(content: &[u8], size: u64) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(usize::try_from(size).ok()?.min(1 << 24));
    let decoder = flate2::read::ZlibDecoder::new(content);
    // One byte more than announced, to notice a resource that inflates to more.
    decoder
        .take(size.checked_add(1)?)
        .read_to_end(&mut out)
        .ok()?;
    (out.len() as u64 == size).then_some(out)
}

#[derive(Clone, Copy)]
enum ByteOrder {
    Little,
    Big,
}

impl ByteOrder {
    fn from_magic(header: &[u8]) -> Option<ByteOrder> {
        [ByteOrder::Little, ByteOrder::Big]
            .into_iter()
            .find(|order| order.u32_at(header, 0) == Some(MAGIC))
    }

    fn u64_at(self, bytes: &[u8], at: usize) -> Option<u64> {
        let word: [u8; 8] = bytes.get(at..at.checked_add(8)?)?.try_into().ok()?;
        Some(match self {
            ByteOrder::Little => u64::from_le_bytes(word),
            ByteOrder::Big => u64::from_be_bytes(word),
        })
    }

    fn u32_at(self, bytes: &[u8], at: usize) -> Option<u32> {
        let word: [u8; 4] = bytes.get(at..at.checked_add(4)?)?.try_into().ok()?;
        Some(match self {
            ByteOrder::Little => u32::from_le_bytes(word),
            ByteOrder::Big => u32::from_be_bytes(word),
        })
    }
}

/// The locations and strings blobs of the index.
struct Tables<'a> {
    locations: &'a [u8],
    strings: &'a [u8],
}

impl Tables<'_> {
    fn location(&self, offset: usize) -> std::result::Result<Location, String> {
        let mut location = Location::default();
        let (mut offset_attr, mut compressed, mut uncompressed) = (None, 0, 0);
        let mut at = offset;
        loop {
            let byte = *self
                .locations
                .get(at)
                .ok_or("attribute stream runs off the end")?;
            let kind = byte >> 3;
            if kind == 0 {
                break;
            }
            let length = usize::from(byte & 7) + 1;
            let bytes = self
                .locations
                .get(at + 1..at + 1 + length)
                .ok_or("attribute value runs off the end")?;
            let value = bytes.iter().fold(0u64, |v, b| v << 8 | u64::from(*b));
            at += 1 + length;
            let as_string_offset =
                || u32::try_from(value).map_err(|_| format!("string offset {value} is too large"));
            match kind {
                1 => location.module = as_string_offset()?,
                2 => location.parent = as_string_offset()?,
                3 => location.base = as_string_offset()?,
                4 => location.extension = as_string_offset()?,
                5 => offset_attr = Some(value),
                6 => compressed = value,
                7 => uncompressed = value,
                _ => return Err(format!("unknown attribute kind {kind}")),
            }
        }
        location.resource = offset_attr.map(|offset| Resource {
            offset,
            compressed_size: compressed,
            uncompressed_size: uncompressed,
        });
        Ok(location)
    }

    fn string(&self, offset: u32) -> Option<&str> {
        string_at(self.strings, offset)
    }

    /// (module, internal class name, resource) when the location is a class of a module; the
    /// `/packages/…` and `/modules/…` directory entries and `module-info` are not.
    fn class_entry(&self, location: &Location) -> Option<ImageClass> {
        let resource = location.resource?;
        if self.string(location.extension)? != "class" {
            return None;
        }
        let module = self.string(location.module)?;
        let base = self.string(location.base)?;
        if module.is_empty() || base == "module-info" {
            return None;
        }
        let parent = self.string(location.parent)?;
        let name = if parent.is_empty() {
            base.to_string()
        } else {
            format!("{parent}/{base}")
        };
        Some((module.to_string(), name, resource))
    }
}

/// The NUL-terminated string at `offset` of the strings blob.
fn string_at(strings: &[u8], offset: u32) -> Option<&str> {
    let rest = strings.get(offset as usize..)?;
    let end = rest.iter().position(|b| *b == 0)?;
    std::str::from_utf8(rest.get(..end)?).ok()
}
