package fsys

import (
	"bufio"
	"compress/bzip2"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Codec is a compression Hadoop picks for an input file by its name's
// suffix (CompressionCodecFactory over io.compression.codecs' defaults).
// The ones ebb reads are read whole, one split per file: Hadoop cannot
// cut gzip or deflate either; bzip2 it can cut at block boundaries, which
// ebb does not (a big .bz2 is one map task on ebb, several on Hadoop).
type Codec struct {
	Suffix string
	Name   string // Hadoop's codec class, for messages
	// open wraps a reader of the compressed bytes; nil for a codec ebb
	// does not read.
	open func(io.Reader) (io.ReadCloser, error)
}

// codecs are Hadoop's default codecs, by suffix.
var codecs = []Codec{
	{".gz", "GzipCodec", func(r io.Reader) (io.ReadCloser, error) {
		// Concatenated members are read one after another, as Hadoop's
		// BuiltInGzipDecompressor reads them.
		return gzip.NewReader(r)
	}},
	{".bz2", "BZip2Codec", func(r io.Reader) (io.ReadCloser, error) {
		return io.NopCloser(bzip2.NewReader(r)), nil
	}},
	// DefaultCodec writes zlib's format: a header, deflate, an Adler-32.
	{".deflate", "DefaultCodec", func(r io.Reader) (io.ReadCloser, error) { return zlib.NewReader(r) }},
	{".lz4", "Lz4Codec", nil},
	{".snappy", "SnappyCodec", nil},
	{".zst", "ZStandardCodec", nil},
}

// CodecOf is the codec Hadoop would read path with; false for a plain file.
func CodecOf(path string) (Codec, bool) {
	for _, c := range codecs {
		if strings.HasSuffix(path, c.Suffix) {
			return c, true
		}
	}
	return Codec{}, false
}

// Supported says whether ebb reads the codec.
func (c Codec) Supported() bool { return c.open != nil }

// Check refuses a codec ebb does not read, naming it and the file.
func (c Codec) Check(path string) error {
	if c.Supported() {
		return nil
	}
	return fmt.Errorf("%s: %s files (Hadoop's %s) cannot be read by ebb: want plain text, .gz, .bz2 or .deflate", path, c.Suffix, c.Name)
}

// Open decompresses r. A file of no bytes at all is no bzip2 data and no
// record, as Hadoop's BZip2Codec reads it; a gzip or deflate reader fails
// on it, as Hadoop's do (an EOF in the header).
func (c Codec) Open(path string, r io.Reader) (io.ReadCloser, error) {
	if err := c.Check(path); err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(r, 64<<10)
	if _, err := br.Peek(1); errors.Is(err, io.EOF) {
		if c.Suffix == ".bz2" {
			return io.NopCloser(strings.NewReader("")), nil
		}
		return nil, fmt.Errorf("%s: an empty file is not %s data (Hadoop's %s fails on it too)", path, c.Suffix, c.Name)
	}
	rc, err := c.open(br)
	if err != nil {
		return nil, fmt.Errorf("%s: not %s data: %w", path, c.Suffix, err)
	}
	return rc, nil
}

// SplitsOf is HadoopSplits for a file by name: a compressed file is one
// split, whole (ebb reads none in parts).
func SplitsOf(path string, length, size int64) [][2]int64 {
	if _, ok := CodecOf(path); ok {
		return [][2]int64{{0, length}}
	}
	return HadoopSplits(length, size)
}
