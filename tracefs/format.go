package tracefs

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// ParseFormat parses the text of a tracepoint format file
// (events/CATEGORY/EVENT/format). The common_* fields shared by every
// tracepoint are dropped; the others are returned in file order.
//
// Field declarations are split into a C type and a name: "char comm[16]"
// gives CType "char" and ArrayLen 16; "__data_loc char[] filename" gives
// CType "__data_loc char[]" with DataLoc set; anything else keeps its type
// as written ("const char *", "unsigned long", "pid_t").
func ParseFormat(category, event string, text []byte) (*Format, error) {
	f := &Format{Category: category, Event: event}
	haveID := false
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(s, "ID:"):
			id, err := strconv.ParseUint(strings.TrimSpace(s[len("ID:"):]), 10, 32)
			if err != nil {
				return nil, fmt.Errorf("%s:%s format line %d: bad ID: %w", category, event, line, err)
			}
			f.ID = uint32(id)
			haveID = true
		case strings.HasPrefix(s, "field:"):
			fld, err := parseField(s)
			if err != nil {
				return nil, fmt.Errorf("%s:%s format line %d: %w", category, event, line, err)
			}
			if strings.HasPrefix(fld.Name, "common_") {
				continue
			}
			f.Fields = append(f.Fields, fld)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%s format: %w", category, event, err)
	}
	if !haveID {
		return nil, fmt.Errorf("%s:%s format: no ID line", category, event)
	}
	return f, nil
}

// parseField parses one line such as
// "field:const char * filename;	offset:24;	size:8;	signed:0;".
func parseField(s string) (Field, error) {
	var fld Field
	haveOffset, haveSize := false, false
	for _, part := range strings.Split(s, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		key, val, ok := strings.Cut(part, ":")
		if !ok {
			return fld, fmt.Errorf("malformed field attribute %q", part)
		}
		val = strings.TrimSpace(val)
		switch key {
		case "field":
			if err := parseDecl(val, &fld); err != nil {
				return fld, err
			}
		case "offset", "size", "signed":
			n, err := strconv.Atoi(val)
			if err != nil {
				return fld, fmt.Errorf("bad %s %q: %w", key, val, err)
			}
			switch key {
			case "offset":
				fld.Offset, haveOffset = n, true
			case "size":
				fld.Size, haveSize = n, true
			case "signed":
				fld.Signed = n != 0
			}
		}
	}
	if fld.Name == "" || !haveOffset || !haveSize {
		return fld, fmt.Errorf("incomplete field %q", s)
	}
	return fld, nil
}

// parseDecl splits a C declaration "TYPE NAME" or "TYPE NAME[N]" into fld.
func parseDecl(decl string, fld *Field) error {
	decl = strings.TrimSpace(decl)
	arrayLen := ""
	isArray := false
	if strings.HasSuffix(decl, "]") {
		open := strings.LastIndexByte(decl, '[')
		if open < 0 {
			return fmt.Errorf("malformed declaration %q", decl)
		}
		arrayLen = strings.TrimSpace(decl[open+1 : len(decl)-1])
		decl = strings.TrimSpace(decl[:open])
		isArray = true
	}
	// The name is the trailing identifier.
	i := len(decl)
	for i > 0 && isIdentByte(decl[i-1]) {
		i--
	}
	name := decl[i:]
	ctype := strings.TrimSpace(decl[:i])
	if name == "" || ctype == "" {
		return fmt.Errorf("malformed declaration %q", decl)
	}
	fld.Name = name
	fld.CType = ctype
	if strings.HasPrefix(ctype, "__data_loc ") {
		fld.DataLoc = true
		return nil
	}
	if isArray {
		n, err := strconv.Atoi(arrayLen)
		if err != nil || n < 0 {
			// An unexpanded macro such as [TASK_COMM_LEN]: keep the
			// declaration's type as written; the size is still known.
			fld.CType = ctype + "[" + arrayLen + "]"
			return nil
		}
		fld.ArrayLen = n
	}
	return nil
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// Format is the parsed format file of a tracepoint
// (/sys/kernel/tracing/events/CATEGORY/EVENT/format).
type Format struct {
	Category, Event string
	ID              uint32
	Fields          []Field // the event's own fields, without common_*
}

// Field is one field line of a format file, e.g.
// "field:const char * filename;	offset:24;	size:8;	signed:0;".
type Field struct {
	Name     string // "filename"
	CType    string // "const char *", "__data_loc char[]", "char[16]", "unsigned long"
	Offset   int
	Size     int
	Signed   bool
	ArrayLen int  // N for "char comm[16]" style fields (CType then holds the element type), 0 otherwise
	DataLoc  bool // __data_loc field: a uint32 with offset (low 16 bits) and length (high 16 bits)
}
