package output

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gotrace/gotrace/format"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/object"
)

// Spec is one conversion of a bpftrace format string (see package format,
// the grammar the checker validates with).
type Spec = format.Spec

// Format is a parsed format string.
type Format = format.Format

// ParseFormat splits a bpftrace printf format string into literal fragments
// and conversions, as bpftrace does (format.Parse).
func ParseFormat(s string) *Format { return format.Parse(s) }

// ErrBadRecord is wrapped by errors about events too short for their layout.
var ErrBadRecord = errors.New("malformed event record")

// FormatPrintf formats a printf event (also errorf, warnf, system and cat):
// record starts with the 16-byte event header, and argument i is stored at
// p.Args[i].Offset with type p.Args[i].Type.
//
// The conversions follow bpftrace >= 0.24, which formats with C++ streams:
//
//   - %d %i print signed, %u %o %x %X unsigned, after reinterpreting the
//     64-bit value as the length modifier says: none -> 32 bits, hh -> 8,
//     h -> 16, l ll j z t -> 64 ("%d" of 0x12345678abcdef prints the low 32
//     bits, 2024525295, as C's printf would);
//   - %c prints the low byte as a character, %p as 0x hex (0 as "0");
//   - %s prints any value as FormatValue does; integers in decimal;
//   - %r prints a byte array with printable ASCII kept and other bytes as
//     \xNN, %rx every byte as \xNN, %rh as space-separated hex pairs; for
//     other values they act as %s;
//   - flags: '-' left-aligns, '0' pads with zeros (before any sign or
//     prefix), '+' shows the sign of signed decimal conversions, '#' adds
//     0x/0X/0 prefixes; ' ' and the precision have no effect (the precision
//     only applies to floating point); '*' is accepted and ignored;
//   - a value a conversion cannot print is replaced by "!{reason}".
func FormatPrintf(p *object.Printf, record []byte) (string, error) {
	return NewFormatter().Printf(p, record)
}

// Printf is FormatPrintf with f's hooks.
func (f *Formatter) Printf(p *object.Printf, record []byte) (string, error) {
	b, err := f.AppendPrintf(nil, p, record)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// AppendPrintf appends what Printf returns to dst. It is the event loop's
// hot path: the format is parsed once per object.Printf (Printf.Parsed),
// and integers and strings are formatted into dst without allocating, so
// that with a reused dst a printf of such values costs no allocation.
func (f *Formatter) AppendPrintf(dst []byte, p *object.Printf, record []byte) ([]byte, error) {
	if p == nil {
		return dst, fmt.Errorf("no format: %w", ErrBadRecord)
	}
	pf := p.Parsed()
	if len(pf.Specs) != len(p.Args) {
		return dst, fmt.Errorf("format %q has %d conversions but %d arguments: %w",
			p.Format, len(pf.Specs), len(p.Args), ErrBadRecord)
	}
	start := len(dst)
	for i, a := range p.Args {
		if a.Type == nil || a.Offset < 0 || a.Offset+a.Type.Size > len(record) {
			return dst[:start], fmt.Errorf("argument %d does not fit in a %d-byte record: %w", i, len(record), ErrBadRecord)
		}
		dst = append(dst, pf.Fragments[i]...)
		dst = f.appendSpec(dst, pf.Specs[i], a.Type, record[a.Offset:a.Offset+a.Type.Size])
	}
	return append(dst, pf.Fragments[len(pf.Fragments)-1]...), nil
}

// numeric returns the integer behind a value printed with an integer
// conversion: its 64-bit bits, sign-extended for signed integers.
func numeric(t *types.Type, b []byte) (uint64, bool) {
	switch t.Kind {
	case types.Int:
		return readInt(b, t.Size, t.Signed), true
	case types.Bool:
		if readUint(b, 1) != 0 {
			return 1, true
		}
		return 0, true
	case types.Pointer, types.Ctx, types.Ksym, types.Usym, types.Timestamp, types.Stack,
		types.Count, types.Sum, types.Min, types.Max:
		return readUint(b, 8), true
	}
	return 0, false
}

func signedCast(v uint64, length string) int64 {
	switch length {
	case "hh":
		return int64(int8(v))
	case "h":
		return int64(int16(v))
	case "l", "ll", "j", "z", "t":
		return int64(v)
	}
	return int64(int32(v))
}

func unsignedCast(v uint64, length string) uint64 {
	switch length {
	case "hh":
		return uint64(uint8(v))
	case "h":
		return uint64(uint16(v))
	case "l", "ll", "j", "z", "t":
		return v
	}
	return uint64(uint32(v))
}

// ApplySpec formats one value of type t (bytes b) with conversion sp.
func (f *Formatter) ApplySpec(sp Spec, t *types.Type, b []byte) string {
	return string(f.appendSpec(nil, sp, t, b))
}

// appendSpec appends ApplySpec's result to dst. Integer conversions and %s
// of integers and strings are appended in place; the other conversions go
// through applySpec.
func (f *Formatter) appendSpec(dst []byte, sp Spec, t *types.Type, b []byte) []byte {
	start := len(dst)
	switch sp.Verb {
	case "d", "i", "u", "o", "x", "X", "c", "p":
		v, ok := numeric(t, b)
		if !ok {
			break
		}
		switch sp.Verb {
		case "d", "i":
			n := signedCast(v, sp.Length)
			if sp.Plus && n >= 0 {
				dst = append(dst, '+')
			}
			dst = strconv.AppendInt(dst, n, 10)
		case "c":
			dst = append(dst, byte(v))
		case "p":
			if v == 0 {
				dst = append(dst, '0')
			} else {
				dst = strconv.AppendUint(append(dst, "0x"...), v, 16)
			}
		case "u":
			dst = strconv.AppendUint(dst, unsignedCast(v, sp.Length), 10)
		case "o":
			n := unsignedCast(v, sp.Length)
			if sp.Alt && n != 0 {
				dst = append(dst, '0')
			}
			dst = strconv.AppendUint(dst, n, 8)
		case "x":
			n := unsignedCast(v, sp.Length)
			if sp.Alt && n != 0 {
				dst = append(dst, "0x"...)
			}
			dst = strconv.AppendUint(dst, n, 16)
		case "X":
			n := unsignedCast(v, sp.Length)
			if sp.Alt && n != 0 {
				dst = append(dst, "0X"...)
			}
			digits := len(dst)
			dst = strconv.AppendUint(dst, n, 16)
			for i := digits; i < len(dst); i++ {
				if c := dst[i]; c >= 'a' && c <= 'f' {
					dst[i] = c - 'a' + 'A'
				}
			}
		}
		return padAt(dst, start, sp)
	case "s":
		switch t.Kind {
		case types.String:
			s := cString(b[:min(len(b), t.Size)])
			dst = append(dst, s...)
			if len(s) == t.Size && t.Size > 0 {
				dst = append(dst, f.StrTruncTrailer...)
			}
			return padAt(dst, start, sp)
		case types.Int:
			if en := t.Enum(); en != nil {
				dst = append(dst, types.EnumSymbol(en, readUint(b, t.Size), t.Size)...)
				return padAt(dst, start, sp)
			}
			v := readInt(b, t.Size, t.Signed)
			if sp.Plus && t.Signed && int64(v) >= 0 {
				dst = append(dst, '+')
			}
			if t.Signed {
				dst = strconv.AppendInt(dst, int64(v), 10)
			} else {
				dst = strconv.AppendUint(dst, v, 10)
			}
			return padAt(dst, start, sp)
		}
	}
	return append(dst, f.applySpec(sp, t, b)...)
}

// padAt pads dst[start:] as pad does, in place.
func padAt(dst []byte, start int, sp Spec) []byte {
	width := min(sp.Width, format.MaxWidth)
	n := width - (len(dst) - start)
	if n <= 0 {
		return dst
	}
	fill := byte(' ')
	if sp.Zero {
		fill = '0'
	}
	if sp.Left {
		for ; n > 0; n-- {
			dst = append(dst, fill)
		}
		return dst
	}
	end := len(dst)
	dst = slices.Grow(dst, n)[:end+n]
	copy(dst[start+n:], dst[start:end])
	for i := start; i < start+n; i++ {
		dst[i] = fill
	}
	return dst
}

// applySpec formats the conversions appendSpec does not append in place.
func (f *Formatter) applySpec(sp Spec, t *types.Type, b []byte) string {
	var body, rest string
	switch sp.Verb {
	case "d", "i", "c", "u", "o", "x", "X", "p":
		v, ok := numeric(t, b)
		if !ok {
			return "!{invalid integer conversion: " + f.Value(t, b) + "}"
		}
		switch sp.Verb {
		case "d", "i":
			n := signedCast(v, sp.Length)
			body = strconv.FormatInt(n, 10)
			if sp.Plus && n >= 0 {
				body = "+" + body
			}
		case "c":
			body = string([]byte{byte(v)})
		case "p":
			body = "0"
			if v != 0 {
				body = "0x" + strconv.FormatUint(v, 16)
			}
		default:
			n := unsignedCast(v, sp.Length)
			switch sp.Verb {
			case "u":
				body = strconv.FormatUint(n, 10)
			case "o":
				body = strconv.FormatUint(n, 8)
				if sp.Alt && n != 0 {
					body = "0" + body
				}
			case "x":
				body = strconv.FormatUint(n, 16)
				if sp.Alt && n != 0 {
					body = "0x" + body
				}
			case "X":
				body = strings.ToUpper(strconv.FormatUint(n, 16))
				if sp.Alt && n != 0 {
					body = "0X" + body
				}
			}
		}
	case "gr":
		v, ok := numeric(t, b)
		if !ok {
			return "!{invalid integer conversion: " + f.Value(t, b) + "}"
		}
		body = gfpFlags(v)
	case "r", "rx", "rh":
		if t.Kind == types.Buf || t.Kind == types.Array && t.Elem != nil && t.Elem.Size == 1 {
			body = hexFormatBuffer(t.BufBytes(slice(b, 0, t.Size)), sp.Verb == "r", sp.Verb != "rh")
		} else {
			body, rest = f.stringSpec(sp, t, b)
		}
	case "e", "E", "f", "F", "g", "G", "a", "A":
		v, ok := numeric(t, b)
		if !ok {
			return "!{invalid integer conversion: " + f.Value(t, b) + "}"
		}
		x := float64(v)
		if t.Signed {
			x = float64(int64(v))
		}
		body = formatFloat(sp, x)
	default: // "s", "n" and anything else print the value
		body, rest = f.stringSpec(sp, t, b)
	}
	return pad(sp, body) + rest
}

// stringSpec renders a value for %s. bpftrace streams composite values piece
// by piece, so the width applies to their first piece only: the returned
// head gets the padding, rest follows as is.
func (f *Formatter) stringSpec(sp Spec, t *types.Type, b []byte) (head, rest string) {
	switch t.Kind {
	case types.Int:
		if en := t.Enum(); en != nil {
			return types.EnumSymbol(en, readUint(b, t.Size), t.Size), ""
		}
		v := readInt(b, t.Size, t.Signed)
		s := intString(v, t.Signed)
		if sp.Plus && t.Signed && int64(v) >= 0 {
			s = "+" + s
		}
		return s, ""
	case types.Tuple, types.Array:
		s := f.Value(t, b)
		return s[:1], s[1:]
	case types.Record, types.Struct:
		s := f.Value(t, b)
		if len(t.Fields) == 0 {
			return s, ""
		}
		return s[:2], s[2:]
	}
	return f.Value(t, b), ""
}

// pad pads s to the width as a C++ stream does: fill '0' with the '0' flag,
// otherwise ' '; on the right when left-aligned, else on the left.
func pad(sp Spec, s string) string {
	if sp.Width > format.MaxWidth {
		// The checker rejects such widths; never allocate for them.
		sp.Width = format.MaxWidth
	}
	if sp.Width <= len(s) {
		return s
	}
	fill := " "
	if sp.Zero {
		fill = "0"
	}
	p := strings.Repeat(fill, sp.Width-len(s))
	if sp.Left {
		return s + p
	}
	return p + s
}

// hexFormatBuffer renders bytes like bpftrace's hex_format_buffer.
func hexFormatBuffer(b []byte, keepASCII, escapeHex bool) string {
	var sb strings.Builder
	for i, c := range b {
		switch {
		case keepASCII && c >= 32 && c <= 126:
			sb.WriteByte(c)
		case escapeHex:
			fmt.Fprintf(&sb, "\\x%02x", c)
		default:
			fmt.Fprintf(&sb, "%02x", c)
			if i != len(b)-1 {
				sb.WriteByte(' ')
			}
		}
	}
	return sb.String()
}

// formatFloat approximates a C++ stream printing a double.
func formatFloat(sp Spec, x float64) string {
	prec := 6
	sp.Precision = min(sp.Precision, format.MaxWidth)
	if sp.Precision >= 0 {
		prec = sp.Precision
	}
	var s string
	switch sp.Verb {
	case "f", "F":
		if sp.Precision >= 0 {
			s = strconv.FormatFloat(x, 'f', prec, 64)
		} else {
			s = strconv.FormatFloat(x, 'g', prec, 64)
		}
	case "e", "E":
		if sp.Precision >= 0 {
			s = strconv.FormatFloat(x, 'e', prec, 64)
		} else {
			s = strconv.FormatFloat(x, 'g', prec, 64)
		}
	default:
		s = strconv.FormatFloat(x, 'g', max(prec, 1), 64)
	}
	if sp.Plus && x >= 0 {
		s = "+" + s
	}
	return s
}

// FormatPrintValue formats an EventPrintValue record: print(v) of a single
// non-map value, p.Args[0], followed by a newline.
func (f *Formatter) FormatPrintValue(p *object.Printf, record []byte) (string, error) {
	if p == nil || len(p.Args) != 1 {
		return "", fmt.Errorf("print() takes one argument: %w", ErrBadRecord)
	}
	a := p.Args[0]
	if a.Type == nil || a.Offset < 0 || a.Offset+a.Type.Size > len(record) {
		return "", fmt.Errorf("argument does not fit in a %d-byte record: %w", len(record), ErrBadRecord)
	}
	return f.Value(a.Type, record[a.Offset:a.Offset+a.Type.Size]) + "\n", nil
}
