package output

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gotrace/gotrace/format"
)

var oracle = flag.Bool("oracle", false, "rebuild testdata/printf_oracle.txt.gz with g++ from testdata/printf_oracle.cpp")

const oracleFile = "testdata/printf_oracle.txt.gz"

// agreementFormats returns the formats of the agreement table: every
// combination of flags (in bpftrace's order, and some out of order),
// width, precision, length modifier and verb, as "%...|".
func agreementFormats() []string {
	var flags []string
	for m := 0; m < 32; m++ {
		var b strings.Builder
		for i, c := range "-+ #0" {
			if m&(1<<i) != 0 {
				b.WriteRune(c)
			}
		}
		flags = append(flags, b.String())
	}
	flags = append(flags, "0-", "+-", " +", "#-", "0#", "--", "00", "0+")
	widths := []string{"", "0", "7", "*", "12"}
	precs := []string{"", ".3", ".*", "."}
	lengths := []string{"", "hh", "h", "l", "ll", "j", "z", "t", "L", "lh"}
	verbs := []string{"d", "i", "u", "o", "x", "X", "c", "p", "s", "r", "rx", "rh", "gr", "g", "e", "f", "n", "%", "q", "b"}
	var out []string
	for _, f := range flags {
		for _, w := range widths {
			for _, p := range precs {
				for _, l := range lengths {
					for _, v := range verbs {
						out = append(out, "%"+f+w+p+l+v+"|")
					}
				}
			}
		}
	}
	return out
}

// oracleLine is what bpftrace's grammar and C++ streams make of a format.
type oracleLine struct {
	n       int      // conversions
	verb    string   // of the first conversion
	results []string // -42, 255 and 0 printed with it, for one integer conversion
}

func readOracle(t *testing.T) map[string]oracleLine {
	t.Helper()
	f, err := os.Open(oracleFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]oracleLine{}
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) < 3 {
			t.Fatalf("bad oracle line %q", sc.Text())
		}
		n, err := strconv.Atoi(fields[1])
		if err != nil {
			t.Fatalf("bad oracle line %q", sc.Text())
		}
		l := oracleLine{n: n, verb: fields[2]}
		for _, h := range fields[3:] {
			b, err := hex.DecodeString(h)
			if err != nil {
				t.Fatalf("bad oracle line %q", sc.Text())
			}
			l.results = append(l.results, string(b))
		}
		out[fields[0]] = l
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func writeOracle(t *testing.T, formats []string) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "oracle")
	if out, err := exec.Command("g++", "-O1", "-o", bin, "testdata/printf_oracle.cpp").CombinedOutput(); err != nil {
		t.Fatalf("g++: %v\n%s", err, out)
	}
	cmd := exec.Command(bin)
	cmd.Stdin = strings.NewReader(strings.Join(formats, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(out)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(oracleFile, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkerAccepts is the checker's decision (lang/printf.go and
// checkPrintf) for a format with one int64 argument.
func checkerAccepts(f *format.Format) bool {
	if len(f.Specs) != 1 || len(f.Check()) > 0 {
		return false
	}
	kind, err := f.Specs[0].Arg()
	return err == nil && (kind == format.Integer || kind == format.Any)
}

// TestPrintfAgreement runs every format of agreementFormats through the
// grammar the checker validates with and the printer, and compares with
// the reference: bpftrace 0.26's conversion grammar and its C++ stream
// formatting, as testdata/printf_oracle.cpp implements them. The checker
// must accept exactly what bpftrace accepts for an integer argument (less
// %gr, which gotrace does not implement), and every accepted format must
// print byte for byte what bpftrace prints.
func TestPrintfAgreement(t *testing.T) {
	formats := agreementFormats()
	if *oracle {
		writeOracle(t, formats)
	}
	want := readOracle(t)
	accepted := 0
	for _, fs := range formats {
		w, ok := want[fs]
		if !ok {
			t.Fatalf("%q is not in %s (go test ./output -run TestPrintfAgreement -oracle)", fs, oracleFile)
		}
		f := format.Parse(fs)
		if len(f.Specs) != w.n {
			t.Errorf("%q: %d conversions, bpftrace has %d", fs, len(f.Specs), w.n)
			continue
		}
		if w.n > 0 && f.Specs[0].Verb != w.verb {
			t.Errorf("%q: verb %q, bpftrace has %q", fs, f.Specs[0].Verb, w.verb)
			continue
		}
		bpftraceAccepts := len(w.results) == 3
		if got := checkerAccepts(f); got != bpftraceAccepts && !(w.n == 1 && w.verb == "gr") {
			t.Errorf("%q: checker accepts=%v, bpftrace accepts=%v", fs, got, bpftraceAccepts)
			continue
		}
		if !bpftraceAccepts {
			continue
		}
		accepted++
		for i, v := range []int64{-42, 255, 0} {
			p, rec := event(fs, iarg(v))
			got, err := FormatPrintf(p, rec)
			if err != nil {
				t.Errorf("%q of %d: %v", fs, v, err)
				continue
			}
			if want := w.results[i] + "|"; got != want {
				t.Errorf("%q of %d: got %q, bpftrace prints %q", fs, v, got, want)
			}
		}
	}
	t.Logf("%d formats, %d accepted for an integer argument", len(formats), accepted)
	if accepted == 0 {
		t.Fatal("no format accepted")
	}
}

// TestPrintfWidthCap checks that widths and precisions past
// format.MaxWidth are rejected and never padded to.
func TestPrintfWidthCap(t *testing.T) {
	for _, fs := range []string{"%77777777777777X", "%4097d", "%.4097s", "%99999999999999999999999d"} {
		f := format.Parse(fs)
		if len(f.Specs) != 1 || len(f.Check()) != 1 {
			t.Errorf("%q: want one conversion, rejected: %+v", fs, f.Check())
		}
		p, rec := event(fs, iarg(1))
		got, err := FormatPrintf(p, rec)
		if err != nil || len(got) > format.MaxWidth {
			t.Errorf("%q printed %d bytes, %v", fs, len(got), err)
		}
	}
	if f := format.Parse("%4096d"); len(f.Check()) != 0 {
		t.Errorf("%%4096d rejected: %v", f.Check()[0])
	}
}
