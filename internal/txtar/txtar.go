package txtar

import (
	"fmt"
	"strings"
)

// Archive is a comment and its sections, in order.
type Archive struct {
	Comment string
	Files   []File
}

// File is one section: its name and its text, up to the next section.
type File struct {
	Name string
	Data string
}

// Parse reads an archive.
func Parse(data string) Archive {
	var a Archive
	cur := -1
	for _, line := range strings.SplitAfter(data, "\n") {
		trimmed := strings.TrimRight(line, "\n")
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") && len(trimmed) > 6 {
			a.Files = append(a.Files, File{Name: trimmed[3 : len(trimmed)-3]})
			cur = len(a.Files) - 1
			continue
		}
		if cur < 0 {
			a.Comment += line
		} else {
			a.Files[cur].Data += line
		}
	}
	return a
}

// Format writes the archive back.
func (a Archive) Format() string {
	var b strings.Builder
	b.WriteString(a.Comment)
	for _, f := range a.Files {
		fmt.Fprintf(&b, "-- %s --\n%s", f.Name, f.Data)
	}
	return b.String()
}

// Get returns the text of the section name.
func (a Archive) Get(name string) (string, bool) {
	for _, f := range a.Files {
		if f.Name == name {
			return f.Data, true
		}
	}
	return "", false
}

// Set replaces the text of the section name, or appends the section.
func (a *Archive) Set(name, data string) {
	for i := range a.Files {
		if a.Files[i].Name == name {
			a.Files[i].Data = data
			return
		}
	}
	a.Files = append(a.Files, File{Name: name, Data: data})
}
