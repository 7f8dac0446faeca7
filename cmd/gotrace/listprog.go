package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace"
	"github.com/gotrace/gotrace/provider"
)

// listSearch implements -l and -lv without a program: search is a comma
// separated list of probe patterns, listed by listProbes (uprobes of the
// process pid when not 0), and of "struct
// NAME" / "union NAME" / "enum NAME" items, whose definitions -lv prints
// from the kernel's BTF.
func listSearch(stdout, stderr io.Writer, search string, verbose bool, pid int, traceable string) int {
	if search == "" {
		return listProbes(stdout, stderr, "", verbose, pid, traceable)
	}
	status := 0
	for _, item := range strings.Split(search, ",") {
		item = strings.TrimSpace(item)
		if kind, name, ok := strings.Cut(item, " "); ok && (kind == "struct" || kind == "union" || kind == "enum") {
			if verbose {
				if err := printType(stdout, kind, strings.TrimSpace(name)); err != nil {
					fmt.Fprintf(stderr, "ERROR: %v\n", err)
					status = 1
				}
			}
			continue
		}
		if rc := listProbes(stdout, stderr, item, verbose, pid, traceable); rc != 0 {
			status = rc
		}
	}
	return status
}

// listProgram implements -l with a program (-e or a file): it prints the
// program's attach points after expansion, one a line, with their
// arguments when verbose, as -lv shows them.
func listProgram(stdout, stderr io.Writer, cfg *config, name, src string) int {
	copts := compileOptions(cfg)
	copts.Pid = cfg.out.pidN
	script, err := gotrace.Compile(name, src, copts)
	if err != nil {
		fmt.Fprint(stderr, gotrace.FormatError(err, src))
		return 1
	}
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	// Every attach point of every probe, in the script's order, as
	// bpftrace lists them: one that two probes (or two patterns of one)
	// name is listed for each.
	for _, p := range script.Checked.Probes {
		for _, ap := range p.Points {
			name, listed := provider.Lookup(ap.Provider).ListingName(ap)
			if !listed {
				continue
			}
			if verbose := cfg.listV; verbose {
				var buf bytes.Buffer
				listProbes(&buf, io.Discard, ap.Name, true, cfg.out.pidN, cfg.traceable)
				if buf.Len() > 0 {
					w.Write(buf.Bytes())
					continue
				}
			}
			fmt.Fprintln(w, name)
		}
	}
	return 0
}

// printType prints the C definition of the named struct, union or enum
// from the kernel's BTF.
func printType(w io.Writer, kind, name string) error {
	spec, err := gotrace.NewKernelEnv().BTF()
	if err != nil {
		return fmt.Errorf("%s %s: no kernel BTF: %w", kind, name, err)
	}
	types, err := spec.AnyTypesByName(name)
	if err != nil {
		return fmt.Errorf("%s %s: not found in the kernel's BTF", kind, name)
	}
	for _, t := range types {
		var b strings.Builder
		switch v := t.(type) {
		case *btf.Struct:
			if kind != "struct" {
				continue
			}
			writeMembers(&b, "struct "+name, v.Members)
		case *btf.Union:
			if kind != "union" {
				continue
			}
			writeMembers(&b, "union "+name, v.Members)
		case *btf.Enum:
			if kind != "enum" {
				continue
			}
			fmt.Fprintf(&b, "enum %s {\n", name)
			for _, val := range v.Values {
				fmt.Fprintf(&b, "\t%s = %d,\n", val.Name, val.Value)
			}
			b.WriteString("};\n")
		default:
			continue
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
	return fmt.Errorf("%s %s: not found in the kernel's BTF", kind, name)
}

// writeMembers writes a struct or union definition, one member a line.
func writeMembers(b *strings.Builder, head string, members []btf.Member) {
	fmt.Fprintf(b, "%s {\n", head)
	for _, m := range members {
		decl := memberDecl(m.Type, m.Name, 0)
		if m.BitfieldSize > 0 {
			decl += fmt.Sprintf(" : %d", m.BitfieldSize)
		}
		fmt.Fprintf(b, "\t%s;\n", decl)
	}
	b.WriteString("};\n")
}

// memberDecl renders the C declaration of name with type t: arrays and
// function pointers wrap the name, anonymous structs and unions are
// written as "struct {...}".
func memberDecl(t btf.Type, name string, depth int) string {
	sp := func(s string) string {
		if name == "" {
			return s
		}
		if strings.HasSuffix(s, "*") {
			return s + name
		}
		return s + " " + name
	}
	if depth > 16 {
		return sp("?")
	}
	switch v := t.(type) {
	case nil, *btf.Void:
		return sp("void")
	case *btf.Int:
		return sp(v.Name)
	case *btf.Float:
		return sp(v.Name)
	case *btf.Typedef:
		return sp(v.Name)
	case *btf.Struct:
		return sp("struct " + anon(v.Name))
	case *btf.Union:
		return sp("union " + anon(v.Name))
	case *btf.Enum:
		return sp("enum " + anon(v.Name))
	case *btf.Fwd:
		return sp(v.Kind.String() + " " + v.Name)
	case *btf.Const:
		return "const " + memberDecl(v.Type, name, depth+1)
	case *btf.Volatile:
		return "volatile " + memberDecl(v.Type, name, depth+1)
	case *btf.Restrict:
		return memberDecl(v.Type, name, depth+1)
	case *btf.TypeTag:
		return memberDecl(v.Type, name, depth+1)
	case *btf.Pointer:
		if fp, ok := v.Target.(*btf.FuncProto); ok {
			var params []string
			for _, p := range fp.Params {
				params = append(params, memberDecl(p.Type, "", depth+1))
			}
			return memberDecl(fp.Return, "(*"+name+")("+strings.Join(params, ", ")+")", depth+1)
		}
		return memberDecl(v.Target, "*"+name, depth+1)
	case *btf.Array:
		return memberDecl(v.Type, fmt.Sprintf("%s[%d]", name, v.Nelems), depth+1)
	}
	return sp(t.TypeName())
}

// anon names an anonymous struct, union or enum.
func anon(name string) string {
	if name == "" {
		return "{...}"
	}
	return name
}
