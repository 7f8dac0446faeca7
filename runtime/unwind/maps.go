package unwind

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Mapping is one file-backed executable mapping of a process, as
// /proc/PID/maps lists it, or its uprobes page (Path XOLPath), where the
// uretprobe trampoline is.
type Mapping struct {
	Start, End uint64 // the addresses mapped
	Offset     uint64 // the file offset mapped at Start
	Path       string
}

// XOLPath names the mapping of the uprobes page.
const XOLPath = "[uprobes]"

// ParseMaps reads the executable file mappings and the uprobes page of a
// /proc/PID/maps text.
func ParseMaps(r io.Reader) ([]Mapping, error) {
	var ms []Mapping
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		// start-end perms offset dev inode path
		f := strings.Fields(sc.Text())
		if len(f) < 6 || len(f[1]) < 3 || f[1][2] != 'x' || !strings.HasPrefix(f[5], "/") && f[5] != XOLPath {
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		if !ok {
			return nil, fmt.Errorf("maps line %q: no address range", sc.Text())
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		off, err3 := strconv.ParseUint(f[2], 16, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, fmt.Errorf("maps line %q: bad number", sc.Text())
		}
		ms = append(ms, Mapping{Start: start, End: end, Offset: off, Path: strings.Join(f[5:], " ")})
	}
	return ms, sc.Err()
}
