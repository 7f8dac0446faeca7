package output

import (
	"io"
	"slices"
	"strings"

	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/object"
)

// FormatFolded prints maps keyed by stacks as folded stacks, one line per
// entry, which flame graph tools read directly (flamegraph.pl,
// inferno-flamegraph, speedscope); everything else prints as text.
const FormatFolded OutputFormat = "folded"

// Folded reports whether m prints as folded stacks: one of its keys is a
// stack and its value is a number (count, sum, an integer, min, max, avg).
func Folded(m *object.Map) bool {
	if m == nil || m.Value == nil {
		return false
	}
	switch m.Value.Kind {
	case types.Count, types.Sum, types.Int, types.Min, types.Max, types.Avg:
	default:
		return false
	}
	return slices.ContainsFunc(m.Keys, func(t *types.Type) bool { return t != nil && t.Kind == types.Stack })
}

// WriteMapFolded prints m as folded stacks when Folded(m), else as
// WriteMap does. Each entry is one line: its key's frames from the
// outermost to the innermost, after its other key components (a comm, a
// pid) as frames of their own, separated by ';', then a space and the
// value. Frames are written as the text format names them; a ';' in one
// becomes ':'. The entries are in WriteMap's order.
func (f *Formatter) WriteMapFolded(w io.Writer, m *object.Map, entries []Entry, opt MapOptions) error {
	if !Folded(m) {
		return f.WriteMap(w, m, entries, opt)
	}
	fields, items, err := f.plainItems(m, entries, opt, textPlain)
	if err != nil {
		return err
	}
	var sb strings.Builder
	for _, it := range items {
		var frames []string
		for _, kf := range fields {
			v := f.Value(kf.t, slice(it.key, kf.off, kf.t.Size))
			if kf.t.Kind != types.Stack {
				frames = append(frames, foldFrame(v))
				continue
			}
			var stack []string
			for _, l := range strings.Split(v, "\n") {
				if l = strings.TrimSpace(l); l != "" {
					stack = append(stack, foldFrame(l))
				}
			}
			slices.Reverse(stack)
			frames = append(frames, stack...)
		}
		if len(frames) == 0 {
			frames = []string{m.Name}
		}
		sb.WriteString(strings.Join(frames, ";"))
		sb.WriteString(" ")
		sb.WriteString(it.text)
		sb.WriteString("\n")
	}
	_, err = io.WriteString(w, sb.String())
	return err
}

// foldFrame makes s one frame of a folded stack: no ';' (the separator),
// no newline.
func foldFrame(s string) string {
	s = strings.TrimSpace(strings.ReplaceAll(s, ";", ":"))
	return strings.ReplaceAll(s, "\n", " ")
}
