package fs

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/godwit/godwit/internal/tool/workspace"
	"github.com/godwit/godwit/tool"
)

// Limits of one file_read call. The output is at most maxReadLines lines
// and about maxReadBytes bytes; a longer line is cut at maxLineBytes.
const (
	maxReadLines = 2000
	maxReadBytes = 50 << 10
	maxLineBytes = 2000
	// countLimit: past the cap, the remaining lines are counted (one
	// streaming pass, no memory) only in files up to this size; in larger
	// ones the footer says "more lines follow" instead of a total.
	countLimit = 64 << 20
)

//go:embed file_read.md
var readDesc string

const readSchema = `{"type":"object","properties":{
"path":{"type":"string"},
"start_line":{"type":"integer","description":"First line, from 1 (default 1)."},
"end_line":{"type":"integer","description":"Last line, inclusive (default: up to the cap)."}
},"required":["path"]}`

const readFields = "path, optional start_line and end_line"

// Read is the file_read tool.
type Read struct {
	base
	files Files // nil reads through the OS
}

func newRead(ws *workspace.Workspace, files Files) *Read {
	return &Read{base: base{ws: ws, spec: newSpec("file_read", readDesc, readSchema)}, files: files}
}

type readArgs struct {
	Path      *string `json:"path"`
	StartLine *int    `json:"start_line"`
	EndLine   *int    `json:"end_line"`
}

func (t *Read) parse(raw json.RawMessage) (a readArgs, start, end int, err error) {
	if err = decodeArgs(raw, &a, readFields); err != nil {
		return a, 0, 0, err
	}
	if a.Path == nil || *a.Path == "" {
		return a, 0, 0, missing("path", readFields)
	}
	start, end = 1, 0
	if a.StartLine != nil && *a.StartLine > 0 {
		start = *a.StartLine
	} else if a.StartLine != nil && *a.StartLine < 0 {
		return a, 0, 0, tool.Errorf(tool.CodeBadArgs, "Lines count from 1.", "start_line is %d", *a.StartLine)
	}
	if a.EndLine != nil && *a.EndLine != 0 {
		end = *a.EndLine
		if end < start {
			return a, 0, 0, tool.Errorf(tool.CodeBadArgs, "Send end_line >= start_line, or leave end_line out to read up to the cap.",
				"end_line %d is before start_line %d", end, start)
		}
	}
	return a, start, end, nil
}

// Access declares the file as read.
func (t *Read) Access(raw json.RawMessage) (tool.Access, error) {
	a, _, _, err := t.parse(raw)
	if err != nil {
		return tool.Access{}, err
	}
	abs, err := t.ws.Resolve(*a.Path)
	if err != nil {
		return tool.Access{}, err
	}
	fi, err := t.ws.Lstat(abs)
	linked := err == nil && fi.Mode().IsRegular() && workspace.Links(fi) > 1
	return tool.Access{Paths: []tool.PathAccess{{Path: abs, Linked: linked}}, Summary: "read " + t.ws.Rel(abs)}, nil
}

// Run streams the requested lines: memory is proportional to the output,
// not to the file.
func (t *Read) Run(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	a, start, end, err := t.parse(raw)
	if err != nil {
		return tool.Result{}, err
	}
	abs, rel, err := t.judged(ctx, *a.Path)
	if err != nil {
		return tool.Result{}, err
	}
	// Stat before opening: opening a FIFO would block.
	fi, err := t.ws.Lstat(abs)
	if err == nil {
		err = checkRegular(fi, rel)
	}
	var r io.Reader
	var size int64
	switch {
	case t.files != nil && (err == nil || errors.Is(err, iofs.ErrNotExist)):
		// An editor may hold a buffer not yet saved: let it answer, with
		// the whole content at once.
		data, err := readWhole(ctx, t.ws, t.files, abs)
		if err != nil {
			return tool.Result{}, relErr(err, rel)
		}
		r, size = bytes.NewReader(data), int64(len(data))
	case err != nil:
		return tool.Result{}, relErr(err, rel)
	default:
		f, err := t.ws.Open(abs)
		if err != nil {
			return tool.Result{}, relErr(err, rel)
		}
		defer f.Close()
		if err := asJudged(ctx, f, rel); err != nil {
			return tool.Result{}, err
		}
		r, size = f, fi.Size()
	}
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(sniffLen)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return tool.Result{}, relErr(err, rel)
	}
	if looksBinary(head) {
		return tool.Result{}, binaryError(rel, size)
	}
	if size == 0 {
		return tool.Result{Content: "[empty file]"}, nil
	}
	return readLines(ctx, br, size, start, end)
}

// asJudged refuses a file with another hard link where the Access the
// runner judged saw none: a command linked another file (a secret, a
// path a rule names) to this name since, and the judgement was not of
// that file.
func asJudged(ctx context.Context, f *os.File, rel string) error {
	a, ok := tool.AccessFrom(ctx)
	if !ok || len(a.Paths) == 0 || a.Paths[0].Linked {
		return nil
	}
	if fi, err := f.Stat(); err == nil && workspace.Links(fi) > 1 {
		return tool.Errorf(tool.CodeDenied, "Read it again, so that it is judged as it is now.",
			"%s changed after it was judged: it is now a hard link, whose other name may be a secret or a path the user's rules name", rel)
	}
	return nil
}

func checkRegular(fi iofs.FileInfo, rel string) error {
	switch {
	case fi.IsDir():
		return &iofs.PathError{Op: "read", Path: rel, Err: syscall.EISDIR}
	case !fi.Mode().IsRegular():
		return tool.Errorf(tool.CodeBadArgs, "Only regular files can be read; use shell_exec for devices and pipes.",
			"%s is not a regular file (%s)", rel, fi.Mode().Type())
	}
	return nil
}

func binaryError(rel string, size int64) error {
	return tool.Errorf(tool.CodeBinary, "Only text files can be read; use shell_exec (e.g. file, xxd | head) to inspect it.",
		"%s is a binary file (%d bytes)", rel, size)
}

func readLines(ctx context.Context, br *bufio.Reader, size int64, start, end int) (tool.Result, error) {
	// The model's window may hold less than maxReadBytes for one output:
	// then cut at a line there and say how to read on, rather than have
	// the window show only the head and tail of a larger read.
	maxBytes := maxReadBytes
	if s, ok := tool.SessionFrom(ctx); ok && s.MaxOutputBytes > 0 && s.MaxOutputBytes < maxBytes {
		maxBytes = max(s.MaxOutputBytes, 4<<10)
	}
	var out strings.Builder
	out.Grow(int(min(size, int64(maxBytes+maxLineBytes))))
	lr := lineReader{br: br}
	n, shown, last := 0, 0, 0 // lines read, lines shown, last line shown
	capped, eof := false, false
	for {
		if n%4096 == 0 && ctx.Err() != nil {
			return tool.Result{}, ctx.Err()
		}
		if end > 0 && n >= end {
			break
		}
		if shown == maxReadLines || out.Len() >= maxBytes {
			capped = true
			break
		}
		line, full, ok, err := lr.next(n+1 >= start)
		if err != nil {
			return tool.Result{}, err
		}
		if !ok {
			eof = true
			break
		}
		n++
		if n < start {
			continue
		}
		if shown > 0 && out.Len()+len(line) > maxBytes {
			lr.unread = true // show it in the next call
			n--
			capped = true
			break
		}
		out.WriteString(strconv.Itoa(n))
		out.WriteByte('\t')
		out.Write(line)
		if full > len(line) {
			fmt.Fprintf(&out, " …[line cut at %d of %d bytes]", len(line), full)
		}
		out.WriteByte('\n')
		shown++
		last = n
	}
	if shown == 0 {
		total := n
		return tool.Result{}, tool.Errorf(tool.CodeBadArgs, fmt.Sprintf("Send start_line between 1 and %d.", max(total, 1)),
			"start_line %d is past the end of the file (%d lines)", start, total)
	}
	// Bytes only guess at tokens: cut again, at a line, where the window
	// counts them (a table of numbers is 2 bytes a token).
	dropped := 0
	if s, ok := tool.SessionFrom(ctx); ok {
		text := out.String()
		if k := s.Fit(text); k < len(text) {
			kept := strings.Count(text[:k], "\n")
			if kept == 0 {
				kept = 1
				k = strings.IndexByte(text, '\n') + 1
			}
			if kept < shown {
				out.Reset()
				out.WriteString(text[:k])
				dropped, shown, last, capped = shown-kept, kept, start+kept-1, true
			}
		}
	}
	if !eof || dropped > 0 {
		// Is there more? Count it when that is cheap enough.
		rest, more := 0, false
		if !eof {
			var err error
			if rest, more, err = lr.countRest(ctx, size <= countLimit); err != nil {
				return tool.Result{}, err
			}
		}
		if dropped > 0 {
			more = true
			if rest >= 0 {
				rest += dropped
			}
		}
		switch {
		case !more:
		case rest < 0 && capped:
			fmt.Fprintf(&out, "[truncated: lines %d-%d shown, more lines follow; call file_read with start_line=%d]\n", start, last, last+1)
		case capped:
			fmt.Fprintf(&out, "[truncated: lines %d-%d of %d shown; call file_read with start_line=%d]\n", start, last, last+rest, last+1)
		case rest >= 0:
			fmt.Fprintf(&out, "[lines %d-%d of %d]\n", start, last, last+rest)
		}
	}
	return tool.Result{Content: out.String()}, nil
}

// lineReader yields lines from a bufio.Reader without holding more than
// maxLineBytes of any line, however long it is.
type lineReader struct {
	br     *bufio.Reader
	buf    []byte
	unread bool // the last line was put back: next yields it again
	last   []byte
	full   int
}

// next returns the next line without its terminator, cut at maxLineBytes
// on a rune boundary, and the line's full length. keep=false skips the
// line without copying it. ok is false at the end of the file.
func (r *lineReader) next(keep bool) (line []byte, full int, ok bool, err error) {
	if r.unread {
		r.unread = false
		return r.last, r.full, true, nil
	}
	r.buf = r.buf[:0]
	total := 0
	var last, prev byte // the line's last two bytes
	for {
		chunk, err := r.br.ReadSlice('\n')
		total += len(chunk)
		switch len(chunk) {
		case 0:
		case 1:
			prev, last = last, chunk[0]
		default:
			prev, last = chunk[len(chunk)-2], chunk[len(chunk)-1]
		}
		if keep && len(r.buf) < maxLineBytes+2 {
			r.buf = append(r.buf, chunk[:min(len(chunk), maxLineBytes+2-len(r.buf))]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, 0, false, err
		}
		if total == 0 {
			return nil, 0, false, nil
		}
		break
	}
	full = total
	if last == '\n' {
		full--
		if prev == '\r' {
			full--
		}
	}
	line = r.buf[:min(len(r.buf), full)]
	if len(line) > maxLineBytes {
		cut := maxLineBytes
		for cut > 0 && !utf8.RuneStart(line[cut]) {
			cut--
		}
		line = line[:cut]
	}
	r.last, r.full = line, full
	return line, full, true, nil
}

// countRest reports whether any line follows and, when count is set, how
// many (-1 when not counted). It streams the rest of the file through the
// reader's buffer, so it costs time but no memory.
func (r *lineReader) countRest(ctx context.Context, count bool) (rest int, more bool, err error) {
	n := 0
	if r.unread {
		n = 1 // the line put back is already out of the reader
	}
	if !count {
		if n > 0 {
			return -1, true, nil
		}
		_, err := r.br.Peek(1)
		if errors.Is(err, io.EOF) {
			return 0, false, nil
		}
		return -1, err == nil, err
	}
	var last byte = '\n'
	for i := 0; ; i++ {
		if i%256 == 0 && ctx.Err() != nil {
			return 0, false, ctx.Err()
		}
		chunk, err := r.br.ReadSlice('\n')
		if len(chunk) > 0 {
			last = chunk[len(chunk)-1]
			if last == '\n' {
				n++
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, false, err
		}
	}
	if last != '\n' {
		n++ // a last line without a newline
	}
	return n, n > 0, nil
}
