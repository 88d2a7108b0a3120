package policy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// maxIndexSize bounds the git index read to check for tracked secrets;
// a bigger one is not read, and the command asks.
const maxIndexSize = 64 << 20

// indexNames returns the paths git's index at file tracks (formats 2, 3
// and 4, SHA-1 or SHA-256). go-git's decoder would need a new module,
// and refuses SHA-256 indexes and those written with index.skipHash. A split or sparse index cannot be read whole here, so it is an
// error: nothing can be ruled out.
func indexNames(file string) ([]string, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxIndexSize+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxIndexSize {
		return nil, errors.New("the index is too big")
	}
	hashLen := 20
	if cfg, err := os.ReadFile(filepath.Join(filepath.Dir(file), "config")); err == nil &&
		strings.Contains(strings.ToLower(string(cfg)), "sha256") {
		hashLen = 32
	}
	return parseIndex(b, hashLen)
}

var errIndex = errors.New("the index is not in a format godwit reads")

func parseIndex(b []byte, hashLen int) ([]string, error) {
	if len(b) < 12 || string(b[:4]) != "DIRC" {
		return nil, errIndex
	}
	version := binary.BigEndian.Uint32(b[4:8])
	n := binary.BigEndian.Uint32(b[8:12])
	if version < 2 || version > 4 {
		return nil, fmt.Errorf("%w (version %d)", errIndex, version)
	}
	fixed := 40 + hashLen + 2 // stat data, hash, flags
	off := 12
	var names []string
	prev := ""
	for i := uint32(0); i < n; i++ {
		start := off
		if off+fixed > len(b) {
			return nil, errIndex
		}
		mode := binary.BigEndian.Uint32(b[off+24 : off+28])
		flags := binary.BigEndian.Uint16(b[off+fixed-2 : off+fixed])
		off += fixed
		if flags&0x4000 != 0 { // extended flags (version 3+)
			if version < 3 || off+2 > len(b) {
				return nil, errIndex
			}
			off += 2
		}
		var name string
		if version == 4 {
			strip, k := indexVarint(b[off:])
			if k == 0 || strip > uint64(len(prev)) {
				return nil, errIndex
			}
			off += k
			end := bytes.IndexByte(b[off:], 0)
			if end < 0 {
				return nil, errIndex
			}
			name = prev[:len(prev)-int(strip)] + string(b[off:off+end])
			off += end + 1
		} else {
			end := bytes.IndexByte(b[off:], 0)
			if end < 0 {
				return nil, errIndex
			}
			name = string(b[off : off+end])
			// Entries are padded with 1 to 8 NULs to a multiple of 8.
			off = start + ((off+end-start)+8)&^7
			if off > len(b) {
				return nil, errIndex
			}
		}
		if mode&0o170000 == 0o040000 {
			return nil, errors.New("a sparse index hides the files of " + name)
		}
		prev = name
		names = append(names, name)
	}
	// Extensions: a split index keeps entries in another file.
	for off+8 <= len(b)-hashLen {
		sig := string(b[off : off+4])
		size := int(binary.BigEndian.Uint32(b[off+4 : off+8]))
		if sig == "link" {
			return nil, errors.New("a split index keeps entries elsewhere")
		}
		off += 8 + size
	}
	return names, nil
}

// indexVarint decodes git's offset varint; k is 0 on a bad encoding.
func indexVarint(b []byte) (v uint64, k int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	v = uint64(c & 127)
	k = 1
	for c&128 != 0 {
		if k >= len(b) || k > 9 {
			return 0, 0
		}
		c = b[k]
		k++
		v = ((v + 1) << 7) | uint64(c&127)
	}
	return v, k
}
