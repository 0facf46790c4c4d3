package conf

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
)

// scanStarts reads data once with encoding/xml, which tracks positions,
// and returns the line of every start tag in document order. etree builds
// its tree from the same token stream (it wraps encoding/xml), so the i-th
// element of an etree pre-order walk is the i-th start tag here; that is
// how properties learn their line without etree exposing positions.
//
// The scan also rejects what etree lets through but a Hadoop parser does
// not (a second top-level element, text outside it, no element at all) and
// gives every syntax error the line it happened on.
func scanStarts(file string, data []byte) ([]int, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	d.CharsetReader = passThroughCharset
	var lines []int
	depth, roots := 0, 0
	for {
		// The position before Token is the '<' of the next tag: the text
		// before a tag comes back as its own CharData token.
		line, _ := d.InputPos()
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var syn *xml.SyntaxError
			if errors.As(err, &syn) {
				return nil, &XMLError{File: file, Line: syn.Line, Msg: strings.TrimPrefix(syn.Msg, "xml: ")}
			}
			line, _ = d.InputPos()
			return nil, &XMLError{File: file, Line: line, Msg: err.Error()}
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				roots++
				if roots > 1 {
					return nil, &XMLError{File: file, Line: line, Msg: "second top-level element <" + t.Name.Local + ">"}
				}
			}
			depth++
			lines = append(lines, line)
		case xml.EndElement:
			depth--
		case xml.CharData:
			if depth == 0 && len(bytes.TrimSpace(t)) > 0 {
				lead := len(t) - len(bytes.TrimLeft(t, " \t\r\n"))
				line += bytes.Count(t[:lead], []byte("\n"))
				return nil, &XMLError{File: file, Line: line, Msg: "text outside <configuration>"}
			}
		}
	}
	if roots == 0 {
		return nil, &XMLError{File: file, Msg: "no <configuration> element"}
	}
	return lines, nil
}

// passThroughCharset accepts any declared encoding and reads the bytes as
// they are, as etree does by default, so both readers see the same text.
func passThroughCharset(_ string, r io.Reader) (io.Reader, error) { return r, nil }
